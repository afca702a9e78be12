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
	// Document serves the body, counts requests and queues failures
	// (FailNext).
	*fetcherstest.Document
	// Subsidiary is the ovhSubsidiary the fake answers; another one gets
	// the 400 the API gives an unknown subsidiary.
	Subsidiary string
}

// New starts a fake serving Sample() for subsidiary FR.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{Subsidiary: "FR"}
	s.Document = fetcherstest.ServeDocument(t, fetcherstest.DocumentSpec{Path: Path, Refuse: s.refuse,
		Throttled: `{"message":"Too many requests"}`}, Sample())
	return s
}

// refuse answers a subsidiary other than the fake's as the API does.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Query().Get("ovhSubsidiary") == s.Subsidiary {
		return false
	}
	fetcherstest.Refusal(w, http.StatusBadRequest, `{"message":"Invalid subsidiary"}`)
	return true
}

// edit decodes the body, lets f change its addons and encodes it again.
func (s *Server) edit(t testing.TB, f func(addons []any) []any) {
	t.Helper()
	var doc map[string]any
	s.Edit(t, &doc, func() error {
		addons, _ := doc["addons"].([]any)
		doc["addons"] = f(addons)
		return nil
	})
}

// SetPrice sets every pricing of the addon planCode to price (in 10⁻⁸ of
// the currency, as the catalogue writes it).
func (s *Server) SetPrice(t testing.TB, planCode string, price int64) {
	t.Helper()
	found := false
	s.edit(t, func(addons []any) []any {
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
	s.edit(t, func(addons []any) []any { return append(addons, a) })
}
