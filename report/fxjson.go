package report

import "github.com/pricewatch/pricewatch/analysis"

// FXJSON is the exchange rate behind a row's converted figures, as the JSON
// and CSV rows of compare, savings, trends (cheapest) and recommend carry
// it: the rows embed it, so the four names and their order are written once
// (encoding/json flattens an embedded struct's fields into the row at the
// embed's position). The zero value is a row that was not converted: null rate and
// date, empty source, not stale.
//
// native_currency and fx_error stay with the rows: some rows put a native
// price between native_currency and fx_rate, and only some say why a row
// was not converted.
type FXJSON struct {
	FXRate   NullDecimal `json:"fx_rate"`
	FXDate   *string     `json:"fx_date"`
	FXSource string      `json:"fx_source"`
	FXStale  bool        `json:"fx_stale"`
}

// FXJSONOf is the rate an analysis figure was converted with, as a row
// carries it (a configured fixed rate or no conversion has a null date).
func FXJSONOf(u analysis.FXUsed) FXJSON {
	return FXJSON{FXRate: NewNullDecimal(u.FXRate, true), FXDate: optString(u.FXDate), FXSource: u.FXSource, FXStale: u.FXStale}
}
