package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers/runpod"
	"github.com/pricewatch/pricewatch/fetchers/runpod/runpodtest"
)

// Issue 33 item 2: with providers.runpod.api: rest, `pricewatch fetch`
// reads the keyed REST catalogue (RunPod's documented example, served as
// is): the RTX 4090's Secure and Community Cloud prices stored exactly, its
// stock in US-KS-2; without a key the provider is skipped with one line.
func TestRunPodRESTEndToEnd(t *testing.T) {
	const key = "rpa_E2ERESTKEYMUSTNEVERBEPRINTED0"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != runpod.RESTPath || r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		w.Write(runpodtest.RESTExample())
	}))
	t.Cleanup(srv.Close)
	cfg := testConfig{clouds: []cloud{{name: "runpod", endpoint: srv.URL, keys: "    api: rest\n"}}}.write(t, t.TempDir())

	t.Setenv(runpod.EnvAPIKey, "")
	t.Setenv("CREDENTIALS_DIRECTORY", "")
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "runpod")
	if code != 0 || !strings.Contains(out, "skipped") || !strings.Contains(out, runpod.EnvAPIKey) {
		t.Errorf("without a key: exit %d, want one skipped line naming %s:\n%s%s", code, runpod.EnvAPIKey, out, errOut)
	}

	t.Setenv(runpod.EnvAPIKey, key)
	out = fetchOK(t, cfg, "runpod")
	if !strings.Contains(out, "2 offers: 2 new") || strings.Contains(out, key) {
		t.Errorf("fetch: %s", out)
	}
	const typ = "NVIDIA GeForce RTX 4090"
	for class, want := range map[string]string{"secure": "0.44", "community": "0.31"} {
		found := false
		for _, r := range history(t, cfg, typ) {
			if r.OfferingClass == class && r.Region == "global" && string(r.PriceType) == "on_demand" && r.ValidTo == nil {
				found = true
				if r.Currency != "USD" || decimal.Decimal(r.HourlyPrice).String() != want || r.GPUCount != 1 {
					t.Errorf("%s %s: %+v, want %s USD for one GPU", typ, class, r, want)
				}
			}
		}
		if !found {
			t.Errorf("no open %s on-demand price of %s", class, typ)
		}
	}
	got := intervals(t, cfg, typ)
	if strings.Join(got["US-KS-2"], ",") != "in_stock*" || strings.Join(got["global"], ",") != "in_stock*" {
		t.Errorf("availability %v, want in_stock in US-KS-2 and global", got)
	}
}
