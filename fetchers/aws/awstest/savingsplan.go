package awstest

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// SavingsPlanRow is a rate in the 24 columns of the real savings-plan CSV.
type SavingsPlanRow map[string]string

// SavingsPlanFile converts savings-plan CSV rows (the real excerpt's and
// rows written in the same columns) to the JSON layout AWS documents.
func SavingsPlanFile(tb testing.TB, version, region string, header []string, rows [][]string) []byte {
	tb.Helper()
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	get := func(row []string, name string) string {
		i, ok := col[name]
		if !ok {
			tb.Fatalf("savings plan CSV has no column %q", name)
		}
		return row[i]
	}
	var products []spProduct
	terms := map[string]*spTerm{}
	var order []string
	for _, row := range rows {
		sku := get(row, "SKU")
		if _, ok := terms[sku]; !ok {
			dur, _ := strconv.Atoi(get(row, "LeaseContractLength"))
			terms[sku] = &spTerm{SKU: sku, Description: get(row, "Description"), EffectiveDate: get(row, "EffectiveDate"),
				LeaseContractLength: map[string]any{"duration": dur, "unit": get(row, "LeaseContractLengthUnit")}}
			order = append(order, sku)
			attrs := map[string]string{
				"purchaseOption": get(row, "PurchaseOption"),
				"productFamily":  get(row, "Product Family"),
				"serviceCode":    get(row, "ServiceCode"),
				"granularity":    get(row, "Granularity"),
				"locationType":   get(row, "Location Type"),
				"purchaseTerm":   get(row, "LeaseContractLength") + "yr",
				"location":       get(row, "Location"),
				"usageType":      get(row, "UsageType"),
			}
			if fam := get(row, "Instance Family"); fam != "" {
				attrs["instanceType"] = fam
			}
			products = append(products, spProduct{SKU: sku, ProductFamily: get(row, "Product Family"), ServiceCode: get(row, "ServiceCode"),
				UsageType: get(row, "UsageType"), Operation: get(row, "Operation"), Attributes: attrs})
		}
		terms[sku].Rates = append(terms[sku].Rates, spRate{
			DiscountedSku: get(row, "DiscountedSKU"), DiscountedUsageType: get(row, "DiscountedUsageType"),
			DiscountedOperation: get(row, "DiscountedOperation"), DiscountedServiceCode: get(row, "DiscountedServiceCode"),
			RateCode: get(row, "RateCode"), Unit: get(row, "Unit"),
			DiscountedRate:       map[string]string{"price": get(row, "DiscountedRate"), "currency": get(row, "Currency")},
			DiscountedRegionCode: get(row, "DiscountedRegionCode"), DiscountedInstanceType: get(row, "DiscountedInstanceType"),
		})
	}
	doc := spFile{Version: version, PublicationDate: "2025-09-11T18:44:47Z", RegionCode: region, Products: products}
	for _, sku := range order {
		doc.Terms.SavingsPlan = append(doc.Terms.SavingsPlan, terms[sku])
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// spFile is a savings-plan rate file in the JSON layout AWS documents;
// SavingsPlanFile writes it and SavingsPlanCSV reads it.
type spFile struct {
	Version         string      `json:"version"`
	PublicationDate string      `json:"publicationDate"`
	RegionCode      string      `json:"regionCode"`
	Products        []spProduct `json:"products"`
	Terms           struct {
		SavingsPlan []*spTerm `json:"savingsPlan"`
	} `json:"terms"`
}

type spProduct struct {
	SKU           string            `json:"sku"`
	ProductFamily string            `json:"productFamily"`
	ServiceCode   string            `json:"serviceCode"`
	UsageType     string            `json:"usageType"`
	Operation     string            `json:"operation"`
	Attributes    map[string]string `json:"attributes"`
}

type spTerm struct {
	SKU                 string         `json:"sku"`
	Description         string         `json:"description"`
	EffectiveDate       string         `json:"effectiveDate"`
	LeaseContractLength map[string]any `json:"leaseContractLength"`
	Rates               []spRate       `json:"rates"`
}

type spRate struct {
	DiscountedSku          string            `json:"discountedSku"`
	DiscountedUsageType    string            `json:"discountedUsageType"`
	DiscountedOperation    string            `json:"discountedOperation"`
	DiscountedServiceCode  string            `json:"discountedServiceCode"`
	RateCode               string            `json:"rateCode"`
	Unit                   string            `json:"unit"`
	DiscountedRate         map[string]string `json:"discountedRate"`
	DiscountedRegionCode   string            `json:"discountedRegionCode"`
	DiscountedInstanceType string            `json:"discountedInstanceType"`
}

// SPRow writes a rate as a row of the real CSV's columns.
func SPRow(header []string, v SavingsPlanRow) []string {
	row := make([]string, len(header))
	for i, h := range header {
		row[i] = v[h]
	}
	return row
}

// GPUSavingsPlanRows are Compute and EC2 Instance Savings Plan rates for
// a region's Linux GPU products, plus decoy rates (Windows, dedicated,
// unused reservation, Fargate, another region) that must not be taken.
// prices maps an instance type to its Compute 1yr No Upfront rate; the
// Compute 3yr All Upfront rate is 0.62 of it and the EC2 Instance 1yr
// Partial Upfront rate 0.83, each written with four decimals as AWS does.
// Linux rates point at the SKUs BuildRegion gives (SKUOf).
func GPUSavingsPlanRows(tb testing.TB, header []string, region string, prices map[string]float64) [][]string {
	tb.Helper()
	ri := regionFacts(tb, region)
	plans := []struct {
		sku, family, usage, purchase, length, desc string
		factor                                     float64
	}{
		// Real Compute Savings Plan SKUs and usage types (a public client quotes them).
		{"BB7BKBSC6NZW7P5B", "ComputeSavingsPlans", "ComputeSP:1yrNoUpfront", "No Upfront", "1", "1 year No Upfront Compute Savings Plan", 1},
		{"RQRC4CUNT9HUG9WC", "ComputeSavingsPlans", "ComputeSP:3yrAllUpfront", "All Upfront", "3", "3 year All Upfront Compute Savings Plan", 0.62},
	}
	var types []string
	for t := range prices {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		fam, _, _ := strings.Cut(t, ".")
		plans = append(plans, struct {
			sku, family, usage, purchase, length, desc string
			factor                                     float64
		}{SKU("ec2sp" + fam), "EC2InstanceSavingsPlans", ri.usagePrefix + "EC2SP:" + fam + ".1yrPartialUpfront", "Partial Upfront", "1",
			"1 year Partial Upfront " + fam + " EC2 Instance Savings Plan in " + region, 0.83})
	}
	var rows [][]string
	for _, p := range plans {
		for _, t := range types {
			fam, _, _ := strings.Cut(t, ".")
			if p.family == "EC2InstanceSavingsPlans" && !strings.Contains(p.usage, ":"+fam+".") {
				continue
			}
			price := prices[t] * p.factor
			add := func(usage, op, svc, sku, itype, regionCode string, rate float64) {
				rows = append(rows, SPRow(header, SavingsPlanRow{
					"SKU": p.sku, "RateCode": p.sku + "." + sku, "Unit": "Hrs", "EffectiveDate": "2025-06-05T18:51:13Z",
					"DiscountedRate": strconv.FormatFloat(rate, 'f', 4, 64), "Currency": "USD", "DiscountedSKU": sku,
					"DiscountedServiceCode": svc, "DiscountedUsageType": usage, "DiscountedOperation": op,
					"PurchaseOption": p.purchase, "LeaseContractLength": p.length, "LeaseContractLengthUnit": "year",
					"ServiceCode": "ComputeSavingsPlans", "UsageType": p.usage, "Description": p.desc,
					"Instance Family": map[bool]string{true: fam}[p.family == "EC2InstanceSavingsPlans"],
					"Location":        ri.location, "Location Type": "AWS Region", "Granularity": "hourly",
					"Product Family": p.family, "DiscountedRegionCode": regionCode, "DiscountedInstanceType": itype,
				}))
			}
			add(ri.usagePrefix+"BoxUsage:"+t, "RunInstances", "AmazonEC2", SKUOf(region, t, "linux"), t, region, price)
			add(ri.usagePrefix+"BoxUsage:"+t, "RunInstances:0002", "AmazonEC2", SKUOf(region, t, "windows"), t, region, price*1.9)
			add(ri.usagePrefix+"DedicatedUsage:"+t, "RunInstances", "AmazonEC2", SKUOf(region, t, "dedicated"), t, region, price*1.1)
			add(ri.usagePrefix+"UnusedBox:"+t, "RunInstances", "AmazonEC2", SKUOf(region, t, "unused-reservation"), t, region, price*1.2)
			add(ri.usagePrefix+"BoxUsage:"+t, "RunInstances", "AmazonEC2", SKU("us-west-2-lax-1"+t), t, "us-west-2-lax-1", price*1.3)
		}
		if p.family == "ComputeSavingsPlans" {
			rows = append(rows, SPRow(header, SavingsPlanRow{
				"SKU": p.sku, "RateCode": p.sku + ".FARGATE0000VCPU0", "Unit": "hour", "EffectiveDate": "2025-06-05T18:51:13Z",
				"DiscountedRate": "0.0320", "Currency": "USD", "DiscountedSKU": "FARGATE0000VCPU0", "DiscountedServiceCode": "AmazonECS",
				"DiscountedUsageType": ri.usagePrefix + "Fargate-vCPU-Hours:perCPU", "DiscountedOperation": "",
				"PurchaseOption": p.purchase, "LeaseContractLength": p.length, "LeaseContractLengthUnit": "year",
				"ServiceCode": "ComputeSavingsPlans", "UsageType": p.usage, "Description": p.desc, "Location": "Any",
				"Location Type": "AWS Region", "Granularity": "hourly", "Product Family": p.family, "DiscountedRegionCode": region,
			}))
		}
	}
	return rows
}
