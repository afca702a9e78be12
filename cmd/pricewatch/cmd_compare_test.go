package main

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/internal/golden"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// analysisNow is the moment the golden commands evaluate at: a Friday a
// week after the newest stored ECB rates (fx.max_age is 10 days in the
// fixture config, so they are not stale yet).
const analysisNow = "2022-07-15T09:00:00Z"

// staleNow is late enough for those rates to be stale (17 days old).
const staleNow = "2022-07-25T09:00:00Z"

// The JSON fixtures under testdata/analysis and testdata/digest share
// their ECB days, their hardware table and their offer keys; these are
// the pieces both read.

// fixtureFXDay is one ECB day of a fixture.
type fixtureFXDay struct {
	Date   string            `json:"date"`
	Source string            `json:"source"`
	PerEUR map[string]string `json:"per_eur"`
}

// fixtureHardware is an instance type's hardware in a fixture.
type fixtureHardware struct {
	GPUModel    string  `json:"gpu_model"`
	GPUCount    float64 `json:"gpu_count"`
	GPUMemoryGB float64 `json:"gpu_memory_gb"`
	VCPUs       int     `json:"vcpus"`
	MemoryGB    float64 `json:"memory_gb"`
}

func (h fixtureHardware) hardware() pricewatch.Hardware {
	return pricewatch.Hardware{GPUModel: h.GPUModel, GPUCount: h.GPUCount, GPUMemoryGB: h.GPUMemoryGB, VCPUs: h.VCPUs, MemoryGB: h.MemoryGB}
}

