package daemon

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
	"github.com/pricewatch/pricewatch/web"
)

// The price series read what is in force now from the web server's
// current state, the pages' read model, and every other read from the
// database; after a run stores they read the run's prices.
func TestScrapeStoreReadsCurrentPricesFromTheReadModel(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "pw.db"))
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return at }
	save := func(hourly string) {
		h100 := pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80}
		dbtest.Save(t, db, &pricewatch.Snapshot{Provider: pricewatch.AWS, Coverage: []pricewatch.Scope{{Region: "us-east-1"}},
			Offers: []pricewatch.Offer{{Provider: pricewatch.AWS, Region: "us-east-1", InstanceType: "p5.48xlarge", PriceType: pricewatch.OnDemand,
				OS: pricewatch.Linux, Currency: "USD", Hourly: decimal.RequireFromString(hourly), Hardware: h100}}})
	}
	save("60")
	versions := web.NewVersions(db.DataVersion)
	if _, err := versions.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	srv := &web.Server{Store: db, Versions: versions}
	asked := 0
	st := scrapeStore{DB: db, versions: versions, memo: &scrapeMemo{}, current: func(ctx context.Context) report.Store {
		asked++
		return srv.CurrentReads(ctx)
	}}
	hourly := func(f storage.PriceFilter) []string {
		t.Helper()
		var out []string
		if err := st.EachPrice(ctx, f, func(p *storage.PriceInterval) error {
			out = append(out, p.Hourly.String())
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	current := storage.PriceFilter{OS: pricewatch.Linux, CurrentOnly: true}
	if got := hourly(current); !slices.Equal(got, []string{"60"}) || asked != 1 {
		t.Fatalf("current prices %v, read model asked %d times; want [60] from it once", got, asked)
	}
	at = at.Add(time.Hour)
	save("48")
	if _, err := versions.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := hourly(current); !slices.Equal(got, []string{"48"}) || asked != 2 {
		t.Errorf("after a run: current prices %v, read model asked %d times; want [48] from it", got, asked)
	}
	if got := hourly(storage.PriceFilter{Providers: []string{pricewatch.AWS}}); !slices.Equal(got, []string{"60", "48"}) || asked != 2 {
		t.Errorf("history %v, read model asked %d times; want [60 48] from the database", got, asked)
	}
}
