package pricewatch

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func TestTermHours(t *testing.T) {
	tests := []struct {
		term    string
		want    int64
		wantErr bool
	}{
		{"1y", 8760, false},
		{"3y", 26280, false},
		{"1m", 730, false},
		{"6m", 4380, false},
		// Capacity blocks: whole days of 24 hours.
		{"1d", 24, false},
		{"7d", 168, false},
		{"182d", 4368, false},
		{"0d", 0, true},
		{"1D", 0, true},
		{"", 0, true},
		{"y", 0, true},
		{"0y", 0, true},
		{"1w", 0, true},
		{"-1y", 0, true},
	}
	for _, tt := range tests {
		got, err := TermHours(tt.term)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("TermHours(%q) = %d, %v; want %d, error %v", tt.term, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestEffectiveHourly(t *testing.T) {
	d := decimal.RequireFromString
	tests := []struct {
		name            string
		hourly, upfront string
		term            string
		want            string
	}{
		{"on-demand is its hourly", "98.32", "0", "", "98.32"},
		{"azure 1y reservation total", "0", "3478.0", "1y", "0.3970319635"},
		{"aws 3y partial upfront", "1.5", "13140", "3y", "2"},
		{"monthly subscription", "0", "7300", "1m", "10"},
		{"all upfront with no hourly", "0.0000000000", "1161", "1y", "0.1325342466"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EffectiveHourly(d(tt.hourly), d(tt.upfront), tt.term)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(d(tt.want)) {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	if _, err := EffectiveHourly(d("1"), d("5"), ""); err == nil {
		t.Error("an upfront payment without a term must be an error")
	}
}

func TestParsePrice(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"12.2400000000", "12.24", false},
		{"9.0E-4", "0.0009", false},
		{" 0.2452 ", "0.2452", false},
		{"N/A*", "", true},
		{"", "", true},
		{"-1", "", true},
	}
	for _, tt := range tests {
		got, err := ParsePrice(tt.in)
		if (err != nil) != tt.wantErr || (!tt.wantErr && !got.Equal(decimal.RequireFromString(tt.want))) {
			t.Errorf("ParsePrice(%q) = %s, %v; want %s, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestFormatPrice(t *testing.T) {
	for in, want := range map[string]string{"98.32": "98.32", "29": "29.00", "6.5": "6.50", "0.3970319635": "0.3970319635"} {
		if got := FormatPrice(decimal.RequireFromString(in)); got != want {
			t.Errorf("FormatPrice(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestPerGPUHour(t *testing.T) {
	got, ok := PerGPUHour(decimal.RequireFromString("98.32"), 8)
	if !ok || got.String() != "12.29" {
		t.Errorf("8 GPUs: %s %v", got, ok)
	}
	// A quarter of a T4 at 0.5/h is 2/h per whole GPU.
	got, ok = PerGPUHour(decimal.RequireFromString("0.5"), 0.25)
	if !ok || got.String() != "2" {
		t.Errorf("vGPU slice: %s %v", got, ok)
	}
	if _, ok := PerGPUHour(decimal.RequireFromString("1"), 0); ok {
		t.Error("zero GPUs has no per-GPU price")
	}
}

func TestOfferValidate(t *testing.T) {
	base := Offer{Provider: AWS, Region: "us-east-1", InstanceType: "p5.48xlarge", PriceType: OnDemand, OS: Linux,
		Currency: "USD", Hourly: decimal.RequireFromString("55.04")}
	tests := []struct {
		name   string
		change func(*Offer)
		ok     bool
	}{
		{"valid on-demand", func(*Offer) {}, true},
		{"zero price", func(o *Offer) { o.Hourly = decimal.Zero }, false},
		{"no currency", func(o *Offer) { o.Currency = "" }, false},
		{"unknown price type", func(o *Offer) { o.PriceType = "bid" }, false},
		{"reserved without term", func(o *Offer) { o.PriceType = Reserved }, false},
		{"all upfront reserved", func(o *Offer) {
			o.PriceType, o.Term, o.Payment, o.Hourly, o.Upfront = Reserved, "1y", AllUpfront, decimal.Zero, decimal.RequireFromString("260000")
		}, true},
		{"spot with upfront", func(o *Offer) { o.PriceType, o.Upfront = Spot, decimal.NewFromInt(1) }, false},
		{"capacity block", func(o *Offer) {
			o.PriceType, o.Zone, o.Term, o.Payment, o.Hourly, o.Upfront = CapacityBlockPrice, "us-east-2b", "7d", AllUpfront, decimal.Zero, decimal.RequireFromString("5250.12")
		}, true},
		{"capacity block without a zone", func(o *Offer) {
			o.PriceType, o.Term, o.Payment, o.Hourly, o.Upfront = CapacityBlockPrice, "7d", AllUpfront, decimal.Zero, decimal.RequireFromString("5250.12")
		}, false},
		{"capacity block in months", func(o *Offer) {
			o.PriceType, o.Zone, o.Term, o.Payment, o.Hourly, o.Upfront = CapacityBlockPrice, "us-east-2b", "1m", AllUpfront, decimal.Zero, decimal.RequireFromString("5250.12")
		}, false},
		{"capacity block with an hourly price", func(o *Offer) {
			o.PriceType, o.Zone, o.Term, o.Payment, o.Upfront = CapacityBlockPrice, "us-east-2b", "1d", AllUpfront, decimal.RequireFromString("786.6")
		}, false},
		{"reserved in days", func(o *Offer) {
			o.PriceType, o.Term, o.Payment, o.Hourly, o.Upfront = Reserved, "7d", AllUpfront, decimal.Zero, decimal.RequireFromString("260000")
		}, false},
		{"bad os", func(o *Offer) { o.OS = "rhel" }, false},
	}
	for _, tt := range tests {
		o := base
		tt.change(&o)
		if err := o.Validate(); (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func TestFormatAmount(t *testing.T) {
	for in, want := range map[string]string{"1446955": "1,446,955.00", "-1234.5": "-1,234.50", "999.999": "1,000.00", "0": "0.00", "100": "100.00"} {
		if got := FormatAmount(decimal.RequireFromString(in)); got != want {
			t.Errorf("FormatAmount(%s) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{"1234567.8901": "1,234,567.8901", "-1000": "-1,000", "999": "999", "-12.5": "-12.5", "100000.00": "100,000.00"} {
		if got := GroupThousands(in); got != want {
			t.Errorf("GroupThousands(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestParsePriceRefusesImplausibleMagnitudes(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{"98.32", true},
		{"9.0E-4", true},
		{"1446955.00", true},
		{"0", true},
		{"999999999999", true},
		{"1e9999", false},
		{"1E+12", false},
		{"1e-9999", false},
		{"1e2147483647", false},
		{strings.Repeat("9", 10001), false},
		{"0." + strings.Repeat("0", 20) + "1", false},
	} {
		_, err := ParsePrice(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("ParsePrice(%.30q) error %v, want ok %v", tt.in, err, tt.ok)
		}
	}
}

func TestOfferValidateChecksCodes(t *testing.T) {
	base := Offer{Provider: "azure", Region: "eastus", InstanceType: "Standard_ND96isr_H100_v5", PriceType: OnDemand, OS: Linux,
		Currency: "USD", Hourly: decimal.RequireFromString("98.32")}
	if err := base.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Offer){
		"lower-case currency": func(o *Offer) { o.Currency = "usd" },
		"long currency":       func(o *Offer) { o.Currency = "USDT" },
		"region with space":   func(o *Offer) { o.Region = "east us" },
		"region with a quote": func(o *Offer) { o.Region = "east'us" },
		"zone with slash":     func(o *Offer) { o.Zone = "eastus/1" },
		"huge price":          func(o *Offer) { o.Hourly = decimal.New(1, 9999) },
	} {
		o := base
		mutate(&o)
		if err := o.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