// readFixture decodes the JSON fixture at path into v.
func readFixture(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// fixtureOffer is the offer a fixture key
// (provider/region/zone/type/price type/term/payment/class/os) names, yet
// without its prices and hardware.
func fixtureOffer(t *testing.T, key, currency string) pricewatch.Offer {
	t.Helper()
	p := strings.Split(key, "/")
	if len(p) != 9 {
		t.Fatalf("fixture key %q: want 9 parts", key)
	}
	return pricewatch.Offer{Provider: p[0], Region: p[1], Zone: p[2], InstanceType: p[3], PriceType: pricewatch.PriceType(p[4]),
		Term: p[5], Payment: p[6], OfferingClass: p[7], OS: p[8], Currency: currency}
}

// storeFXDays stores a fixture's ECB days as `pricewatch fx update` would.
func storeFXDays(ctx context.Context, t *testing.T, db *storage.DB, days []fixtureFXDay) {
	t.Helper()
	for _, d := range days {
		day := storage.FXDay{Source: d.Source, PerEUR: map[string]decimal.Decimal{}}
		var err error
		if day.Date, err = time.Parse(time.DateOnly, d.Date); err != nil {
			t.Fatal(err)
		}
		for c, r := range d.PerEUR {
			day.PerEUR[c] = decimal.RequireFromString(r)
		}
		if err := db.SaveFXDay(ctx, day); err != nil {
			t.Fatal(err)
		}
	}
}

// analysisFixture is testdata/analysis/fixture.json: the snapshots three
// fetch runs of Azure (USD), Alibaba Cloud and Tencent Cloud (CNY) stored,
// in the normalised form the fetchers return. See testdata/analysis/README.md.
type analysisFixture struct {
	Runs     []time.Time                `json:"runs"`
	Coverage map[string][]string        `json:"coverage"`
	FXDays   []fixtureFXDay             `json:"fx_days"`
	Hardware map[string]fixtureHardware `json:"hardware"`
	// Offers give a price per run: element i is the price stored by run i,
	// a shorter list keeps its last price.
	Offers []struct {
		Key      string   `json:"key"`
		Currency string   `json:"currency"`
		Hourly   []string `json:"hourly"`
		Upfront  []string `json:"upfront"`
	} `json:"offers"`
	Availability []struct {
		Place        string `json:"place"` // provider/region/zone
		InstanceType string `json:"instance_type"`
		State        string `json:"state"`
		StockDetail  string `json:"stock_detail"`
	} `json:"availability"`
}

func atRun(vals []string, run int) string {
	switch {
	case len(vals) == 0:
		return "0"
	case run < len(vals):
		return vals[run]
	}
	return vals[len(vals)-1]
}

// snapshots returns the provider snapshots of run i.
func (f *analysisFixture) snapshots(t *testing.T, run int) []*pricewatch.Snapshot {
	t.Helper()
	byProvider := map[string]*pricewatch.Snapshot{}
	snap := func(provider string) *pricewatch.Snapshot {
		s := byProvider[provider]
		if s == nil {
			s = &pricewatch.Snapshot{Provider: provider, SourceVersion: "fixture"}
			for _, r := range f.Coverage[provider] {
				s.Coverage = append(s.Coverage, pricewatch.Scope{Region: r, Availability: true})
			}
			byProvider[provider] = s
		}
		return s
	}
	for _, fo := range f.Offers {
		o := fixtureOffer(t, fo.Key, fo.Currency)
		o.Hourly, o.Upfront = decimal.RequireFromString(atRun(fo.Hourly, run)), decimal.RequireFromString(atRun(fo.Upfront, run))
		hw, ok := f.Hardware[o.InstanceType]
		if !ok {
			t.Fatalf("fixture: no hardware for %s", o.InstanceType)
		}
		o.Hardware = hw.hardware()
		s := snap(o.Provider)
		s.Offers = append(s.Offers, o)
	}
	for _, fa := range f.Availability {
		p := strings.Split(fa.Place, "/")
		hw := f.Hardware[fa.InstanceType]
		s := snap(p[0])
		s.Availability = append(s.Availability, pricewatch.Availability{Provider: p[0], Region: p[1], Zone: p[2],
			InstanceType: fa.InstanceType, State: pricewatch.AvailabilityState(fa.State), StockDetail: fa.StockDetail,
			Hardware: pricewatch.Hardware{GPUModel: hw.GPUModel, GPUCount: hw.GPUCount, GPUMemoryGB: hw.GPUMemoryGB}})
	}
	out := make([]*pricewatch.Snapshot, 0, len(byProvider))
	for _, p := range sortedKeysOf(byProvider) {
		out = append(out, byProvider[p])
	}
	return out
}

func sortedKeysOf[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// analysisConfig stores the fixture in a new database through
// storage.SaveSnapshot, one run at a time with the clock at the run's time,
// and returns a config file pointing at it. Without rates, no ECB day is
// stored (as before the first `pricewatch fx update`).
func analysisConfig(t *testing.T, withRates bool) string {
	t.Helper()
	var fix analysisFixture
	readFixture(t, filepath.Join("testdata", "analysis", "fixture.json"), &fix)
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "pw.db")
	ctx := context.Background()
	db := openTestDB(t, dbPath)
	defer db.Close()
	for i, at := range fix.Runs {
		db.Now = func() time.Time { return at }
		for _, snap := range fix.snapshots(t, i) {
			runID, err := db.StartRun(ctx, snap.Provider)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.SaveSnapshot(ctx, runID, snap, storage.SaveOptions{}); err != nil {
				t.Fatalf("run %d, %s: %v", i, snap.Provider, err)
			}
		}
	}
	if withRates {
		storeFXDays(ctx, t, db, fix.FXDays)
	}
	return testConfig{fx: "  currency: USD\n  max_age: 240h\n"}.write(t, dir)
}

type goldenCase struct {
	name string // file under testdata/analysis
	args []string
	// noRates runs against a database without stored exchange rates.
	noRates bool
	// code is the exit status expected; for a non-zero one the golden file
	// holds what the command wrote to stderr.
	code int
	// columns is $COLUMNS for the run (default 100); the table output must
	// fit it unless the case is a _wide one.
	columns int
}

// runGoldens runs each command line against the fixture database and
// compares its output with the golden file. Table outputs must fit 100
// columns.
func runGoldens(t *testing.T, cases []goldenCase) {
	t.Helper()
	cfgs := map[bool]string{}
	for _, c := range cases {
		if _, ok := cfgs[c.noRates]; !ok {
			cfgs[c.noRates] = analysisConfig(t, !c.noRates)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			columns := c.columns
			if columns == 0 {
				columns = 100
			}
			t.Setenv("COLUMNS", strconv.Itoa(columns))
			cfg := cfgs[c.noRates]
			out, errOut, code := runCLI(t, append([]string{"--config", cfg}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, errOut)
			}
			if c.code != 0 {
				if out != "" {
					t.Errorf("exit %d printed to stdout: %q", code, out)
				}
				checkGolden(t, filepath.Join("analysis", c.name), errOut)
				return
			}
			checkGolden(t, filepath.Join("analysis", c.name), out)
			// --wide is the one way to ask for more than 100 columns.
			if strings.HasSuffix(c.name, ".txt") && !strings.Contains(c.name, "_wide") {
				checkWidthAt(t, out, columns)
			}
			if strings.HasSuffix(c.name, ".json") && !json.Valid([]byte(out)) {
				t.Errorf("not JSON:\n%s", out)
			}
		})
	}
}

