package focus

import (
	"encoding/csv"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/storage"
)

// books are fakes of the rate book: identity only, or CNY at a fixed rate.
type identityBook struct{}

func (identityBook) Quote(from, to string, _ time.Time) (fx.Quote, error) {
	if from != to {
		return fx.Quote{}, errors.New("no rate")
	}
	return fx.Identity(from), nil
}

func price(o pricewatch.Offer) *storage.PriceInterval {
	return &storage.PriceInterval{Offer: o, EffectiveHourly: o.Hourly, ValidFrom: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
}

func sheetOf(t *testing.T, learn, write []*storage.PriceInterval) ([][]string, error) {
	t.Helper()
	var b strings.Builder
	s := NewSheet(&b, "usd", identityBook{}, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), func(n string) string { return n })
	for _, p := range learn {
		s.Learn(p)
	}
	for _, p := range write {
		if err := s.Write(p); err != nil {
			return nil, err
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs, nil
}

// Issue 27 items 1, 3, 4 and 9 on hand-made prices: which rows each price
// becomes, with which ids and prices.
func TestSheetRows(t *testing.T) {
	od := price(pricewatch.Offer{Provider: pricewatch.AWS, Region: "us-east-1", InstanceType: "p5.48xlarge", PriceType: pricewatch.OnDemand,
		OS: "linux", Currency: "USD", Hourly: decimal.RequireFromString("98.32"),
		CloudIDs: pricewatch.CloudIDs{SkuID: "SKU1", SkuPriceID: "SKU1.JRTCKXETXF.6YS6EN2CT7", RegionName: "US East (N. Virginia)"}})
	ri := price(pricewatch.Offer{Provider: pricewatch.AWS, Region: "us-east-1", InstanceType: "p5.48xlarge", PriceType: pricewatch.Reserved,
		Term: "1y", Payment: pricewatch.PartialUpfront, OfferingClass: "standard", OS: "linux", Currency: "USD",
		Hourly: decimal.RequireFromString("30"), Upfront: decimal.RequireFromString("260000"),
		CloudIDs: pricewatch.CloudIDs{SkuID: "SKU1", SkuPriceID: "SKU1.HU7G6KETJZ.6YS6EN2CT7"}})
	spot := price(pricewatch.Offer{Provider: pricewatch.AWS, Region: "us-east-1", Zone: "us-east-1a", InstanceType: "p5.48xlarge",
		PriceType: pricewatch.Spot, OS: "linux", Currency: "USD", Hourly: decimal.RequireFromString("40")})
	oci := price(pricewatch.Offer{Provider: pricewatch.OCI, Region: "global", InstanceType: "BM.GPU.H100.8", PriceType: pricewatch.OnDemand,
		OS: "linux", Currency: "USD", Hourly: decimal.RequireFromString("80"), CloudIDs: pricewatch.CloudIDs{SkuID: "B98415"}})
	prepaid := price(pricewatch.Offer{Provider: pricewatch.Tencent, Region: "ap-beijing", Zone: "ap-beijing-6", InstanceType: "GN7.2XLARGE32",
		PriceType: pricewatch.Reserved, Term: "3y", Payment: pricewatch.AllUpfront, OS: "linux", Currency: "USD",
		Upfront: decimal.RequireFromString("9000")})
	recs, err := sheetOf(t, []*storage.PriceInterval{od}, []*storage.PriceInterval{od, ri, spot, oci, prepaid})
	if err != nil {
		t.Fatal(err)
	}
	if errs := Validate(recs, Rules{BillingCurrency: "USD", InternalIDs: []string{"aws", "oci", "tencent"}}); len(errs) != 0 {
		t.Errorf("breaches: %v", errs)
	}
	type want struct{ id, sku, charge, freq, pricing, list, contracted, unit, region, regionName string }
	for i, w := range []want{
		{"SKU1.JRTCKXETXF.6YS6EN2CT7", "SKU1", "Usage", "Usage-Based", "Standard", "98.32", "98.32", "Hours", "us-east-1", "US East (N. Virginia)"},
		{"SKU1.HU7G6KETJZ.6YS6EN2CT7", "SKU1", "Usage", "Usage-Based", "Committed", "98.32", "30", "Hours", "us-east-1", "US East (N. Virginia)"},
		{"SKU1.HU7G6KETJZ.6YS6EN2CT7|upfront", "SKU1", "Purchase", "One-Time", "Standard", "260000", "260000", "Years", "us-east-1", "US East (N. Virginia)"},
		{"SKU1|spot|us-east-1a", "SKU1", "Usage", "Usage-Based", "Dynamic", "40", "40", "Hours", "us-east-1", "US East (N. Virginia)"},
		{"B98415|on_demand|BM.GPU.H100.8", "B98415", "Usage", "Usage-Based", "Standard", "80", "80", "Hours", "", ""},
		{"pricewatch:tencent:ap-beijing:GN7.2XLARGE32:linux|reserved|3y|all_upfront|ap-beijing-6", "pricewatch:tencent:ap-beijing:GN7.2XLARGE32:linux",
			"Purchase", "One-Time", "Standard", "9000", "9000", "3 Years", "ap-beijing", "ap-beijing"},
	} {
		if i+1 >= len(recs) {
			t.Fatalf("only %d rows", len(recs)-1)
		}
		r := recs[i+1]
		got := want{r[col["SkuPriceId"]], r[col["SkuId"]], r[col["ChargeCategory"]], r[col["ChargeFrequency"]], r[col["PricingCategory"]],
			r[col["ListUnitPrice"]], r[col["ContractedUnitPrice"]], r[col["PricingUnit"]], r[col["RegionId"]], r[col["RegionName"]]}
		if got != w {
			t.Errorf("row %d:\n got %+v\nwant %+v", i+1, got, w)
		}
	}
	if len(recs) != 7 {
		t.Errorf("%d rows, want 6 (a subscription has no usage row)", len(recs)-1)
	}
}

// Issue 27 item 8: a price in a currency the book cannot convert fails the
// export, naming what to do, rather than writing a row without a
// BillingCurrency price.
func TestSheetWithoutARateFails(t *testing.T) {
	cny := price(pricewatch.Offer{Provider: pricewatch.Alibaba, Region: "cn-shanghai", InstanceType: "ecs.gn7", PriceType: pricewatch.OnDemand,
		OS: "linux", Currency: "CNY", Hourly: decimal.RequireFromString("31.51")})
	_, err := sheetOf(t, nil, []*storage.PriceInterval{cny})
	if err == nil || !strings.Contains(err.Error(), "fx.fixed_rates") {
		t.Fatalf("err = %v, want one saying to set fx.fixed_rates", err)
	}
}

// Issue 25 item 2: the machine beside the price in the x_ columns, empty
// where the cloud does not say (OCI's price list states none of it).
func TestSheetHardware(t *testing.T) {
	aws := price(pricewatch.Offer{Provider: pricewatch.AWS, Region: "us-east-1", InstanceType: "p5.48xlarge", PriceType: pricewatch.OnDemand,
		OS: "linux", Currency: "USD", Hourly: decimal.RequireFromString("55.04"), CloudIDs: pricewatch.CloudIDs{SkuID: "SKU1", SkuPriceID: "SKU1.JRTCKXETXF.6YS6EN2CT7"},
		Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 192, MemoryGB: 2048,
			Interconnect: "3200 Gigabit", LocalStorage: "8 x 3800 GB NVMe SSD"}})
	oci := price(pricewatch.Offer{Provider: pricewatch.OCI, Region: "global", InstanceType: "BM.GPU.H100.8", PriceType: pricewatch.OnDemand,
		OS: "linux", Currency: "USD", Hourly: decimal.RequireFromString("80"), CloudIDs: pricewatch.CloudIDs{SkuID: "B98415"},
		Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80}})
	recs, err := sheetOf(t, nil, []*storage.PriceInterval{aws, oci})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d rows, want 2", len(recs)-1)
	}
	if errs := Validate(recs, Rules{BillingCurrency: "USD", InternalIDs: []string{"aws", "oci"}}); len(errs) != 0 {
		t.Errorf("breaches: %v", errs)
	}
	names := []string{"x_GpuMemoryGb", "x_Vcpus", "x_MemoryGb", "x_Interconnect", "x_LocalStorage"}
	for i, want := range [][]string{
		{"80", "192", "2048", "3200 Gigabit", "8 x 3800 GB NVMe SSD"},
		{"80", "", "", "", ""},
	} {
		for j, name := range names {
			if got := recs[i+1][col[name]]; got != want[j] {
				t.Errorf("row %d %s = %q, want %q", i+1, name, got, want[j])
			}
		}
	}
}
