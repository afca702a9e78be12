package metrics

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// offerStore answers the collector's current read from a list of offers.
type offerStore []pricewatch.Offer

func (s offerStore) DataVersion(context.Context) (string, error)     { return "1", nil }
func (s offerStore) FXDays(context.Context) ([]storage.FXDay, error) { return nil, nil }
func (s offerStore) EachPrice(_ context.Context, f storage.PriceFilter, fn func(*storage.PriceInterval) error) error {
	for _, o := range s {
		if o.OS != f.OS {
			continue
		}
		if err := fn(&storage.PriceInterval{Offer: o}); err != nil {
			return err
		}
	}
	return nil
}

// compareSeries are the price series as the collector made them before
// it rated each offer once: a Compare per stored model, the first row of
// each price type the cheapest, the selected rows one series each.
func compareSeries(t *testing.T, c *priceCollector, offers []pricewatch.Offer, set PriceSettings) []prometheus.Metric {
	t.Helper()
	byModel := map[string][]pricewatch.Offer{}
	for _, o := range offers {
		if o.OS == pricewatch.Linux && o.GPUModel != "" {
			byModel[o.GPUModel] = append(byModel[o.GPUModel], o)
		}
	}
	book, err := report.FXBook(context.Background(), offerStore(nil), report.FX{FixedRates: set.Fixed, MaxAge: set.MaxAge})
	if err != nil {
		t.Fatal(err)
	}
	var out []prometheus.Metric
	for model, offers := range byModel {
		res, err := analysis.Compare(offers, nil, analysis.CompareOptions{GPU: model, Currency: set.Currency, FX: book, At: c.now()})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[pricewatch.PriceType]bool{}
		for _, r := range res.Rows {
			if !seen[r.PriceType] {
				seen[r.PriceType] = true
				out = append(out,
					prometheus.MustNewConstMetric(c.cheapest, prometheus.GaugeValue, r.PricePerGPUHour.InexactFloat64(), model, string(r.PriceType), res.Currency),
					prometheus.MustNewConstMetric(c.info, prometheus.GaugeValue, 1, model, string(r.PriceType), res.Currency,
						r.Provider, r.Region, r.Zone, r.InstanceType, r.Term, r.Payment, r.OfferingClass, gpuCountLabel(r.GPUCount)))
			}
			if selected(set.Offers, r) {
				out = append(out, prometheus.MustNewConstMetric(c.offer, prometheus.GaugeValue, r.PricePerGPUHour.InexactFloat64(),
					r.Provider, r.Region, r.Zone, r.InstanceType, string(r.PriceType), r.Term, r.Payment, r.OfferingClass,
					model, gpuCountLabel(r.GPUCount), res.Currency))
			}
		}
	}
	return out
}

// seriesText is each metric as one line, sorted: the order a registry
// gathers them in does not depend on the order they were made in.
func seriesText(t *testing.T, ms []prometheus.Metric) []string {
	t.Helper()
	var lines []string
	for _, m := range ms {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, l := range d.GetLabel() {
			labels = append(labels, l.GetName()+"="+l.GetValue())
		}
		lines = append(lines, fmt.Sprintf("%s {%s} %v", m.Desc().String(), strings.Join(labels, ","), d.GetGauge().GetValue()))
	}
	slices.Sort(lines)
	return lines
}