// checkGolden compares got with testdata/<name>, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), []byte(got))
}

func checkWidth(t *testing.T, out string) { checkWidthAt(t, out, 100) }

func checkWidthAt(t *testing.T, out string, max int) {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > max {
			t.Errorf("line %d is %d columns wide (max %d): %q", i+1, n, max, line)
		}
	}
}

func TestCompareGolden(t *testing.T) {
	now := "--now=" + analysisNow
	runGoldens(t, []goldenCase{
		{name: "compare_a100_x8.txt", args: []string{"compare", "--gpu", "A100", "--count", "8", now}},
		{name: "compare_a100_x8.json", args: []string{"compare", "--gpu", "A100", "--count", "8", "--format", "json", now}},
		{name: "compare_a100_x8.csv", args: []string{"compare", "--gpu", "A100", "--count", "8", "--format", "csv", now}},
		{name: "compare_a100_any_cny.txt", args: []string{"compare", "--gpu", "a100", "--price-type", "any", "--currency", "CNY", now}},
		{name: "compare_a100_any_wide.txt", args: []string{"compare", "--gpu", "A100", "--price-type", "reserved,savings_plan", "--wide", now}},
		{name: "compare_a100_available.txt", args: []string{"compare", "--gpu", "A100", "--available-only", now}},
		{name: "compare_stale_rate.txt", args: []string{"compare", "--gpu", "A100", "--count", "8", "--now=" + staleNow}},
		{name: "compare_missing_rate.txt", args: []string{"compare", "--gpu", "A100", "--count", "8", now}, noRates: true},
		{name: "compare_missing_rate.json", args: []string{"compare", "--gpu", "A100", "--count", "8", "--format", "json", now}, noRates: true},
		{name: "compare_none.json", args: []string{"compare", "--gpu", "B200", "--format", "json", now}, code: exitNotFound},
		{name: "compare_empty.json", args: []string{"compare", "--gpu", "A100", "--region", "nowhere-1", "--format", "json", now}},
	})
}

// compareRowsOf runs `pricewatch compare` with args, wants success, and
// decodes its JSON rows into the rows the command writes (the compare_*.json
// golden files pin their keys); stdout and stderr are returned too.
func compareRowsOf(t *testing.T, cfg string, args ...string) (rows []report.CompareRow, out, errOut string) {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"--config", cfg, "compare"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	decodeJSON(t, out, &rows)
	return rows, out, errOut
}

func decodeJSON(t *testing.T, out string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
}

