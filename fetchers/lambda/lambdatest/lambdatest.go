// Package lambdatest is a fake of Lambda Cloud's instance-types API for
// tests: it serves the body built from real captures (testdata/, see its
// README), checks the API key the way Lambda does, and lets a test move
// capacity between regions or make the next responses fail.
package lambdatest

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Path is where the API lists instance types.
const Path = "/api/v1/instance-types"

// sample is the full response body constructed from the real entry and the
// real price-book projection (testdata/README.md says which values are
// constructed).
//
//go:embed testdata/instance-types-20260411-constructed.json
var sample []byte

// Sample returns a copy of the constructed full response body.
func Sample() []byte { return append([]byte(nil), sample...) }

// unauthorized is the 401 body Lambda sends without a valid key (code and
// message observed; the rest of the envelope as the API reference gives it).
const unauthorized = `{"error": {"code": "global/invalid-api-key", "message": "Make sure to pass an API key in the AUTHORIZATION header when making requests."}}`

// Failure modes for FailNext.
const (
	Throttled = "429"       // 429 with Retry-After: 1
	ServerErr = "500"       // HTTP 500
	Truncated = "truncated" // the body cut in half
	Malformed = "malformed" // a 200 that is not the API's JSON
	Empty     = "empty"     // {"data": {}}
)

// regionNames describe regions as the API does ({name, description});
// us-east-3's is real, the others are Lambda's published city names.
var regionNames = map[string]string{
	"us-east-1": "Virginia, USA", "us-east-3": "Washington DC, USA", "us-west-1": "California, USA",
	"us-west-2": "Arizona, USA", "us-west-3": "Utah, USA", "us-south-1": "Texas, USA",
	"us-midwest-1": "Illinois, USA", "europe-central-1": "Germany", "asia-northeast-1": "Tokyo, Japan",
}

// Server is the fake API.
type Server struct {
	*httptest.Server
	// Key is the API key the server accepts.
	Key string

	mu       sync.Mutex
	body     []byte
	fail     []string
	requests int
	auth     []string
}

// New starts a fake that accepts key and serves Sample().
func New(t testing.TB, key string) *Server {
	t.Helper()
	s := &Server{Key: key, body: Sample()}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	if r.URL.Path != Path || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	if !s.authorized(r.Header.Get("Authorization")) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(unauthorized))
		return
	}
	mode := ""
	if len(s.fail) > 0 {
		mode, s.fail = s.fail[0], s.fail[1:]
	}
	w.Header().Set("Content-Type", "application/json")
	switch mode {
	case Throttled:
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error": {"code": "global/too-many-requests", "message": "Too many requests"}}`))
	case ServerErr:
		w.WriteHeader(http.StatusInternalServerError)
	case Truncated:
		w.Write(s.body[:len(s.body)/2])
	case Malformed:
		w.Write([]byte(`<html><body>upstream error</body></html>`))
	case Empty:
		w.Write([]byte(`{"data": {}}`))
	default:
		w.Write(s.body)
	}
}

// authorized accepts the two forms the API's security schemes allow:
// bearerAuth, and basicAuth with the key as user name and no password.
func (s *Server) authorized(h string) bool {
	if s.Key == "" {
		return false
	}
	if tok, ok := strings.CutPrefix(h, "Bearer "); ok {
		return tok == s.Key
	}
	if b, ok := strings.CutPrefix(h, "Basic "); ok {
		dec, err := base64.StdEncoding.DecodeString(b)
		return err == nil && string(dec) == s.Key+":"
	}
	return false
}

// FailNext makes the next len(modes) requests fail as named.
func (s *Server) FailNext(modes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = append(s.fail, modes...)
}

// SetBody replaces the response body.
func (s *Server) SetBody(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body = b
}

// SetCapacity lists regions (and only those) as having capacity for the
// instance type.
func (s *Server) SetCapacity(t testing.TB, instanceType string, regions ...string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var doc struct {
		Data map[string]map[string]any `json:"data"`
	}
	if err := json.Unmarshal(s.body, &doc); err != nil {
		t.Fatal(err)
	}
	entry, ok := doc.Data[instanceType]
	if !ok {
		t.Fatalf("lambdatest: no instance type %s", instanceType)
	}
	list := make([]map[string]string, 0, len(regions))
	for _, r := range regions {
		list = append(list, map[string]string{"name": r, "description": regionNames[r]})
	}
	entry["regions_with_capacity_available"] = list
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	s.body = b
}

// Requests is how many requests the server has answered.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Authorizations lists the Authorization header of every request.
func (s *Server) Authorizations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}
