package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/report"
)

// fakeAzure replays the pages in testdata/azure, rewriting NextPageLink to
// itself, and lets a test change a price or cut a page short.
type fakeAzure struct {
	*httptest.Server
	mu       sync.Mutex
	pages    map[string][]byte // page number → body
	truncate string            // page to cut in half
	requests []string
	// stall makes every request hang until the client gives up on it (a
	// long provider run); stalled counts the requests held so.
	stall   bool
	stalled int
}

func newFakeAzure(t *testing.T) *fakeAzure {
	t.Helper()
	f := &fakeAzure{pages: map[string][]byte{}}
	for _, n := range []string{"1", "2"} {
		b, err := os.ReadFile(filepath.Join("testdata", "azure", "westus2-"+n+".json"))
		if err != nil {
			t.Fatal(err)
		}
		f.pages[n] = b
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAzure) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	if f.stall {
		f.stalled++
		f.mu.Unlock()
		<-r.Context().Done()
		return
	}
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.URL.RawQuery)
	page := "1"
	if r.URL.Query().Get("$skip") == "1000" {
		page = "2"
	}
	body := bytes.ReplaceAll(f.pages[page], []byte("https://prices.azure.com:443/api/retail/prices"), []byte(f.URL+"/api/retail/prices"))
	if f.truncate == page {
		body = body[:len(body)/2]
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

func (f *fakeAzure) setPrice(t *testing.T, page, from, to string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if !bytes.Contains(f.pages[page], []byte(from)) {
		t.Fatalf("page %s has no %s", page, from)
	}
	f.pages[page] = bytes.ReplaceAll(f.pages[page], []byte(from), []byte(to))
}

// writeConfig writes a config with only Azure enabled, pointed at a fake;
// extra YAML (top-level sections) is appended.
func writeConfig(t *testing.T, dir, azureURL string, extra ...string) string {
	t.Helper()
	return testConfig{clouds: []cloud{azureCloud(azureURL, westus2)}, extra: strings.Join(extra, "")}.write(t, dir)
}

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// cliJSON runs the command line, wants it to succeed and decodes its JSON
// output into v, numbers kept exact; it returns the output.
func cliJSON(t *testing.T, v any, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v exited %d: %s", args, code, errOut)
	}
	decodeJSON(t, out, v)
	return out
}

// historyJSON is a history row with its times read as the strings they
// are (valid_to null: still open). history pins the row's keys.
type historyJSON struct {
	report.HistoryRow
	ValidFrom string  `json:"valid_from"`
	ValidTo   *string `json:"valid_to"`
	LastSeen  string  `json:"last_seen"`
}

func history(t *testing.T, cfg, instanceType string) []historyJSON {
	t.Helper()
	out, errOut, code := runCLI(t, "--config", cfg, "history", instanceType, "--format", "json")
	if code == exitNotFound {
		return nil // nothing of that type is stored
	}
	if code != 0 {
		t.Fatalf("history exited %d: %s", code, errOut)
	}
	var rows []historyJSON
	decodeJSON(t, out, &rows)
	checkRowKeys(t, out, historyKeys...)
	return rows
}

// historyKeys are the keys of a `history --format json` row, in order.
var historyKeys = []string{"provider", "region", "zone", "instance_type", "price_type", "term", "payment", "offering_class", "os",
	"currency", "hourly_price", "upfront", "effective_hourly", "price_per_gpu_hour", "gpu_model", "gpu_count", "gpu_memory_gb",
	"valid_from", "valid_to", "last_seen"}

// openPrices is the open price intervals of the instance types, by the
// offer id the test compares on; an id open twice is an error.
func openPrices(t *testing.T, cfg string, instanceTypes []string, id func(historyJSON) string) map[string]historyJSON {
	t.Helper()
	got := map[string]historyJSON{}
	for _, typ := range instanceTypes {
		for _, r := range history(t, cfg, typ) {
			if r.ValidTo != nil {
				continue
			}
			k := id(r)
			if _, dup := got[k]; dup {
				t.Errorf("%s: two open intervals", k)
			}
			got[k] = r
		}
	}
	return got
}

