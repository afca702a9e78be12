package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDaemonServesFetchAtOnce is issue 30's "a stored run is visible on /,
// /offers, the API and /metrics within 2 s of its commit": the daemon keeps
// its answers per data version and polls the version every second, so a
// `pricewatch fetch` storing into its database (another process, as a
// leading replica is to a follower) is served within the bound. Each
// answer is compared with what it was before the fetch, which moved every
// price.
func TestDaemonServesFetchAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts the daemon")
	}
	dir := t.TempDir()
	az := newScaleAzure(1)
	defer az.Close()
	port := freePort(t)
	cfgPath := az.config(t, dir, port)
	az.advance(1)
	if _, errOut, code := runCLI(t, "--config", cfgPath, "fetch"); code != exitOK {
		t.Fatalf("first fetch exited %d: %s", code, errOut)
	}
	base, stop := serveInProcess(t, cfgPath, port)
	defer stop()
	get := func(path string) string {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, err)
		}
		if path != "/metrics" {
			return string(b)
		}
		// The price series only: the rest moves with every scrape.
		var prices []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "pricewatch_cheapest_price_per_gpu_hour{") {
				prices = append(prices, l)
			}
		}
		if len(prices) == 0 {
			t.Fatalf("/metrics has no price series:\n%s", b)
		}
		return strings.Join(prices, "\n")
	}
	paths := []string{"/", "/offers", "/gpu/H100", "/api/v1/offer-table", "/api/v1/offers?gpu=H100", "/api/v1/runs", "/metrics"}
	before := map[string]string{}
	firstPriceSeries(t, base)
	for _, p := range paths {
		before[p] = get(p)
	}
	az.advance(1)
	if _, errOut, code := runCLI(t, "--config", cfgPath, "fetch"); code != exitOK {
		t.Fatalf("second fetch exited %d: %s", code, errOut)
	}
	committed := time.Now()
	for _, p := range paths {
		for get(p) == before[p] {
			if time.Since(committed) > 2*time.Second {
				t.Fatalf("%s still answers what it did before the fetch %s after its commit", p, time.Since(committed).Round(time.Millisecond))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
