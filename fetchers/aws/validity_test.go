package aws

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
)

// p4dLinux builds the plain Linux p4d.24xlarge product of us-east-1 with
// its on-demand term.
func p4dLinux(t *testing.T, s *awstest.Samples, price string) awstest.Product {
	sku := awstest.SKUOf("us-east-1", "p4d.24xlarge", "linux")
	return awstest.Product{SKU: sku, Product: s.GPUProduct(t, sku, "us-east-1", "p4d.24xlarge", awstest.VariantNamed("linux")),
		OnDemand: s.OnDemand(t, sku, price)}
}

// TestCapacityBlockIsNotOnDemand: the p4d.24xlarge file carries a second
// Linux/Shared/Used product that differs only by marketoption CapacityBlock
// and operation RunInstances:CB, priced $0.00, with the same usage type and
// the same OnDemand term code (shared/real-data/README.md, "AWS"). Built
// here in that shape from the real p3 product: it is no on-demand price,
// whichever comes first.
func TestCapacityBlockIsNotOnDemand(t *testing.T) {
	s := awstest.LoadSamples(t)
	linux := p4dLinux(t, s, "21.9576420000")
	cbSKU := awstest.SKUOf("us-east-1", "p4d.24xlarge", "capacity-block")
	cb := s.GPUProduct(t, cbSKU, "us-east-1", "p4d.24xlarge", awstest.VariantNamed("linux"))
	cb = awstest.SetStr(t, cb, "marketoption", "CapacityBlock")
	cb = awstest.SetStr(t, cb, "operation", "RunInstances:CB")
	block := awstest.Product{SKU: cbSKU, Product: cb, OnDemand: s.OnDemand(t, cbSKU, "0.0000000000")}
	if !bytes.Contains(block.Product, []byte(`"usagetype": "BoxUsage:p4d.24xlarge"`)) || !bytes.Contains(block.OnDemand, []byte(".JRTCKXETXF")) {
		t.Fatalf("fixture is not the real shape: %s", block.Product)
	}
	for _, order := range [][]awstest.Product{{linux, block}, {block, linux}} {
		rp, err := parseOfferFile(bytes.NewReader(s.RegionFile("20251130000000", order)), "us-east-1")
		if err != nil {
			t.Fatal(err)
		}
		if len(rp.Offers) != 1 || rp.Offers[0].Hourly.String() != "21.957642" || rp.LinuxSKU["p4d.24xlarge"] != linux.SKU {
			t.Errorf("offers %+v, linux SKU %s; want only the real on-demand 21.957642", rp.Offers, rp.LinuxSKU["p4d.24xlarge"])
		}
	}
}

// TestTermEffectiveDateDecides: two OnDemand terms for one product follow
// their effectiveDate at fetch time (the later one in effect wins, one
// not yet in effect is left out), never the lower price; two terms in
// effect since the same date fail the file.
func TestTermEffectiveDateDecides(t *testing.T) {
	s := awstest.LoadSamples(t)
	base := p4dLinux(t, s, "32.7726000000")
	term := func(code, date, price string) string {
		od := string(s.OnDemand(t, base.SKU, price))
		od = strings.ReplaceAll(od, "JRTCKXETXF", code)
		od = string(awstest.SetStr(t, []byte(od), "effectiveDate", date))
		return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(od), "{"), "}")
	}
	now := time.Date(2025, 11, 30, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		terms   []string
		want    string // "" = an error
		pending int
	}{
		{"the later term replaced the earlier, dearer or not", []string{term("JRTCKXETXF", "2024-05-01T00:00:00Z", "21.9576420000"), term("AAAAAAAAAA", "2025-06-01T00:00:00Z", "32.7726000000")}, "32.7726", 0},
		{"same, listed the other way round", []string{term("AAAAAAAAAA", "2025-06-01T00:00:00Z", "32.7726000000"), term("JRTCKXETXF", "2024-05-01T00:00:00Z", "21.9576420000")}, "32.7726", 0},
		{"a term not yet in effect is left out", []string{term("JRTCKXETXF", "2024-05-01T00:00:00Z", "32.7726000000"), term("AAAAAAAAAA", "2026-01-01T00:00:00Z", "21.9576420000")}, "32.7726", 1},
		{"two terms in effect since the same date fail", []string{term("JRTCKXETXF", "2024-05-01T00:00:00Z", "32.7726000000"), term("AAAAAAAAAA", "2024-05-01T00:00:00Z", "21.9576420000")}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := base
			p.OnDemand = []byte("{" + strings.Join(tt.terms, ",") + "}")
			rp, err := parseOfferFileAt(bytes.NewReader(s.RegionFile("20251130000000", []awstest.Product{p})), "us-east-1", now)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("accepted two terms in effect since the same date: %+v", rp.Offers)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rp.Offers) != 1 || rp.Offers[0].Hourly.String() != tt.want || rp.NotYetInEffect != tt.pending {
				t.Errorf("offers %+v (%d not yet in effect), want %s", rp.Offers, rp.NotYetInEffect, tt.want)
			}
		})
	}
}
