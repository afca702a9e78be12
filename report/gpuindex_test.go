package report

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/storage/dbtest"
)

// The GPU index built one provider at a time and merged (MergeGPUIndex)
// is the index built over every provider at once: the daemon keeps each
// provider's part and builds again only those of the providers that ran.
// The fixture has a tie across providers, an offer without a rate, and an
// on-demand H100 of 30 days before whose provider no longer offers H100:
// its price is the model's then, though its part has no H100 row now.
func TestGPUIndexPartsMerge(t *testing.T) {
	ctx := context.Background()
	db := dbtest.Open(t)
	start := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	clock := start
	db.Now = func() time.Time { return clock }
	type offer struct {
		typ, model, currency, hourly string
		pt                           pricewatch.PriceType
	}
	run := func(provider string, offers ...offer) {
		t.Helper()
		var os []pricewatch.Offer
		for _, o := range offers {
			os = append(os, pricewatch.Offer{Provider: provider, Region: "r1", InstanceType: o.typ, PriceType: o.pt, OS: pricewatch.Linux,
				Currency: o.currency, Hourly: decimal.RequireFromString(o.hourly), Hardware: pricewatch.Hardware{GPUModel: o.model, GPUCount: 8}})
		}
		dbtest.Save(t, db, &pricewatch.Snapshot{Provider: provider, Offers: os, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}})
	}
	od, spot := pricewatch.OnDemand, pricewatch.Spot
	run("azure", offer{"ND96", "H100", "USD", "98.32", od}, offer{"ND96", "H100", "USD", "30", spot}, offer{"NC24", "A100-80GB", "USD", "20", od})
	run("lambda", offer{"gpu_8x_h100", "H100", "USD", "23.92", od})
	run("runpod", offer{"8x-h100", "H100", "USD", "10", od}, offer{"8x-l4", "L4", "USD", "4", od})
	run("alibaba", offer{"gn8", "H100", "CNY", "100", od})
	clock = start.Add(10 * 24 * time.Hour)
	run("runpod", offer{"8x-l4", "L4", "USD", "4", od})
	clock = start.Add(20 * 24 * time.Hour)
	run("azure", offer{"ND96", "H100", "USD", "80", od}, offer{"ND96", "H100", "USD", "30", spot}, offer{"NC24", "A100-80GB", "USD", "20", od})
	run("ovhcloud", offer{"h100-8", "H100", "USD", "23.92", od}, offer{"a100-8", "A100-80GB", "USD", "16", spot})
	book, err := fx.NewBook(nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A 30 days before this falls on day 5: runpod's H100 is priced then.
	q := OfferTableQuery{Scope: Scope{Currency: "USD", At: start.Add(35 * 24 * time.Hour)}}
	shown := func(rows []GPUIndexRow) string { return mustJSON(t, rows) }
	whole, _, err := GPUIndex(ctx, db, book, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole) != 3 || whole[1].Model != "H100" || whole[1].OnDemandThen.D.String() != "1.25" || whole[1].Offers != 5 {
		t.Fatalf("the whole index shows %s, want H100 of 5 offers at 1.25 per GPU-hour 30 days before", shown(whole))
	}
	var parts []GPUIndexPart
	for _, p := range []string{"alibaba", "azure", "lambda", "ovhcloud", "runpod"} {
		pq := q
		pq.Providers = []string{p}
		part, err := GPUIndexOf(ctx, db, book, pq)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, part)
	}
	if got, want := shown(MergeGPUIndex(parts)), shown(whole); got != want {
		t.Errorf("merged parts:\n%s\nwant (the whole):\n%s", got, want)
	}
	// In another order, the same.
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	if got, want := shown(MergeGPUIndex(parts)), shown(whole); got != want {
		t.Errorf("merged parts in reverse:\n%s\nwant (the whole):\n%s", got, want)
	}
}