// TestComputeMatchesCompare: rating each offer once keeps what a Compare
// per model ranked first of each price type (ties broken by key), leaves
// out what it skipped (no GPU count) or could not convert (no rate), and
// keeps a model's variants apart (A100-80GB against A100-80GB-PCIe).
func TestComputeMatchesCompare(t *testing.T) {
	offer := func(provider, region, typ string, pt pricewatch.PriceType, cur, hourly, model string, count float64) pricewatch.Offer {
		o := pricewatch.Offer{Provider: provider, Region: region, InstanceType: typ, PriceType: pt, OS: pricewatch.Linux,
			Currency: cur, Hourly: decimal.RequireFromString(hourly), Hardware: pricewatch.Hardware{GPUModel: model, GPUCount: count}}
		if pt == pricewatch.Reserved {
			o.Term, o.Payment = "1yr", "no_upfront"
		}
		return o
	}
	offers := []pricewatch.Offer{
		offer("azure", "eastus", "ND96", pricewatch.OnDemand, "USD", "80", "H100", 8),
		offer("aws", "us-east-1", "p5.48xlarge", pricewatch.OnDemand, "USD", "80", "H100", 8), // a tie, broken by key
		offer("aws", "us-east-1", "p5.48xlarge", pricewatch.Spot, "USD", "30", "H100", 8),
		offer("aws", "us-west-2", "p5.48xlarge", pricewatch.Reserved, "USD", "50", "H100", 8),
		offer("ovhcloud", "gra", "h100-380", pricewatch.OnDemand, "EUR", "2.99", "H100", 1),
		offer("alibaba", "cn-beijing", "gn8", pricewatch.OnDemand, "CNY", "1", "H100", 8), // no CNY rate
		offer("azure", "westus", "ND96amsr", pricewatch.Spot, "USD", "12", "A100-80GB", 8),
		offer("azure", "westus", "NC24ads", pricewatch.Spot, "USD", "0.9", "A100-80GB-PCIe", 1),
		offer("lambda", "us-east-1", "gpu_1x_a100", pricewatch.OnDemand, "USD", "1.29", "A100-80GB-PCIe", 1),
		offer("azure", "eastus", "NV6ads", pricewatch.OnDemand, "USD", "0.45", "A10", 0), // no GPU count
		offer("azure", "eastus", "D4s", pricewatch.OnDemand, "USD", "0.2", "", 0),
	}
	win := offer("azure", "eastus", "ND96", pricewatch.Spot, "USD", "20", "H100", 8)
	win.OS = pricewatch.Windows
	offers = append(offers, win)
	for _, set := range []PriceSettings{
		{Currency: "USD", Fixed: map[string]string{"USD": "1.1"}},
		{Currency: "eur", Fixed: map[string]string{"USD": "1.1"}, Offers: Offers{GPUModels: []string{"A100", "H100"}}},
		{Currency: "USD", Fixed: map[string]string{"USD": "1.1"}, Offers: Offers{GPUModels: []string{"H100"}, PriceTypes: []string{"on_demand"}, Providers: []string{"aws", "ovhcloud"}}},
	} {
		t.Run(set.Currency+fmt.Sprint(set.Offers), func(t *testing.T) {
			c := NewPriceCollector(offerStore(offers), func() PriceSettings { return set }, nil).(*priceCollector)
			at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
			c.now = func() time.Time { return at }
			got, err := c.compute(context.Background(), set)
			if err != nil {
				t.Fatal(err)
			}
			want := seriesText(t, compareSeries(t, c, offers, set))
			if g := seriesText(t, got); !slices.Equal(g, want) {
				t.Errorf("series:\n%s\nwant (a Compare per model):\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
			}
			if len(want) < 8 {
				t.Errorf("only %d series to compare", len(want))
			}
		})
	}
}

// versionedStore is an offerStore at a given data version, counting its
// price reads.
type versionedStore struct {
	offerStore
	version string
	reads   int
}

func (s *versionedStore) DataVersion(context.Context) (string, error) { return s.version, nil }
func (s *versionedStore) EachPrice(ctx context.Context, f storage.PriceFilter, fn func(*storage.PriceInterval) error) error {
	s.reads++
	return s.offerStore.EachPrice(ctx, f, fn)
}

// A run's start moves the data version but no price: the series are not
// computed again for it (every replica did, at every start), and are for
// a run's commit.
func TestSeriesKeptOverARunsStart(t *testing.T) {
	st := &versionedStore{offerStore: offerStore{{Provider: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", PriceType: pricewatch.OnDemand,
		OS: pricewatch.Linux, Currency: "USD", Hourly: decimal.NewFromInt(80), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}},
		version: "7.7.2026-12-01T00:00:00Z/a"}
	c := NewPriceCollector(st, usd, nil).(*priceCollector)
	ctx := context.Background()
	for _, step := range []struct {
		version string
		reads   int
	}{
		{"7.7.2026-12-01T00:00:00Z/a", 1},
		{"8.8.2026-12-01T00:00:00Z/a", 1}, // a run started
		{"8.8.2026-12-01T00:05:00Z/b", 2}, // and committed
	} {
		st.version = step.version
		if _, err := c.current(ctx); err != nil {
			t.Fatal(err)
		}
		// Once there are series, current recomputes beside its caller,
		// holding computing from before it returns: this waits for it.
		c.computing.Lock()
		//lint:ignore SA2001 the empty critical section is the wait
		c.computing.Unlock()
		if st.reads != step.reads {
			t.Errorf("at %s: %d reads, want %d", step.version, st.reads, step.reads)
		}
	}
}
