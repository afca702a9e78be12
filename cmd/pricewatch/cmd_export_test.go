package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/pricesheet"

	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/internal/golden"
)

// exportConfig fills one database from the fake Azure (westus2 pages) and
// the awstest bucket (p5.48xlarge in ap-northeast-1 with savings plans and
// spot), both enabled in one config.
func exportConfig(t *testing.T) string {
	t.Helper()
	cfg, _ := fixtureConfig(t, "")
	return cfg
}

// fixtureConfig is exportConfig with the fake Azure returned and extra
// YAML appended to the config.
func fixtureConfig(t *testing.T, extra string) (string, *fakeAzure) {
	t.Helper()
	return fixtureConfigFX(t, extra, "")
}

// fixtureConfigFX is fixtureConfig with further keys under fx:.
func fixtureConfigFX(t *testing.T, extra, fx string) (string, *fakeAzure) {
	t.Helper()
	az := newFakeAzure(t)
	b := awstest.NewBucket(t)
	b.PublishEC2(map[string]awstest.Region{"ap-northeast-1": {Version: awsV1, Types: []awstest.GPUType{awsAPNp5.gpuType()}}})
	b.SetSavingsPlans("ap-northeast-1", awsSP, awsSavingsPlanPrices(awsAPNp5))
	b.SetSpot(awsSpotFeed(awsAPNp5))
	path := testConfig{
		clouds: []cloud{azureCloud(az.URL, westus2), awsBucketCloud(b, "    regions: [ap-northeast-1]\n")},
		extra:  extra,
		fx:     fx,
	}.write(t, t.TempDir())
	for _, p := range []string{"azure", "aws"} {
		if out, errOut, code := runCLI(t, "--config", path, "fetch", "--provider", p); code != 0 {
			t.Fatalf("fetch %s exited %d:\n%s%s", p, code, out, errOut)
		}
	}
	return path, az
}

// TestExportFocusCSVGolden: the FOCUS-aligned sheet of every current price
// the two fakes serve, with Azure's skuId/meterId/productId from the
// replayed pages and AWS's product SKU and rate codes from the bucket's
// real-layout files.
func TestExportFocusCSVGolden(t *testing.T) {
	cfg := exportConfig(t)
	out := rawCLI(t, "--config", cfg, "export", "--format", "focus-csv")
	golden.Check(t, filepath.Join("testdata", "export", "focus.csv.golden"), []byte(maskValidFrom(t, out)))

	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	// Facts checked apart from the golden file, so that a careless -update
	// cannot bless a wrong mapping.
	find := func(provider, itype, priceType, term, payment, class, charge string) []string {
		for _, r := range recs[1:] {
			if r[col["ProviderName"]] == provider && r[col["x_InstanceType"]] == itype && r[col["x_PriceType"]] == priceType &&
				r[col["x_Term"]] == term && r[col["x_PaymentOption"]] == payment && r[col["x_OfferingClass"]] == class &&
				r[col["ChargeCategory"]] == charge {
				return r
			}
		}
		t.Fatalf("no row %s %s %s %s %s %s %s", provider, itype, priceType, term, payment, class, charge)
		return nil
	}
	p5 := awstest.SKUOf("ap-northeast-1", "p5.48xlarge", "linux")
	// Issue 27 items 1–4: one price per SkuPriceId (Azure's meter shared by
	// on-demand and commitments is told apart by price type and term), a
	// SkuId on every row (AWS spot: the on-demand product), a commitment's
	// ListUnitPrice is the on-demand price with its own rate in
	// ContractedUnitPrice, and its upfront fee a Standard One-Time Purchase.
	for _, c := range []struct {
		row  []string
		want map[string]string
	}{
		{find("Microsoft", "Standard_ND96amsr_A100_v4", "on_demand", "", "", "", "Usage"), map[string]string{
			"SkuId": "DZH318Z0BXWZ/00F1", "SkuPriceId": "9a6f6d3f-5b1c-5e0b-9f55-2f1b7f0c1a01|on_demand|linux", "x_SkuProductId": "DZH318Z0BXWZ",
			"RegionId": "westus2", "RegionName": "US West 2", "PricingCategory": "Standard", "PricingUnit": "Hours",
			"ListUnitPrice": "32.77", "ContractedUnitPrice": "32.77", "BillingCurrency": "USD", "CommitmentDiscountType": "", "x_PricePerGpuHour": "4.09625"}},
		{find("Microsoft", "Standard_ND96amsr_A100_v4", "reserved", "1y", "all_upfront", "", "Usage"), map[string]string{
			"SkuId": "DZH318Z0BXWZ/02Q7", "SkuPriceId": "9a6f6d3f-5b1c-5e0b-9f55-2f1b7f0c1a01|reserved|1y|all_upfront|linux",
			"PricingCategory": "Committed", "CommitmentDiscountType": "", "ListUnitPrice": "32.77", "ContractedUnitPrice": "0",
			"ChargeFrequency": "Usage-Based", "x_UpfrontPrice": "176234"}},
		{find("Microsoft", "Standard_ND96amsr_A100_v4", "reserved", "1y", "all_upfront", "", "Purchase"), map[string]string{
			"SkuPriceId": "9a6f6d3f-5b1c-5e0b-9f55-2f1b7f0c1a01|reserved|1y|all_upfront|linux|upfront", "PricingCategory": "Standard",
			"ChargeFrequency": "One-Time", "ListUnitPrice": "176234", "ContractedUnitPrice": "176234", "PricingUnit": "Years", "PricingQuantity": "1"}},
		{find("AWS", "p5.48xlarge", "on_demand", "", "", "", "Usage"), map[string]string{
			"SkuId": p5, "SkuPriceId": p5 + ".JRTCKXETXF.6YS6EN2CT7", "RegionId": "ap-northeast-1", "RegionName": "Asia Pacific (Tokyo)",
			"PricingCategory": "Standard", "ListUnitPrice": "68.425", "x_GpuModel": "H100", "x_GpuCount": "8"}},
		{find("AWS", "p5.48xlarge", "spot", "", "", "", "Usage"), map[string]string{
			"SkuId": p5, "SkuPriceId": p5 + "|spot", "PricingCategory": "Dynamic", "ListUnitPrice": "20.5275", "RegionName": "Asia Pacific (Tokyo)"}},
		{find("AWS", "p5.48xlarge", "savings_plan", "1y", "no_upfront", "compute", "Usage"), map[string]string{
			"SkuId": p5, "PricingCategory": "Committed", "CommitmentDiscountType": "", "ListUnitPrice": "68.425", "ContractedUnitPrice": "48.9902"}},
	} {
		for k, v := range c.want {
			if got := c.row[col[k]]; got != v {
				t.Errorf("%s %s %s %s: %s = %q, want %q", c.row[col["ProviderName"]], c.row[col["x_InstanceType"]], c.row[col["x_PriceType"]],
					c.row[col["ChargeCategory"]], k, got, v)
			}
		}
	}
	// Every AWS row but spot carries the product's SKU and a rate code of it.
	for _, r := range recs[1:] {
		if r[col["ProviderName"]] != "AWS" || r[col["x_PriceType"]] == "spot" {
			continue
		}
		if r[col["SkuId"]] != p5 || !strings.Contains(r[col["SkuPriceId"]], ".") {
			t.Errorf("AWS %s %s: SkuId %q SkuPriceId %q", r[col["x_PriceType"]], r[col["x_Term"]], r[col["SkuId"]], r[col["SkuPriceId"]])
		}
	}
}

