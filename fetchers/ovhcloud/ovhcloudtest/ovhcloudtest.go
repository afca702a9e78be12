// Package ovhcloudtest is a fake of OVHcloud's public cloud catalogue for
// tests: it serves a documented-shape sample (testdata/, see its README:
// no real capture was found, every value constructed is named there),
// answers only the subsidiary it serves, and lets a test change a plan's
// price, add an addon or make the next responses fail.
package ovhcloudtest

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// Path is the catalogue's path under the API's base URL.
const Path = "/v1/order/catalog/public/cloud"

// sample is the documented-shape catalogue of subsidiary FR.
//
//go:embed testdata/catalog-cloud-FR-documented-shape.json
var sample []byte

// Sample returns a copy of the sample catalogue.
func Sample() []byte { return append([]byte(nil), sample...) }

// Server is the fake API.
type Server struct {
	*httptest.Server
	fetcherstest.Faults
	// Subsidiary is the ovhSubsidiary the fake answers; another one gets
	// the 400 the API gives an unknown subsidiary.
	Subsidiary string

	mu   sync.Mutex
	body []byte
}

// New starts a fake serving Sample() for subsidiary FR.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{Subsidiary: "FR", body: Sample()}
	s.Server = s.Serve(t, &s.mu, http.MethodGet, Path, s.serve)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Query().Get("ovhSubsidiary") != s.Subsidiary {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"message":"Invalid subsidiary"}`))
		return
	}
	mode := s.Next()
	if !fetcherstest.Write(w, mode, s.body, `{"message":"Too many requests"}`) {
		w.Write(s.body)
	}
}

// SetBody replaces the response body.
func (s *Server) SetBody(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body = b
}

// edit decodes the body, lets f change it and encodes it again.
func (s *Server) edit(t testing.TB, f func(doc map[string]any, addons []any) []any) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var doc map[string]any
	if err := json.Unmarshal(s.body, &doc); err != nil {
		t.Fatal(err)
	}
	addons, _ := doc["addons"].([]any)
	doc["addons"] = f(doc, addons)
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	s.body = b
}

// SetPrice sets every pricing of the addon planCode to price (in 10⁻⁸ of
// the currency, as the catalogue writes it).
func (s *Server) SetPrice(t testing.TB, planCode string, price int64) {
	t.Helper()
	found := false
	s.edit(t, func(_ map[string]any, addons []any) []any {
		for _, a := range addons {
			m := a.(map[string]any)
			if m["planCode"] != planCode {
				continue
			}
			found = true
			for _, p := range m["pricings"].([]any) {
				p.(map[string]any)["price"] = price
			}
		}
		return addons
	})
	if !found {
		t.Fatalf("ovhcloudtest: no addon %s", planCode)
	}
}

// AddAddon appends one addon, given as its JSON.
func (s *Server) AddAddon(t testing.TB, addonJSON string) {
	t.Helper()
	var a any
	if err := json.Unmarshal([]byte(addonJSON), &a); err != nil {
		t.Fatalf("ovhcloudtest: addon: %v", err)
	}
	s.edit(t, func(_ map[string]any, addons []any) []any { return append(addons, a) })
}
