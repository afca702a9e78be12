package fx

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// ecbDay builds a day from the real 2022-07-08 publication, moved to d.
func ecbDay(t *testing.T, d string) Rates {
	t.Helper()
	r, err := Parse(strings.NewReader(readTestdata(t, "eurofxref-daily-2022-07-08.xml")))
	if err != nil {
		t.Fatal(err)
	}
	r.Date = date(d)
	return r
}

func mustBook(t *testing.T, days []Rates, fixed map[string]decimal.Decimal) *Book {
	t.Helper()
	b, err := NewBook(days, fixed, 0)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestQuoteCrossRate(t *testing.T) {
	b := mustBook(t, []Rates{ecbDay(t, "2022-07-08")}, nil)
	on := date("2022-07-08").Add(15 * time.Hour)

	// Hand-computed from the ECB's 2022-07-08 figures: 1 EUR = 1.0163 USD =
	// 6.8095 CNY, so 1 USD = 6.8095 / 1.0163 = 6.70028534881432647840… CNY.
	cases := []struct {
		from, to       string
		amount         string
		wantRate, want string
	}{
		{"USD", "CNY", "1", "6.7002853488", "6.7002853488"},
		{"USD", "CNY", "100", "6.7002853488", "670.0285348814"},
		{"USD", "CNY", "98.32", "6.7002853488", "658.7720554954"}, // Azure ND96isr_H100_v5, eastus
		{"CNY", "USD", "3712.8", "0.149247375", "554.1256538659"}, // Alibaba DescribePrice example, 1 year
		{"CNY", "USD", "6.8095", "0.149247375", "1.0163"},         // exactly one euro's worth
		{"EUR", "USD", "2", "1.0163", "2.0326"},
		{"USD", "EUR", "1.0163", "0.9839614287", "1"},
		{"usd", "cny", "1", "6.7002853488", "6.7002853488"}, // codes are case-insensitive
	}
	for _, tc := range cases {
		q, err := b.Quote(tc.from, tc.to, on)
		if err != nil {
			t.Fatalf("%s→%s: %v", tc.from, tc.to, err)
		}
		if !q.Rate.Equal(dec(tc.wantRate)) {
			t.Errorf("%s→%s rate = %s, want %s", tc.from, tc.to, q.Rate, tc.wantRate)
		}
		if got := q.Convert(dec(tc.amount)); !got.Equal(dec(tc.want)) {
			t.Errorf("%s %s → %s = %s, want %s", tc.amount, tc.from, tc.to, got, tc.want)
		}
		if q.Source != SourceECB || !q.Date.Equal(date("2022-07-08")) || q.Stale {
			t.Errorf("%s→%s provenance = %s %s stale=%v", tc.from, tc.to, q.Source, q.Date, q.Stale)
		}
	}
}

func TestQuoteCarriesLastRateAndFlagsStale(t *testing.T) {
	fri := ecbDay(t, "2022-07-08")
	mon := ecbDay(t, "2022-07-11")
	mon.PerEUR["USD"] = dec("1.0054") // a different Monday figure, to tell the days apart
	b := mustBook(t, []Rates{mon, fri}, nil)

	cases := []struct {
		on        string
		wantDate  string
		wantStale bool
		wantRate  string
	}{
		{"2022-07-09T12:00:00Z", "2022-07-08", false, "6.7002853488"}, // Saturday: Friday's rate
		{"2022-07-10T23:59:00Z", "2022-07-08", false, "6.7002853488"}, // Sunday
		{"2022-07-11T08:00:00Z", "2022-07-11", false, "6.7729261985"}, // Monday's own rate: 6.8095/1.0054
		{"2022-07-18T00:00:00Z", "2022-07-11", false, "6.7729261985"}, // exactly a week: not yet stale
		{"2022-07-18T00:00:01Z", "2022-07-11", true, "6.7729261985"},  // older than a week
		{"2022-09-01T00:00:00Z", "2022-07-11", true, "6.7729261985"},
	}
	for _, tc := range cases {
		on, _ := time.Parse(time.RFC3339, tc.on)
		q, err := b.Quote("USD", "CNY", on)
		if err != nil {
			t.Fatalf("%s: %v", tc.on, err)
		}
		if !q.Date.Equal(date(tc.wantDate)) || q.Stale != tc.wantStale || !q.Rate.Equal(dec(tc.wantRate)) {
			t.Errorf("%s: got date %s stale %v rate %s, want %s %v %s", tc.on, q.Date.Format(time.DateOnly), q.Stale, q.Rate, tc.wantDate, tc.wantStale, tc.wantRate)
		}
		if tc.wantStale && !strings.Contains(q.String(), "STALE") {
			t.Errorf("%s: stale quote does not say so: %s", tc.on, q)
		}
		if q.Age != on.Sub(date(tc.wantDate)) {
			t.Errorf("%s: age %s", tc.on, q.Age)
		}
	}
}

func TestQuoteMissingRateIsAnErrorNeverOne(t *testing.T) {
	b := mustBook(t, []Rates{ecbDay(t, "2022-07-08")}, nil)
	on := date("2022-07-08")
	for _, tc := range []struct{ from, to string }{{"XYZ", "USD"}, {"USD", "XYZ"}} {
		q, err := b.Quote(tc.from, tc.to, on)
		if !errors.Is(err, ErrNoRate) {
			t.Errorf("%s→%s: err = %v, quote %+v; want ErrNoRate", tc.from, tc.to, err, q)
		}
		if err != nil && !strings.Contains(err.Error(), "XYZ") {
			t.Errorf("error does not name the currency: %v", err)
		}
	}
	// Before the first stored day there is nothing to carry over.
	if _, err := b.Quote("USD", "CNY", date("2022-07-07")); !errors.Is(err, ErrNoRate) {
		t.Errorf("before the first day: err = %v, want ErrNoRate", err)
	}
	// An empty book knows nothing either.
	empty := mustBook(t, nil, nil)
	if _, err := empty.Quote("CNY", "USD", on); !errors.Is(err, ErrNoRate) {
		t.Errorf("empty book: err = %v, want ErrNoRate", err)
	}
	if _, err := empty.Quote("US", "CNY", on); err == nil {
		t.Error("a malformed code must be an error")
	}
}

func TestQuoteFixedFallback(t *testing.T) {
	fixed, err := ParseFixed(map[string]string{"usd": "1.10", "CNY": "7.70"})
	if err != nil {
		t.Fatal(err)
	}
	// No published day at all: both legs fixed, 7.70 / 1.10 = 7 exactly.
	b := mustBook(t, nil, fixed)
	q, err := b.Quote("USD", "CNY", date("2022-07-08"))
	if err != nil {
		t.Fatal(err)
	}
	if !q.Rate.Equal(dec("7")) || q.Source != SourceFixed || !q.Date.IsZero() || q.Stale {
		t.Errorf("fixed quote = %+v", q)
	}
	if got := q.Convert(dec("2.5")); !got.Equal(dec("17.5")) {
		t.Errorf("2.5 USD = %s CNY, want 17.5", got)
	}
	// One leg published, the other only configured: both shown in Source.
	day := ecbDay(t, "2022-07-08")
	delete(day.PerEUR, "CNY")
	b = mustBook(t, []Rates{day}, fixed)
	q, err = b.Quote("USD", "CNY", date("2022-07-08"))
	if err != nil {
		t.Fatal(err)
	}
	// 7.70 / 1.0163 = 7.57650300108235757158…
	if q.Source != "ECB+fixed" || !q.Rate.Equal(dec("7.5765030011")) || !q.Date.Equal(date("2022-07-08")) {
		t.Errorf("mixed quote = %s", q)
	}
	for _, bad := range []map[string]string{{"USD": "0"}, {"USD": "-1"}, {"USD": "abc"}, {"USD": ""}} {
		if _, err := ParseFixed(bad); err == nil {
			t.Errorf("ParseFixed(%v) accepted", bad)
		}
	}
}

func TestQuoteIdentity(t *testing.T) {
	empty := mustBook(t, nil, nil)
	q, err := empty.Quote("USD", "usd", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if q.Source != SourceIdentity || !q.Convert(dec("98.32")).Equal(dec("98.32")) {
		t.Errorf("identity quote = %+v", q)
	}
}

func TestNewBookRejectsBadRates(t *testing.T) {
	bad := []Rates{{Date: date("2022-07-08"), PerEUR: map[string]decimal.Decimal{"USD": decimal.Zero}}}
	if _, err := NewBook(bad, nil, 0); err == nil {
		t.Error("a zero rate was accepted")
	}
	if _, err := NewBook(nil, map[string]decimal.Decimal{"USD": dec("-1")}, 0); err == nil {
		t.Error("a negative fixed rate was accepted")
	}
}

// Property: converting there and back returns the amount, up to the one
// rounding each way (half a unit of the last place, scaled by the rate).
func TestConversionRoundTrips(t *testing.T) {
	days, err := ParseAll(strings.NewReader(readTestdata(t, "eurofxref-hist-two-days.xml")))
	if err != nil {
		t.Fatal(err)
	}
	b := mustBook(t, days, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	pairs := [][2]string{{"USD", "CNY"}, {"CNY", "USD"}, {"EUR", "CNY"}, {"JPY", "USD"}, {"USD", "IDR"}, {"GBP", "CNY"}}
	ons := []time.Time{date("2018-09-12"), date("2020-01-01"), date("2022-07-08"), date("2022-07-10")}
	unit := decimal.New(1, -AmountDecimals)
	for i := 0; i < 2000; i++ {
		p := pairs[rng.IntN(len(pairs))]
		on := ons[rng.IntN(len(ons))]
		// Amounts from 0.0001 to 1,000,000 with up to 10 decimals, as prices are.
		amount := decimal.New(rng.Int64N(1e16)+1, -10)
		q, err := b.Quote(p[0], p[1], on)
		if err != nil {
			t.Fatal(err)
		}
		back := q.Inverse().Convert(q.Convert(amount))
		// |error| ≤ ½ unit (rounding of the return) + ½ unit × rate back.
		inv := q.Inverse().Rate
		bound := unit.Mul(decimal.NewFromInt(1).Add(inv)).Div(decimal.NewFromInt(2)).Add(unit)
		if diff := back.Sub(amount).Abs(); diff.GreaterThan(bound) {
			t.Fatalf("%s %s → %s → %s = %s (off by %s, bound %s)", amount, p[0], p[1], p[0], back, diff, bound)
		}
		// The rate there times the rate back is 1, up to the rounding of
		// each displayed rate (half a unit of its last place, scaled by the other).
		prod := q.Rate.Mul(inv)
		if prod.Sub(decimal.NewFromInt(1)).Abs().GreaterThan(unit.Mul(q.Rate.Add(inv))) {
			t.Fatalf("%s→%s rate %s × inverse %s = %s", p[0], p[1], q.Rate, inv, prod)
		}
	}
}
