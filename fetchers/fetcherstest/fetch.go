package fetcherstest

import (
	"context"
	"fmt"
	"testing"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// Fetch runs one fetch, with no previous run, of the fetcher a
// constructor returned: f, err := New(…); return Fetch(t, f, err). The
// constructor's error fails t.
func Fetch[F fetchers.Fetcher](t testing.TB, f F, err error) (*pricewatch.Snapshot, error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return f.Fetch(context.Background(), fetchers.Previous{})
}

// FetchKeyed is Fetch of the fetcher of a keyed cloud (a New taking
// fetchers.KeyedConfig) built against endpoint with key, sending through
// QuickClient and logging to log (nil: nowhere).
func FetchKeyed[F fetchers.Fetcher](t testing.TB, new func(fetchers.KeyedConfig, *fetchers.Client, *zap.Logger) (F, error),
	endpoint, key string, log *zap.Logger) (*pricewatch.Snapshot, error) {
	t.Helper()
	f, err := new(fetchers.KeyedConfig{Endpoint: endpoint, APIKey: section.NewSecret(key)}, QuickClient(), log)
	return Fetch(t, f, err)
}

// Fetched is Fetch for a run that must succeed: its error fails t too.
func Fetched[F fetchers.Fetcher](t testing.TB, f F, err error) *pricewatch.Snapshot {
	t.Helper()
	snap, err := Fetch(t, f, err)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// Describe is one line per record of s, the offers first, as offer and
// stock write them (OfferLine, StockLine, or a test's own), for an exact
// comparison.
func Describe(s *pricewatch.Snapshot, offer func(pricewatch.Offer) string, stock func(pricewatch.Availability) string) []string {
	var out []string
	for _, o := range s.Offers {
		out = append(out, offer(o))
	}
	for _, a := range s.Availability {
		out = append(out, stock(a))
	}
	return out
}

// OfferLine is "offer <region> <type> <price type> <hourly> <GPU> x<count>
// <GPU memory>GB <vCPUs>vCPU <memory>GB [<local storage>]".
func OfferLine(o pricewatch.Offer) string {
	return fmt.Sprintf("offer %s %s %s %s %s x%v %vGB %dvCPU %vGB [%s]", o.Region, o.InstanceType, o.PriceType, o.Hourly,
		o.GPUModel, o.GPUCount, o.GPUMemoryGB, o.VCPUs, o.MemoryGB, o.LocalStorage)
}

// StockLine is "stock <region> <type> <state>".
func StockLine(a pricewatch.Availability) string {
	return fmt.Sprintf("stock %s %s %s", a.Region, a.InstanceType, a.State)
}

// WantPrices wants o's hourly and upfront prices and its effective price
// per GPU-hour to be the given decimals; key names o in the errors.
func WantPrices(t testing.TB, key string, o pricewatch.Offer, hourly, upfront, perGPU string) {
	t.Helper()
	if !o.Hourly.Equal(decimal.RequireFromString(hourly)) || !o.Upfront.Equal(decimal.RequireFromString(upfront)) {
		t.Errorf("%s: hourly %s upfront %s, want %s and %s", key, o.Hourly, o.Upfront, hourly, upfront)
	}
	eff, err := o.EffectiveHourly()
	if err != nil {
		t.Fatal(err)
	}
	per, ok := pricewatch.PerGPUHour(eff, o.GPUCount)
	if !ok || !per.Equal(decimal.RequireFromString(perGPU)) {
		t.Errorf("%s: per GPU-hour %s, want %s", key, per, perGPU)
	}
}
