// Package runpodtest is a fake of RunPod's GraphQL API for tests. It
// answers the exact query of the real capture (testdata/) with the real
// response, checks the optional API key, and lets a test change a price or
// a data centre's stock, or make the next responses fail.
package runpodtest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// Path is the GraphQL endpoint's path.
const Path = "/graphql"

//go:embed testdata/graphql-gpuTypes-dataCenters-stock-20260825.json
var sample []byte

//go:embed testdata/graphql-gpuTypes-dataCenters-stock.request.json
var request []byte

// Sample returns a copy of the real response body (2026-08-25).
func Sample() []byte { return append([]byte(nil), sample...) }

// restExample is RunPod's documented example of its REST catalogue
// (testdata/README.md).
//
//go:embed testdata/v2-catalog-gpus.doc-example.json
var restExample []byte

// RESTExample returns the documented REST catalogue answer as stored.
func RESTExample() []byte { return append([]byte(nil), restExample...) }

// Query is the real request's query string.
func Query() string {
	var r struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(request, &r); err != nil {
		panic("runpodtest: embedded request: " + err.Error())
	}
	return r.Query
}

// Failure modes for FailNext.
const (
	Throttled    = fetcherstest.Throttled
	ServerErr    = fetcherstest.ServerErr
	Truncated    = fetcherstest.Truncated
	Malformed    = fetcherstest.Malformed
	GraphQLError = "errors" // a 200 with an errors array and null data, as GraphQL servers answer
	Empty        = "empty"  // gpuTypes and dataCenters empty
)

// Server is the fake API.
type Server struct {
	*httptest.Server
	// Key, when set, is the only bearer token accepted; when empty any
	// request without a token is answered (RunPod answered unauthenticated
	// price queries in 2026).
	Key string
	// Faults counts requests and queues failures (FailNext).
	fetcherstest.Faults

	mu      sync.Mutex
	doc     map[string]any
	queries []string
}

// New starts a fake serving the real capture.
func New(t testing.TB, key string) *Server {
	t.Helper()
	s := &Server{Key: key}
	s.SetBody(t, Sample())
	s.Server = s.Serve(t, &s.mu, http.MethodPost, Path, s.serve)
	return s
}

// serve answers an accepted request, with s.mu held.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Query string `json:"query"`
	}
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &req) != nil {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"errors":[{"message":"Must provide query string."}]}`))
		return
	}
	s.queries = append(s.queries, req.Query)
	if h := r.Header.Get("Authorization"); (s.Key == "" && h != "") || (s.Key != "" && h != "Bearer "+s.Key) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"errors":[{"message":"Unauthorized"}]}`))
		return
	}
	if req.Query != Query() {
		w.Write([]byte(`{"errors":[{"message":"the fake answers only the captured query","extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}],"data":null}`))
		return
	}
	mode := s.Next()
	out, _ := json.Marshal(s.doc)
	switch {
	case fetcherstest.Write(w, mode, out, ""):
	case mode == GraphQLError:
		w.Write([]byte(`{"errors":[{"message":"Something went wrong","path":["gpuTypes"]}],"data":null}`))
	case mode == Empty:
		w.Write([]byte(`{"data":{"gpuTypes":[],"dataCenters":[]}}`))
	default:
		w.Write(out)
	}
}

// SetBody replaces the response (numbers are kept as written).
func (s *Server) SetBody(t testing.TB, b []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.doc = doc
}

func (s *Server) data(t testing.TB) map[string]any {
	t.Helper()
	d, ok := s.doc["data"].(map[string]any)
	if !ok {
		t.Fatal("runpodtest: body has no data object")
	}
	return d
}

// SetGPUField sets one field of a GPU type ("securePrice" to
// json.Number("0"), "lowestPrice" to a map, …).
func (s *Server) SetGPUField(t testing.TB, gpuTypeID, field string, v any) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.data(t)["gpuTypes"].([]any) {
		m := g.(map[string]any)
		if m["id"] == gpuTypeID {
			m[field] = v
			return
		}
	}
	t.Fatalf("runpodtest: no GPU type %s", gpuTypeID)
}

// SetStock sets a GPU type's stock in a data centre, adding the entry if
// the data centre did not list the type. An empty stockStatus is null.
func (s *Server) SetStock(t testing.TB, dataCenter, gpuTypeID string, available bool, stockStatus string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var status any
	if stockStatus != "" {
		status = stockStatus
	}
	for _, d := range s.data(t)["dataCenters"].([]any) {
		dc := d.(map[string]any)
		if dc["id"] != dataCenter {
			continue
		}
		list, _ := dc["gpuAvailability"].([]any)
		for _, e := range list {
			m := e.(map[string]any)
			if m["gpuTypeId"] == gpuTypeID {
				m["available"], m["stockStatus"] = available, status
				return
			}
		}
		dc["gpuAvailability"] = append(list, map[string]any{"gpuTypeId": gpuTypeID, "available": available, "stockStatus": status})
		return
	}
	t.Fatalf("runpodtest: no data centre %s", dataCenter)
}

// Queries lists the query of every well-formed request.
func (s *Server) Queries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.queries...)
}
