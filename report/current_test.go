package report

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
	"github.com/pricewatch/pricewatch/storage/storagetest"
)

// Issue 30 item 2: the current state read once per data version answers
// the current reads exactly as the store does (the same rows in the same
// order), and the offers table and comparison built over it equal those
// built over the store, after each of a sequence of runs (a price change,
// a closed offer, a new region, a failed run), on both backends.
func TestCurrentStateEqualsStore(t *testing.T) {
	ctx := context.Background()
	t.Run("sqlite", func(t *testing.T) {
		db := dbtest.Open(t)
		currentStateEqualsStore(t, db)
	})
	t.Run("postgres", func(t *testing.T) {
		db, err := storage.OpenPostgres(ctx, storagetest.PostgresDSN(t), storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		currentStateEqualsStore(t, db)
	})
}

func currentStateEqualsStore(t *testing.T, db *storage.DB) {
	ctx := context.Background()
	clock := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return clock }
	offer := func(region, zone, typ, model string, pt pricewatch.PriceType, os string, hourly string) pricewatch.Offer {
		return pricewatch.Offer{Provider: pricewatch.Azure, Region: region, Zone: zone, InstanceType: typ, PriceType: pt, OS: os,
			Currency: "USD", Hourly: decimal.RequireFromString(hourly), Hardware: pricewatch.Hardware{GPUModel: model, GPUCount: 8, GPUMemoryGB: 80, VCPUs: 96, MemoryGB: 1900}}
	}
	h100, a100 := "Standard_ND96isr_H100_v5", "Standard_ND96amsr_A100_v4"
	base := []pricewatch.Offer{
		offer("eastus", "", h100, "H100", pricewatch.OnDemand, pricewatch.Linux, "98.32"),
		offer("eastus", "", h100, "H100", pricewatch.Spot, pricewatch.Linux, "39.10"),
		offer("eastus", "", h100, "H100", pricewatch.OnDemand, pricewatch.Windows, "104.10"),
		offer("eastus", "", a100, "A100-80GB", pricewatch.OnDemand, pricewatch.Linux, "32.77"),
		offer("westus2", "", h100, "H100", pricewatch.OnDemand, pricewatch.Linux, "98.32"),
		offer("westus2", "", a100, "A100-80GB", pricewatch.Spot, pricewatch.Linux, "12.40"),
	}
	// Every field the compact snapshot keeps (report/currentprices.go): a
	// zone, a term with an upfront, the cloud's ids, a price whose
	// coefficient does not fit an int64.
	reserved := offer("westus2", "westus2-1", h100, "H100", pricewatch.Reserved, pricewatch.Linux, "0.12345678901234567890123")
	reserved.Term, reserved.Payment, reserved.OfferingClass, reserved.Upfront = "1y", "partial_upfront", "standard", decimal.RequireFromString("123456.7800")
	reserved.CloudIDs = pricewatch.CloudIDs{SkuID: "DZH318Z0BQ4L", SkuPriceID: "a1b2c3", ProductID: "DZH318Z0BPVJ", RegionName: "West US 2"}
	reserved.Interconnect, reserved.LocalStorage = "NVLink", "8 x 3800 GB NVMe SSD"
	base = append(base, reserved)
	avail := func(region, typ, model string, s pricewatch.AvailabilityState) pricewatch.Availability {
		return pricewatch.Availability{Provider: pricewatch.Azure, Region: region, InstanceType: typ, State: s, Hardware: pricewatch.Hardware{GPUModel: model, GPUCount: 8}}
	}
	store := func(regions []string, offers []pricewatch.Offer, av []pricewatch.Availability) {
		t.Helper()
		snap := &pricewatch.Snapshot{Provider: pricewatch.Azure, Offers: offers, Availability: av}
		for _, r := range regions {
			snap.Coverage = append(snap.Coverage, pricewatch.Scope{Region: r})
		}
		dbtest.Save(t, db, snap)
	}
	both := []string{"eastus", "westus2"}
	spotMoved := offer("eastus", "", h100, "H100", pricewatch.Spot, pricewatch.Linux, "35.55")
	steps := []struct {
		name string
		do   func()
	}{
		{"first run", func() {
			// Clouds on either side of Azure in the store's order, which
			// an updated snapshot keeps while it reads Azure again.
			p5 := pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80}
			aws := func(region string, pt pricewatch.PriceType, hourly string) pricewatch.Offer {
				return pricewatch.Offer{Provider: pricewatch.AWS, Region: region, InstanceType: "p5.48xlarge", PriceType: pt, OS: pricewatch.Linux,
					Currency: "USD", Hourly: decimal.RequireFromString(hourly), Hardware: p5}
			}
			dbtest.Save(t, db, &pricewatch.Snapshot{Provider: pricewatch.AWS, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}},
				Offers:       []pricewatch.Offer{aws("us-east-1", pricewatch.OnDemand, "55.04"), aws("us-east-1", pricewatch.Spot, "30.00")},
				Availability: []pricewatch.Availability{{Provider: pricewatch.AWS, Region: "us-east-1", InstanceType: "p5.48xlarge", State: pricewatch.Offered, Hardware: p5}},
				Signals: []pricewatch.Signal{{Provider: pricewatch.AWS, Kind: pricewatch.InterruptionBand, Region: "us-east-1", InstanceType: "p5.48xlarge",
					Shape: pricewatch.ShapeOf("os", "linux"), Value: "5-10%", Unit: "band", Source: "test", Hardware: p5}},
				SignalCoverage: []pricewatch.SignalScope{{Kind: pricewatch.InterruptionBand, Region: pricewatch.AllRegions}}})
			dbtest.Save(t, db, &pricewatch.Snapshot{Provider: pricewatch.Lambda, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}},
				Offers: []pricewatch.Offer{{Provider: pricewatch.Lambda, Region: "us-east-1", InstanceType: "gpu_8x_h100_sxm5", PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
					Currency: "USD", Hourly: decimal.RequireFromString("23.92"), Hardware: p5}}})
			store(both, base, []pricewatch.Availability{avail("eastus", h100, "H100", pricewatch.Offered), avail("westus2", a100, "A100-80GB", pricewatch.SoldOut)})
		}},
		{"price change", func() {
			changed := append([]pricewatch.Offer(nil), base...)
			changed[1] = spotMoved
			store(both, changed, []pricewatch.Availability{avail("eastus", h100, "H100", pricewatch.InStock), avail("westus2", a100, "A100-80GB", pricewatch.SoldOut)})
		}},
		{"closed offer", func() {
			store(both, []pricewatch.Offer{base[0], spotMoved, base[2], base[3], base[5]}, nil)
		}},
		{"new region", func() {
			store(append(both, "swedencentral"), []pricewatch.Offer{base[0], spotMoved, base[2], base[3], base[5],
				offer("swedencentral", "", h100, "H100", pricewatch.OnDemand, pricewatch.Linux, "91.04")},
				[]pricewatch.Availability{avail("swedencentral", h100, "H100", pricewatch.Offered)})
		}},
		{"failed run", func() {
			id, err := db.StartRun(ctx, pricewatch.Azure)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.FinishRun(ctx, id, pricewatch.RunFailed, "the cloud answered 503"); err != nil {
				t.Fatal(err)
			}
		}},
	}
	priceReads := []storage.PriceFilter{
		{CurrentOnly: true},
		{CurrentOnly: true, EffectiveOnly: true},
		{CurrentOnly: true, Providers: []string{pricewatch.Azure}, OS: string(pricewatch.Linux)},
		{CurrentOnly: true, Providers: []string{"aws"}},
		{CurrentOnly: true, Regions: []string{"westus2", "swedencentral"}},
		{CurrentOnly: true, GPUModel: "h100"},
		{CurrentOnly: true, GPUModels: []string{"A100-80GB"}, PriceTypes: []pricewatch.PriceType{pricewatch.Spot}},
		{CurrentOnly: true, GPUModels: []string{}},
		{CurrentOnly: true, InstanceType: a100},
		// Not current reads: answered by the store through the source.
		{At: []time.Time{time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)}},
		{},
	}
	availReads := []storage.AvailabilityFilter{
		{}, {Providers: []string{pricewatch.Azure}}, {Regions: []string{"eastus"}}, {GPUModel: "a100-80gb"}, {InstanceType: h100}, {All: true},
	}
	tables := []OfferTableQuery{
		{},
		{Scope: Scope{Currency: "EUR", OS: "windows"}, Sort: "price", Desc: true},
		{GPUs: []string{"H100"}, PriceTypes: []pricewatch.PriceType{pricewatch.Spot, pricewatch.OnDemand}},
		{Scope: Scope{Providers: []string{pricewatch.Azure}}, AvailableOnly: true},
	}
	fxcfg := FX{Currency: "USD", FixedRates: map[string]string{"USD": "1.08"}, MaxAge: 7 * 24 * time.Hour}
	// Each step is checked on a snapshot read whole and on the previous
	// step's snapshot updated from what ran since (issue 30 item 2).
	var prev *CurrentState
	for i, step := range steps {
		clock = time.Date(2026, 11, 2+3*i, 6, 0, 0, 0, time.UTC)
		step.do()
		version, err := db.DataVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := ReadCurrentState(ctx, db, version)
		if err != nil {
			t.Fatal(err)
		}
		states := map[string]*CurrentState{"read whole": whole}
		if prev != nil {
			if states["updated"], err = prev.Update(ctx, db, version); err != nil {
				t.Fatal(err)
			}
		}
		prev = whole
		if i%2 == 1 {
			prev = states["updated"] // and updates of updates
		}
		for how, c := range states {
			checkCurrentState(t, db, step.name+", "+how, c, clock, priceReads, availReads, tables, fxcfg)
		}
	}
}

