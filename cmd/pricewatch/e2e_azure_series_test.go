package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/internal/golden"
	"github.com/pricewatch/pricewatch/storage"
)

// seriesDir holds the real Azure series (see its README there).
var seriesDir = filepath.Join("..", "..", "fetchers", "azure", "testdata", "series")

// seriesRegions are every region the series has GPU rows for. The config
// names them all, as a user tracking these sizes would: each snapshot is a
// cut of the catalogue, so a region the snapshot has no rows for answers
// empty, and storage's "came back empty" check judges that honestly
// (a region that held five or more offers and now has none fails the run
// and changes nothing; fewer are closed as no longer listed).
var seriesRegions = []string{"eastus", "eastus2", "germanywestcentral", "italynorth", "southindia", "switzerlandwest", "usgovarizona", "usgovvirginia"}

type seriesSnapshot struct {
	file  string
	date  string
	taken time.Time
	items []json.RawMessage
}

func readSeries(t *testing.T) []seriesSnapshot {
	t.Helper()
	f, err := os.Open(filepath.Join(seriesDir, "COMMITS.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []seriesSnapshot
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 3 || !strings.HasPrefix(cols[0], "gpu-items-") {
			continue
		}
		taken, err := time.Parse(time.RFC3339, cols[2])
		if err != nil {
			t.Fatalf("COMMITS.tsv %s: %v", cols[0], err)
		}
		body, err := os.ReadFile(filepath.Join(seriesDir, cols[0]))
		if err != nil {
			t.Fatal(err)
		}
		s := seriesSnapshot{file: cols[0], date: strings.TrimSuffix(strings.TrimPrefix(cols[0], "gpu-items-"), ".json"), taken: taken.UTC()}
		if err := json.Unmarshal(body, &s.items); err != nil {
			t.Fatalf("%s: %v", cols[0], err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) != 51 || !slices.IsSortedFunc(out, func(a, b seriesSnapshot) int { return a.taken.Compare(b.taken) }) {
		t.Fatalf("series: %d snapshots (want 51, in date order)", len(out))
	}
	return out
}

// fakeRetailAPI serves one snapshot's items as Retail Prices API pages:
// only the rows the snapshot had, filtered by the request's armRegionName
// (the fetcher checks every other condition itself), 100 items a page as
// the API pages without api-version, NextPageLink with $skip.
type fakeRetailAPI struct {
	*httptest.Server
	mu    sync.Mutex
	items []json.RawMessage
}

var regionFilter = regexp.MustCompile(`armRegionName eq '([a-z0-9]+)'`)

func newFakeRetailAPI(t *testing.T) *fakeRetailAPI {
	t.Helper()
	f := &fakeRetailAPI{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeRetailAPI) set(items []json.RawMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.items = items
}

func (f *fakeRetailAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := r.URL.Query()
	region := ""
	if m := regionFilter.FindStringSubmatch(q.Get("$filter")); m != nil {
		region = m[1]
	}
	var match []json.RawMessage
	for _, it := range f.items {
		var row struct {
			ArmRegionName string `json:"armRegionName"`
		}
		if err := json.Unmarshal(it, &row); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if region == "" || row.ArmRegionName == region {
			match = append(match, it)
		}
	}
	const pageSize = 100
	skip, _ := strconv.Atoi(q.Get("$skip"))
	end := min(skip+pageSize, len(match))
	page := match[min(skip, len(match)):end]
	var next any
	if end < len(match) {
		q.Set("$skip", strconv.Itoa(end))
		next = f.URL + r.URL.Path + "?" + q.Encode()
	}
	if page == nil {
		page = []json.RawMessage{}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"BillingCurrency": "USD", "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
		"Items": page, "NextPageLink": next, "Count": len(page),
	})
}

// setClock makes the CLI run at t (runs, validity fields) for the test.
func setClock(t *testing.T, at *time.Time) {
	t.Helper()
	old := clock
	clock = func() time.Time { return *at }
	t.Cleanup(func() { clock = old })
}

var durationSuffix = regexp.MustCompile(` in [0-9.]+(µs|ms|s|m)+[0-9.a-zµ]*`)

// TestRealAzureSeriesEndToEnd replays the 51 real snapshots in date order
// through `pricewatch fetch`, each at the time it was taken, with Slack
// configured and no alerts section (the built-in rules), and checks the
// current prices after each snapshot against a reviewed golden file, the
// prices the issue names, and that no placeholder is ever stored or
// alerted.
func TestRealAzureSeriesEndToEnd(t *testing.T) {
	series := readSeries(t)
	t.Setenv(envSlackToken, alertsToken)
	az := newFakeRetailAPI(t)
	slack := newSlackAPI(t)
	dir := t.TempDir()
	cfg := writeConfig(t, dir, az.URL, fmt.Sprintf("slack:\n  channel: C0GPUALERTS\n  api_url: %s/api/\n", slack.URL))
	// writeConfig names one region; this test tracks every region of the
	// series.
	body, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	body = []byte(strings.Replace(string(body), "regions: [westus2]", "regions: ["+strings.Join(seriesRegions, ", ")+"]", 1))
	if err := os.WriteFile(cfg, body, 0o600); err != nil {
		t.Fatal(err)
	}
	var now time.Time
	setClock(t, &now)

	placeholders := []string{"0.01", "0.0052", "0.00604", "2.95"}
	var report strings.Builder
	var h200 struct{ od, r1, r3, r10 string }
	for _, snap := range series {
		now = snap.taken
		az.set(snap.items)
		out, errOut, code := runCLI(t, "--config", cfg, "fetch")
		if strings.Contains(out+errOut, "panic") {
			t.Fatalf("%s: %s%s", snap.date, out, errOut)
		}
		fmt.Fprintf(&report, "== %s (taken %s) exit %d\n", snap.date, snap.taken.Format(time.RFC3339), code)
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			fmt.Fprintf(&report, "   %s\n", durationSuffix.ReplaceAllString(line, ""))
		}

		db := openTestDB(t, filepath.Join(dir, "pw.db"))
		cur, err := db.Prices(context.Background(), storage.PriceFilter{CurrentOnly: true})
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		h200.od, h200.r1, h200.r3, h200.r10 = "", "", "", ""
		for _, p := range cur {
			amount := p.Hourly.String()
			if p.Term != "" {
				amount = p.Upfront.String() + " upfront"
			}
			fmt.Fprintf(&report, "   %-18s %-38s %-9s %-3s %-7s %s %-16s gpu %s × %s\n", p.Region, p.InstanceType, p.PriceType, p.Term, p.OS, p.Currency, amount,
				dash(p.GPUModel), strconv.FormatFloat(p.GPUCount, 'f', -1, 64))
			// Both RTX PRO 6000 Blackwell Server Edition sizes carry two
			// GPUs (fetchers/azure/gpus.go gives the source).
			if strings.Contains(p.InstanceType, "RTXPRO6000BSE") && (p.GPUModel != "RTX-PRO-6000" || p.GPUCount != 2) {
				t.Errorf("%s: %s %s stored with GPU %q × %v, want RTX-PRO-6000 × 2", snap.date, p.InstanceType, p.Region, p.GPUModel, p.GPUCount)
			}
			if p.InstanceType == "Standard_ND96isr_H200_v5" {
				switch {
				case p.Region == "usgovvirginia" && p.PriceType == "on_demand":
					h200.od = p.Hourly.String()
				case p.Region == "usgovvirginia" && p.Term == "1y":
					h200.r1 = p.Upfront.String()
				case p.Region == "usgovvirginia" && p.Term == "3y":
					h200.r3 = p.Upfront.String()
				case p.Region == "italynorth" && p.Term == "10y":
					h200.r10 = p.Upfront.String()
				}
			}
		}
		// The H200 prices the snapshot lists are what is stored.
		has := func(price string) bool {
			for _, it := range snap.items {
				if strings.Contains(string(it), `"Standard_ND96isr_H200_v5"`) && strings.Contains(string(it), `"retailPrice": `+price+",") {
					return true
				}
			}
			return false
		}
		if code == 0 && has("106.0") && h200.od != "106" {
			t.Errorf("%s: H200 usgovvirginia on-demand %q, want 106", snap.date, h200.od)
		}
		afterAug := !snap.taken.Before(time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC))
		if code == 0 && (has("495201.0") || has("509408.0")) {
			want1, want3 := "495201", "1225699"
			if afterAug {
				want1, want3 = "509408", "1386990"
			}
			if h200.r1 != want1 || h200.r3 != want3 {
				t.Errorf("%s: H200 usgovvirginia reservations %q/%q, want %s/%s", snap.date, h200.r1, h200.r3, want1, want3)
			}
		}
		if code == 0 && has("9657000.0") && h200.r10 != "9657000" {
			t.Errorf("%s: H200 italynorth 10-year %q, want 9657000", snap.date, h200.r10)
		}
	}

	// No placeholder in the whole history (closed intervals too).
	for _, typ := range []string{"Standard_ND96isr_H200_v5", "Standard_NC320lds_xl_RTXPRO6000BSE_v6", "Standard_NC320ds_xl_RTXPRO6000BSE_v6"} {
		rows := history(t, cfg, typ)
		if len(rows) == 0 {
			t.Errorf("%s: no history", typ)
		}
		for _, r := range rows {
			for _, p := range placeholders {
				if r.HourlyPrice.String() == p || r.EffectiveHourly.String() == p {
					t.Errorf("placeholder stored: %+v", r)
				}
			}
		}
	}
	// Nothing held: the fetcher already leaves the placeholders out.
	if out, _, _ := runCLI(t, "--config", cfg, "held", "--format", "json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("held: %s, want nothing (the fetcher drops the placeholder rows)", out)
	}
	// Slack: no placeholder, no absurd move (and Slack really was posted
	// to: the built-in rules alert the new H200 capacity).
	if len(slack.received()) == 0 {
		t.Error("Slack received nothing: the built-in rules should alert new H200 capacity")
	}
	pct := regexp.MustCompile(`([−+-]?[0-9][0-9,]*(\.[0-9]+)?)%`)
	for _, p := range slack.received() {
		for _, ph := range placeholders {
			if strings.Contains(p.text, " "+ph+" ") || strings.Contains(p.text, "$"+ph) {
				t.Errorf("Slack message carries placeholder %s: %s", ph, p.text)
			}
		}
		for _, m := range pct.FindAllStringSubmatch(p.text, -1) {
			v, err := strconv.ParseFloat(strings.NewReplacer("−", "-", ",", "", "+", "").Replace(m[1]), 64)
			if err == nil && (v <= -90 || v >= 100) {
				t.Errorf("Slack message with an absurd move %s: %s", m[0], p.text)
			}
		}
		fmt.Fprintf(&report, "slack %s: %s\n", p.key, p.text)
	}
	golden.Check(t, filepath.Join("testdata", "azure-series.golden"), []byte(report.String()))
}