// checkAmounts wants the stored row's hourly, upfront and effective
// hourly prices to equal the given ones as decimals.
func checkAmounts(t *testing.T, id string, r historyJSON, hourly, upfront, effective string) {
	t.Helper()
	if !decimal.Decimal(r.HourlyPrice).Equal(decimal.RequireFromString(hourly)) || !decimal.Decimal(r.Upfront).Equal(decimal.RequireFromString(upfront)) ||
		!decimal.Decimal(r.EffectiveHourly).Equal(decimal.RequireFromString(effective)) {
		t.Errorf("%s: hourly %s upfront %s effective %s, want %s, %s, %s", id, r.HourlyPrice, r.Upfront, r.EffectiveHourly, hourly, upfront, effective)
	}
}

// checkHardware wants the stored row's GPUs to be want's.
func checkHardware(t *testing.T, id string, r historyJSON, want pricewatch.Hardware) {
	t.Helper()
	if r.GPUModel != want.GPUModel || r.GPUCount != want.GPUCount || r.GPUMemoryGB != want.GPUMemoryGB {
		t.Errorf("%s: hardware %s × %v (%v GB), want %s × %v (%v GB)", id, r.GPUModel, r.GPUCount, r.GPUMemoryGB, want.GPUModel, want.GPUCount, want.GPUMemoryGB)
	}
}

func TestFetchAndHistoryAgainstFakeAzure(t *testing.T) {
	az := newFakeAzure(t)
	cfg := writeConfig(t, t.TempDir(), az.URL)

	out, errOut, code := runCLI(t, "--config", cfg, "fetch")
	if code != 0 {
		t.Fatalf("fetch exited %d: %s%s", code, out, errOut)
	}
	if !strings.Contains(out, "azure    ok") || !strings.Contains(out, "first run") {
		t.Errorf("fetch summary: %q", out)
	}
	if len(az.requests) != 2 || !strings.Contains(az.requests[0], "api-version=2023-01-01-preview") || !strings.Contains(az.requests[0], "armRegionName") {
		t.Errorf("requests: %v", az.requests)
	}

	rows := history(t, cfg, "Standard_ND96amsr_A100_v4")
	got := map[string]string{}
	for _, r := range rows {
		if r.ValidTo != nil || r.Currency != "USD" || r.GPUModel != "A100-80GB" || r.GPUCount != 8 {
			t.Errorf("row %+v", r)
		}
		got[strings.Join([]string{string(r.PriceType), r.Term, r.Payment, r.OS}, "/")] = r.EffectiveHourly.String()
	}
	want := map[string]string{
		"on_demand///linux":                "32.77",
		"spot///linux":                     "6.554",
		"reserved/1y/all_upfront/linux":    "20.1180365297", // 176234 / 8760
		"reserved/3y/all_upfront/linux":    "12.9435312024", // 340156 / 26280
		"savings_plan/1y/no_upfront/linux": "27.5268",
		"savings_plan/3y/no_upfront/linux": "22.939",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: effective hourly %q, want %s", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got offers %v, want exactly %v (Low Priority and DevTest left out)", got, want)
	}

	// Second run, one price changed: exactly one new interval.
	az.setPrice(t, "2", `"retailPrice": 6.98,`, `"retailPrice": 6.5,`)
	az.setPrice(t, "2", `"unitPrice": 6.98,`, `"unitPrice": 6.5,`)
	if out, errOut, code := runCLI(t, "--config", cfg, "fetch"); code != 0 || !strings.Contains(out, "1 changed") {
		t.Fatalf("second fetch exited %d: %s%s", code, out, errOut)
	}
	before := len(rows) + len(history(t, cfg, "Standard_NC40ads_H100_v5"))
	h100 := history(t, cfg, "Standard_NC40ads_H100_v5")
	closed := 0
	for _, r := range h100 {
		if r.ValidTo != nil {
			closed++
			if r.PriceType != "on_demand" || r.OS != "linux" || r.EffectiveHourly.String() != "6.98" {
				t.Errorf("closed interval %+v, want the old on-demand price", r)
			}
		}
	}
	if closed != 1 {
		t.Errorf("closed intervals: %d, want 1", closed)
	}

	// A truncated page fails the run and changes nothing.
	az.mu.Lock()
	az.truncate = "2"
	az.mu.Unlock()
	out, _, code = runCLI(t, "--config", cfg, "fetch")
	if code == 0 || !strings.Contains(out, "FAILED") {
		t.Fatalf("truncated page: exit %d, %q", code, out)
	}
	after := len(history(t, cfg, "Standard_ND96amsr_A100_v4")) + len(history(t, cfg, "Standard_NC40ads_H100_v5"))
	if after != before {
		t.Errorf("intervals after failed run: %d, want %d", after, before)
	}
	for _, r := range history(t, cfg, "Standard_ND96amsr_A100_v4") {
		if r.ValidTo != nil {
			t.Errorf("failed run closed %+v", r)
		}
	}
}

