package aws

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/sharedtest"
)

// TestSavingsPlanRealRows feeds the real ap-east-2 rate rows (converted to
// the JSON layout) to the parser: of the ten r7g rates only one is a
// shared-tenancy Linux rate (r7g.2xlarge, BoxUsage, RunInstances); the
// dedicated, unused-reservation and other-OS ones are not.
func TestSavingsPlanRealRows(t *testing.T) {
	s := awstest.LoadSamples(t)
	file := awstest.SavingsPlanFile(t, "20250911184447", "ap-east-2", s.SPHeader, s.SPRows)
	version, offers, err := parseSavingsPlanFile(bytes.NewReader(file), "ap-east-2", time.Now(), func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if version != "20250911184447" || len(offers) != 1 {
		t.Fatalf("version %q, offers %+v", version, offers)
	}
	o := offers[0]
	want := pricewatch.Offer{Provider: "aws", Region: "ap-east-2", InstanceType: "r7g.2xlarge", PriceType: pricewatch.SavingsPlan,
		Term: "3y", Payment: pricewatch.PartialUpfront, OfferingClass: pricewatch.EC2InstanceSavingsPlan, OS: pricewatch.Linux,
		Currency: "USD", Hourly: mustDec(t, "0.1954")}
	if o.Key() != want.Key() || !o.Hourly.Equal(want.Hourly) || o.Currency != "USD" {
		t.Errorf("got %s = %s %s, want %s = %s", o.Key(), o.Hourly, o.Currency, want.Key(), want.Hourly)
	}
	if err := o.Validate(); err != nil {
		t.Error(err)
	}

	// Types the caller does not want (not GPU types) are dropped.
	_, none, err := parseSavingsPlanFile(bytes.NewReader(file), "ap-east-2", time.Now(), func(string) bool { return false })
	if err != nil || len(none) != 0 {
		t.Errorf("unwanted types: %v, %v", none, err)
	}
}

// spTree publishes an EC2 tree with p4d and p5 in us-east-1 and g4dn in
// af-south-1, and a savings-plan file for us-east-1 only (with the real
// ap-east-2 rows mixed in as another region's rates).
func spTree(t *testing.T, b *awstest.Bucket, spVersion string) map[string]float64 {
	s := awstest.LoadSamples(t)
	tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{p4d, p5}}, "af-south-1": {Version: v1, Types: g4dnTypes()[:2]}}.publish(t, b)
	prices := map[string]float64{"p4d.24xlarge": 20, "p5.48xlarge": 60}
	header := s.SPHeader
	rows := append(slices.Clone(s.SPRows), awstest.GPUSavingsPlanRows(t, header, "us-east-1", prices)...)
	b.PublishSavingsPlans(map[string]awstest.Versioned{"us-east-1": {Version: spVersion, Body: awstest.SavingsPlanFile(t, spVersion, "us-east-1", header, rows)}})
	return prices
}

func TestSavingsPlans(t *testing.T) {
	b := awstest.NewBucket(t)
	spTree(t, b, "20250911184447")
	f := newFetcher(t, b, Config{SavingsPlans: true})
	snap := firstRun(t, f)
	var got []string
	for _, o := range offersOf(snap, pricewatch.SavingsPlan) {
		got = append(got, fmt.Sprintf("%s %s %s %s %s %s", o.Region, o.InstanceType, o.OfferingClass, o.Term, o.Payment, o.Hourly))
		if o.GPUModel == "" || o.VCPUs == 0 || o.Upfront.Sign() != 0 {
			t.Errorf("%s: hardware %+v, upfront %s", o.Key(), o.Hardware, o.Upfront)
		}
	}
	sort.Strings(got)
	want := []string{
		"us-east-1 p4d.24xlarge compute 1y no_upfront 20",
		"us-east-1 p4d.24xlarge compute 3y all_upfront 12.4",
		"us-east-1 p4d.24xlarge ec2_instance 1y partial_upfront 16.6",
		"us-east-1 p5.48xlarge compute 1y no_upfront 60",
		"us-east-1 p5.48xlarge compute 3y all_upfront 37.2",
		"us-east-1 p5.48xlarge ec2_instance 1y partial_upfront 49.8",
	}
	sharedtest.WantLines(t, "savings plan offers", got, want)
	scopes := map[string][]pricewatch.PriceType{}
	for _, sc := range snap.Coverage {
		scopes[sc.Region] = sc.PriceTypes
	}
	all := []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Reserved, pricewatch.SavingsPlan}
	if !slices.Equal(scopes["us-east-1"], all) || !slices.Equal(scopes["af-south-1"], all) {
		t.Errorf("coverage %v (af-south-1 has no savings-plan file: covered, with none)", scopes)
	}
	if snap.Versions["savingsplan/us-east-1"] != "20250911184447" {
		t.Errorf("versions %v", snap.Versions)
	}

	// Nothing changed: no file is read again.
	b.BytesSent()
	second, err := f.Fetch(context.Background(), fetchers.Previous{Versions: snap.Versions, State: snap.State})
	if err != nil {
		t.Fatal(err)
	}
	sent := b.BytesSent()
	if sent[awstest.SPPath("20250911184447", "us-east-1")] != 0 || sent[awstest.EC2Path(v1, "us-east-1")] != 0 || len(second.Offers) != 0 {
		t.Errorf("second run read %v, %d offers", sent, len(second.Offers))
	}

	// Only the savings-plan file changes: it alone is read, and its
	// offers carry hardware remembered from the first run.
	spTree(t, b, "20251001000000")
	b.BytesSent()
	third, err := f.Fetch(context.Background(), fetchers.Previous{Versions: second.Versions, State: second.State})
	if err != nil {
		t.Fatal(err)
	}
	sent = b.BytesSent()
	if sent[awstest.SPPath("20251001000000", "us-east-1")] == 0 || sent[awstest.EC2Path(v1, "us-east-1")] != 0 {
		t.Errorf("third run read %v", sent)
	}
	n := 0
	for _, o := range third.Offers {
		if o.PriceType != pricewatch.SavingsPlan || o.GPUModel == "" || o.VCPUs == 0 {
			t.Errorf("third run offer %s, hardware %+v", o.Key(), o.Hardware)
		}
		n++
	}
	if n != len(want) || third.Skipped != 2 {
		t.Errorf("third run: %d offers, skipped %d", n, third.Skipped)
	}
	var cov, unch []string
	for _, sc := range third.Coverage {
		cov = append(cov, fmt.Sprint(sc.Region, sc.PriceTypes))
	}
	for _, sc := range third.Unchanged {
		unch = append(unch, fmt.Sprint(sc.Region, sc.PriceTypes))
	}
	sort.Strings(cov)
	sort.Strings(unch)
	if !slices.Equal(cov, []string{"af-south-1[savings_plan]", "us-east-1[savings_plan]"}) ||
		!slices.Equal(unch, []string{"af-south-1[on_demand reserved]", "us-east-1[on_demand reserved]"}) {
		t.Errorf("coverage %v, unchanged %v", cov, unch)
	}
}

