// Package vastaitest is a fake Vast.ai offer search for tests. It serves
// offers in the real response format (whole offer objects from real
// captures, or variants of them) and answers GET /api/v0/bundles/?q=<JSON>
// the way the real search does: filters on gpu_name, rentable, rented and
// dph_total (eq, gt, gte, lt, lte), ascending dph_total order and a limit
// clamped to 64 offers.
package vastaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// MaxLimit is what the real server clamps a page to.
const MaxLimit = 64

// Offer is one offer object, kept whole so that responses carry every field
// the real API sends.
type Offer map[string]json.RawMessage

// LoadOffers reads the "offers" of a captured response.
func LoadOffers(t testing.TB, path string) []Offer {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Offers []Offer `json:"offers"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return body.Offers
}

// With returns a copy of o with the given fields replaced (values are
// marshalled; pass json.Number for an exact price).
func (o Offer) With(t testing.TB, fields map[string]any) Offer {
	t.Helper()
	c := Offer{}
	for k, v := range o {
		c[k] = v
	}
	for k, v := range fields {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		c[k] = b
	}
	return c
}

// Server is the fake search.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	offers   []Offer
	throttle int // answer this many next requests with 429
	truncate int // cut this many next bodies in half
	// LeakUnrentable serves offers whatever the rentable and rented
	// filters say, to test that the client checks them itself.
	leak bool
	// leakGPUs serves offers whatever the gpu_name filter says.
	leakGPUs bool
	// ignoreFloor serves offers whatever the dph_total filter says: every
	// page is the first, as a search that does not page on would answer.
	ignoreFloor bool
	requests    []map[string]any
}

// NewServer starts a fake serving offers; it stops with the test.
func NewServer(t testing.TB, offers []Offer) *Server {
	s := &Server{offers: offers}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// SetOffers replaces the book.
func (s *Server) SetOffers(offers []Offer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offers = offers
}

// Throttle answers the next n requests with HTTP 429.
func (s *Server) Throttle(n int) { s.mu.Lock(); s.throttle = n; s.mu.Unlock() }

// Truncate cuts the next n response bodies in half.
func (s *Server) Truncate(n int) { s.mu.Lock(); s.truncate = n; s.mu.Unlock() }

// LeakUnrentable makes the fake ignore the rentable and rented filters.
func (s *Server) LeakUnrentable() { s.mu.Lock(); s.leak = true; s.mu.Unlock() }

// LeakOtherGPUs makes the fake ignore the gpu_name filter, as an answer
// holding an offer of another GPU does.
func (s *Server) LeakOtherGPUs() { s.mu.Lock(); s.leakGPUs = true; s.mu.Unlock() }

// IgnoreFloor makes the fake ignore the dph_total filter the fetcher
// pages on, so that every page repeats the first.
func (s *Server) IgnoreFloor() { s.mu.Lock(); s.ignoreFloor = true; s.mu.Unlock() }

// Requests returns the decoded q of every request so far.
func (s *Server) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || r.URL.Path != "/api/v0/bundles/" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var q map[string]any
	dec := json.NewDecoder(strings.NewReader(r.URL.Query().Get("q")))
	dec.UseNumber()
	if err := dec.Decode(&q); err != nil {
		http.Error(w, `{"error": "invalid q"}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, q)
	if s.throttle > 0 {
		s.throttle--
		s.mu.Unlock()
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"detail": "Too many requests"}`, http.StatusTooManyRequests)
		return
	}
	truncate := s.truncate > 0
	if truncate {
		s.truncate--
	}
	offers, leak, leakGPUs := s.offers, s.leak, s.leakGPUs
	if s.ignoreFloor {
		delete(q, "dph_total")
	}
	s.mu.Unlock()

	type hit struct {
		o     Offer
		price decimal.Decimal
		id    int64
	}
	var hits []hit
	for _, o := range offers {
		ok, price, id, err := matches(o, q, leak, leakGPUs)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if ok {
			hits = append(hits, hit{o, price, id})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].price.LessThan(hits[j].price) })
	limit := MaxLimit
	if n, ok := q["limit"].(json.Number); ok {
		if v, err := n.Int64(); err == nil && v > 0 && v < MaxLimit {
			limit = int(v)
		}
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out := struct {
		Offers []Offer `json:"offers"`
	}{Offers: []Offer{}}
	for _, h := range hits {
		out.Offers = append(out.Offers, h.o)
	}
	fetcherstest.WriteJSON(w, out, truncate)
}

func matches(o Offer, q map[string]any, leak, leakGPUs bool) (bool, decimal.Decimal, int64, error) {
	var price decimal.Decimal
	if err := json.Unmarshal(o["dph_total"], &price); err != nil {
		return false, price, 0, fmt.Errorf("offer dph_total: %v", err)
	}
	id, _ := strconv.ParseInt(string(o["id"]), 10, 64)
	for field, cond := range q {
		ops, ok := cond.(map[string]any)
		if !ok {
			continue // type, order, limit
		}
		if (leak && (field == "rentable" || field == "rented")) || (leakGPUs && field == "gpu_name") {
			continue
		}
		raw, present := o[field]
		if !present {
			return false, price, id, nil
		}
		for op, want := range ops {
			if !compare(raw, op, want) {
				return false, price, id, nil
			}
		}
	}
	return true, price, id, nil
}

func compare(raw json.RawMessage, op string, want any) bool {
	switch w := want.(type) {
	case json.Number:
		var have, bound decimal.Decimal
		if json.Unmarshal(raw, &have) != nil {
			return false
		}
		bound, err := decimal.NewFromString(w.String())
		if err != nil {
			return false
		}
		switch op {
		case "eq":
			return have.Equal(bound)
		case "gt":
			return have.GreaterThan(bound)
		case "gte":
			return have.GreaterThanOrEqual(bound)
		case "lt":
			return have.LessThan(bound)
		case "lte":
			return have.LessThanOrEqual(bound)
		}
	case string:
		var have string
		return json.Unmarshal(raw, &have) == nil && op == "eq" && have == w
	case bool:
		var have bool
		return json.Unmarshal(raw, &have) == nil && op == "eq" && have == w
	}
	return false
}
