package azure

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/pricewatch/pricewatch/fetchers"
)

// page is one response of the Retail Prices API. Items and Count are
// pointers so that a missing field can be told from an empty one.
type page struct {
	BillingCurrency string  `json:"BillingCurrency"`
	Items           *[]item `json:"Items"`
	NextPageLink    *string `json:"NextPageLink"`
	Count           *int    `json:"Count"`
}

// item is one price row. Prices stay json.Number so that 18.169536 is read
// as the decimal it is, never through a float.
type item struct {
	CurrencyCode         string        `json:"currencyCode"`
	TierMinimumUnits     json.Number   `json:"tierMinimumUnits"`
	ReservationTerm      string        `json:"reservationTerm"`
	RetailPrice          json.Number   `json:"retailPrice"`
	UnitPrice            json.Number   `json:"unitPrice"`
	ArmRegionName        string        `json:"armRegionName"`
	Location             string        `json:"location"`
	EffectiveStartDate   string        `json:"effectiveStartDate"`
	EffectiveEndDate     string        `json:"effectiveEndDate"`
	MeterID              string        `json:"meterId"`
	MeterName            string        `json:"meterName"`
	ProductID            string        `json:"productId"`
	SkuID                string        `json:"skuId"`
	ProductName          string        `json:"productName"`
	SkuName              string        `json:"skuName"`
	ServiceName          string        `json:"serviceName"`
	ServiceID            string        `json:"serviceId"`
	ServiceFamily        string        `json:"serviceFamily"`
	UnitOfMeasure        string        `json:"unitOfMeasure"`
	Type                 string        `json:"type"`
	IsPrimaryMeterRegion *bool         `json:"isPrimaryMeterRegion"`
	ArmSkuName           string        `json:"armSkuName"`
	SavingsPlan          []savingsPlan `json:"savingsPlan"`
	// badUTF8: the row's bytes are not valid UTF-8. encoding/json replaces
	// each bad byte with U+FFFD without a word, so a mangled type or name
	// would silently read as another (or no) offer; the row is skipped
	// instead (see accumulator.unreadable). Set by decodePage.
	badUTF8 bool
}

// savingsPlan is one entry of an item's savingsPlan array (returned only
// with api-version 2023-01-01-preview). Its price is per hour.
type savingsPlan struct {
	UnitPrice   json.Number `json:"unitPrice"`
	RetailPrice json.Number `json:"retailPrice"`
	Term        string      `json:"term"`
}

// rawPage is a page whose rows are kept as bytes until they are known to
// be worth decoding.
type rawPage struct {
	BillingCurrency string             `json:"BillingCurrency"`
	Items           *[]json.RawMessage `json:"Items"`
	NextPageLink    *string            `json:"NextPageLink"`
	Count           *int               `json:"Count"`
}

// decodePage reads a whole page and refuses anything that is not one
// complete JSON object with an Items array: a page cut off in transit or
// replaced by an error document must fail the run, never read as "no
// prices".
//
// Rows that cannot be a GPU size (see gpuRow) are counted in notGPU and
// not decoded: an answer the server did not filter is mostly such rows
// (the unfiltered catalogue is ~10^6), and decoding each into 23 fields
// was most of its cost. Every other row is decoded as before, and one
// whose bytes are not UTF-8 is marked (badUTF8) for the accumulator.
//
// With gpuOnly false every row is decoded (the tests read real non-GPU
// samples through it).
func decodePage(body []byte, gpuOnly bool) (p *page, notGPU int, err error) {
	var rp rawPage
	if err := fetchers.DecodeWhole(body, "a price page", &rp); err != nil {
		return nil, 0, err
	}
	if rp.Items == nil {
		return nil, 0, fmt.Errorf("%w: no Items array", fetchers.ErrIncomplete)
	}
	// Count is the number of items in this page (not a total); a mismatch
	// means the server sent part of what it meant to.
	if rp.Count != nil && *rp.Count != len(*rp.Items) {
		return nil, 0, fmt.Errorf("%w: Count says %d items, page holds %d", fetchers.ErrIncomplete, *rp.Count, len(*rp.Items))
	}
	items := make([]item, 0, len(*rp.Items))
	for i, raw := range *rp.Items {
		valid := utf8.Valid(raw)
		if gpuOnly && valid && !gpuRow(raw) {
			notGPU++
			continue
		}
		// Every number field is a json.Number: no UseNumber needed.
		var it item
		if err := json.Unmarshal(raw, &it); err != nil {
			return nil, 0, fmt.Errorf("%w: not a price page: item %d: %v", fetchers.ErrIncomplete, i, err)
		}
		it.badUTF8 = !valid
		items = append(items, it)
	}
	return &page{BillingCurrency: rp.BillingCurrency, Items: &items, NextPageLink: rp.NextPageLink, Count: rp.Count}, notGPU, nil
}

// gpuRow says whether a row (valid UTF-8) may be a GPU size: false only
// when its one armSkuName is a plain string that, trimmed and in any case,
// does not start with "Standard_N" (every GPU family: NC, ND, NG, NV).
// Anything else — no armSkuName, two of them, an escape, another type —
// is decoded and judged by the accumulator as before.
func gpuRow(raw []byte) bool {
	key := []byte(`"armSkuName"`)
	at := bytes.Index(raw, key)
	if at < 0 || bytes.Contains(raw[at+len(key):], key) {
		return true
	}
	rest := bytes.TrimLeft(raw[at+len(key):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return true
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || rest[0] != '"' {
		return true
	}
	end := bytes.IndexByte(rest[1:], '"')
	if end < 0 {
		return true
	}
	v := rest[1 : 1+end]
	if bytes.IndexByte(v, '\\') >= 0 {
		return true
	}
	v = bytes.TrimSpace(v)
	const prefix = "standard_n"
	return len(v) < len(prefix) || bytes.EqualFold(v[:len(prefix)], []byte(prefix))
}