func TestCompareRanksCNYOfferFirstAfterConversion(t *testing.T) {
	cfg := analysisConfig(t, true)
	rows, out, _ := compareRowsOf(t, cfg, "--gpu", "A100", "--count", "8", "--format", "json", "--now="+analysisNow)
	// 1 CNY = 1.0163 / 6.8095 USD (ECB, 2022-07-08). Alibaba's 171.20 CNY for
	// 8 GPUs is 21.40 CNY per GPU-hour; Tencent's 199 CNY is 24.875; Azure's
	// 32.77 USD is 4.09625. By the raw numbers Azure would come first.
	usdPerCNY := decimal.RequireFromString("1.0163").Div(decimal.RequireFromString("6.8095"))
	perGPU := func(native string) decimal.Decimal {
		return decimal.RequireFromString(native).Div(decimal.NewFromInt(8)).Mul(usdPerCNY).Round(10)
	}
	want := []struct {
		provider, native, nativeCur string
		perGPU                      decimal.Decimal
		available                   bool
	}{
		{"alibaba", "171.2", "CNY", perGPU("171.2"), true},
		{"tencent", "199", "CNY", perGPU("199"), false},
		{"azure", "32.77", "USD", decimal.RequireFromString("4.09625"), true},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(want), out)
	}
	for i, w := range want {
		r := rows[i]
		if r.Rank == nil || *r.Rank != i+1 || r.Provider != w.provider || r.NativeCurrency != w.nativeCur || r.Currency != "USD" {
			t.Errorf("row %d: %+v, want %s ranked %d", i, r, w.provider, i+1)
			continue
		}
		if got := r.PricePerGPUHour; !got.Valid || !got.D.Sub(w.perGPU).Abs().LessThan(decimal.New(1, -9)) {
			t.Errorf("%s: price_per_gpu_hour %s, want %s", w.provider, got.Text(), w.perGPU)
		}
		if r.NativeEffectiveHourly.String() != w.native {
			t.Errorf("%s: native_effective_hourly %s, want %s", w.provider, r.NativeEffectiveHourly, w.native)
		}
		// compare_a100_x8.json pins that available is a bool, never null.
		if r.Available != w.available {
			t.Errorf("%s: available %v, want %v", w.provider, r.Available, w.available)
		}
		if w.nativeCur == "CNY" && (r.FXRate.Text() != "0.149247375" || r.FXDate == nil || *r.FXDate != "2022-07-08") {
			t.Errorf("%s: fx_rate %s fx_date %v, want 0.149247375 of 2022-07-08", w.provider, r.FXRate.Text(), r.FXDate)
		}
		if w.nativeCur == "USD" && (r.FXRate.Text() != "1" || r.FXDate != nil) {
			t.Errorf("%s: fx_rate %s fx_date %v, want 1 and null", w.provider, r.FXRate.Text(), r.FXDate)
		}
	}
	if !strings.Contains(out, `"fx_rate": 0.149247375,`) {
		t.Errorf("fx_rate is not a bare JSON number:\n%s", out)
	}
}

func TestCompareWithoutRateNeverTreatsCNYAsUSD(t *testing.T) {
	cfg := analysisConfig(t, false)
	rows, _, errOut := compareRowsOf(t, cfg, "--gpu", "A100", "--count", "8", "--format", "json", "--now="+analysisNow)
	ranked := 0
	for _, r := range rows {
		if r.NativeCurrency == "USD" {
			ranked++
			if r.Rank == nil || !r.PricePerGPUHour.Valid {
				t.Errorf("USD row not ranked: %+v", r)
			}
			continue
		}
		if r.Rank != nil || r.PricePerGPUHour.Valid || r.FXRate.Valid || r.FXDate != nil {
			t.Errorf("CNY row without a rate was ranked or priced: %+v", r)
		}
	}
	if ranked != 1 || len(rows) != 3 {
		t.Errorf("rows %+v: want Azure ranked and two CNY rows unranked", rows)
	}
	if !strings.Contains(errOut, "No rate for CNY→USD: set fx.fixed_rates or run `pricewatch fx update`") {
		t.Errorf("stderr does not warn about the missing rate: %q", errOut)
	}

	// A configured fixed rate is used, and named as such.
	fixed := strings.Replace(readFile(t, cfg), "  max_age: 240h\n", "  max_age: 240h\n  fixed_rates: {USD: \"1.0163\", CNY: \"6.8095\"}\n", 1)
	if err := os.WriteFile(cfg, []byte(fixed), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "--config", cfg, "compare", "--gpu", "A100", "--count", "8", "--now="+analysisNow)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "Rates: 1 CNY = 0.149247375 USD (fixed, from fx.fixed_rates)") || strings.Contains(out, "No rate") {
		t.Errorf("fixed rate not used or not shown:\n%s", out)
	}
}

