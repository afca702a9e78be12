// Package vultrtest is a fake of Vultr's plan lists and region
// availability for tests. It serves the gpuhunt test fixtures in testdata/
// (no real capture was found; see its README), paged by cursor as the live
// API pages (meta.links.next, meta.total: constructed here, the fixtures
// have no meta), and a constructed available_plans list per region to
// the key it is given.
package vultrtest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

var (
	//go:embed testdata/plans-type-all-gpuhunt-test-fixture.json
	plansJSON []byte
	//go:embed testdata/plans-metal-gpuhunt-test-fixture.json
	metalJSON []byte
)

// Lists the fake serves, by their array's name.
const (
	Plans = "plans"
	Metal = "plans_metal"
)

// Server is the fake API.
type Server struct {
	*httptest.Server
	fetcherstest.Faults
	// Key is the key region availability needs.
	Key string

	mu    sync.Mutex
	rows  map[string][]map[string]any
	stock map[string][]string // region → available_plans; a region absent answers 500
	// PageSize is how many rows a page holds (the live API: per_page).
	PageSize int
	repeat   bool
}

func rows(t testing.TB, b []byte, field string) []map[string]any {
	var doc map[string][]map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc[field]
}

// New starts a fake serving the fixtures, two rows a page, region
// availability to key: in ewr the 4 and 80 GB A100 plans (the 40 GB one
// sold out), in ord the MI300X metal plan, in sea the H100 one.
func New(t testing.TB, key string) *Server {
	t.Helper()
	s := &Server{Key: key, PageSize: 2, rows: map[string][]map[string]any{Plans: rows(t, plansJSON, Plans), Metal: rows(t, metalJSON, Metal)},
		stock: map[string][]string{
			"ewr": {"vc2-1c-1gb", "vcg-a100-1c-6g-4vram", "vcg-a100-12c-120g-80vram"},
			"ord": {"vbm-256c-2048gb-8-mi300x-gpu"},
			"sea": {"vbm-112c-2048gb-8-h100-gpu"},
		}}
	s.Server = fetcherstest.Start(t, s.serve)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.Seen(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	var body any
	switch p := r.URL.Path; {
	case r.Method != http.MethodGet:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	case p == "/v2/plans" || p == "/v2/plans-metal":
		field := Plans
		if p == "/v2/plans-metal" {
			field = Metal
		} else if r.URL.Query().Get("type") != "all" {
			http.Error(w, `{"error":"type all expected by this fake","status":400}`, http.StatusBadRequest)
			return
		}
		if r.URL.Query().Get("per_page") != "500" {
			http.Error(w, `{"error":"per_page 500 expected by this fake","status":400}`, http.StatusBadRequest)
			return
		}
		b, ok := s.page(field, r.URL.Query().Get("cursor"))
		if !ok {
			http.Error(w, `{"error":"Invalid cursor","status":400}`, http.StatusBadRequest)
			return
		}
		body = b
	case strings.HasPrefix(p, "/v2/regions/") && strings.HasSuffix(p, "/availability"):
		if r.Header.Get("Authorization") != "Bearer "+s.Key || s.Key == "" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"Invalid API token.","status":401}`))
			return
		}
		region := strings.TrimSuffix(strings.TrimPrefix(p, "/v2/regions/"), "/availability")
		plans, ok := s.stock[region]
		if !ok {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		b, _ := json.Marshal(map[string]any{"available_plans": plans})
		body = b
	default:
		w.WriteHeader(http.StatusNotFound)
		return
	}
	full := body.([]byte)
	if !fetcherstest.Write(w, s.Next(), full, `{"error":"Rate limit reached","status":429}`) {
		w.Write(full)
	}
}

// page builds one page of a list after cursor ("" the first).
func (s *Server) page(field, cursor string) ([]byte, bool) {
	n := 0
	if cursor != "" {
		c, err := strconv.Atoi(strings.TrimPrefix(cursor, "cur-"))
		if err != nil || c <= 0 {
			return nil, false
		}
		n = c
	}
	all := s.rows[field]
	start := n * s.PageSize
	if start > len(all) || (start == len(all) && start > 0) {
		return nil, false
	}
	end := min(start+s.PageSize, len(all))
	next := ""
	if end < len(all) {
		next = fmt.Sprintf("cur-%d", n+1)
		if s.repeat && n > 0 {
			next = fmt.Sprintf("cur-%d", n) // hands out this page's own cursor again
		}
	}
	b, _ := json.MarshalIndent(map[string]any{field: all[start:end],
		"meta": map[string]any{"total": len(all), "links": map[string]string{"next": next, "prev": ""}}}, "", " ")
	return b, true
}

// RepeatCursor makes the second page hand out its own cursor again.
func (s *Server) RepeatCursor() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repeat = true
	s.PageSize = 1
}

// SetRows replaces a list's rows.
func (s *Server) SetRows(field string, rows []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows[field] = rows
}

// Rows returns a copy of a list's rows.
func (s *Server) Rows(t testing.TB, field string) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(s.rows[field])
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Set changes a field of plan id in either list.
func (s *Server) Set(t testing.TB, id, field string, value any) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, list := range s.rows {
		for _, r := range list {
			if r["id"] == id {
				r[field] = value
				return
			}
		}
	}
	t.Fatalf("vultrtest: no plan %s", id)
}

// SetStock sets a region's available_plans; nil makes the region answer
// 500.
func (s *Server) SetStock(region string, plans ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if plans == nil {
		delete(s.stock, region)
		return
	}
	s.stock[region] = slices.Clone(plans)
}
