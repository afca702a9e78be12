// Package crusoetest is a fake of what the crusoe fetcher reads: Crusoe's
// GET /capacities, checking request signatures as the API's signing
// recipe says, and a price sheet served over HTTP (testdata/README.md
// says which values are real).
package crusoetest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// Paths the fake answers; Base is the endpoint's path (the API version).
const (
	Base       = "/v1alpha5"
	SheetPath  = "/sheets/crusoe.yaml"
	Capacities = Base + "/capacities"
	// Empty makes the next capacities answer {"items":[]}.
	Empty = fetcherstest.Empty
)

//go:embed testdata/capacities-constructed.json
var sample []byte

//go:embed testdata/crusoe.yaml
var sheet string

// Sample and Sheet return what the fake serves at first.
func Sample() []byte { return bytes.Clone(sample) }
func Sheet() string  { return sheet }

// Server is the fake.
type Server struct {
	*httptest.Server
	ID     string
	Secret string
	fetcherstest.Faults

	mu    sync.Mutex
	body  []byte
	sheet string
}

// New starts a fake accepting the key pair id, secret (base64url).
func New(t testing.TB, id, secret string) *Server {
	t.Helper()
	s := &Server{ID: id, Secret: secret, body: Sample(), sheet: sheet}
	s.Server = fetcherstest.Start(t, s.serve)
	return s
}

// Endpoint is providers.crusoe.endpoint for the fake.
func (s *Server) Endpoint() string { return s.URL + Base }

// SheetURL is the sheet's address on the fake.
func (s *Server) SheetURL() string { return s.URL + SheetPath }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Seen(r)
	switch {
	case r.Method == http.MethodGet && r.URL.Path == SheetPath:
		w.Write([]byte(s.sheet))
	case r.Method == http.MethodGet && r.URL.Path == Capacities:
		w.Header().Set("Content-Type", "application/json")
		if !s.signed(r) {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"code":"unauthorized","message":"invalid signature"}`))
			return
		}
		fetcherstest.Answer(w, s.Next(), s.body, `{"code":"too_many_requests"}`, `{"items":[]}`)
	default:
		http.NotFound(w, r)
	}
}

// signed checks the signature as Crusoe does, and that its timestamp is
// an RFC 3339 time.
func (s *Server) signed(r *http.Request) bool {
	ts := r.Header.Get("X-Crusoe-Timestamp")
	if _, err := time.Parse(time.RFC3339, ts); err != nil {
		return false
	}
	secret, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s.Secret, "="))
	if err != nil {
		return false
	}
	// Written here from the recipe, not taken from the fetcher, so that
	// the two are checked against each other.
	var q []string
	for k, vs := range r.URL.Query() {
		for _, v := range vs {
			q = append(q, k+"="+v)
		}
	}
	sort.Strings(q)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(r.URL.Path + "\n" + strings.Join(q, "&") + "\n" + r.Method + "\n" + ts + "\n"))
	want := "Bearer 1.0:" + s.ID + ":" + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(r.Header.Get("Authorization")), []byte(want))
}

// SetBody replaces the capacities answer.
func (s *Server) SetBody(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body = b
}

// SetSheet replaces the sheet served.
func (s *Server) SetSheet(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sheet = v
}
