// Package scalewaytest is a fake of Scaleway's Instance product endpoints
// for tests: it serves, for zone fr-par-2, the real captures in testdata/
// (two catalogue pages and two availability pages, trimmed; see its
// README), an empty page after the last, and lets a test change a type's
// price or stock, replace a page or make the next responses fail.
package scalewaytest

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// Zone is the zone the captures are of.
const Zone = "fr-par-2"

// The captures, in page order.
var (
	//go:embed testdata/products-servers-fr-par-2-page1-cut-20260822.json
	servers1 []byte
	//go:embed testdata/products-servers-fr-par-2-page2-trimmed-20260822.json
	servers2 []byte
	//go:embed testdata/products-servers-availability-fr-par-2-page1-trimmed-20260825.json
	stock1 []byte
	//go:embed testdata/products-servers-availability-fr-par-2-page2-trimmed-20260825.json
	stock2 []byte
)

// Listings the fake serves.
const (
	Servers      = "servers"
	Availability = "availability"
)

// Pages returns copies of the captured pages of a listing.
func Pages(listing string) [][]byte {
	src := [][]byte{servers1, servers2}
	if listing == Availability {
		src = [][]byte{stock1, stock2}
	}
	out := make([][]byte, len(src))
	for i, b := range src {
		out[i] = append([]byte(nil), b...)
	}
	return out
}

// Server is the fake API.
type Server struct {
	*httptest.Server
	fetcherstest.Faults

	mu    sync.Mutex
	pages map[string][][]byte
}

// New starts a fake serving the captures for Zone.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{pages: map[string][][]byte{Servers: Pages(Servers), Availability: Pages(Availability)}}
	s.Server = fetcherstest.Start(t, s.serve)
	return s
}

const prefix = "/instance/v1/zones/" + Zone + "/products/servers"

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.Seen(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	listing := ""
	switch r.URL.Path {
	case prefix:
		listing = Servers
	case prefix + "/availability":
		listing = Availability
	}
	if r.Method != http.MethodGet || listing == "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"message":"resource is not found","type":"not_found"}`))
		return
	}
	n, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || n < 1 || r.URL.Query().Get("per_page") != "100" {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"message":"invalid argument(s)","type":"invalid_arguments"}`))
		return
	}
	body := []byte(`{"servers": {}}`) // after the last page, as the live API answered page 3
	if pages := s.pages[listing]; n <= len(pages) {
		body = pages[n-1]
	}
	w.Header().Set("Content-Type", "application/json")
	if !fetcherstest.Write(w, s.Next(), body, `{"message":"quota exceeded","type":"too_many_requests"}`) {
		w.Write(body)
	}
}

// SetPages replaces a listing's pages (none: the first page is empty).
func (s *Server) SetPages(listing string, pages ...[]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[listing] = pages
}

// Set changes, on whichever page lists it, the field of type name to
// value (hourly_price in the catalogue, availability in the map).
func (s *Server) Set(t testing.TB, listing, name, field string, value any) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, b := range s.pages[listing] {
		var doc map[string]map[string]map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		entry, ok := doc["servers"][name]
		if !ok {
			continue
		}
		entry[field] = value
		out, err := json.MarshalIndent(doc, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		s.pages[listing][i] = out
		return
	}
	t.Fatalf("scalewaytest: no %s entry %s", listing, name)
}

// Replace replaces old (which must occur once) by new in a listing's
// pages: a row spoiled as the API never writes it.
func (s *Server) Replace(t testing.TB, listing, old, new string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	found := 0
	for i, b := range s.pages[listing] {
		if c := strings.Count(string(b), old); c > 0 {
			found += c
			s.pages[listing][i] = []byte(strings.Replace(string(b), old, new, 1))
		}
	}
	if found != 1 {
		t.Fatalf("scalewaytest: %q occurs %d times in the %s pages, want once", old, found, listing)
	}
}
