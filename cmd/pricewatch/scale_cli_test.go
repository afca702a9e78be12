package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The sizes the Azure fetcher knows (fetchers/azure/gpus.go), so that every
// generated row is kept.
var scaleAzureSizes = []string{
	"Standard_ND96isr_H100_v5", "Standard_ND96isr_H200_v5", "Standard_ND96isr_MI300X_v5", "Standard_ND128isr_NDR_GB200_v6",
	"Standard_ND96asr_v4", "Standard_ND96asr_A100_v4", "Standard_ND96amsr_A100_v4", "Standard_NC24ads_A100_v4",
	"Standard_NC48ads_A100_v4", "Standard_NC96ads_A100_v4", "Standard_NC40ads_H100_v5", "Standard_NC80adis_H100_v5",
	"Standard_NCC40ads_H100_v5", "Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3", "Standard_NC16as_T4_v3",
	"Standard_NC64as_T4_v3", "Standard_NC6s_v3", "Standard_NC12s_v3", "Standard_NC24s_v3", "Standard_NC24rs_v3",
	"Standard_ND40rs_v2", "Standard_NV6ads_A10_v5", "Standard_NV12ads_A10_v5", "Standard_NV18ads_A10_v5",
	"Standard_NV36ads_A10_v5", "Standard_NV36adms_A10_v5", "Standard_NV72ads_A10_v5",
}

// scaleAzure is a fake Retail Prices API listing every known GPU size in
// many regions, in the real row layout (testdata/azure/westus2-1.json):
// per size and region a Linux consumption row with two savings-plan terms,
// a Spot row, 1- and 3-year reservations, and Windows consumption and Spot
// rows — eight offers. Each advance moves a share of the prices.
type scaleAzure struct {
	*httptest.Server
	regions []string
	mu      sync.Mutex
	prices  map[string]int // row id → price in ten-thousandths
	run     int
}

