package focus

import (
	"encoding/csv"
	"fmt"
	"io"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/storage"
)

// SKUPriceHeader is the columns of the SKU Price dataset: prices over
// time, one row per stored price interval, in the shape of the FOCUS
// working group's draft (FOCUS_Spec PR #2424, issue #1057; a draft, not a
// FOCUS release: docs/focus.md). The draft's own columns first, then the
// price sheet's FOCUS columns that describe the SKU, then its x_ ones that
// apply to a price over time (not the exchange-rate ones: the dataset is
// in the cloud's own currency, see quote).
var SKUPriceHeader = []string{
	"SkuPriceEffectiveStart", "SkuPriceEffectiveEnd", "SkuId", "SkuPriceId",
	"ListUnitPrice", "ContractedUnitPrice", "PricingUnit", "PricingCurrency", "PricingQuantity", "PricingCategory",
	"CommitmentDiscountCategory", "CommitmentDiscountType",
	"ChargeCategory", "ChargeFrequency", "ChargeDescription", "SkuMeter", "SkuPriceDetails",
	"ProviderName", "PublisherName", "HostProviderName", "ServiceCategory", "ServiceName", "ServiceSubcategory",
	"RegionId", "RegionName", "AvailabilityZone",
	"x_InstanceType", "x_OperatingSystem", "x_GpuModel", "x_GpuCount",
	"x_GpuMemoryGb", "x_Vcpus", "x_MemoryGb", "x_Interconnect", "x_LocalStorage", "x_PriceType", "x_Term",
	"x_PaymentOption", "x_OfferingClass", "x_UpfrontPrice", "x_EffectiveHourlyPrice", "x_PricePerGpuHour",
	"x_SkuProductId", "x_Marketplace", "x_Location", "x_ListUnitPriceSource",
}

// NewSKUPriceSheet writes the SKU Price dataset to w: Learn every on-demand
// interval of the selection first (all of them, not only the current:
// a commitment's list price is the on-demand price in force when its
// interval began), then Write every interval. displayName names clouds
// the package does not list.
func NewSKUPriceSheet(w io.Writer, displayName func(string) string) *Sheet {
	return &Sheet{header: SKUPriceHeader, col: columns(SKUPriceHeader), history: true, cw: csv.NewWriter(w), displayName: displayName,
		od: map[odKey]onDemand{}, odHistory: map[odKey][]odSpan{}, regionNames: map[[2]string]string{}}
}

// odSpan is one on-demand price of a SKU and when it held: what the SKU
// Price dataset keeps per on-demand interval, so that memory grows with
// the on-demand intervals of the selection (152,578 in the CLI-built year),
// never with the rows written. The price is held as a coefficient and an
// exponent, not a decimal.Decimal: that one points to a big.Int of its
// own, and the spans were then most of the export's heap (its peak RSS
// 99–107 MB on the CLI-built year, against issue 35's 100 MB).
type odSpan struct {
	from, to int64 // Unix seconds; to 0 while current
	coef     int64
	exp      int32
	// big, when not 0, is 1 + the index in Sheet.odBig of a price whose
	// coefficient does not fit in 64 bits (coef and exp are then unused).
	big int32
	// cur is the index of the price's currency in Sheet.odCurrencies.
	cur uint16
}

// span is p's interval as an odSpan.
func (s *Sheet) span(p *storage.PriceInterval) odSpan {
	sp := odSpan{from: p.ValidFrom.Unix(), cur: s.currencyIndex(p.Currency)}
	if p.ValidTo != nil {
		sp.to = p.ValidTo.Unix()
	}
	if c := p.Hourly.Coefficient(); c.IsInt64() {
		sp.coef, sp.exp = c.Int64(), p.Hourly.Exponent()
	} else {
		s.odBig = append(s.odBig, p.Hourly)
		sp.big = int32(len(s.odBig))
	}
	return sp
}

func (s *Sheet) currencyIndex(c string) uint16 {
	for i, have := range s.odCurrencies {
		if have == c {
			return uint16(i)
		}
	}
	s.odCurrencies = append(s.odCurrencies, c)
	return uint16(len(s.odCurrencies) - 1)
}

// hourly is sp's price.
func (s *Sheet) hourly(sp odSpan) decimal.Decimal {
	if sp.big != 0 {
		return s.odBig[sp.big-1]
	}
	return decimal.New(sp.coef, sp.exp)
}

// samePrice: a and b are the same price in the same currency.
func (s *Sheet) samePrice(a, b odSpan) bool {
	if a.cur != b.cur {
		return false
	}
	if a.big == 0 && b.big == 0 && a.exp == b.exp {
		return a.coef == b.coef
	}
	return s.hourly(a).Equal(s.hourly(b))
}

// learnSpan adds p's interval to its SKU's on-demand history, merging it
// into the previous span when the price did not change (a new interval
// for an unchanged price — a SKU id or hardware field corrected — is not
// a new list price).
func (s *Sheet) learnSpan(k odKey, p *storage.PriceInterval) {
	sp := s.span(p)
	h := s.odHistory[k]
	if n := len(h); n > 0 && h[n-1].to == sp.from && s.samePrice(h[n-1], sp) {
		h[n-1].to = sp.to
		return
	}
	s.odHistory[k] = append(h, sp)
}

// spanAt is the span in force at t, the latest begun when two overlap
// (two stored offers of one SKU).
func spanAt(h []odSpan, t time.Time) (odSpan, bool) {
	u := t.Unix()
	var best odSpan
	found := false
	for _, sp := range h {
		if sp.from <= u && (sp.to == 0 || u < sp.to) && (!found || sp.from > best.from) {
			best, found = sp, true
		}
	}
	return best, found
}

// quote is the rate a row's prices are written at: the price sheet's
// billing currency at its moment; for the SKU Price dataset the cloud's
// own currency as it is (a price list is not a bill: nothing is billed, so
// there is no billing currency to convert to, and a rate of one moment
// would be wrong for the prices of every other moment).
func (s *Sheet) quote(p *storage.PriceInterval) (fx.Quote, error) {
	if s.history {
		return fx.Quote{From: p.Currency, To: p.Currency, Rate: decimal.NewFromInt(1), Source: fx.SourceIdentity}, nil
	}
	q, err := s.fx.Quote(p.Currency, s.billing, s.at)
	if err != nil {
		return q, fmt.Errorf("FOCUS BillingCurrency %s of a %s price of %s (set fx.fixed_rates or run `pricewatch fx update`): %w",
			s.billing, p.Currency, p.Provider, err)
	}
	return q, nil
}

// columns is the places of a header's columns.
func columns(header []string) map[string]int {
	m := make(map[string]int, len(header))
	for i, h := range header {
		m[h] = i
	}
	return m
}
