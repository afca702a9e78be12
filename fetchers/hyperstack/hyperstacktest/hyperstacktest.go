// Package hyperstacktest is a fake of Hyperstack's Infrahub API for tests:
// the flavor list, the pricebook and the stock list a run reads, served
// from testdata/ (see its README: built from the documented shapes, no
// real body exists), with the api_key header checked, and hooks to
// change a body or make the next responses fail.
package hyperstacktest

import (
	"bytes"
	_ "embed"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// The paths a run reads.
const (
	Flavors   = "/v1/core/flavors"
	Pricebook = "/v1/pricebook"
	Stocks    = "/v1/core/stocks"
)

var (
	//go:embed testdata/flavors-constructed.json
	flavors []byte
	//go:embed testdata/pricebook-constructed.json
	pricebook []byte
	//go:embed testdata/stocks-constructed.json
	stocks []byte
)

// Body returns a copy of the default answer of path.
func Body(path string) []byte {
	switch path {
	case Flavors:
		return bytes.Clone(flavors)
	case Pricebook:
		return bytes.Clone(pricebook)
	case Stocks:
		return bytes.Clone(stocks)
	}
	return nil
}

// Failure modes for FailNext (counted per request, in the order a run
// asks: flavors, pricebook, stocks).
const (
	Throttled = fetcherstest.Throttled
	ServerErr = fetcherstest.ServerErr
	Truncated = fetcherstest.Truncated
	Malformed = fetcherstest.Malformed
	// Empty answers the flavor list with no flavors (the other two
	// documents as they are).
	Empty = "empty"
)

// Bodies of refusals: constructed, no capture of them exists.
const (
	unauthorized = `{"status": false, "message": "Invalid API key", "error_reason": "unauthorized"}`
	throttled    = `{"status": false, "message": "Too many requests"}`
)

// Server is the fake API.
type Server struct {
	*httptest.Server
	// Key is the API key the server accepts in the api_key header.
	Key string
	fetcherstest.Faults

	mu     sync.Mutex
	bodies map[string][]byte
	keys   []string
}

// New starts a fake that accepts key and serves the testdata bodies.
func New(t testing.TB, key string) *Server {
	t.Helper()
	s := &Server{Key: key, bodies: map[string][]byte{Flavors: Body(Flavors), Pricebook: Body(Pricebook), Stocks: Body(Stocks)}}
	s.Server = fetcherstest.Start(t, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.Seen(r)
		s.keys = append(s.keys, r.Header.Get("api_key"))
		s.serve(w, r)
	})
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, ok := s.bodies[r.URL.Path]
	if r.Method != http.MethodGet || !ok || r.URL.RawQuery != "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if s.Key == "" || r.Header.Get("api_key") != s.Key {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(unauthorized))
		return
	}
	mode := s.Next()
	switch {
	case fetcherstest.Write(w, mode, body, throttled):
	case mode == Empty && r.URL.Path == Flavors:
		w.Write([]byte(`{"status": true, "message": "Success", "data": []}`))
	default:
		w.Write(body)
	}
}

// SetBody replaces the answer of path (Flavors, Pricebook or Stocks).
func (s *Server) SetBody(path string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bodies[path] = b
}

// Replace replaces the one occurrence of old in path's answer with new;
// the test fails if old is not there exactly once.
func (s *Server) Replace(t testing.TB, path, old, new string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := bytes.Count(s.bodies[path], []byte(old)); n != 1 {
		t.Fatalf("hyperstacktest: %q occurs %d times in %s, want once", old, n, path)
	}
	s.bodies[path] = bytes.Replace(s.bodies[path], []byte(old), []byte(new), 1)
}

// Keys lists the api_key header of every request.
func (s *Server) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}