func TestCompareStaleRateIsFlagged(t *testing.T) {
	cfg := analysisConfig(t, true)
	for _, format := range []string{"table", "json"} {
		out, errOut, code := runCLI(t, "--config", cfg, "compare", "--gpu", "A100", "--count", "8", "--format", format, "--now="+staleNow)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		switch format {
		case "table":
			if !strings.Contains(out, "STALE: the CNY rate of 2022-07-08 is 17 days old (fx.max_age 10d): run `pricewatch fx update`.") {
				t.Errorf("table does not flag the stale rate:\n%s", out)
			}
		case "json":
			if strings.Count(out, `"fx_stale": true`) != 2 || !strings.Contains(errOut, "STALE") {
				t.Errorf("JSON does not flag both CNY rows, or no warning on stderr (%q):\n%s", errOut, out)
			}
		}
	}
}

func TestCompareRejectsBadFlags(t *testing.T) {
	checkRejected(t, analysisConfig(t, true), "", [][]string{
		{"compare"},
		{"compare", "--gpu", "A100", "--price-type", "hourly"},
		{"compare", "--gpu", "A100", "--currency", "dollars"},
		{"compare", "--gpu", "A100", "--format", "xml"},
		{"compare", "--gpu", "A100", "--now", "yesterday"},
	})
}

// checkContains wants text (what names it) to hold each of wants.
func checkContains(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}

// checkRejected wants each command line to fail with an error on stderr
// that says want (any error when want is "").
func checkRejected(t *testing.T, cfg, want string, lines [][]string) {
	t.Helper()
	for _, args := range lines {
		if _, errOut, code := runCLI(t, append([]string{"--config", cfg}, args...)...); code == 0 || errOut == "" || !strings.Contains(errOut, want) {
			t.Errorf("%v: exit %d, stderr %q; want an error saying %q", args, code, errOut, want)
		}
	}
}

func TestFitTableDropsFiguresLastAndSaysSo(t *testing.T) {
	width.Store(100) // as on a 100-column terminal
	t.Cleanup(func() { width.Store(0) })
	long := strings.Repeat("x", 80)
	cols := []table.Column{{Head: ">#", Drop: 1}, {Head: "NAME"}, {Head: ">/GB", Drop: 2}, {Head: ">/TFLOPS", Drop: 3}, {Head: "PRICE"}}
	table.AddRow(cols, "1", long, "0.0500", "0.01000", "4.10")
	var b strings.Builder
	dropped, err := fitTable(&b, cols)
	if err != nil {
		t.Fatal(err)
	}
	checkWidth(t, b.String())
	if strings.Join(dropped, ",") != "/GB" || strings.Contains(b.String(), "0.0500") || !strings.Contains(b.String(), "0.01000") {
		t.Errorf("dropped %v:\n%s", dropped, b.String())
	}
}

func TestWrapTextKeepsWidth(t *testing.T) {
	text := strings.Repeat("word ", 60)
	out := table.Wrap(text, 30, "  ")
	checkWidth(t, out)
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if utf8.RuneCountInString(l) > 30 || (i > 0 && !strings.HasPrefix(l, "  ")) {
			t.Errorf("line %d %q", i, l)
		}
	}
	if strings.Join(strings.Fields(out), " ") != strings.TrimSpace(text) {
		t.Error("wrapping lost words")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAnalysisCommandsRejectUnknownOS(t *testing.T) {
	cfg := analysisConfig(t, true)
	checkRejected(t, cfg, "--os", [][]string{
		{"compare", "--gpu", "A100", "--os", "macos"},
		{"savings", "Standard_ND96amsr_A100_v4", "--os", "macos"},
		{"trends", "--os", "macos"},
		{"recommend", "--gpu", "A100", "--os", "macos"},
	})
	// Windows prices are kept apart: only the H100 NVL machine has one.
	rows, _, _ := compareRowsOf(t, cfg, "--gpu", "H100", "--os", "windows", "--format", "json", "--now="+analysisNow)
	if len(rows) != 1 || rows[0].InstanceType != "Standard_NC40ads_H100_v5" || rows[0].NativeEffectiveHourly.String() != "8.82" {
		t.Errorf("windows rows: %+v", rows)
	}
}