// An unknown type is "not found" (exit 4) with suggestions from what is
// stored; a case difference finds the stored type; a known type with
// nothing in the filter is an empty list, exit 0.
func TestHistoryUnknownType(t *testing.T) {
	az := newFakeAzure(t)
	cfg := writeConfig(t, t.TempDir(), az.URL)
	if _, errOut, code := runCLI(t, "--config", cfg, "fetch"); code != 0 {
		t.Fatalf("fetch: %s", errOut)
	}
	out, errOut, code := runCLI(t, "--config", cfg, "history", "Standard_ND96amsr_A100_v", "--format", "json")
	if code != exitNotFound || out != "" || !strings.Contains(errOut, "did you mean Standard_ND96amsr_A100_v4") {
		t.Errorf("misspelt type: got %d %q %q", code, out, errOut)
	}
	if n := strings.Count(errOut, "pricewatch:"); n != 1 {
		t.Errorf("error reported %d times: %q", n, errOut)
	}
	out, errOut, code = runCLI(t, "--config", cfg, "history", "STANDARD_ND96AMSR_A100_V4", "--format", "json")
	if code != 0 || !strings.Contains(out, `"instance_type": "Standard_ND96amsr_A100_v4"`) {
		t.Errorf("upper-case type: got %d %q %q", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "--config", cfg, "history", "Standard_ND96amsr_A100_v4", "--region", "nowhere-1", "--format", "json")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("known type, nothing in the filter: got %d %q %q, want []", code, out, errOut)
	}
	_, errOut, code = runCLI(t, "--config", cfg, "compare", "--gpu", "H10", "--format", "json")
	if code != exitNotFound || !strings.Contains(errOut, "did you mean H100") {
		t.Errorf("misspelt GPU: got %d %q", code, errOut)
	}
}

func TestBadConfigExitsWithKeyAndLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.yaml")
	os.WriteFile(path, []byte("database:\n  path: x.db\n  bogus: 1\n"), 0o600)
	_, errOut, code := runCLI(t, "--config", path, "history", "x")
	if code == 0 || !strings.Contains(errOut, "line 3: database.bogus: unknown key") {
		t.Fatalf("got %d %q", code, errOut)
	}
}

func TestAvailabilityGPUFamily(t *testing.T) {
	az := newFakeAzure(t)
	cfg := writeConfig(t, t.TempDir(), az.URL)
	if _, errOut, code := runCLI(t, "--config", cfg, "fetch"); code != 0 {
		t.Fatalf("fetch: %s", errOut)
	}
	for gpu, want := range map[string]int{"A100": 1, "a100-80gb": 1, "H100": 1, "H100-NVL": 1, "A10": 0, "T4": 0} {
		out, errOut, code := runCLI(t, "--config", cfg, "availability", "--gpu", gpu, "--format", "json")
		if want == 0 && code == exitNotFound {
			continue // no stored model matches: not found, not an A100
		}
		if code != 0 {
			t.Fatalf("availability --gpu %s: %s", gpu, errOut)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) != want {
			t.Errorf("--gpu %s: %d rows, want %d: %v", gpu, len(rows), want, rows)
		}
		for _, r := range rows {
			for _, k := range []string{"provider", "region", "zone", "instance_type", "gpu_model", "gpu_count", "state", "since", "until"} {
				if _, ok := r[k]; !ok {
					t.Errorf("row lacks %q: %v", k, r)
				}
			}
			if r["state"] != "offered" || r["until"] != nil {
				t.Errorf("row %v: want offered and until null", r)
			}
		}
	}
}
