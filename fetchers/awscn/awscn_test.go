package awscn_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap/zaptest"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/awscn"
	"github.com/pricewatch/pricewatch/fetchers/awscn/awscntest"
	"github.com/pricewatch/pricewatch/section"
)

// newFetcher builds the provider from its config section, as the daemon
// does, pointed at the bucket.
func newFetcher(t *testing.T, b *awstest.Bucket) fetchers.Fetcher {
	return newFetcherFormat(t, b, aws.FormatCSV)
}

// newFetcherFormat is newFetcher reading the files in format.
func newFetcherFormat(t *testing.T, b *awstest.Bucket, format string) fetchers.Fetcher {
	t.Helper()
	s := awscn.Provider.Section().(*awscn.Section)
	if s.Format != aws.FormatCSV {
		t.Errorf("providers.aws-cn.format defaults to %q, want csv", s.Format)
	}
	s.Endpoint, s.Format = b.URL(), format
	policy := fetchers.DefaultRetryPolicy()
	policy.MaxAttempts = 1
	f, err := awscn.Provider.New(s, fetchers.Env{Client: fetchers.NewClient(policy), Log: zaptest.NewLogger(t),
		Now: func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Issue 36: providers.aws-cn.format json reads the JSON files, to the same
// snapshot the CSV form gives.
func TestChinaFormatsGiveTheSameSnapshot(t *testing.T) {
	b := awstest.NewBucket(t)
	awscntest.Publish(t, b, awscntest.Version, map[string][]byte{
		awscntest.Region: awscntest.RegionFile(t, awscntest.Version, awscntest.OnDemand),
	})
	var got [2][]byte
	for i, format := range []string{aws.FormatJSON, aws.FormatCSV} {
		snap, err := newFetcherFormat(t, b, format).Fetch(context.Background(), fetchers.Previous{})
		if err != nil {
			t.Fatal(err)
		}
		if got[i], err = json.Marshal(snap); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got[0], got[1]) {
		t.Errorf("JSON and CSV snapshots differ:\n%s\n%s", got[0], got[1])
	}
	path := awscntest.EC2Path(awscntest.Version, awscntest.Region)
	if b.Gets(path) != 1 || b.Gets(awstest.CSVPath(path)) != 1 {
		t.Errorf("GETs: JSON %d, CSV %d; want one each", b.Gets(path), b.Gets(awstest.CSVPath(path)))
	}
}

// Issue 22 item 2: the China price list is read through the aws reader
// from the cn partition; a p4d.24xlarge row in CNY in cn-northwest-1
// becomes exact CNY offers under provider aws-cn, with the per-GPU-hour
// price typed from the row (211.0496 / 8, 139.2927 / 8).
func TestChinaRegionFileInCNY(t *testing.T) {
	b := awstest.NewBucket(t)
	awscntest.Publish(t, b, awscntest.Version, map[string][]byte{
		awscntest.Region: awscntest.RegionFile(t, awscntest.Version, awscntest.OnDemand),
	})
	f := newFetcher(t, b)
	if f.Provider() != "aws-cn" {
		t.Fatalf("provider %q, want aws-cn", f.Provider())
	}
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Provider != pricewatch.AWSChina {
		t.Errorf("snapshot provider %q", snap.Provider)
	}
	want := []struct {
		pt                   pricewatch.PriceType
		term, payment, class string
		hourly, perGPU       string
		sku                  string
	}{
		{pricewatch.OnDemand, "", "", "", "211.0496", "26.3812", "Q7ZK2R8XH3CN4D24.JRTCKXETXF.6YS6EN2CT7"},
		{pricewatch.Reserved, "1y", pricewatch.NoUpfront, pricewatch.Standard, "139.2927", "17.4115875", "Q7ZK2R8XH3CN4D24.4NA7Y494T4.6YS6EN2CT7"},
	}
	if len(snap.Offers) != len(want) {
		t.Fatalf("%d offers, want %d: %+v", len(snap.Offers), len(want), snap.Offers)
	}
	for i, w := range want {
		o := snap.Offers[i]
		if o.Provider != "aws-cn" || o.Region != "cn-northwest-1" || o.InstanceType != "p4d.24xlarge" || o.OS != pricewatch.Linux ||
			o.PriceType != w.pt || o.Term != w.term || o.Payment != w.payment || o.OfferingClass != w.class || o.SkuPriceID != w.sku {
			t.Errorf("offer %d: %+v", i, o)
		}
		if o.Currency != "CNY" || !o.Hourly.Equal(decimal.RequireFromString(w.hourly)) {
			t.Errorf("offer %d: %s %s, want %s CNY", i, o.Hourly, o.Currency, w.hourly)
		}
		per, ok := pricewatch.PerGPUHour(o.Hourly, o.Hardware.GPUCount)
		if !ok || !per.Equal(decimal.RequireFromString(w.perGPU)) {
			t.Errorf("offer %d: %s per GPU-hour (%v GPUs), want %s", i, per, o.Hardware.GPUCount, w.perGPU)
		}
		if o.Hardware.GPUModel != "A100-40GB" || o.Hardware.GPUCount != 8 {
			t.Errorf("offer %d hardware: %+v", i, o.Hardware)
		}
	}
	if len(snap.Availability) != 1 || snap.Availability[0].Provider != "aws-cn" || snap.Availability[0].Region != "cn-northwest-1" {
		t.Errorf("availability: %+v", snap.Availability)
	}
	// Only the China partition is read; neither savings plans nor spot
	// exist for it, so nothing claims to cover them.
	if n := b.Gets(awstest.EC2RegionIndexPath); n != 0 {
		t.Errorf("read the global region index %d times", n)
	}
	if n := b.Gets(awstest.SPRegionIndexPath) + b.Gets(awstest.SpotPath); n != 0 {
		t.Errorf("asked for savings plans or spot %d times", n)
	}
	for _, s := range snap.Coverage {
		for _, pt := range s.PriceTypes {
			if pt != pricewatch.OnDemand && pt != pricewatch.Reserved {
				t.Errorf("coverage claims %s in %s", pt, s.Region)
			}
		}
	}

	// The same version again is not downloaded.
	again, err := f.Fetch(context.Background(), fetchers.Previous{Versions: snap.Versions, State: snap.State})
	if err != nil {
		t.Fatal(err)
	}
	// The file is read in its CSV form (the default), once.
	csvPath := awstest.CSVPath(awscntest.EC2Path(awscntest.Version, awscntest.Region))
	if again.Skipped != 1 || len(again.Offers) != 0 || b.Gets(csvPath) != 1 {
		t.Errorf("second run: skipped %d, %d offers, %d GETs of the file", again.Skipped, len(again.Offers), b.Gets(csvPath))
	}
}

// Issue 22 item 6: providers.aws-cn.endpoint is the base URL; the
// defaults need no account and point at the China host.
func TestSectionDefaults(t *testing.T) {
	s := awscn.Provider.Section().(*awscn.Section)
	want := section.Common{Enabled: true, Endpoint: "https://pricing.cn-north-1.amazonaws.com.cn", Schedule: "47 */6 * * *", Timeout: 30 * time.Minute}
	if got := s.Common; got.Enabled != want.Enabled || got.Endpoint != want.Endpoint || got.Schedule != want.Schedule || got.Timeout != want.Timeout {
		t.Errorf("defaults %+v, want %+v", got, want)
	}
}

// Issue 26 item 1: providers.aws-cn.concurrency defaults to the aws
// reader's and is checked with its key and line.
func TestConcurrencyKey(t *testing.T) {
	s := awscn.Provider.Section().(*awscn.Section)
	if s.Concurrency != aws.DefaultConcurrency {
		t.Errorf("default concurrency %d", s.Concurrency)
	}
	k := section.NewChecker("pw.yaml", map[string]int{"providers.aws-cn.concurrency": 9}).Under("providers.aws-cn")
	s.Concurrency = 0
	if err := s.Validate(k); err == nil || err.Error() != "pw.yaml:line 9: providers.aws-cn.concurrency: 0: want 1 to 32" {
		t.Errorf("concurrency 0: %v", err)
	}
	s.Concurrency = 2
	if err := s.Validate(k); err != nil {
		t.Errorf("concurrency 2: %v", err)
	}
}

// Issue 22 item 2: both China regions, Beijing (cn-north-1) beside
// Ningxia, read in one run; a Partial Upfront reservation keeps its hourly
// rate and its upfront fee in CNY, exact, and its effective hourly spreads
// the fee over the term's 8,760 hours.
func TestBothChinaRegions(t *testing.T) {
	b := awstest.NewBucket(t)
	awscntest.Publish(t, b, awscntest.Version, map[string][]byte{
		awscntest.Region:        awscntest.RegionFile(t, awscntest.Version, awscntest.OnDemand),
		awscntest.BeijingRegion: awscntest.BeijingFile(t, awscntest.Version),
	})
	snap, err := newFetcher(t, b).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	regions := map[string]int{}
	for _, o := range snap.Offers {
		regions[o.Region]++
	}
	if regions[awscntest.Region] != 2 || regions[awscntest.BeijingRegion] != 2 || len(snap.Offers) != 4 {
		t.Fatalf("offers per region %v (%d in all), want 2 in each China region", regions, len(snap.Offers))
	}
	var seen int
	for _, o := range snap.Offers {
		if o.Region != awscntest.BeijingRegion {
			continue
		}
		seen++
		if o.InstanceType != "g4dn.xlarge" || o.Currency != "CNY" || o.Hardware.GPUModel != "T4" || o.Hardware.GPUCount != 1 {
			t.Errorf("Beijing offer %+v", o)
		}
		switch o.PriceType {
		case pricewatch.OnDemand:
			if !o.Hourly.Equal(decimal.RequireFromString(awscntest.BeijingOnDemand)) || !o.Upfront.IsZero() {
				t.Errorf("on-demand %s + %s upfront, want %s", o.Hourly, o.Upfront, awscntest.BeijingOnDemand)
			}
		case pricewatch.Reserved:
			if o.Term != "1y" || o.Payment != pricewatch.PartialUpfront ||
				!o.Hourly.Equal(decimal.RequireFromString(awscntest.BeijingReservedHourly)) ||
				!o.Upfront.Equal(decimal.RequireFromString(awscntest.BeijingReservedUpfront)) {
				t.Errorf("reserved %s %s %s/h + %s upfront, want 1y partial_upfront %s + %s", o.Term, o.Payment, o.Hourly, o.Upfront,
					awscntest.BeijingReservedHourly, awscntest.BeijingReservedUpfront)
			}
			// 1.307 + 11449 / 8760 = 2.61397716894977...
			eff, err := o.EffectiveHourly()
			if err != nil {
				t.Fatal(err)
			}
			if want := decimal.RequireFromString("1.307").Add(decimal.RequireFromString("11449").Div(decimal.NewFromInt(8760))); !eff.Sub(want).Abs().LessThan(decimal.New(1, -9)) {
				t.Errorf("effective hourly %s, want %s", eff, want)
			}
		default:
			t.Errorf("Beijing offer of price type %s", o.PriceType)
		}
	}
	if seen != 2 {
		t.Errorf("%d Beijing offers", seen)
	}
	covered := map[string]bool{}
	for _, s := range snap.Coverage {
		covered[s.Region] = true
	}
	if !covered[awscntest.Region] || !covered[awscntest.BeijingRegion] {
		t.Errorf("coverage %v, want both China regions", covered)
	}
}
