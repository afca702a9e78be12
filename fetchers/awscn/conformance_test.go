package awscn_test

import (
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/awscn"
	"github.com/pricewatch/pricewatch/fetchers/awscn/awscntest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/section"
)

// chinaFiles are the two stored region files at awscntest.Version.
func chinaFiles(t *testing.T, onDemand string) map[string][]byte {
	return map[string][]byte{
		awscntest.Region:        awscntest.RegionFile(t, awscntest.Version, onDemand),
		awscntest.BeijingRegion: awscntest.BeijingFile(t, awscntest.Version),
	}
}

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider), over the China price list of both
// regions.
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*awstest.Bucket]{
		Provider: pricewatch.AWSChina,
		// The files' terms take effect on 2026-12-01.
		Now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Fake: func(t *testing.T) *awstest.Bucket {
			b := awstest.NewBucket(t)
			awscntest.Publish(t, b, awscntest.Version, chinaFiles(t, awscntest.OnDemand))
			return b
		},
		New: func(_ *testing.T, b *awstest.Bucket, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			s := awscn.Provider.Section().(*awscn.Section)
			s.Common = section.Common{Enabled: true, Endpoint: b.URL()}
			return awscn.Provider.Build(s, h.Env)
		},
		Empty: func(t *testing.T, b *awstest.Bucket) {
			// Both regions' files at a new version, listing no product.
			const v = "20261202000000"
			empty := func(file []byte) []byte {
				return awstest.SetStr(t, awstest.Replace(file, `"products"`, `"products_before"`), "version", v)
			}
			awscntest.Publish(t, b, v, map[string][]byte{
				awscntest.Region:        empty(awscntest.RegionFile(t, v, awscntest.OnDemand)),
				awscntest.BeijingRegion: empty(awscntest.BeijingFile(t, v)),
			})
		},
		Malformed: func(t *testing.T, b *awstest.Bucket) func(pricewatch.Offer) bool {
			// p4d.24xlarge's Linux on-demand rate in cn-northwest-1 is not
			// a number.
			awscntest.Publish(t, b, awscntest.Version, chinaFiles(t, "211,0496"))
			return func(o pricewatch.Offer) bool {
				return o.Region == awscntest.Region && o.InstanceType == "p4d.24xlarge" && o.PriceType == pricewatch.OnDemand
			}
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.NoKey:        "the price list bulk files are public; pricewatch sends no key",
			fetcherstest.RefusedKey:   "the price list bulk files are public; pricewatch sends no key",
			fetcherstest.RepeatedPage: "a region index and one file per region; nothing is paged",
		},
	})
}
