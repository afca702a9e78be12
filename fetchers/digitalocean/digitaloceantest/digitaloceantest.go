// Package digitaloceantest is a fake of DigitalOcean's GET /v2/sizes for
// tests. It serves the sizes of the gpuhunt test fixture in testdata/ (no
// real capture was found; see its README) to one token, paged as the API
// pages (links.pages.next a full URL, meta.total: both constructed here
// for the rows served), and lets a test change a size or the paging.
package digitaloceantest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

//go:embed testdata/v2-sizes-gpuhunt-test-fixture.json
var fixture []byte

// Path is the size list's path.
const Path = "/v2/sizes"

// Server is the fake API.
type Server struct {
	*httptest.Server
	fetcherstest.Faults
	// Token is the one bearer token accepted.
	Token string

	mu       sync.Mutex
	sizes    []map[string]any
	pageSize int
	repeat   bool
}

// Sizes returns the fixture's sizes.
func Sizes(t testing.TB) []map[string]any {
	t.Helper()
	var doc struct {
		Sizes []map[string]any `json:"sizes"`
	}
	if err := json.Unmarshal(fixture, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Sizes
}

// New starts a fake serving the fixture's sizes, two a page, to token.
func New(t testing.TB, token string) *Server {
	t.Helper()
	s := &Server{Token: token, sizes: Sizes(t), pageSize: 2}
	s.Server = s.Serve(t, &s.mu, http.MethodGet, Path, s.serve)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+s.Token {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"id":"Unauthorized","message":"Unable to authenticate you"}`))
		return
	}
	q := r.URL.Query()
	n, err := strconv.Atoi(q.Get("page"))
	if err != nil || n < 1 || q.Get("per_page") != "200" || (n-1)*s.pageSize > len(s.sizes) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"id":"bad_request","message":"invalid page"}`))
		return
	}
	start := (n - 1) * s.pageSize
	end := min(start+s.pageSize, len(s.sizes))
	pages := map[string]string{}
	if end < len(s.sizes) {
		next := n + 1
		if s.repeat && n > 1 {
			next = n
		}
		pages["next"] = fmt.Sprintf("%s%s?page=%d&per_page=200", s.URL, Path, next)
	}
	if n > 1 {
		pages["prev"] = fmt.Sprintf("%s%s?page=%d&per_page=200", s.URL, Path, n-1)
	}
	body, _ := json.MarshalIndent(map[string]any{"sizes": s.sizes[start:end], "links": map[string]any{"pages": pages},
		"meta": map[string]any{"total": len(s.sizes)}}, "", " ")
	if !fetcherstest.Write(w, s.Next(), body, `{"id":"too_many_requests","message":"API Rate limit exceeded."}`) {
		w.Write(body)
	}
}

// Set changes a field of size slug.
func (s *Server) Set(t testing.TB, slug, field string, value any) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, z := range s.sizes {
		if z["slug"] == slug {
			z[field] = value
			return
		}
	}
	t.Fatalf("digitaloceantest: no size %s", slug)
}

// SetSizes replaces the sizes served.
func (s *Server) SetSizes(sizes []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sizes = sizes
}

// RepeatNext makes the second page hand out its own link again (one size
// a page).
func (s *Server) RepeatNext() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repeat, s.pageSize = true, 1
}
