// Package lambdatest is a fake of Lambda Cloud's instance-types API for
// tests: it serves the body built from real captures (testdata/, see its
// README), checks the API key the way Lambda does, and lets a test move
// capacity between regions or make the next responses fail.
package lambdatest

import (
	_ "embed"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
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

// Empty is a failure mode for FailNext beside fetcherstest's: the answer {"data": {}}.
const Empty = fetcherstest.Empty

// throttled is the body of Lambda's 429.
const throttled = `{"error": {"code": "global/too-many-requests", "message": "Too many requests"}}`

// regionNames describe regions as the API does ({name, description});
// us-east-3's is real, the others are Lambda's published city names.
var regionNames = map[string]string{
	"us-east-1": "Virginia, USA", "us-east-3": "Washington DC, USA", "us-west-1": "California, USA",
	"us-west-2": "Arizona, USA", "us-west-3": "Utah, USA", "us-south-1": "Texas, USA",
	"us-midwest-1": "Illinois, USA", "europe-central-1": "Germany", "asia-northeast-1": "Tokyo, Japan",
}

// Server is the fake API.
type Server struct {
	// Document serves the body, counts requests and queues failures
	// (FailNext).
	*fetcherstest.Document
	// Key is the API key the server accepts.
	Key string
}

// New starts a fake that accepts key and serves Sample().
func New(t testing.TB, key string) *Server {
	t.Helper()
	s := &Server{Key: key}
	s.Document = fetcherstest.ServeDocument(t, fetcherstest.DocumentSpec{Path: Path, Refuse: s.refuse, Throttled: throttled,
		Empty: `{"data": {}}`}, Sample())
	return s
}

// refuse answers a request without a valid key as Lambda does.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request) bool {
	if s.authorized(r.Header.Get("Authorization")) {
		return false
	}
	fetcherstest.Refusal(w, http.StatusUnauthorized, unauthorized)
	return true
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

// SetCapacity lists regions (and only those) as having capacity for the
// instance type.
func (s *Server) SetCapacity(t testing.TB, instanceType string, regions ...string) {
	t.Helper()
	var doc struct {
		Data map[string]map[string]any `json:"data"`
	}
	s.Edit(t, &doc, func() error {
		entry, ok := doc.Data[instanceType]
		if !ok {
			return fmt.Errorf("lambdatest: no instance type %s", instanceType)
		}
		list := make([]map[string]string, 0, len(regions))
		for _, r := range regions {
			list = append(list, map[string]string{"name": r, "description": regionNames[r]})
		}
		entry["regions_with_capacity_available"] = list
		return nil
	})
}
