package report

import (
	"errors"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
)

// machineOffer is a converted compare row of one price of p5.48xlarge in
// us-east-1 (8 GPUs): effective hourly eff in USD.
func machineOffer(region, zone string, pt pricewatch.PriceType, term, payment, class, eff string) analysis.CompareRow {
	o := pricewatch.Offer{Provider: "aws", Region: region, Zone: zone, InstanceType: "p5.48xlarge", PriceType: pt, Term: term,
		Payment: payment, OfferingClass: class, OS: pricewatch.Linux, Currency: "USD",
		Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80}}
	d := decimal.RequireFromString(eff)
	return analysis.CompareRow{OfferKeyJSON: o.Key().JSON(), GPUModel: "H100", GPUCount: 8, EffectiveHourly: d, NativeEffectiveHourly: d,
		NativeCurrency: "USD", FXUsed: analysis.FXUsed{FXRate: decimal.NewFromInt(1), FXSource: "identity"}, Offer: o}
}

// Issue 31 item 3: one row per instance type and region; each column the
// cheapest of its kind with the option it is; the unit's hours exact.
func TestMachineRowsColumns(t *testing.T) {
	rows := []analysis.CompareRow{
		machineOffer("us-east-1", "", pricewatch.OnDemand, "", "", "", "55.04"),
		// GCP-style flex-start is bought apart: never the on-demand column.
		machineOffer("us-east-1", "", pricewatch.OnDemand, "", "", pricewatch.FlexStart, "20"),
		// Spot per zone: the cheapest zone, named.
		machineOffer("us-east-1", "us-east-1a", pricewatch.Spot, "", "", "", "30.10"),
		machineOffer("us-east-1", "us-east-1b", pricewatch.Spot, "", "", "", "28.7"),
		machineOffer("us-east-1", "", pricewatch.Reserved, "1y", pricewatch.AllUpfront, pricewatch.Standard, "34.1"),
		machineOffer("us-east-1", "", pricewatch.SavingsPlan, "1y", pricewatch.NoUpfront, pricewatch.ComputeSavingsPlan, "33.9"),
		machineOffer("us-east-1", "", pricewatch.Reserved, "3y", pricewatch.PartialUpfront, pricewatch.Standard, "24.01"),
		// A one-month commitment and a capacity block are in no column.
		machineOffer("us-east-1", "", pricewatch.Reserved, "1m", pricewatch.AllUpfront, "", "1"),
		machineOffer("us-east-1", "us-east-1a", pricewatch.CapacityBlockPrice, "7d", pricewatch.AllUpfront, "", "2"),
		// Another region is another machine.
		machineOffer("us-west-2", "", pricewatch.OnDemand, "", "", "", "50"),
	}
	for _, c := range []struct {
		per  Per
		want [machineCols]string // us-east-1's columns
	}{
		{PerHour, [machineCols]string{"55.04", "28.7", "33.9", "24.01"}},
		{PerDay, [machineCols]string{"1320.96", "688.8", "813.6", "576.24"}},
		{PerMonth, [machineCols]string{"40179.2", "20951", "24747", "17527.3"}},
		{PerYear, [machineCols]string{"482150.4", "251412", "296964", "210327.6"}},
	} {
		got := MachineRows("usd", c.per, rows, nil)
		if len(got) != 2 {
			t.Fatalf("%s: %d rows, want 2 (one per region)", c.per, len(got))
		}
		// us-west-2 first: cheaper on-demand per GPU.
		west, east := got[0], got[1]
		if west.Region != "us-west-2" || east.Region != "us-east-1" {
			t.Fatalf("%s: order %s, %s", c.per, west.Region, east.Region)
		}
		if east.Per != c.per || east.Hours != c.per.Hours() || east.Currency != "USD" || east.ID != "aws/us-east-1/p5.48xlarge/linux" {
			t.Errorf("%s: row %+v", c.per, east)
		}
		for col, want := range c.want {
			p, opt := east.Cell(col)
			if !p.Valid || !p.D.Equal(decimal.RequireFromString(want)) || opt == nil {
				t.Errorf("%s %s: %v, want %s", c.per, MachineColumnLabels[col], p, want)
			}
		}
		if west.Spot.Valid || west.SpotOption != nil || west.Best3y.Valid {
			t.Errorf("%s: us-west-2 has only on-demand: %+v", c.per, west)
		}
	}
	east := MachineRows("USD", PerMonth, rows, nil)[1]
	for col, want := range [machineCols]string{"on-demand", "spot in us-east-1b", "savings plan 1y no upfront compute", "reserved 3y partial upfront standard"} {
		if _, opt := east.Cell(col); opt == nil || *opt != want {
			t.Errorf("%s option %v, want %q", MachineColumnLabels[col], opt, want)
		}
	}
	if !east.OnDemandPerGPU.Valid || !east.OnDemandPerGPU.D.Equal(decimal.RequireFromString("5022.4")) {
		t.Errorf("on-demand per GPU %v, want 40179.2 / 8", east.OnDemandPerGPU)
	}
}

