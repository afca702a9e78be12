package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	digestrender "github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
)

// TestWeeklyDigestMatchesFullRead: the weekly digest's read (the prices
// in force at the chart's weekly points, each offer's identity held once,
// the raw prices kept only where in force at now, read one part of the
// stored models at a time) builds the same digest, byte for byte but for
// the count of the week's changes, as every interval of the chart's twelve
// weeks built at once, at the end of the history and at a moment with
// later history stored; with the models watched one by one (a part each)
// and as families.
func TestWeeklyDigestMatchesFullRead(t *testing.T) {
	ctx := context.Background()
	db, start, end := irregularHistory(t, 300, 7*time.Hour) // about 87 days
	book, err := fx.NewBook(nil, map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.1")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	render := func(d digest.Digest) string { return renderDigest(t, d) }
	for _, models := range [][]string{{"H100", "A100"}, {"A100-80GB", "L4", "H100"}} {
		for _, now := range []time.Time{end, start.Add(60*24*time.Hour + 5*time.Hour)} {
			t.Run(fmt.Sprintf("%v/%s", models, now.Format(time.RFC3339)), func(t *testing.T) {
				full, err := fullDigestInput(ctx, db, now, digest.ChartWeeks*digest.Week)
				if err != nil {
					t.Fatal(err)
				}
				full.Currency, full.Models, full.FX = "USD", models, book
				d, err := digest.Build(full)
				if err != nil {
					t.Fatal(err)
				}
				if len(d.Moves) == 0 || !slices.ContainsFunc(d.Models, func(r digest.ModelRow) bool { return r.OnDemand != nil }) || !slices.ContainsFunc(d.Models, func(r digest.ModelRow) bool { return r.Spot != nil }) || d.Chart.Empty() {
					t.Fatalf("history too quiet to compare: %d moves, chart empty %v", len(d.Moves), d.Chart.Empty())
				}
				want := render(d)
				weekly, err := WeeklyDigestInput(ctx, db, now, append(append([]string(nil), models...), digest.ChartModels...))
				if err != nil {
					t.Fatal(err)
				}
				if weekly.Prices != nil {
					t.Errorf("WeeklyDigestInput read %d prices; WeeklyDigest reads them", len(weekly.Prices))
				}
				weekly.Currency, weekly.Models, weekly.FX = "USD", models, book
				wd, err := WeeklyDigest(ctx, db, weekly)
				if err != nil {
					t.Fatal(err)
				}
				if got := render(wd); got != want {
					t.Errorf("the weekly read's digest differs from the full read's:\nweekly %s\nfull   %s", got, want)
				}
			})
		}
	}
}

// TestDigestParts: each watched query's stored models share a part; a
// model only the chart or one model query matches is a part of its own;
// models nothing matches are not read.
func TestDigestParts(t *testing.T) {
	stored := []string{"A100-40GB", "A100-80GB", "A100-80GB-PCIe", "B200", "H100", "H100-NVL", "L4", "T4"}
	for _, c := range []struct {
		name           string
		watched, chart []string
		want           [][]string
	}{
		{"defaults", []string{"H100", "H200", "B200", "A100-80GB", "A100-40GB", "L40S"}, []string{"H100", "A100"},
			[][]string{{"A100-40GB"}, {"A100-80GB", "A100-80GB-PCIe"}, {"B200"}, {"H100", "H100-NVL"}}},
		{"a family watched", []string{"A100", "L4"}, []string{"H100"},
			[][]string{{"A100-40GB", "A100-80GB", "A100-80GB-PCIe"}, {"H100"}, {"H100-NVL"}, {"L4"}}},
		{"families joined by a model", []string{"A100-80GB", "A100-40GB", "A100"}, nil,
			[][]string{{"A100-40GB", "A100-80GB", "A100-80GB-PCIe"}}},
		{"nothing watched", nil, []string{"H100"}, [][]string{{"H100"}, {"H100-NVL"}}},
		{"nothing matched", []string{"MI300X"}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := digestParts(stored, c.watched, c.chart); !reflect.DeepEqual(got, c.want) {
				t.Errorf("digestParts = %q, want %q", got, c.want)
			}
		})
	}
}