func checkCurrentState(t *testing.T, db *storage.DB, step string, c *CurrentState, clock time.Time,
	priceReads []storage.PriceFilter, availReads []storage.AvailabilityFilter, tables []OfferTableQuery, fxcfg FX) {
	t.Helper()
	ctx := context.Background()
	src := c.Source(db)
	if _, ok := src.(OfferChoiceStore); !ok {
		t.Fatalf("%s: the source lost the store's choice counts", step)
	}
	sameReads(t, step, "prices", priceReads, db.Prices, src.Prices)
	// The GPU models of the current Linux prices, as the overview's parts
	// take them without reading every price.
	linux, err := db.Prices(ctx, storage.PriceFilter{CurrentOnly: true, OS: pricewatch.Linux})
	if err != nil {
		t.Fatal(err)
	}
	var models []string
	for _, p := range linux {
		if p.GPUModel != "" && !p.ValidFrom.After(clock) && !slices.Contains(models, p.GPUModel) {
			models = append(models, p.GPUModel)
		}
	}
	slices.Sort(models)
	got := src.(interface {
		CurrentGPUModels(string, time.Time) []string
	}).CurrentGPUModels(pricewatch.Linux, clock)
	if len(models) == 0 || !slices.Equal(got, models) {
		t.Errorf("%s: current GPU models %q, want the store's %q", step, got, models)
	}
	// How many current prices a provider holds, as the overview's
	// parts size their reads.
	for _, providers := range [][]string{{pricewatch.AWS}, {pricewatch.Azure, pricewatch.AWS}, {"nowhere"}} {
		want, err := db.Prices(ctx, storage.PriceFilter{CurrentOnly: true, Providers: providers})
		if err != nil {
			t.Fatal(err)
		}
		if got := src.(providerCounter).CurrentPricesOf(providers); got != len(want) {
			t.Errorf("%s: %d current prices of %q, want the store's %d", step, got, providers, len(want))
		}
	}
	for _, f := range priceReads {
		want, err := db.Prices(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var each []storage.PriceInterval
		if err := src.EachPrice(ctx, f, func(p *storage.PriceInterval) error { each = append(each, *p); return nil }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(each, want) {
			t.Errorf("%s: each price %+v differs from the store's", step, f)
		}
	}
	signalReads := []storage.SignalFilter{{CurrentOnly: true}, {CurrentOnly: true, Providers: []string{pricewatch.AWS}}}
	if stored, err := db.Signals(ctx, signalReads[0]); err != nil || len(stored) == 0 {
		t.Errorf("%s: no current signals stored (%v): nothing compared", step, err)
	}
	sameReads(t, step, "signals", signalReads, db.Signals, src.Signals)
	sameReads(t, step, "availability", availReads, db.Availability, src.Availability)
	book, err := FXBook(ctx, db, fxcfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range tables {
		q.At = clock
		if q.Currency == "" {
			q.Currency = "USD"
		}
		if want := sameAnswer(t, step, "table", q, db, src, book, BuildOfferTable); len(want.Rows) == 0 && q.OS == "" {
			t.Errorf("%s: table %+v is empty: nothing compared", step, q)
		}
	}
	for _, q := range []CompareQuery{{GPU: "H100"}, {Scope: Scope{Currency: "EUR"}, GPU: "A100", AvailableOnly: true}} {
		if q.Currency == "" {
			q.Currency = "USD"
		}
		q.At = clock
		sameAnswer(t, step, "compare", q, db, src, book, Compare)
	}
}

// sameReads checks that each filter's read from the snapshot equals the
// store's, row for row and in order.
func sameReads[F, R any](t *testing.T, step, what string, filters []F, store, snapshot func(context.Context, F) ([]R, error)) {
	t.Helper()
	ctx := context.Background()
	for _, f := range filters {
		want, err := store(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := snapshot(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s %+v: %d rows from the snapshot, %d from the store:\n%+v\n%+v", step, what, f, len(got), len(want), got, want)
		}
	}
}

// sameAnswer checks that answer over the snapshot gives, as JSON, what
// it gives over the store, and returns the store's answer.
func sameAnswer[Q, A any](t *testing.T, step, what string, q Q, store, snapshot Store, book *fx.Book,
	answer func(context.Context, Store, *fx.Book, Q) (A, error)) A {
	t.Helper()
	ctx := context.Background()
	want, err := answer(ctx, store, book, q)
	if err != nil {
		t.Fatal(err)
	}
	got, err := answer(ctx, snapshot, book, q)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, got), mustJSON(t, want); a != b {
		t.Errorf("%s: %s %+v:\n%s\nstore:\n%s", step, what, q, a, b)
	}
	return want
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// closingStore is the store with an offer closed between an update's two
// reads: the read of the offers the state did not hold finds none.
type closingStore struct{ *storage.DB }

func (s closingStore) EachPrice(ctx context.Context, f storage.PriceFilter, fn func(*storage.PriceInterval) error) error {
	if f.OfferIDs != nil {
		return nil
	}
	return s.DB.EachPrice(ctx, f, fn)
}

// An update reads the prices of what ran without their offers, and the
// offers it did not hold with theirs; one closed in between is left out
// (the run that closed it moves the version, whose update reads it again),
// and the rest are the store's.
func TestCurrentStateUpdateOfferClosedBetweenReads(t *testing.T) {
	ctx := context.Background()
	db := dbtest.Open(t)
	offer := func(region, hourly string) pricewatch.Offer {
		return pricewatch.Offer{Provider: pricewatch.Azure, Region: region, InstanceType: "Standard_ND96isr_H100_v5", PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
			Currency: "USD", Hourly: decimal.RequireFromString(hourly), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}
	}
	save := func(offers ...pricewatch.Offer) {
		dbtest.Save(t, db, &pricewatch.Snapshot{Provider: pricewatch.Azure, Offers: offers, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}})
	}
	save(offer("eastus", "98.32"), offer("westus2", "98.32"))
	version, err := db.DataVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ReadCurrentState(ctx, db, version)
	if err != nil {
		t.Fatal(err)
	}
	save(offer("eastus", "91.00"), offer("swedencentral", "91.04"), offer("westus2", "98.32"))
	if version, err = db.DataVersion(ctx); err != nil {
		t.Fatal(err)
	}
	n, err := c.Update(ctx, closingStore{db}, version)
	if err != nil {
		t.Fatal(err)
	}
	want, err := db.Prices(ctx, storage.PriceFilter{CurrentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	want = slices.DeleteFunc(want, func(p storage.PriceInterval) bool { return p.Region == "swedencentral" })
	got, err := n.Source(db).Prices(ctx, storage.PriceFilter{CurrentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 2 || !reflect.DeepEqual(got, want) {
		t.Errorf("updated state %+v,\nwant the store's but the closed offer %+v", got, want)
	}
}

// An update shares the rows of the providers that did not run with the
// state it was read beside, and leaves that state as it was: two or three
// versions are alive at once while the last one's answers are computed
// (issue 30: three whole copies of the rows at share 1's high-water).
func TestCurrentStateUpdateSharesRowsOfProvidersNotRun(t *testing.T) {
	ctx := context.Background()
	db := dbtest.Open(t)
	save := func(provider, hourly string) {
		dbtest.Save(t, db, &pricewatch.Snapshot{Provider: provider, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}},
			Offers: []pricewatch.Offer{
				{Provider: provider, Region: "eastus", InstanceType: "gpu-8x-h100", PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
					Currency: "USD", Hourly: decimal.RequireFromString(hourly), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}},
				{Provider: provider, Region: "westus2", InstanceType: "gpu-8x-h100", PriceType: pricewatch.OnDemand, OS: pricewatch.Linux,
					Currency: "USD", Hourly: decimal.RequireFromString(hourly), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}},
			}})
	}
	save(pricewatch.AWS, "55.04")
	save(pricewatch.Azure, "98.32")
	save(pricewatch.Lambda, "23.92")
	version, err := db.DataVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ReadCurrentState(ctx, db, version)
	if err != nil {
		t.Fatal(err)
	}
	before, err := c.Source(db).Prices(ctx, storage.PriceFilter{CurrentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	save(pricewatch.Azure, "91.00")
	if version, err = db.DataVersion(ctx); err != nil {
		t.Fatal(err)
	}
	n, err := c.Update(ctx, db, version)
	if err != nil {
		t.Fatal(err)
	}
	parts := func(s *CurrentState) map[string]*currentPrice {
		out := map[string]*currentPrice{}
		for _, part := range s.prices.parts {
			out[s.prices.provider(part)] = &part[0]
		}
		return out
	}
	old, updated := parts(c), parts(n)
	if len(old) != 3 || len(updated) != 3 {
		t.Fatalf("parts %v and %v, want one for each of the 3 providers", old, updated)
	}
	for _, p := range []string{pricewatch.AWS, pricewatch.Lambda} {
		if updated[p] != old[p] {
			t.Errorf("%s's rows copied by an Azure run, want them shared", p)
		}
	}
	if updated[pricewatch.Azure] == old[pricewatch.Azure] {
		t.Errorf("Azure's rows shared with the state before its run")
	}
	want, err := db.Prices(ctx, storage.PriceFilter{CurrentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := n.Source(db).Prices(ctx, storage.PriceFilter{CurrentOnly: true}); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("updated state %+v (%v),\nwant the store's %+v", got, err, want)
	}
	if after, err := c.Source(db).Prices(ctx, storage.PriceFilter{CurrentOnly: true}); err != nil || !reflect.DeepEqual(after, before) {
		t.Errorf("the state before the run changed by the update: %+v (%v),\nwant %+v", after, err, before)
	}
}