// A price whose currency has no rate is never taken for one in the asked
// currency: its column is null with the option named and the row says why.
func TestMachineRowsWithoutRate(t *testing.T) {
	cny := machineOffer("cn-north-1", "", pricewatch.OnDemand, "", "", "", "300")
	cny.Provider, cny.Offer.Provider, cny.NativeCurrency, cny.Offer.Currency = "aws-cn", "aws-cn", "CNY", "CNY"
	cny.FXError = "no rate for CNY→USD"
	usd := machineOffer("us-east-1", "", pricewatch.OnDemand, "", "", "", "55.04")
	got := MachineRows("USD", PerMonth, []analysis.CompareRow{usd}, []analysis.CompareRow{cny})
	if len(got) != 2 || got[0].Provider != "aws" {
		t.Fatalf("rows %+v: want the converted machine first", got)
	}
	r := got[1]
	if r.OnDemand.Valid || r.OnDemandOption == nil || r.FXError == nil || *r.FXError != "no rate for CNY→USD" || r.OnDemandPerGPU.Valid {
		t.Errorf("unconverted row %+v", r)
	}
}

func TestParseView(t *testing.T) {
	for _, c := range []struct {
		by, per string
		wantBy  string
		wantPer Per
		bad     bool
	}{
		{"", "", ByPrice, PerHour, false},
		{"machine", "", ByMachine, PerHour, false},
		{"Machine", "MONTH", ByMachine, PerMonth, false},
		{"machine", "year", ByMachine, PerYear, false},
		{"price", "hour", ByPrice, PerHour, false},
		{"", "month", "", "", true}, // a unit other than hours asks for machine rows
		{"machine", "week", "", "", true},
		{"instance", "", "", "", true},
	} {
		by, per, err := ParseView("by", c.by, "per", c.per)
		var pe *ParamError
		if c.bad != (err != nil) || (err != nil && !errors.As(err, &pe)) || by != c.wantBy || per != c.wantPer {
			t.Errorf("ParseView(%q, %q) = %q, %q, %v", c.by, c.per, by, per, err)
		}
	}
	if PerMonth.Hours() != 730 || PerYear.Hours() != 8760 || PerDay.Hours() != 24 || PerHour.Hours() != 1 {
		t.Error("units' hours")
	}
}

func TestMachineKeyRoundTrip(t *testing.T) {
	for _, k := range []MachineKey{
		{"aws", "us-east-1", "p5.48xlarge", "linux"},
		{"vastai", "US", "gpu/8xH100", "linux"}, // a slash in the type
	} {
		got, err := ParseMachineKey(k.String())
		if err != nil || got != k {
			t.Errorf("%q: %+v, %v", k.String(), got, err)
		}
	}
	for _, bad := range []string{"", "aws", "aws/us-east-1/p5", "/us/p5/linux", "aws/us/p5/"} {
		if _, err := ParseMachineKey(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