// TestExportFiltersFormatsAndAt: filters like compare's; jsonl and csv
// carry the same rows with pricewatch's names; --at before the first run
// finds nothing and a bad --at or --format is refused.
func TestExportFiltersFormatsAndAt(t *testing.T) {
	cfg := exportConfig(t)
	lines := func(args ...string) []map[string]any {
		out := rawCLI(t, append([]string{"--config", cfg, "export", "--format", "jsonl"}, args...)...)
		var rows []map[string]any
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			dec := json.NewDecoder(strings.NewReader(sc.Text()))
			dec.UseNumber()
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			rows = append(rows, m)
		}
		return rows
	}
	all := lines()
	reserved := lines("--provider", "azure", "--price-type", "reserved")
	h100 := lines("--gpu", "H100", "--region", "ap-northeast-1")
	if len(all) == 0 || len(reserved) == 0 || len(h100) == 0 {
		t.Fatalf("rows: all %d, reserved %d, h100 %d", len(all), len(reserved), len(h100))
	}
	for _, r := range reserved {
		if r["provider"] != "azure" || r["price_type"] != "reserved" || r["sku_id"] == "" {
			t.Errorf("reserved filter let through %v", r)
		}
	}
	for _, r := range h100 {
		if r["gpu_model"] != "H100" || r["region"] != "ap-northeast-1" {
			t.Errorf("--gpu H100 --region ap-northeast-1 let through %v", r)
		}
	}
	if got := all[0]["hourly_price"]; fmt.Sprintf("%T", got) != "json.Number" {
		t.Errorf("hourly_price is %T, want a JSON number", got)
	}
	csvOut := rawCLI(t, "--config", cfg, "export", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(all)+1 || strings.Join(recs[0], ",") != strings.Join(pricesheet.Header, ",") {
		t.Errorf("csv: %d records, header %v; jsonl %d rows", len(recs), recs[0], len(all))
	}
	if before := lines("--at", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)); len(before) != 0 {
		t.Errorf("--at before the first run: %d rows", len(before))
	}
	if now := lines("--at", time.Now().Add(time.Minute).UTC().Format(time.RFC3339)); len(now) != len(all) {
		t.Errorf("--at now: %d rows, want %d", len(now), len(all))
	}
	for _, bad := range [][]string{{"--at", "yesterday"}, {"--format", "xlsx"}, {"--price-type", "cheap"}} {
		if _, _, code := runCLI(t, append([]string{"--config", cfg, "export"}, bad...)...); code == 0 {
			t.Errorf("export %v succeeded", bad)
		}
	}
}
