package aws

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// TestConformance runs the fetcher contract every cloud passes over the
// price list of three regions and the spot feed. The optional EC2 calls
// (placement scores, capacity blocks) and the spot advisor have their
// own tests; savings plans are off here.
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*awstest.Bucket]{
		Provider: pricewatch.AWS,
		Fake: func(t *testing.T) *awstest.Bucket {
			b := awstest.NewBucket(t)
			standardTree().publish(t, b)
			b.Put(awstest.SpotPath, awstest.LoadSamples(t).SpotFeed)
			return b
		},
		New: func(_ *testing.T, b *awstest.Bucket, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			return New(Config{Endpoint: b.URL(), SpotEndpoint: b.SpotURL(), Spot: true, Now: h.Env.Now}, h.Env.Client, h.Env.Log)
		},
		Empty: func(t *testing.T, b *awstest.Bucket) {
			// Every region's file at a new version, listing no GPU type.
			const v2 = "20261201000000"
			tree{"us-east-1": {Version: v2}, "us-east-2": {Version: v2}, "af-south-1": {Version: v2}}.publish(t, b)
		},
		Malformed: func(t *testing.T, b *awstest.Bucket) func(pricewatch.Offer) bool {
			// p4d.24xlarge's on-demand rate in us-east-1 is negative.
			tr := standardTree()
			bad := p4d
			bad.OnDemand = "-32.7726"
			tr["us-east-1"] = awstest.Region{Version: v1, Types: []awstest.GPUType{bad, p5}}
			tr.publish(t, b)
			return func(o pricewatch.Offer) bool {
				return o.Region == "us-east-1" && o.InstanceType == "p4d.24xlarge" && o.PriceType == pricewatch.OnDemand
			}
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.NoKey:        "the price list bulk files and the spot feed are public; the EC2 calls' credentials are tested in placementscores_test.go and capacityblocks_test.go",
			fetcherstest.RefusedKey:   "the price list bulk files and the spot feed are public; the EC2 calls' credentials are tested in placementscores_test.go and capacityblocks_test.go",
			fetcherstest.RepeatedPage: "a region index and one file per region; nothing of them is paged (EC2's nextToken pages go through fetchers.TokenPages, tested there)",
		},
	})
}
