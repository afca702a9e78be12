package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage/dbtest"
)

// twoCloudsServer is a server over a store where Azure and Lambda each
// stored one on-demand H100 8-GPU offer, and save, which stores a run of
// one such offer of provider (the clock a minute before the server's).
func twoCloudsServer(t *testing.T) (save func(provider, typ, hourly string), s *Server, mux *http.ServeMux) {
	t.Helper()
	db := dbtest.Open(t)
	at := time.Date(2026, 12, 5, 11, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return at }
	save = func(provider, typ, hourly string) {
		t.Helper()
		o := pricewatch.Offer{Provider: provider, Region: "us-east-1", InstanceType: typ, PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
			Currency: "USD", Hourly: decimal.RequireFromString(hourly), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}
		dbtest.Save(t, db, &pricewatch.Snapshot{Provider: provider, Offers: []pricewatch.Offer{o}, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}})
	}
	save(pricewatch.Azure, "Standard_ND96isr_H100_v5", "98.32")
	save(pricewatch.Lambda, "gpu_8x_h100_sxm5", "23.92")
	s = &Server{Store: db, FX: func() report.FX { return report.FX{Currency: "USD"} }, Now: func() time.Time { return at.Add(time.Minute) }}
	mux = http.NewServeMux()
	s.Mount(mux)
	return save, s, mux
}

// Issue 30: a stored run builds again the overview's part of its
// provider only; the other providers' parts are kept, and the merged rows
// show the run.
func TestOverviewKeepsPartsOfProvidersThatDidNotRun(t *testing.T) {
	save, s, mux := twoCloudsServer(t)
	// cheapest is the overview's cheapest on-demand H100 once "/" is
	// served, and its parts.
	cheapest := func() (string, map[string]*providerPart[overviewPart]) {
		t.Helper()
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("/: %d %s", rec.Code, rec.Body.String())
		}
		m := s.overview.Load()
		if len(m.models) != 1 || m.models[0].OnDemand == nil {
			t.Fatalf("overview rows %+v, want H100's with an on-demand price", m.models)
		}
		s.overviewParts.mu.Lock()
		defer s.overviewParts.mu.Unlock()
		return m.models[0].OnDemand.Offer.Provider + " " + m.models[0].OnDemand.PerGPUHour.String(), s.overviewParts.parts
	}
	got, before := cheapest()
	if got != "lambda 2.99" || len(before) != 2 {
		t.Fatalf("cheapest %s of %d parts, want lambda 2.99 of 2", got, len(before))
	}
	save(pricewatch.Azure, "Standard_ND96isr_H100_v5", "16")
	// The previous version's page may be served while this one's is
	// computed.
	got, after := cheapest()
	for deadline := time.Now().Add(5 * time.Second); got != "azure 2" && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		got, after = cheapest()
	}
	if got != "azure 2" {
		t.Fatalf("after Azure's run: cheapest %s, want azure 2", got)
	}
	if after[pricewatch.Lambda] != before[pricewatch.Lambda] {
		t.Error("Lambda's part was built again after Azure's run")
	}
	if after[pricewatch.Azure] == before[pricewatch.Azure] {
		t.Error("Azure's part was kept after Azure's run")
	}
}

// The GPU index, too, is kept in parts per provider: after Azure's run
// only Azure's part is built again.
func TestGPUIndexKeepsPartsOfProvidersThatDidNotRun(t *testing.T) {
	save, s, mux := twoCloudsServer(t)
	// index is the page's cheapest on-demand H100 once /gpu/ is served,
	// and the parts.
	index := func() (string, map[string]*providerPart[report.GPUIndexPart]) {
		t.Helper()
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/gpu/", nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("/gpu/: %d %s", rec.Code, rec.Body.String())
		}
		s.gpuIndexParts.mu.Lock()
		defer s.gpuIndexParts.mu.Unlock()
		return rec.Body.String(), s.gpuIndexParts.parts
	}
	page, before := index()
	if !strings.Contains(page, "2.99") || len(before) != 2 {
		t.Fatalf("/gpu/ of %d parts, want 2, and Lambda's 2.99 shown:\n%s", len(before), page)
	}
	save(pricewatch.Azure, "Standard_ND96isr_H100_v5", "16")
	// The previous version's page may be served while this one's is
	// computed.
	page, after := index()
	for deadline := time.Now().Add(5 * time.Second); strings.Contains(page, "2.99") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		page, after = index()
	}
	if after[pricewatch.Azure] == before[pricewatch.Azure] {
		t.Fatalf("Azure's part was kept after Azure's run")
	}
	if after[pricewatch.Lambda] != before[pricewatch.Lambda] {
		t.Error("Lambda's part was built again after Azure's run")
	}
	if strings.Contains(page, "2.99") {
		t.Errorf("after Azure's run /gpu/ still shows Lambda's 2.99 as the cheapest:\n%s", page)
	}
}