// TestEmptySavingsPlanIndex: an index listing no regions is not an error,
// and claims nothing about savings plans (so none are closed).
func TestEmptySavingsPlanIndex(t *testing.T) {
	b := awstest.NewBucket(t)
	tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{p5}}}.publish(t, b)
	b.PublishSavingsPlans(map[string]awstest.Versioned{})
	snap, err := newFetcher(t, b, Config{SavingsPlans: true}).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range append(snap.Coverage, snap.Unchanged...) {
		if slices.Contains(sc.PriceTypes, pricewatch.SavingsPlan) {
			t.Errorf("scope %+v claims savings plans", sc)
		}
	}
	if len(snap.Offers) != 13 {
		t.Errorf("%d offers", len(snap.Offers))
	}
}

// TestSavingsPlanEffectiveDate: a plan whose rate was changed lists a term
// per effectiveDate (constructed in the documented JSON layout; the real
// excerpt has one term per plan). The latest term in effect is the rate,
// an announced one is not yet, and two terms in effect since the same
// date that disagree fail the file instead of one being picked.
func TestSavingsPlanEffectiveDate(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	term := func(effective, price string) string {
		return fmt.Sprintf(`{"sku":"PLAN1","description":"1 year No Upfront p5 EC2 Instance Savings Plan in us-east-1","effectiveDate":%q,
		  "leaseContractLength":{"duration":1,"unit":"year"},
		  "rates":[{"discountedSku":"EC2SKU","discountedUsageType":"BoxUsage:p5.48xlarge","discountedOperation":"RunInstances",
		    "discountedServiceCode":"AmazonEC2","rateCode":"PLAN1.EC2SKU","unit":"Hrs","discountedRate":{"price":%q,"currency":"USD"},
		    "discountedRegionCode":"us-east-1","discountedInstanceType":"p5.48xlarge"}]}`, effective, price)
	}
	file := func(terms ...string) []byte {
		return []byte(`{"version":"20260601000000","publicationDate":"2026-06-01T00:00:00Z","regionCode":"us-east-1",
		  "products":[{"sku":"PLAN1","productFamily":"EC2InstanceSavingsPlans","serviceCode":"ComputeSavingsPlans",
		    "usageType":"EC2SP:p5.1yrNoUpfront","operation":"","attributes":{"purchaseOption":"No Upfront","purchaseTerm":"1yr"}}],
		  "terms":{"savingsPlan":[` + strings.Join(terms, ",") + `]}}`)
	}
	for _, tc := range []struct {
		name  string
		terms []string
		want  string // "" = error
	}{
		{"one term", []string{term("2025-01-01T00:00:00Z", "40.0")}, "40.0"},
		{"newer term wins, in either order", []string{term("2026-03-01T00:00:00Z", "36.5"), term("2025-01-01T00:00:00Z", "40.0")}, "36.5"},
		{"older listed last still loses", []string{term("2025-01-01T00:00:00Z", "40.0"), term("2026-03-01T00:00:00Z", "36.5")}, "36.5"},
		{"announced term is not yet the rate", []string{term("2025-01-01T00:00:00Z", "40.0"), term("2026-07-01T00:00:00Z", "30.0")}, "40.0"},
		{"same date, same rate", []string{term("2025-01-01T00:00:00Z", "40.0"), term("2025-01-01T00:00:00Z", "40.0")}, "40.0"},
		{"same date, different rates", []string{term("2025-01-01T00:00:00Z", "40.0"), term("2025-01-01T00:00:00Z", "39.0")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, offers, err := parseSavingsPlanFile(bytes.NewReader(file(tc.terms...)), "us-east-1", now, func(string) bool { return true })
			if tc.want == "" {
				if err == nil {
					t.Fatalf("want an error, got %+v", offers)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(offers) != 1 || !offers[0].Hourly.Equal(mustDec(t, tc.want)) {
				t.Fatalf("got %+v, want one rate of %s", offers, tc.want)
			}
		})
	}
}
