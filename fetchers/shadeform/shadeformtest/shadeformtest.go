// Package shadeformtest is a fake of Shadeform's instance-types API for
// tests: it serves the real home-page capture (testdata/, see its README),
// checks the X-API-KEY header, and lets a test change a price or an
// availability flag or make the next responses fail.
package shadeformtest

import (
	_ "embed"
	"fmt"
	"net/http"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// Path is where the API lists instance types.
const Path = "/v1/instances/types"

//go:embed testdata/homepage-embedded-instance_types-excerpt-20260822.json
var sample []byte

//go:embed testdata/instances-types.doc-example.json
var docExample []byte

// Sample returns a copy of the real capture (7 types of 7 clouds).
func Sample() []byte { return append([]byte(nil), sample...) }

// DocExample returns a copy of the API reference's example body.
func DocExample() []byte { return append([]byte(nil), docExample...) }

// Empty is a failure mode for FailNext beside fetcherstest's: the answer {"instance_types": []}.
const Empty = fetcherstest.Empty

// Bodies of refusals: constructed, no capture of them exists.
const (
	unauthorized = `{"error": "unauthorized"}`
	throttled    = `{"error": "too many requests"}`
)

// Server is the fake API.
type Server struct {
	// Document serves the body, counts requests and queues failures
	// (FailNext).
	*fetcherstest.Document
	// Key is the API key the server accepts in X-API-KEY.
	Key string
}

// New starts a fake that accepts key and serves Sample().
func New(t testing.TB, key string) *Server {
	t.Helper()
	s := &Server{Key: key}
	s.Document = fetcherstest.ServeDocument(t, fetcherstest.DocumentSpec{Path: Path, Refuse: s.refuse, Throttled: throttled,
		Empty: `{"instance_types": []}`}, Sample())
	return s
}

// refuse answers a request without the key in X-API-KEY.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request) bool {
	if s.Key != "" && r.Header.Get("X-API-KEY") == s.Key {
		return false
	}
	fetcherstest.Refusal(w, http.StatusUnauthorized, unauthorized)
	return true
}

// Change edits the entry of cloud and shade_instance_type: its
// hourly_price in cents when cents > 0, and region's available flag when
// region is not empty.
func (s *Server) Change(t testing.TB, cloud, shadeType string, cents int, region string, available bool) {
	t.Helper()
	var doc struct {
		InstanceTypes []map[string]any `json:"instance_types"`
	}
	s.Edit(t, &doc, func() error {
		found := false
		for _, e := range doc.InstanceTypes {
			if e["cloud"] != cloud || e["shade_instance_type"] != shadeType {
				continue
			}
			found = true
			if cents > 0 {
				e["hourly_price"] = cents
			}
			if region == "" {
				continue
			}
			hit := false
			for _, a := range e["availability"].([]any) {
				if a := a.(map[string]any); a["region"] == region {
					a["available"], hit = available, true
				}
			}
			if !hit {
				return fmt.Errorf("shadeformtest: %s:%s has no region %s", cloud, shadeType, region)
			}
		}
		if !found {
			return fmt.Errorf("shadeformtest: no instance type %s:%s", cloud, shadeType)
		}
		return nil
	})
}
