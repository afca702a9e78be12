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
	// badUTF8: the row is unreadable: its bytes are not valid UTF-8
	// (encoding/json replaces each bad byte with U+FFFD without a word,
	// so a mangled type or name would silently read as another, or no,
	// offer), or a field is not of the API's type (see lenient). The row
	// is skipped instead (see accumulator.unreadable). Set by decodePage.
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
	rp, err := readRawPage(body)
	if err != nil {
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
			// One row with a field of another type (a price that is not
			// a number) is one odd row, skipped as a row that is not
			// UTF-8 is; only an entry that is no object at all makes the
			// page not a price page.
			var ok bool
			if it, ok = lenient(raw); !ok {
				return nil, 0, fmt.Errorf("%w: not a price page: item %d: %v", fetchers.ErrIncomplete, i, err)
			}
		}
		it.badUTF8 = it.badUTF8 || !valid
		items = append(items, it)
	}
	return &page{BillingCurrency: rp.BillingCurrency, Items: &items, NextPageLink: rp.NextPageLink, Count: rp.Count}, notGPU, nil
}

// lenient decodes a row one of whose fields is not of the API's type:
// such a text field reads as U+FFFD, any other is left out, and the row
// is marked unreadable (badUTF8), so that the accumulator skips it and
// keeps open the stored prices it could be. It fails only for a row that
// is not a JSON object.
func lenient(raw json.RawMessage) (item, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return item{}, false
	}
	for k, v := range fields {
		var probe item
		if one, _ := json.Marshal(map[string]json.RawMessage{k: v}); json.Unmarshal(one, &probe) == nil {
			continue
		}
		if one, _ := json.Marshal(map[string]string{k: "\uFFFD"}); json.Unmarshal(one, &probe) == nil {
			fields[k] = json.RawMessage(`"\ufffd"`)
		} else {
			delete(fields, k)
		}
	}
	b, err := json.Marshal(fields)
	var it item
	if err != nil || json.Unmarshal(b, &it) != nil {
		return item{}, false
	}
	it.badUTF8 = true
	return it, true
}

// readRawPage decodes a page's envelope and cuts its rows out as bytes.
// A page that is valid JSON with one Items array is cut by splitItems,
// which only looks for the bytes between brackets (json.Valid has checked
// the syntax), and only the envelope without the rows is decoded; every
// other page is decoded by encoding/json (rows as RawMessage), which also
// words the error. Both give the same rows (FuzzDecodePage checks it).
func readRawPage(body []byte) (rawPage, error) {
	if json.Valid(body) {
		if rest, rows, ok := splitItems(body); ok {
			var rp rawPage
			if err := fetchers.DecodeWhole(rest, "a price page", &rp); err != nil {
				return rawPage{}, err
			}
			items := make([]json.RawMessage, len(rows))
			for i, r := range rows {
				items[i] = r
			}
			rp.Items = &items
			return rp, nil
		}
	}
	return readRawPageSlow(body)
}

// readRawPageSlow is readRawPage by encoding/json alone.
func readRawPageSlow(body []byte) (rawPage, error) {
	var rp rawPage
	err := fetchers.DecodeWhole(body, "a price page", &rp)
	return rp, err
}

// splitItems finds the one member of a page (valid JSON) whose key is
// "Items" in any case (encoding/json matches keys so) and, when it is an
// array, returns its elements' bytes and the page with the array emptied.
// ok is false for anything else — not an object, no such key or several,
// a key with an escape, Items not an array — and the page is then decoded
// the general way.
func splitItems(body []byte) (rest []byte, rows [][]byte, ok bool) {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return nil, nil, false
	}
	found, from, to := 0, 0, 0
	for i = skipSpace(body, i+1); i < len(body) && body[i] != '}'; {
		if body[i] != '"' {
			return nil, nil, false
		}
		ke := stringEnd(body, i)
		key := body[i+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return nil, nil, false
		}
		i = skipSpace(body, ke)
		if i >= len(body) || body[i] != ':' {
			return nil, nil, false
		}
		vs := skipSpace(body, i+1)
		ve := valueEnd(body, vs)
		if bytes.EqualFold(key, []byte("Items")) {
			found++
			if vs >= len(body) || body[vs] != '[' {
				return nil, nil, false
			}
			from, to = vs, ve
			rows = rows[:0]
			for j := skipSpace(body, vs+1); j < ve-1; {
				e := valueEnd(body, j)
				rows = append(rows, body[j:e])
				j = skipSpace(body, e)
				if j < len(body) && body[j] == ',' {
					j = skipSpace(body, j+1)
				}
			}
		}
		i = skipSpace(body, ve)
		if i < len(body) && body[i] == ',' {
			i = skipSpace(body, i+1)
		}
	}
	if found != 1 {
		return nil, nil, false
	}
	rest = make([]byte, 0, len(body)-(to-from)+2)
	rest = append(append(append(rest, body[:from]...), "[]"...), body[to:]...)
	return rest, rows, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index after the closing quote of the string opening at
// b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		q := j + k
		back := 0
		for back < q-i-1 && b[q-1-back] == '\\' {
			back++
		}
		if back%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// valueEnd is the index after the value starting at b[i] (valid JSON).
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(b[j])) {
		j++
	}
	return j
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
