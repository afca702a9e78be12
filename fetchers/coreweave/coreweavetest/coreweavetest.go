// Package coreweavetest is a fake of what the coreweave fetcher reads: a
// price sheet served over HTTP (the real prices of CoreWeave's page, see
// testdata/README.md) and Capacity Finder, built from its documented
// shape with made-up zones and ranks (no real answer exists here: they
// are CoreWeave's confidential information).
package coreweavetest

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// Paths the fake answers.
const (
	SheetPath    = "/sheets/coreweave.csv"
	CapacityPath = "/v1beta1/capacity/availability:get"
)

//go:embed testdata/coreweave.csv
var sample string

// Sample returns the sheet the fake serves at first.
func Sample() string { return sample }

// Empty makes the next answer a well-formed sheet with no rows.
const Empty = "empty"

// Server is the fake.
type Server struct {
	*httptest.Server
	Key string
	fetcherstest.Faults

	mu    sync.Mutex
	sheet string
	// zones ranks per instance type, best first; a type asked about and
	// not here is answered with no zone.
	zones map[string][]string
	asked [][]string
	omit  map[string]bool
}

// New starts a fake accepting key for Capacity Finder. Made-up ranks:
// b200-8x fits in US-EAST-04A then US-WEST-04A, h200-8x in US-EAST-04A.
func New(t testing.TB, key string) *Server {
	t.Helper()
	s := &Server{Key: key, sheet: sample, zones: map[string][]string{
		"b200-8x": {"US-EAST-04A", "US-WEST-04A"}, "h200-8x": {"US-EAST-04A"},
	}}
	s.Server = fetcherstest.Start(t, s.serve)
	return s
}

// SheetURL is the sheet's address on the fake.
func (s *Server) SheetURL() string { return s.URL + SheetPath }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Seen(r)
	switch {
	case r.Method == http.MethodGet && r.URL.Path == SheetPath:
		mode := s.Next()
		w.Header().Set("Content-Type", "text/csv")
		switch {
		case fetcherstest.Write(w, mode, []byte(s.sheet), ""):
		case mode == Empty:
			w.Write([]byte(s.sheet[:strings.Index(s.sheet, "\nb200")+1]))
		default:
			w.Write([]byte(s.sheet))
		}
	case r.Method == http.MethodPost && r.URL.Path == CapacityPath:
		s.capacity(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) capacity(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if s.Key == "" || r.Header.Get("Authorization") != "Bearer "+s.Key {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"code":16,"message":"unauthenticated"}`))
		return
	}
	var req struct {
		Requests []struct {
			InstanceType string `json:"instanceType"`
			NodeCount    int    `json:"nodeCount"`
		} `json:"requests"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Requests) == 0 {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	type zone struct {
		Zone string `json:"zone"`
		Rank int    `json:"rank"`
	}
	type result struct {
		InstanceType string `json:"instanceType"`
		Zones        []zone `json:"zones"`
	}
	var names []string
	out := struct {
		Results []result `json:"results"`
	}{Results: []result{}}
	for _, q := range req.Requests {
		names = append(names, q.InstanceType)
		if s.omit[q.InstanceType] {
			continue
		}
		res := result{InstanceType: q.InstanceType, Zones: []zone{}}
		for i, z := range s.zones[q.InstanceType] {
			res.Zones = append(res.Zones, zone{Zone: z, Rank: i + 1})
		}
		out.Results = append(out.Results, res)
	}
	sort.Strings(names)
	s.asked = append(s.asked, names)
	body, _ := json.Marshal(out)
	if !fetcherstest.Write(w, s.Next(), body, `{"code":8,"message":"rate limited"}`) {
		w.Write(body)
	}
}

// SetSheet replaces the sheet served.
func (s *Server) SetSheet(body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sheet = body
}

// SetZones ranks zones (best first) for an instance type; none: no zone.
func (s *Server) SetZones(instanceType string, zones ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.zones[instanceType] = zones
}

// Omit leaves an instance type out of the answers, as a partial answer
// would.
func (s *Server) Omit(instanceType string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.omit == nil {
		s.omit = map[string]bool{}
	}
	s.omit[instanceType] = true
}

// Asked lists the instance types of each Capacity Finder request.
func (s *Server) Asked() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.asked...)
}
