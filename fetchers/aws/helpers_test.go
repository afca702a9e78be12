package aws

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
)

// The bucket, the price files and their real templates are in awstest
// (shared with the CLI's end-to-end tests); this file holds what only this
// package's tests need.

// The global partition's index paths, which the bucket serves.
var (
	ec2RegionIndexPath = fmt.Sprintf(ec2RegionIndexFmt, PartitionGlobal)
	spRegionIndexPath  = fmt.Sprintf(spRegionIndexFmt, PartitionGlobal)
)

// tree is a price list layout: what each region lists, at a version.
type tree map[string]awstest.Region

// publish writes the tree to the bucket. af-south-1 also gets the real
// capacity-reservation product, verbatim.
func (tr tree) publish(t *testing.T, b *awstest.Bucket) map[string][]awstest.Product {
	t.Helper()
	regions := map[string]awstest.Region{}
	for name, r := range tr {
		if name == "af-south-1" {
			r.Extra = append(r.Extra, awstest.LoadSamples(t).C5adProduct(t))
		}
		regions[name] = r
	}
	return b.PublishEC2(regions)
}

// newFetcher makes a Fetcher pointed at the bucket, with retries that do
// not sleep. It reads the JSON form unless cfg says otherwise: the
// suite's faults (drops, stalls, refusals) name the JSON files' paths.
// csv_test.go runs the CSV form, the default, over the same trees.
func newFetcher(t testing.TB, b *awstest.Bucket, cfg Config) *Fetcher {
	t.Helper()
	if cfg.Format == "" {
		cfg.Format = FormatJSON
	}
	cfg.Endpoint = b.URL()
	cfg.SpotEndpoint = b.SpotURL()
	policy := fetchers.DefaultRetryPolicy()
	policy.MaxAttempts = 3
	client := fetchers.NewClient(policy)
	client.SetSleep(func(context.Context, time.Duration) error { return nil })
	f, err := New(cfg, client, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// firstRun fetches with no previous run, failing the test on an error.
func firstRun(t testing.TB, f *Fetcher) *pricewatch.Snapshot {
	t.Helper()
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// offersOf lists snap's offers of one price type, in order.
func offersOf(snap *pricewatch.Snapshot, pt pricewatch.PriceType) []pricewatch.Offer {
	var out []pricewatch.Offer
	for _, o := range snap.Offers {
		if o.PriceType == pt {
			out = append(out, o)
		}
	}
	return out
}

// The bucket lays files out where the fetcher looks for them.
func TestBucketPaths(t *testing.T) {
	if awstest.EC2RegionIndexPath != ec2RegionIndexPath || awstest.SPRegionIndexPath != spRegionIndexPath {
		t.Errorf("awstest serves the indexes at %s and %s; the fetcher reads %s and %s",
			awstest.EC2RegionIndexPath, awstest.SPRegionIndexPath, ec2RegionIndexPath, spRegionIndexPath)
	}
	if v := versionFromURL(awstest.EC2Path("20261201000000", "us-east-1")); v != "20261201000000" {
		t.Errorf("version of a bucket path: %q", v)
	}
}
