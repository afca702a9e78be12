package report

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
)

func TestParsePriceTypes(t *testing.T) {
	cases := []struct {
		in   []string
		want []pricewatch.PriceType
		err  string
	}{
		{nil, nil, ""},
		{[]string{"on_demand"}, []pricewatch.PriceType{pricewatch.OnDemand}, ""},
		{[]string{"spot,savings-plan"}, []pricewatch.PriceType{pricewatch.Spot, pricewatch.SavingsPlan}, ""},
		{[]string{"reserved", "any"}, nil, ""},
		{[]string{"Spot"}, []pricewatch.PriceType{pricewatch.Spot}, ""},
		{[]string{"cheap"}, nil, `price_type "cheap": want on_demand`},
	}
	for _, c := range cases {
		got, err := ParsePriceTypes("price_type", c.in)
		if c.err != "" {
			var pe *ParamError
			if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("%v: %v %v, want %v", c.in, got, err, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%v: %v, want %v", c.in, got, c.want)
			}
		}
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Time
		err  bool
	}{
		{"", time.Time{}, false},
		{"30d", now.Add(-30 * 24 * time.Hour), false},
		{"2w", now.Add(-14 * 24 * time.Hour), false},
		{"12h", now.Add(-12 * time.Hour), false},
		{"2026-01-01", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"2026-11-30T10:00:00Z", time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), false},
		{"-3d", time.Time{}, true},
		{"lately", time.Time{}, true},
	}
	for _, c := range cases {
		got, err := ParseSince("since", c.in, now)
		if (err != nil) != c.err || !got.Equal(c.want) {
			t.Errorf("%q: %v %v", c.in, got, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), `since "`) {
			t.Errorf("%q: error %q does not name the parameter", c.in, err)
		}
	}
}

func TestCurrencyOSStatus(t *testing.T) {
	if c, err := Currency("currency", "", "usd"); err != nil || c != "USD" {
		t.Errorf("default: %q %v", c, err)
	}
	if c, err := Currency("--currency", " cny ", "USD"); err != nil || c != "CNY" {
		t.Errorf("asked: %q %v", c, err)
	}
	if _, err := Currency("--currency", "dollars", "USD"); err == nil || !strings.HasPrefix(err.Error(), `--currency "dollars"`) {
		t.Errorf("bad: %v", err)
	}
	for _, os := range []string{"", "linux", "Windows", "any"} {
		if err := CheckOS("os", os); err != nil {
			t.Errorf("%q: %v", os, err)
		}
	}
	if err := CheckOS("os", "beos"); err == nil {
		t.Error("beos accepted")
	}
	if StorageOS("") != pricewatch.Linux || StorageOS("any") != "" || StorageOS("Windows") != pricewatch.Windows {
		t.Error("StorageOS")
	}
	for _, s := range []string{"", "pending", "sent", "failed"} {
		if err := CheckAlertStatus("status", s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	if err := CheckAlertStatus("status", "lost"); err == nil {
		t.Error("lost accepted")
	}
}

func TestDecimalJSONRoundTrip(t *testing.T) {
	for _, in := range []string{"0.0000000001", "98.32", "123456789.1234567891"} {
		var d Decimal
		if err := d.UnmarshalJSON([]byte(in)); err != nil {
			t.Fatal(err)
		}
		if b, _ := d.MarshalJSON(); string(b) != in {
			t.Errorf("%s → %s", in, b)
		}
	}
	var n NullDecimal
	if err := n.UnmarshalJSON([]byte("null")); err != nil || n.Valid || n.Text() != "" {
		t.Errorf("null: %+v %v", n, err)
	}
	if b, _ := n.MarshalJSON(); string(b) != "null" {
		t.Errorf("null marshals as %s", b)
	}
}

func TestParseSellerAndHardware(t *testing.T) {
	for _, c := range []struct {
		in   string
		want analysis.Seller
		bad  bool
	}{{"", "", false}, {"any", "", false}, {"Cloud", analysis.SellerCloud, false}, {"marketplace", analysis.SellerMarketplace, false}, {"clouds", "", true}} {
		got, err := ParseSeller("--seller", c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("ParseSeller(%q) = %q, %v", c.in, got, err)
		}
	}
	for _, c := range []struct {
		in     string
		want   string
		perGPU bool
		bad    bool
	}{{"30", "30", false, false}, {"30/hour", "30", false, false}, {"2.5/gpu-hour", "2.5", true, false}, {"2.5/GPU_hour", "2.5", true, false},
		{"0", "", false, true}, {"-1", "", false, true}, {"2.5/day", "", false, true}, {"cheap", "", false, true}} {
		got, perGPU, err := ParseMaxPrice("--max-price", c.in)
		if (err != nil) != c.bad || (!c.bad && (got.Decimal.String() != c.want || perGPU != c.perGPU)) {
			t.Errorf("ParseMaxPrice(%q) = %v %v, %v", c.in, got, perGPU, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "--max-price ") {
			t.Errorf("error %q does not name the flag", err)
		}
	}
	f, err := ParseHardware(HardwareParams{MinGPUMemory: "80", MinVCPUs: "96", MinMemory: "1024", Interconnect: " EFA ", MaxPrice: "3/gpu-hour"}, HardwareParamNames)
	if err != nil || f.MinGPUMemoryGB != 80 || f.MinVCPUs != 96 || f.MinMemoryGB != 1024 || f.Interconnect != "EFA" || !f.MaxPricePerGPU {
		t.Errorf("ParseHardware = %+v, %v", f, err)
	}
	if _, err := ParseHardware(HardwareParams{MinVCPUs: "9.5"}, HardwareParamNames); err == nil || !strings.HasPrefix(err.Error(), "min_vcpus ") {
		t.Errorf("fractional vCPUs: %v", err)
	}
}
