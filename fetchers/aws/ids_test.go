package aws

import (
	"bytes"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
)

// TestCloudIDsFromRealFiles: on-demand and reserved offers carry the
// product's SKU and the rate code of their hourly price dimension, as the
// real c4.large excerpt writes them (the reservation's upfront fee has a
// rate code of its own, ending .2TG2D8R56U, which is not the one kept);
// savings-plan offers the discountedSku and the plan's rate code of the
// real ap-east-2 row.
func TestCloudIDsFromRealFiles(t *testing.T) {
	raw := awstest.SampleFile(t, "ec2-offer-excerpt-c4large-reserved-terms.json")
	gpu := bytes.Replace(raw, []byte(`"vcpu": "2",`), []byte(`"vcpu": "2", "gpu": "1",`), 1)
	rp, err := parseOfferFile(bytes.NewReader(gpu), "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	got := offerIndex(rp.Offers)
	const sku = "4C7N4APU9GEUZ6H6"
	for key, rate := range map[string]string{
		"us-east-1/c4.large/on_demand///":                            sku + ".JRTCKXETXF.6YS6EN2CT7",
		"us-east-1/c4.large/reserved/1y/partial_upfront/standard":    sku + ".HU7G6KETJZ.6YS6EN2CT7",
		"us-east-1/c4.large/reserved/3y/partial_upfront/standard":    sku + ".38NPMPTW36.6YS6EN2CT7",
		"us-east-1/c4.large/reserved/3y/partial_upfront/convertible": sku + ".R5XV2EPZQZ.6YS6EN2CT7",
		"us-east-1/c4.large/reserved/1y/no_upfront/standard":         sku + ".4NA7Y494T4.6YS6EN2CT7",
	} {
		want := pricewatch.CloudIDs{SkuID: sku, SkuPriceID: rate, RegionName: "US East (N. Virginia)"}
		if o, ok := got[key]; !ok || o.CloudIDs != want {
			t.Errorf("%s: ids %+v, want %+v", key, o.CloudIDs, want)
		}
	}

	s := awstest.LoadSamples(t)
	file := awstest.SavingsPlanFile(t, "20250911184447", "ap-east-2", s.SPHeader, s.SPRows)
	_, offers, err := parseSavingsPlanFile(bytes.NewReader(file), "ap-east-2", time.Now(), func(string) bool { return true })
	if err != nil || len(offers) != 1 {
		t.Fatalf("savings plans: %v, %v", offers, err)
	}
	if want := (pricewatch.CloudIDs{SkuID: "3AFPUQMRGQYZT63S", SkuPriceID: "2JT7C3ZD2AXA73Q4.3AFPUQMRGQYZT63S"}); offers[0].CloudIDs != want {
		t.Errorf("savings plan ids %+v, want %+v", offers[0].CloudIDs, want)
	}
}