func newScaleAzure(regions int) *scaleAzure {
	f := &scaleAzure{prices: map[string]int{}}
	for i := 0; i < regions; i++ {
		f.regions = append(f.regions, fmt.Sprintf("scaleregion%02d", i))
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// config writes a config into dir with Azure at the fake in every one of
// its regions and, with port set, a listener on 127.0.0.1:port; it
// returns the file's path.
func (f *scaleAzure) config(t *testing.T, dir, port string) string {
	t.Helper()
	c := testConfig{clouds: []cloud{azureCloud(f.URL, "    regions: ["+strings.Join(f.regions, ", ")+"]\n")}}
	if port != "" {
		c.http = "http:\n  listen: 127.0.0.1:" + port + "\n"
	}
	return c.write(t, dir)
}

func scaleHash(parts ...any) uint32 {
	h := fnv.New32a()
	fmt.Fprint(h, parts...)
	return h.Sum32()
}

// advance moves about share of the prices, deterministically.
func (f *scaleAzure) advance(share float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.run++
	for _, region := range f.regions {
		for _, size := range scaleAzureSizes {
			for _, row := range []string{"od", "sp1", "sp3", "spot", "r1", "r3", "win", "winspot"} {
				id := region + "/" + size + "/" + row
				if _, ok := f.prices[id]; !ok || float64(scaleHash(id, f.run)%10000) < share*10000 {
					f.prices[id] = 10000 + int(scaleHash(id, "p", f.run)%90000)
				}
			}
		}
	}
}

var scaleRegionFilter = regexp.MustCompile(`armRegionName eq '([a-z0-9]+)'`)

func (f *scaleAzure) serve(w http.ResponseWriter, r *http.Request) {
	m := scaleRegionFilter.FindStringSubmatch(r.URL.Query().Get("$filter"))
	if m == nil {
		http.Error(w, "no region", http.StatusBadRequest)
		return
	}
	region := m[1]
	f.mu.Lock()
	defer f.mu.Unlock()
	price := func(size, row string) float64 { return float64(f.prices[region+"/"+size+"/"+row]) / 10000 }
	var items []map[string]any
	for _, size := range scaleAzureSizes {
		short := strings.ReplaceAll(strings.TrimPrefix(size, "Standard_"), "_", " ")
		base := map[string]any{"currencyCode": "USD", "tierMinimumUnits": 0.0, "armRegionName": region, "location": region,
			"effectiveStartDate": "2026-10-01T00:00:00Z", "meterId": fmt.Sprintf("%08x", scaleHash(size)), "productId": "DZH318Z0BXWZ",
			"serviceName": "Virtual Machines", "serviceId": "DZH313Z7MMC8", "serviceFamily": "Compute", "unitOfMeasure": "1 Hour",
			"isPrimaryMeterRegion": true, "armSkuName": size, "productName": "Virtual Machines " + short + " Series"}
		row := func(meter, typ string, p float64, extra map[string]any) map[string]any {
			it := map[string]any{}
			for k, v := range base {
				it[k] = v
			}
			it["meterName"], it["skuName"], it["type"], it["retailPrice"], it["unitPrice"] = meter, meter, typ, p, p
			it["skuId"] = fmt.Sprintf("DZH318Z0BXWZ/%04x", scaleHash(size, meter, typ, extra["reservationTerm"])%0xffff)
			for k, v := range extra {
				it[k] = v
			}
			return it
		}
		items = append(items,
			row(short, "Consumption", price(size, "od")*10, map[string]any{"savingsPlan": []map[string]any{
				{"unitPrice": price(size, "sp3") * 5, "retailPrice": price(size, "sp3") * 5, "term": "3 Years"},
				{"unitPrice": price(size, "sp1") * 7, "retailPrice": price(size, "sp1") * 7, "term": "1 Year"}}}),
			row(short+" Spot", "Consumption", price(size, "spot")*3, nil),
			row(short, "Reservation", price(size, "r1")*50000, map[string]any{"reservationTerm": "1 Year"}),
			row(short, "Reservation", price(size, "r3")*100000, map[string]any{"reservationTerm": "3 Years"}),
			row(short, "Consumption", price(size, "win")*11, map[string]any{"productName": "Virtual Machines " + short + " Series Windows"}),
			row(short+" Spot", "Consumption", price(size, "winspot")*4, map[string]any{"productName": "Virtual Machines " + short + " Series Windows"}),
		)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"BillingCurrency": "USD", "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
		"Items": items, "NextPageLink": nil, "Count": len(items)})
}

// TestScaleCLI is the "must show" through the binary: it builds a
// database of ~120 Azure runs of ~16k offers (~0.6M intervals) through
// `pricewatch fetch` against a fake Retail Prices API, then measures an
// unchanged fetch (bytes written to the database files), digest, trends,
// compare and a one-region history as separate processes (time, peak
// RSS). It runs only with PRICEWATCH_SCALE_CLI=1 (minutes); the database
// is kept in $PRICEWATCH_SCALE_CLI_DIR when set.
func TestScaleCLI(t *testing.T) {
	if os.Getenv("PRICEWATCH_SCALE_CLI") == "" {
		t.Skip("set PRICEWATCH_SCALE_CLI=1 to build and measure the scale database through the CLI")
	}
	const share = 0.31
	runs := 120
	if n, err := strconv.Atoi(os.Getenv("PRICEWATCH_SCALE_CLI_RUNS")); err == nil && n > 0 {
		runs = n
	}
	dir := os.Getenv("PRICEWATCH_SCALE_CLI_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	az := newScaleAzure(72)
	defer az.Close()
	cfgPath := az.config(t, dir, "")
	marker := filepath.Join(dir, fmt.Sprintf("built-%d-runs", runs))
	_, err := os.Stat(marker)
	built := err == nil
	began := time.Now()
	for i := 0; i < runs; i++ {
		az.advance(map[bool]float64{true: 1, false: share}[i == 0])
		if built {
			continue
		}
		if _, errOut, code := runCLI(t, "--config", cfgPath, "fetch"); code != 0 {
			t.Fatalf("fetch %d exited %d: %s", i, code, errOut)
		}
		if i%20 == 19 {
			t.Logf("%d fetches in %s", i+1, time.Since(began).Round(time.Second))
		}
	}
	os.WriteFile(marker, nil, 0o600)

	bin := filepath.Join(t.TempDir(), "pricewatch")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// /usr/bin/time reports the binary's own peak RSS and file writes: a
	// child forked from this (large) test process would count the parent's
	// pages it started with.
	timeBin, err := exec.LookPath("time")
	if _, statErr := os.Stat("/usr/bin/time"); statErr == nil {
		timeBin, err = "/usr/bin/time", nil
	}
	if err != nil {
		t.Skip("needs /usr/bin/time to measure peak RSS")
	}
	measure := func(name string, args ...string) {
		t.Helper()
		report := filepath.Join(t.TempDir(), "time.txt")
		cmd := exec.Command(timeBin, append([]string{"-o", report, "-f", "%e %U %S %M %O", bin, "--config", cfgPath}, args...)...)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out.String())
		}
		b, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		var wall, user, sys float64
		var rssKB, blocks int64
		if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "%f %f %f %d %d", &wall, &user, &sys, &rssKB, &blocks); err != nil {
			t.Fatalf("%s: reading %q: %v", name, b, err)
		}
		// %O counts 512-byte blocks the process dirtied in files (Linux
		// accounts a page when it is dirtied, not when flushed).
		// CPU time is given beside wall time: on a shared machine the wall
		// clock measures the neighbours too.
		t.Logf("%-28s wall %6.2f s  cpu %6.2f s  peak RSS %4d MB  written to files %6.2f MB  output %d bytes", name, wall, user+sys, rssKB/1024,
			float64(blocks*512)/1e6, out.Len())
	}
	stats, _, _ := runCLI(t, "--config", cfgPath, "db", "stats")
	t.Logf("database after %d runs:\n%s", runs, stats)
	measure("fetch (unchanged)", "fetch")
	measure("digest", "digest")
	measure("trends --window 90d", "trends", "--window", "90d")
	measure("compare --gpu H100", "compare", "--gpu", "H100")
	measure("history one region (json)", "history", "Standard_ND96isr_H100_v5", "--region", az.regions[0], "--format", "json")
	measure("history all regions (json)", "history", "Standard_ND96isr_H100_v5", "--format", "json")
	measure("history (table)", "history", "Standard_ND96isr_H100_v5")
	measure("savings", "savings", "Standard_ND96isr_H100_v5", "--region", az.regions[0])
	// Issue 27: the FOCUS sheet streams (two passes of EachPrice, one map
	// entry per on-demand offer); jsonl, which still gathers its rows, is
	// the comparison.
	measure("export focus-csv", "export", "--format", "focus-csv")
	measure("export jsonl", "export", "--format", "jsonl")
}