// TestOverviewInputMatchesWeekRead: the overview's read (the prices in
// force now and a week ago) builds the same model rows, freshness and
// rates as every interval of the week and a day, which the overview read
// before; the week's changes and movers, which it does not show, are not
// compared.
func TestOverviewInputMatchesWeekRead(t *testing.T) {
	ctx := context.Background()
	db, start, end := irregularHistory(t, 300, 7*time.Hour)
	book, err := fx.NewBook(nil, map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.1")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	shown := func(in digest.Input, models []string) string {
		t.Helper()
		in.Currency, in.Models, in.FX = "USD", models, book
		in.WithoutSavings, in.WithoutChart = true, true
		d, err := digest.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		// The overview's own build, without the movers it does not show.
		in.WithoutMoves = true
		without, err := digest.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		if len(without.Moves) != 0 || without.Moved != 0 {
			t.Errorf("WithoutMoves: %d moves, %d moved; want none", len(without.Moves), without.Moved)
		}
		without.Moves, without.Moved = d.Moves, d.Moved
		if !reflect.DeepEqual(without, d) {
			t.Errorf("WithoutMoves changed more than the moves:\n%+v\n%+v", without, d)
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal([]any{d.Models, d.Freshness, d.Rates, d.Offers})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, models := range [][]string{{"H100", "A100"}, {"A100-80GB", "L4", "H100"}} {
		for _, now := range []time.Time{end, start.Add(60*24*time.Hour + 5*time.Hour)} {
			t.Run(fmt.Sprintf("%v/%s", models, now.Format(time.RFC3339)), func(t *testing.T) {
				week, err := fullDigestInput(ctx, db, now, digest.Week+24*time.Hour)
				if err != nil {
					t.Fatal(err)
				}
				want := shown(week, models)
				if !strings.Contains(want, `"OnDemandWoW":"`) || !strings.Contains(want, `"SpotWoW":"`) {
					t.Fatalf("history too quiet to compare:\n%s", want)
				}
				// As of the history's end the prices in force are the
				// current ones: read as such too.
				for _, present := range []bool{false, now.Equal(end)} {
					in, err := OverviewInput(ctx, db, now, present, nil)
					if err != nil {
						t.Fatal(err)
					}
					if len(in.Prices) >= len(week.Prices) {
						t.Errorf("present %v: the overview read %d intervals, the week's read %d: want fewer", present, len(in.Prices), len(week.Prices))
					}
					if got := shown(in, models); got != want {
						t.Errorf("present %v: the overview's read differs from the week's:\ngot  %s\nwant %s", present, got, want)
					}
				}
			})
		}
	}
}

// fullDigestInput is what digest.Build needs as of now, with every Linux
// interval of the last `history` as its prices: the simplest read, which
// the weekly digest's and the overview's narrower reads must equal.
func fullDigestInput(ctx context.Context, st Store, now time.Time, history time.Duration) (digest.Input, error) {
	var ivs []analysis.Interval
	err := st.EachPrice(ctx, storage.PriceFilter{OS: pricewatch.Linux, Since: now.Add(-history)}, func(r *storage.PriceInterval) error {
		ivs = append(ivs, digestInterval(r))
		return nil
	})
	if err != nil {
		return digest.Input{}, err
	}
	return digestRest(ctx, st, now, ivs, nil)
}

// snapshotStore answers CurrentOnly reads from current, the current prices
// of an earlier moment, as the daemon's CurrentState does while a run
// commits; every other read goes to the store, which is newer.
type snapshotStore struct {
	*storage.DB
	current []storage.PriceInterval
}

func (s snapshotStore) EachPrice(ctx context.Context, f storage.PriceFilter, fn func(*storage.PriceInterval) error) error {
	if !f.CurrentOnly {
		return s.DB.EachPrice(ctx, f, fn)
	}
	for i := range s.current {
		if err := fn(&s.current[i]); err != nil {
			return err
		}
	}
	return nil
}

// The overview reads the current prices from the version's snapshot and
// the week's closed ones from the store. A run committed between the two
// closes prices the snapshot still holds as current: the overview must
// show the snapshot's moment, not refuse it as overlapping intervals (the
// load test's "price intervals of azure/… overlap at …").
func TestOverviewInputSnapshotOlderThanStore(t *testing.T) {
	ctx := context.Background()
	db, _, end := irregularHistory(t, 60, 7*time.Hour)
	current, err := db.Prices(ctx, storage.PriceFilter{OS: pricewatch.Linux, CurrentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	book, err := fx.NewBook(nil, map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.1")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	shown := func(st Store) string {
		t.Helper()
		in, err := OverviewInput(ctx, st, end, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		in.Currency, in.Models, in.FX = "USD", []string{"H100", "A100"}, book
		in.WithoutSavings, in.WithoutChart, in.WithoutMoves = true, true, true
		d, err := digest.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal([]any{d.Models, d.Offers})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := shown(db)
	if !strings.Contains(want, `"OnDemandWoW":"`) {
		t.Fatalf("history too quiet to compare:\n%s", want)
	}
	// Two runs after the snapshot: the first closes every price it holds
	// as current, the second closes the first's.
	for run, at := range []time.Time{end.Add(time.Minute), end.Add(2 * time.Minute)} {
		db.Now = func() time.Time { return at }
		var offers []pricewatch.Offer
		for _, r := range current {
			o := r.Offer
			o.Hourly = o.Hourly.Add(decimal.NewFromInt(int64(run + 1)))
			offers = append(offers, o)
		}
		id, err := db.StartRun(ctx, "azure")
		if err != nil {
			t.Fatal(err)
		}
		snap := &pricewatch.Snapshot{Provider: "azure", Offers: offers, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
		if _, err := db.SaveSnapshot(ctx, id, snap, storage.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := shown(snapshotStore{db, current}); got != want {
		t.Errorf("the overview of an older snapshot differs from the store's at its moment:\ngot  %s\nwant %s", got, want)
	}
}

// multiProviderHistory is runs of five providers, each its own snapshot
// every 7 hours: Azure in USD, Vast.ai (a marketplace) and OVHcloud in
// EUR, Alibaba in CNY (no rate in the tests' book), and Lambda, whose
// offers all go two days before the end (gone, but in force a week ago).
// Prices move at different paces, some tie across providers, and Azure
// sells reservations.
func multiProviderHistory(t *testing.T) (*storage.DB, time.Time) {
	t.Helper()
	ctx := context.Background()
	db := dbtest.Open(t)
	clock := time.Date(2026, 10, 1, 3, 17, 0, 0, time.UTC)
	db.Now = func() time.Time { return clock }
	const runs = 80
	providers := []struct {
		name, currency string
		pace           int
	}{{"azure", "USD", 3}, {pricewatch.VastAI, "EUR", 1}, {"ovhcloud", "EUR", 5}, {"alibaba", "CNY", 7}, {"lambda", "USD", 2}}
	for run := 0; run < runs; run++ {
		for pi, p := range providers {
			if p.name == "lambda" && run > runs-7 {
				continue
			}
			var offers []pricewatch.Offer
			for i := 0; i < 6; i++ {
				pt := []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Spot, pricewatch.Reserved}[i%3]
				if pt == pricewatch.Reserved && p.name != "azure" {
					pt = pricewatch.OnDemand
				}
				// The first offers tie across providers at every run.
				price := decimal.NewFromInt(int64(200 + (run/p.pace*(i+pi+2))%50)).Shift(-2)
				if i == 0 {
					price = decimal.RequireFromString("2.5")
				}
				o := pricewatch.Offer{Provider: p.name, Region: fmt.Sprintf("r%d", i%4), InstanceType: fmt.Sprintf("T%d", i/3),
					PriceType: pt, OS: pricewatch.Linux, Currency: p.currency, Hourly: price.Mul(decimal.NewFromInt(8)),
					Hardware: pricewatch.Hardware{GPUModel: []string{"H100", "A100-80GB", "L4"}[(i+pi)%3], GPUCount: 8}}
				if pt == pricewatch.Reserved {
					o.Term, o.Payment, o.OfferingClass = "1y", pricewatch.NoUpfront, pricewatch.Standard
				}
				offers = append(offers, o)
			}
			id, err := db.StartRun(ctx, p.name)
			if err != nil {
				t.Fatal(err)
			}
			snap := &pricewatch.Snapshot{Provider: p.name, Offers: offers, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
			if _, err := db.SaveSnapshot(ctx, id, snap, storage.SaveOptions{}); err != nil {
				t.Fatalf("run %d of %s: %v", run, p.name, err)
			}
		}
		clock = clock.Add(7 * time.Hour)
	}
	return db, clock
}

// The overview built one provider at a time and merged (digest.MergeRows,
// MergeRates) shows what it shows built over every provider at once: the
// daemon keeps each provider's part and builds again only those of the
// providers that ran.
func TestOverviewPartsMerge(t *testing.T) {
	ctx := context.Background()
	db, end := multiProviderHistory(t)
	book, err := fx.NewBook(nil, map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.1")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	build := func(providers []string, models []string) digest.Digest {
		t.Helper()
		in, err := OverviewInput(ctx, db, end, true, providers)
		if err != nil {
			t.Fatal(err)
		}
		in.Currency, in.Models, in.FX = "USD", models, book
		in.WithoutSavings, in.WithoutChart, in.WithoutMoves = true, true, true
		d, err := digest.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	shown := func(rows []digest.ModelRow, rates []digest.Rate) string {
		b, err := json.MarshalIndent([]any{rows, rates}, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	models := []string{"A100-80GB", "H100", "L4"}
	whole := build(nil, models)
	want := shown(whole.Models, whole.Rates)
	for _, s := range []string{`"MarketOnDemand": {`, `"Commitment": {`, `"SpotWoW": "`, `"OnDemandWoW": "`, `"Unconverted": {`, `"Missing": true`} {
		if !strings.Contains(want, s) {
			t.Fatalf("the whole overview shows no %s:\n%s", s, want)
		}
	}
	var rows [][]digest.ModelRow
	var rates [][]digest.Rate
	for _, p := range []string{"alibaba", "azure", "lambda", "ovhcloud", pricewatch.VastAI} {
		d := build([]string{p}, models)
		rows, rates = append(rows, d.Models), append(rates, d.Rates)
	}
	merged, err := digest.MergeRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	if got := shown(merged, digest.MergeRates(rates)); got != want {
		t.Errorf("merged parts:\n%s\nwant (the whole):\n%s", got, want)
	}
	if _, err := digest.MergeRows([][]digest.ModelRow{rows[0], rows[1][1:]}); err == nil {
		t.Error("parts of different models merged without an error")
	}
}

// TestBuildInPartsMatchesBuild: the digest built one part of the models
// at a time (what the overview's parts are built with) is byte for byte
// the digest built from every price at once, with families and single
// models watched, with and without the chart and movers, on the twelve
// weeks' history and on the overview's own read.
func TestBuildInPartsMatchesBuild(t *testing.T) {
	ctx := context.Background()
	db, _, end := irregularHistory(t, 300, 7*time.Hour)
	book, err := fx.NewBook(nil, map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.1")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	full, err := fullDigestInput(ctx, db, end, digest.ChartWeeks*digest.Week)
	if err != nil {
		t.Fatal(err)
	}
	overview, err := OverviewInput(ctx, db, end, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every other A100-80GB offer becomes an A100-40GB one (a copy of
	// its identity, for all its intervals), so that the A100 family
	// spans two stored models, which one part must hold together.
	split := func(prices []analysis.Interval) []analysis.Interval {
		out := slices.Clone(prices)
		renamed := map[*pricewatch.Offer]*pricewatch.Offer{}
		n := 0
		for i := range out {
			o := out[i].Offer
			if o.GPUModel != "A100-80GB" {
				continue
			}
			c, ok := renamed[o]
			if !ok {
				c = o
				if n++; n%2 == 0 {
					c = new(pricewatch.Offer)
					*c = *o
					c.GPUModel = "A100-40GB"
				}
				renamed[o] = c
			}
			out[i].Offer = c
		}
		return out
	}
	full.Prices, overview.Prices = split(full.Prices), split(overview.Prices)
	render := func(d digest.Digest) string { return renderDigest(t, d) }
	for _, c := range []struct {
		name   string
		in     digest.Input
		models []string
		lean   bool // the overview's: no savings, chart or movers
	}{
		{"families", full, []string{"H100", "A100"}, false},
		{"models", full, []string{"A100-80GB", "L4", "H100"}, false},
		{"one family, the rest unwatched", full, []string{"A100"}, false},
		{"overview", overview, []string{"A100-40GB", "A100-80GB", "H100", "L4"}, true},
		{"overview, a family", overview, []string{"A100", "H100"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := c.in
			in.Currency, in.Models, in.FX = "USD", c.models, book
			in.WithoutSavings, in.WithoutChart, in.WithoutMoves = c.lean, c.lean, c.lean
			in.Prices = slices.Clone(c.in.Prices)
			whole, err := digest.Build(in)
			if err != nil {
				t.Fatal(err)
			}
			want := render(whole)
			if whole.Offers == 0 || !slices.ContainsFunc(whole.Models, func(r digest.ModelRow) bool { return r.OnDemand != nil || r.Spot != nil }) ||
				(!c.lean && (len(whole.Moves) == 0 || whole.Chart.Empty())) {
				t.Fatalf("history too quiet to compare:\n%s", want)
			}
			in.Prices = slices.Clone(c.in.Prices)
			parts, err := BuildInParts(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(parts); got != want {
				t.Errorf("built in parts:\n%s\nwant (built at once):\n%s", got, want)
			}
		})
	}
}

// renderDigest is d as `digest --format json` prints it.
func renderDigest(t *testing.T, d digest.Digest) string {
	t.Helper()
	var b bytes.Buffer
	if err := digestrender.WriteJSON(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestOverviewDigestMatchesBuildInParts: the overview read one part of
// its models at a time is the overview read at once and built in parts,
// byte for byte, from the store and from the current state held in
// memory, for every provider and each alone, at the history's end and
// where its newest prices are not yet in force; with watched families,
// watched models and models nobody watches, a closed price of an offer
// still current and an offer gone within the week.
func TestOverviewDigestMatchesBuildInParts(t *testing.T) {
	ctx := context.Background()
	db, _, end := irregularHistory(t, 300, 7*time.Hour)
	// A second provider: an H100 offer whose price moves within the
	// week and a cheaper one delisted within it.
	for i, day := range []int{9, 2} {
		clock := end.Add(-time.Duration(day) * 24 * time.Hour)
		db.Now = func() time.Time { return clock }
		offers := []pricewatch.Offer{{Provider: "lambda", Region: "us-east-1", InstanceType: "gpu_1x_h100", PriceType: pricewatch.OnDemand,
			OS: pricewatch.Linux, Currency: "USD", Hourly: decimal.NewFromInt(int64(3 + i)), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 1}}}
		if i == 0 {
			offers = append(offers, pricewatch.Offer{Provider: "lambda", Region: "us-east-1", InstanceType: "gpu_2x_h100", PriceType: pricewatch.OnDemand,
				OS: pricewatch.Linux, Currency: "USD", Hourly: decimal.RequireFromString("1.6"), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 2}})
		}
		id, err := db.StartRun(ctx, "lambda")
		if err != nil {
			t.Fatal(err)
		}
		snap := &pricewatch.Snapshot{Provider: "lambda", Offers: offers, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
		if _, err := db.SaveSnapshot(ctx, id, snap, storage.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	version, err := db.DataVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	state, err := ReadCurrentState(ctx, db, version)
	if err != nil {
		t.Fatal(err)
	}
	book, err := fx.NewBook(nil, map[string]decimal.Decimal{"USD": decimal.RequireFromString("1.1")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	stores := []struct {
		name string
		st   Store
	}{{"store", db}, {"current state", state.Source(db)}}
	for _, s := range stores {
		for _, now := range []time.Time{end, end.Add(-10 * time.Hour)} {
			for _, providers := range [][]string{nil, {"azure"}, {"lambda"}} {
				for _, models := range [][]string{{"A100", "H100"}, {"A100-80GB", "L4", "H100"}, {"H100"}} {
					name := fmt.Sprintf("%s/%s/%v/%v", s.name, now.Format(time.RFC3339), providers, models)
					t.Run(name, func(t *testing.T) {
						set := func(in *digest.Input) {
							in.Currency, in.FX, in.Models = "USD", book, models
							in.WithoutSavings, in.WithoutChart, in.WithoutMoves = true, true, true
						}
						in, err := OverviewInput(ctx, s.st, now, true, providers)
						if err != nil {
							t.Fatal(err)
						}
						set(&in)
						whole, err := BuildInParts(in)
						if err != nil {
							t.Fatal(err)
						}
						want := renderDigest(t, whole)
						if whole.Offers == 0 {
							t.Fatalf("no offers to compare:\n%s", want)
						}
						d, err := OverviewDigest(ctx, s.st, now, providers, set)
						if err != nil {
							t.Fatal(err)
						}
						if got := renderDigest(t, d); got != want {
							t.Errorf("read in parts:\n%s\nwant (read at once):\n%s", got, want)
						}
					})
				}
			}
		}
	}
}
