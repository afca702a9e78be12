package focus_test

import (
	"encoding/csv"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/focus"
	"github.com/pricewatch/pricewatch/focus/focustest"
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
	s := focus.NewSheet(&b, "usd", identityBook{}, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), func(n string) string { return n })
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
	if errs := focustest.Validate(recs, focustest.Rules{BillingCurrency: "USD", InternalIDs: []string{"aws", "oci", "tencent"}}); len(errs) != 0 {
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

// Issue 27 on the clouds added after it (gcp, huawei, ovhcloud): which
// rows each price becomes. Google's component SKUs are shared by shapes
// and regions, so the price id adds both; a commitment's list price is the
// standard on-demand one, never the DWS flex-start price of the same
// machine (learned after it here, as the audit's sheet did); Huawei's
// yearly/monthly prices are subscriptions as Alibaba's and Tencent's;
// OVHcloud's monthly plan is a Standard price of its own SKU; an
// all-upfront commitment without an on-demand price has no usage row.
func TestSheetRowsOfLaterClouds(t *testing.T) {
	gcp := func(region, shape string, pt pricewatch.PriceType, term, class, sku, hourly string) *storage.PriceInterval {
		o := pricewatch.Offer{Provider: pricewatch.GCP, Region: region, InstanceType: shape, PriceType: pt, Term: term, OfferingClass: class,
			OS: "linux", Currency: "USD", Hourly: decimal.RequireFromString(hourly), CloudIDs: pricewatch.CloudIDs{SkuID: sku}}
		if pt == pricewatch.Reserved {
			o.Payment = pricewatch.NoUpfront
		}
		return price(o)
	}
	od8 := gcp("us-central1", "a3-highgpu-8g", pricewatch.OnDemand, "", "", "D4E2+A1+A2", "87.832465656")
	flex8 := gcp("us-central1", "a3-highgpu-8g", pricewatch.OnDemand, "", pricewatch.FlexStart, "F8+F6+F7", "37.662504")
	cud := gcp("us-central1", "a3-highgpu-8g", pricewatch.Reserved, "1y", "", "302A+A9+A10", "60.35033416")
	a2east := gcp("us-east1", "a2-highgpu-1g", pricewatch.OnDemand, "", "", "039F+2922+2390", "3.673385")
	a2west := gcp("us-west1", "a2-highgpu-1g", pricewatch.OnDemand, "", "", "039F+2922+2390", "3.673385")
	a2east2 := gcp("us-east1", "a2-highgpu-2g", pricewatch.OnDemand, "", "", "039F+2922+2390", "7.34677")
	huaweiYear := price(pricewatch.Offer{Provider: pricewatch.Huawei, Region: "cn-north-4", InstanceType: "p2s.2xlarge.8",
		PriceType: pricewatch.Reserved, Term: "1y", Payment: pricewatch.AllUpfront, OS: "linux", Currency: "USD",
		Upfront: decimal.RequireFromString("11889.6"), CloudIDs: pricewatch.CloudIDs{SkuID: "OFFI1000008"}})
	ovhMonth := price(pricewatch.Offer{Provider: pricewatch.OVHcloud, Region: "global", InstanceType: "h100-380", PriceType: pricewatch.Reserved,
		Term: "1m", Payment: pricewatch.NoUpfront, OS: "linux", Currency: "USD", Hourly: decimal.RequireFromString("2.807950685"),
		CloudIDs: pricewatch.CloudIDs{SkuID: "h100-380.monthly.postpaid"}})
	ovhHour := price(pricewatch.Offer{Provider: pricewatch.OVHcloud, Region: "global", InstanceType: "h100-380", PriceType: pricewatch.OnDemand,
		OS: "linux", Currency: "USD", Hourly: decimal.RequireFromString("2.95848"), CloudIDs: pricewatch.CloudIDs{SkuID: "h100-380.consumption"}})
	// An Azure reservation paid all upfront whose meter's on-demand
	// price is not stored.
	lone := price(pricewatch.Offer{Provider: pricewatch.Azure, Region: "eastus", InstanceType: "Standard_ND96isr_H100_v5",
		PriceType: pricewatch.Reserved, Term: "3y", Payment: pricewatch.AllUpfront, OS: "linux", Currency: "USD",
		Upfront: decimal.RequireFromString("1000000"), CloudIDs: pricewatch.CloudIDs{SkuID: "DZH318Z08M22", SkuPriceID: "meter-1", RegionName: "East US"}})
	learn := []*storage.PriceInterval{od8, flex8, a2east, a2west, a2east2, ovhHour}
	recs, err := sheetOf(t, learn, []*storage.PriceInterval{od8, flex8, cud, a2east, a2west, a2east2, huaweiYear, ovhHour, ovhMonth, lone})
	if err != nil {
		t.Fatal(err)
	}
	if errs := focustest.Validate(recs, focustest.Rules{BillingCurrency: "USD", InternalIDs: []string{"gcp", "huawei", "ovhcloud", "azure"}}); len(errs) != 0 {
		t.Errorf("breaches: %v", errs)
	}
	type want struct{ id, charge, freq, pricing, list, contracted, unit, meter, source string }
	for i, w := range []want{
		{"D4E2+A1+A2|on_demand|us-central1|a3-highgpu-8g", "Usage", "Usage-Based", "Standard", "87.832465656", "87.832465656", "Hours", "Instance Hours", "this_price"},
		{"F8+F6+F7|on_demand|flex_start|us-central1|a3-highgpu-8g", "Usage", "Usage-Based", "Standard", "37.662504", "37.662504", "Hours", "Instance Hours", "this_price"},
		{"302A+A9+A10|reserved|1y|no_upfront|us-central1|a3-highgpu-8g", "Usage", "Usage-Based", "Committed", "87.832465656", "60.35033416", "Hours", "Instance Hours", "on_demand"},
		{"039F+2922+2390|on_demand|us-east1|a2-highgpu-1g", "Usage", "Usage-Based", "Standard", "3.673385", "3.673385", "Hours", "Instance Hours", "this_price"},
		{"039F+2922+2390|on_demand|us-west1|a2-highgpu-1g", "Usage", "Usage-Based", "Standard", "3.673385", "3.673385", "Hours", "Instance Hours", "this_price"},
		{"039F+2922+2390|on_demand|us-east1|a2-highgpu-2g", "Usage", "Usage-Based", "Standard", "7.34677", "7.34677", "Hours", "Instance Hours", "this_price"},
		{"OFFI1000008|reserved|1y|all_upfront|cn-north-4|p2s.2xlarge.8", "Purchase", "One-Time", "Standard", "11889.6", "11889.6", "Years", "Subscription Fee", "this_price"},
		{"h100-380.consumption|on_demand|h100-380", "Usage", "Usage-Based", "Standard", "2.95848", "2.95848", "Hours", "Instance Hours", "this_price"},
		{"h100-380.monthly.postpaid|reserved|1m|no_upfront|h100-380", "Usage", "Usage-Based", "Standard", "2.807950685", "2.807950685", "Hours", "Instance Hours", "this_price"},
		{"meter-1|reserved|3y|all_upfront|linux|upfront", "Purchase", "One-Time", "Standard", "1000000", "1000000", "3 Years", "Commitment Upfront Fee", "this_price"},
	} {
		if i+1 >= len(recs) {
			t.Fatalf("only %d rows", len(recs)-1)
		}
		r := recs[i+1]
		got := want{r[col["SkuPriceId"]], r[col["ChargeCategory"]], r[col["ChargeFrequency"]], r[col["PricingCategory"]],
			r[col["ListUnitPrice"]], r[col["ContractedUnitPrice"]], r[col["PricingUnit"]], r[col["SkuMeter"]], r[col["x_ListUnitPriceSource"]]}
		if got != w {
			t.Errorf("row %d:\n got %+v\nwant %+v", i+1, got, w)
		}
	}
	if len(recs) != 11 {
		t.Errorf("%d rows, want 10 (a subscription, and an all-upfront commitment without a list price, have no usage row)", len(recs)-1)
	}
	for _, c := range []struct {
		row    int
		option string
	}{{2, "DWS Flex Start"}, {7, "Subscription"}, {9, "Monthly Billing"}} {
		if got := focustest.PurchaseOption(recs[c.row][col["SkuPriceDetails"]]); got != c.option {
			t.Errorf("row %d: x_PurchaseOption %q, want %q", c.row, got, c.option)
		}
	}
}

// The validator on the audit's two GCP breaches and the placeholder it
// must catch: a commitment listed at the flex-start price (below its own
// rate), a price id shared by two shapes, and a list price of 0.
func TestValidatorCatchesTheAuditsBreaches(t *testing.T) {
	od := price(pricewatch.Offer{Provider: pricewatch.GCP, Region: "us-central1", InstanceType: "a3-highgpu-8g", PriceType: pricewatch.OnDemand,
		OS: "linux", Currency: "USD", Hourly: decimal.RequireFromString("87.832465656"), CloudIDs: pricewatch.CloudIDs{SkuID: "D4E2"}})
	flex := price(pricewatch.Offer{Provider: pricewatch.GCP, Region: "us-central1", InstanceType: "a3-highgpu-8g", PriceType: pricewatch.OnDemand,
		OfferingClass: pricewatch.FlexStart, OS: "linux", Currency: "USD", Hourly: decimal.RequireFromString("37.662504"), CloudIDs: pricewatch.CloudIDs{SkuID: "F8"}})
	cud := price(pricewatch.Offer{Provider: pricewatch.GCP, Region: "us-central1", InstanceType: "a3-highgpu-8g", PriceType: pricewatch.Reserved,
		Term: "1y", Payment: pricewatch.NoUpfront, OS: "linux", Currency: "USD", Hourly: decimal.RequireFromString("60.35033416"), CloudIDs: pricewatch.CloudIDs{SkuID: "302A"}})
	good, err := sheetOf(t, []*storage.PriceInterval{od, flex}, []*storage.PriceInterval{od, flex, cud})
	if err != nil {
		t.Fatal(err)
	}
	rules := focustest.Rules{BillingCurrency: "USD", InternalIDs: []string{"gcp"}}
	if errs := focustest.Validate(good, rules); len(errs) != 0 {
		t.Fatalf("the good sheet fails: %v", errs)
	}
	for _, c := range []struct {
		name  string
		row   int
		cells map[string]string
		want  []string
	}{
		{"list from the flex-start price", 3, map[string]string{"ListUnitPrice": "37.662504", "PricingCurrencyListUnitPrice": "37.662504"},
			[]string{"on-demand price is 87.832465656", "ListUnitPrice 37.662504 below ContractedUnitPrice 60.35033416"}},
		{"price id of another shape", 2, map[string]string{"SkuPriceId": good[1][col["SkuPriceId"]]}, []string{"more than one row"}},
		{"placeholder list price without an on-demand price", 3, map[string]string{"ListUnitPrice": "0", "PricingCurrencyListUnitPrice": "0",
			"ContractedUnitPrice": "0", "PricingCurrencyContractedUnitPrice": "0", "x_InstanceType": "a3-highgpu-4g"},
			[]string{"ListUnitPrice 0 is a placeholder", "PricingCurrencyListUnitPrice 0 is a placeholder"}},
	} {
		bad := make([][]string, len(good))
		for i, r := range good {
			bad[i] = append([]string(nil), r...)
		}
		for k, v := range c.cells {
			bad[c.row][col[k]] = v
		}
		errs := focustest.Validate(bad, rules)
		for _, w := range c.want {
			found := false
			for _, err := range errs {
				found = found || strings.Contains(err.Error(), w)
			}
			if !found {
				t.Errorf("%s: no error saying %q among %v", c.name, w, errs)
			}
		}
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
	if errs := focustest.Validate(recs, focustest.Rules{BillingCurrency: "USD", InternalIDs: []string{"aws", "oci"}}); len(errs) != 0 {
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

// Issue 23 item 3: a capacity block is a one-time purchase of its window:
// one Purchase row (One-Time, Standard, no commitment discount) at the
// fee, in days, and no usage row (its hourly rate is 0 by construction);
// the validator passes it.
func TestSheetCapacityBlock(t *testing.T) {
	block := price(pricewatch.Offer{Provider: pricewatch.AWS, Region: "us-east-2", Zone: "us-east-2b", InstanceType: "p5.48xlarge",
		PriceType: pricewatch.CapacityBlockPrice, Term: "7d", Payment: pricewatch.AllUpfront, OS: "linux", Currency: "USD",
		Upfront: decimal.RequireFromString("5285.952"), Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}})
	day := price(block.Offer)
	day.Zone, day.Term, day.Upfront = "us-east-2a", "1d", decimal.RequireFromString("786.6")
	recs, err := sheetOf(t, nil, []*storage.PriceInterval{block, day})
	if err != nil {
		t.Fatal(err)
	}
	if errs := focustest.Validate(recs, focustest.Rules{BillingCurrency: "USD", InternalIDs: []string{"aws"}}); len(errs) != 0 {
		t.Errorf("breaches: %v", errs)
	}
	if len(recs) != 3 {
		t.Fatalf("%d rows, want one purchase row per block", len(recs)-1)
	}
	type want struct{ id, charge, freq, pricing, list, unit, meter, option, commitment string }
	for i, w := range []want{
		{"pricewatch:aws:us-east-2:p5.48xlarge:linux|capacity_block|7d|all_upfront|us-east-2b", "Purchase", "One-Time", "Standard", "5285.952", "7 Days", "Capacity Block Fee", "Capacity Block", ""},
		{"pricewatch:aws:us-east-2:p5.48xlarge:linux|capacity_block|1d|all_upfront|us-east-2a", "Purchase", "One-Time", "Standard", "786.6", "Days", "Capacity Block Fee", "Capacity Block", ""},
	} {
		r := recs[i+1]
		got := want{r[col["SkuPriceId"]], r[col["ChargeCategory"]], r[col["ChargeFrequency"]], r[col["PricingCategory"]],
			r[col["ListUnitPrice"]], r[col["PricingUnit"]], r[col["SkuMeter"]], focustest.PurchaseOption(r[col["SkuPriceDetails"]]),
			r[col["CommitmentDiscountType"]] + r[col["CommitmentDiscountCategory"]]}
		if got != w {
			t.Errorf("row %d:\n got %+v\nwant %+v", i+1, got, w)
		}
	}
}

// col maps each column of the price sheet to its index.
var col = focustest.Columns(focus.Header)
