// Package ocitest is a fake of Oracle's public price list for tests. It
// serves the items of a real capture (each item kept whole) at
// /pls/apex/cetools/api/v1/products/?currencyCode=USD, in one page like the
// real list, or split into APEX pages (hasMore, links rel="next", offset)
// to test paging.
package ocitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// Path is where the fake answers.
const Path = "/pls/apex/cetools/api/v1/products/"

// Item is one price-list item, kept whole.
type Item map[string]json.RawMessage

// PartNumber returns the item's part number.
func (it Item) PartNumber() string {
	var s string
	_ = json.Unmarshal(it["partNumber"], &s)
	return s
}

// Capture is a captured list: its lastUpdated and items.
type Capture struct {
	LastUpdated string `json:"lastUpdated"`
	Items       []Item `json:"items"`
}

// Load reads a captured response.
func Load(t testing.TB, path string) Capture {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c Capture
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

// Without returns the capture without the items of the given part numbers.
func (c Capture) Without(parts ...string) Capture {
	drop := map[string]bool{}
	for _, p := range parts {
		drop[p] = true
	}
	out := Capture{LastUpdated: c.LastUpdated}
	for _, it := range c.Items {
		if !drop[it.PartNumber()] {
			out.Items = append(out.Items, it)
		}
	}
	return out
}

// Server is the fake price list.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	list     Capture
	pageSize int  // 0: everything in one page, no paging fields (as captured)
	loop     bool // every next link points back to the first page
	throttle int
	truncate int
	raw      []byte // served verbatim when set
	requests []string
}

// NewServer starts a fake serving list; it stops with the test.
func NewServer(t testing.TB, list Capture) *Server {
	s := &Server{list: list}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// SetList replaces the list served.
func (s *Server) SetList(c Capture) { s.mu.Lock(); s.list = c; s.raw = nil; s.mu.Unlock() }

// SetRaw serves body as it is, whatever is asked.
func (s *Server) SetRaw(body []byte) { s.mu.Lock(); s.raw = body; s.mu.Unlock() }

// Paginate splits the list into APEX pages of n items.
func (s *Server) Paginate(n int) { s.mu.Lock(); s.pageSize = n; s.mu.Unlock() }

// LoopPages splits the list into pages of n items whose next link always
// points back to the first: a list that never ends.
func (s *Server) LoopPages(n int) { s.mu.Lock(); s.pageSize, s.loop = n, true; s.mu.Unlock() }

// Throttle answers the next n requests with HTTP 429.
func (s *Server) Throttle(n int) { s.mu.Lock(); s.throttle = n; s.mu.Unlock() }

// Truncate cuts the next n bodies in half.
func (s *Server) Truncate(n int) { s.mu.Lock(); s.truncate = n; s.mu.Unlock() }

// Requests lists the request URIs so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || r.URL.Path != Path {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, r.URL.RequestURI())
	if s.throttle > 0 {
		s.throttle--
		s.mu.Unlock()
		w.Header().Set("Retry-After", "0")
		http.Error(w, "rate limited", http.StatusTooManyRequests)
		return
	}
	truncate := s.truncate > 0
	if truncate {
		s.truncate--
	}
	list, size, raw, loop := s.list, s.pageSize, s.raw, s.loop
	s.mu.Unlock()
	if r.URL.Query().Get("currencyCode") != "USD" {
		// Without it items carry several currencies; the fetcher must ask.
		http.Error(w, "want currencyCode=USD", http.StatusBadRequest)
		return
	}
	var body any
	switch {
	case raw != nil:
		body = raw
	case size == 0:
		body = list
	default:
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		end := min(offset+size, len(list.Items))
		page := map[string]any{
			"lastUpdated": list.LastUpdated, "items": list.Items[min(offset, len(list.Items)):end],
			"hasMore": end < len(list.Items), "limit": size, "offset": offset, "count": end - offset,
		}
		switch {
		case loop:
			page["hasMore"] = true
			page["links"] = []map[string]string{{"rel": "next", "href": Path + "?currencyCode=USD&offset=0"}}
		case end < len(list.Items):
			page["links"] = []map[string]string{{"rel": "next", "href": fmt.Sprintf("%s?currencyCode=USD&offset=%d", Path, end)}}
		}
		body = page
	}
	fetcherstest.WriteJSON(w, body, truncate)
}
