package azure

import (
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
	// instead (see accumulator.unreadable). Set by decodePage (checkedItem).
	badUTF8 bool
}

// checkedItem is an item decoded on its own, noting whether its bytes
// were valid UTF-8. Only a page that is not valid UTF-8 as a whole is
// decoded row by row this way: doing it for every row scanned each row
// three times (the page, the row's extent, the row), which was most of
// the time a large answer took.
type checkedItem item

// UnmarshalJSON decodes a row as the plain fields and notes whether its
// bytes were valid UTF-8.
func (it *checkedItem) UnmarshalJSON(b []byte) error {
	var p item
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*it = checkedItem(p)
	it.badUTF8 = !utf8.Valid(b)
	return nil
}

// savingsPlan is one entry of an item's savingsPlan array (returned only
// with api-version 2023-01-01-preview). Its price is per hour.
type savingsPlan struct {
	UnitPrice   json.Number `json:"unitPrice"`
	RetailPrice json.Number `json:"retailPrice"`
	Term        string      `json:"term"`
}

// decodePage reads a whole page and refuses anything that is not one
// complete JSON object with an Items array: a page cut off in transit or
// replaced by an error document must fail the run, never read as "no
// prices".
func decodePage(body []byte) (*page, error) {
	var p page
	if utf8.Valid(body) {
		if err := fetchers.DecodeWhole(body, "a price page", &p); err != nil {
			return nil, err
		}
	} else {
		// Some row holds bytes that are not UTF-8: find which.
		var cp struct {
			page
			Items *[]checkedItem `json:"Items"`
		}
		if err := fetchers.DecodeWhole(body, "a price page", &cp); err != nil {
			return nil, err
		}
		p = cp.page
		if cp.Items != nil {
			items := make([]item, len(*cp.Items))
			for i, it := range *cp.Items {
				items[i] = item(it)
			}
			p.Items = &items
		}
	}
	if p.Items == nil {
		return nil, fmt.Errorf("%w: no Items array", fetchers.ErrIncomplete)
	}
	// Count is the number of items in this page (not a total); a mismatch
	// means the server sent part of what it meant to.
	if p.Count != nil && *p.Count != len(*p.Items) {
		return nil, fmt.Errorf("%w: Count says %d items, page holds %d", fetchers.ErrIncomplete, *p.Count, len(*p.Items))
	}
	return &p, nil
}
