package pricewatch_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// amountSeeds are the amounts the clouds really publish, read from the
// fetchers' captures: AWS price-file and spot-feed strings ("0.0800000000",
// "N/A*", "9.0E-4"), Azure retailPrice numbers, Vast.ai's float artefacts
// (15.002083333333335).
func amountSeeds(f *testing.F) {
	f.Helper()
	field := regexp.MustCompile(`"(?:USD|CNY|retailPrice|unitPrice|dph_total|min_bid|dph_base|price|linux)"\s*:\s*"?([^",}\]\s]+)"?`)
	seen := map[string]bool{}
	for _, glob := range []string{
		"fetchers/aws/awstest/samples/*.json",
		"fetchers/azure/testdata/pages/*.json",
		"fetchers/azure/testdata/realrows/*.json",
		"fetchers/vastai/testdata/*.json",
	} {
		files, err := filepath.Glob(glob)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			for _, m := range field.FindAllSubmatch(b, -1) {
				if s := string(m[1]); !seen[s] && len(seen) < 300 {
					seen[s] = true
					f.Add(s)
				}
			}
		}
	}
	if len(seen) < 20 {
		f.Fatalf("only %d amounts found in the captures: did the testdata move?", len(seen))
	}
	// What the hostile-page tests feed (TestParsePriceRefusesImplausibleMagnitudes).
	for _, s := range []string{"N/A*", "", " 12.5 ", "-0.5", "1e9999", "1e-9999", "NaN", "Inf", "0x10", "1_000", strings.Repeat("9", 65)} {
		f.Add(s)
	}
}

// Issue 21 item 8: the one amount parser every fetcher uses. An error
// comes with no partial value; an accepted amount is within the plausible
// magnitude, survives parse → String → parse (and FormatPrice → parse)
// exactly, ignores surrounding spaces, and is a price unless negative.
func FuzzParseAmount(f *testing.F) {
	amountSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		d, err := pricewatch.ParseAmount(s)
		p, perr := pricewatch.ParsePrice(s)
		if err != nil {
			if !reflect.DeepEqual(d, decimal.Decimal{}) {
				t.Fatalf("ParseAmount(%q) failed (%v) but returned %s", s, err, d)
			}
			if perr == nil {
				t.Fatalf("ParsePrice(%q) accepted what ParseAmount refused (%v)", s, err)
			}
			return
		}
		if n := len(strings.TrimSpace(s)); n > pricewatch.MaxAmountText {
			t.Fatalf("ParseAmount accepted %d characters, more than MaxAmountText", n)
		}
		if err := pricewatch.CheckMagnitude(d); err != nil {
			t.Fatalf("ParseAmount(%q) = %s, which CheckMagnitude refuses: %v", s, d, err)
		}
		text := d.String()
		back, err := pricewatch.ParseAmount(text)
		if err != nil || !back.Equal(d) || back.String() != text {
			t.Fatalf("ParseAmount(%q) = %s; parsing its String gives %s, %v", s, text, back, err)
		}
		formatted := pricewatch.FormatPrice(d)
		if back, err := pricewatch.ParseAmount(formatted); err != nil || !back.Equal(d) {
			t.Fatalf("FormatPrice(%s) = %q does not parse back to it: %s, %v", text, formatted, back, err)
		}
		if grouped := pricewatch.FormatAmount(d); strings.ReplaceAll(grouped, ",", "") != d.StringFixed(2) {
			t.Fatalf("FormatAmount(%s) = %q is not its two-decimal text with separators", text, grouped)
		}
		if spaced, err := pricewatch.ParseAmount(" \t" + s + "\n "); err != nil || !spaced.Equal(d) {
			t.Fatalf("ParseAmount(%q) = %s, but with spaces around it %s, %v", s, text, spaced, err)
		}
		switch {
		case d.IsNegative() && perr == nil:
			t.Fatalf("ParsePrice(%q) accepted the negative %s", s, text)
		case !d.IsNegative() && (perr != nil || !p.Equal(d)):
			t.Fatalf("ParsePrice(%q) = %s, %v; ParseAmount gives %s", s, p, perr, text)
		}
	})
}

// Issue 21 item 8: a term the parser accepts is a positive whole number of
// months or years, and its hours are exactly that many times 730 or 8,760
// (never an overflowed, negative count that would spread an upfront
// payment into a negative effective price).
func FuzzTermHours(f *testing.F) {
	for _, s := range []string{"1m", "1y", "3y", "6m", "0y", "-1y", "1 Year", "y", "", "1d", "7d", "0d", "1D", "1Y", "+3y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, term string) {
		hours, err := pricewatch.TermHours(term)
		if err != nil {
			if hours != 0 {
				t.Fatalf("TermHours(%q) failed (%v) but returned %d", term, err, hours)
			}
			return
		}
		unit := int64(pricewatch.HoursPerMonth)
		switch {
		case strings.HasSuffix(term, "y"):
			unit = pricewatch.HoursPerYear
		case strings.HasSuffix(term, "d"):
			unit = pricewatch.HoursPerDay
		}
		n, perr := strconv.ParseInt(term[:len(term)-1], 10, 64)
		if perr != nil || n <= 0 {
			t.Fatalf("TermHours accepted %q, which is not a positive count and a unit", term)
		}
		if hours <= 0 || hours%unit != 0 || hours/unit != n {
			t.Fatalf("TermHours(%q) = %d, want %d × %d", term, hours, n, unit)
		}
		// The effective hourly of a commitment on this term is a non-negative
		// price: the upfront spread over a positive number of hours.
		eff, err := pricewatch.EffectiveHourly(decimal.NewFromInt(1), decimal.NewFromInt(1000), term)
		if err != nil || eff.LessThan(decimal.NewFromInt(1)) {
			t.Fatalf("EffectiveHourly(1, 1000, %q) = %s, %v: want at least the hourly price", term, eff, err)
		}
	})
}
