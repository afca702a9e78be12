// Package fx reads the European Central Bank's euro reference rates and
// converts between currencies with them.
//
// The ECB publishes, on TARGET working days around 16:00 CET, how many
// units of about thirty currencies one euro buys. pricewatch needs USD and
// CNY from it: USD↔CNY is the cross rate through the euro. Stored prices
// stay in the currency the cloud quoted; conversion happens when a report
// compares them, with the rate of the price's date (see Book).
package fx

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// Base is the currency every ECB rate is quoted against.
const Base = "EUR"

// Sources a Quote can name.
const (
	SourceECB      = "ECB"
	SourceFixed    = "fixed"    // a rate from the configuration (fx.fixed_rates)
	SourceIdentity = "identity" // no conversion: source and target currency agree
)

// DefaultEndpoint is the ECB's daily feed.
const DefaultEndpoint = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"

// maxBody bounds what Fetch reads: the daily file is about 2 kB and the
// full history about 600 kB; anything far bigger is not a rates document.
const maxBody = 8 << 20

// Rates is one reference day: how many units of each currency one euro buys.
type Rates struct {
	// Date is the reference day, at midnight UTC.
	Date time.Time
	// Source names where the rates came from (SourceECB for the feed).
	Source string
	// PerEUR maps an ISO 4217 code to units per 1 EUR. EUR itself is implied.
	PerEUR map[string]decimal.Decimal
}

// Currencies lists the codes of the day in alphabetical order.
func (r Rates) Currencies() []string {
	out := make([]string, 0, len(r.PerEUR))
	for c := range r.PerEUR {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// The document shape: gesmes:Envelope > Cube > Cube[time] > Cube[currency,rate].
// encoding/xml matches elements by namespace as well as by name, so an HTML
// error page or another vocabulary's "Cube" does not decode as rates.
type envelope struct {
	XMLName xml.Name `xml:"http://www.gesmes.org/xml/2002-08-01 Envelope"`
	Outer   []struct {
		Days []struct {
			Time  string `xml:"time,attr"`
			Rates []struct {
				Currency string `xml:"currency,attr"`
				Rate     string `xml:"rate,attr"`
			} `xml:"http://www.ecb.int/vocabulary/2002-08-01/eurofxref Cube"`
		} `xml:"http://www.ecb.int/vocabulary/2002-08-01/eurofxref Cube"`
	} `xml:"http://www.ecb.int/vocabulary/2002-08-01/eurofxref Cube"`
}

// Parse reads an ECB reference-rate document and returns its newest day.
// The daily feed holds exactly one; the 90-day and full-history files hold
// many (use ParseAll to keep them all).
func Parse(r io.Reader) (Rates, error) {
	days, err := ParseAll(r)
	if err != nil {
		return Rates{}, err
	}
	return days[len(days)-1], nil
}

// ParseAll reads an ECB reference-rate document and returns every day in
// it, oldest first. A document that is truncated, is not the ECB envelope,
// holds no day, or holds a day without rates is an error wrapping
// ErrIncomplete: an empty answer must never look like "no rates".
func ParseAll(r io.Reader) ([]Rates, error) {
	var env envelope
	dec := xml.NewDecoder(r)
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("%w: reading ECB rates document: %v", ErrIncomplete, err)
	}
	if len(env.Outer) != 1 {
		return nil, fmt.Errorf("%w: ECB rates document has %d outer Cube elements, want 1", ErrIncomplete, len(env.Outer))
	}
	seen := map[time.Time]bool{}
	var days []Rates
	for _, d := range env.Outer[0].Days {
		date, err := time.Parse(time.DateOnly, strings.TrimSpace(d.Time))
		if err != nil {
			return nil, fmt.Errorf("%w: ECB rates document: day %q is not a YYYY-MM-DD date", ErrIncomplete, d.Time)
		}
		if seen[date] {
			return nil, fmt.Errorf("%w: ECB rates document lists %s twice", ErrIncomplete, d.Time)
		}
		seen[date] = true
		if len(d.Rates) == 0 {
			return nil, fmt.Errorf("%w: ECB rates document: day %s has no rates", ErrIncomplete, d.Time)
		}
		day := Rates{Date: date, Source: SourceECB, PerEUR: make(map[string]decimal.Decimal, len(d.Rates))}
		for _, x := range d.Rates {
			cur := strings.TrimSpace(x.Currency)
			if !pricewatch.IsCurrencyCode(cur) || cur == Base {
				return nil, fmt.Errorf("%w: ECB rates document: day %s: %q is not a currency code", ErrIncomplete, d.Time, x.Currency)
			}
			if _, dup := day.PerEUR[cur]; dup {
				return nil, fmt.Errorf("%w: ECB rates document: day %s lists %s twice", ErrIncomplete, d.Time, cur)
			}
			rate, err := decimal.NewFromString(strings.TrimSpace(x.Rate))
			if err != nil || !rate.IsPositive() {
				return nil, fmt.Errorf("%w: ECB rates document: day %s: %s rate %q is not a positive number", ErrIncomplete, d.Time, cur, x.Rate)
			}
			day.PerEUR[cur] = rate
		}
		days = append(days, day)
	}
	if len(days) == 0 {
		return nil, fmt.Errorf("%w: ECB rates document holds no reference day", ErrIncomplete)
	}
	sort.Slice(days, func(i, j int) bool { return days[i].Date.Before(days[j].Date) })
	return days, nil
}

// ErrIncomplete: the rates document was cut off or malformed. An empty or
// broken answer is an error, never "no rates".
var ErrIncomplete = errors.New("incomplete or malformed response")

// Doer sends a request, retrying as its policy says (fetchers.Client):
// newReq builds a fresh request for each attempt. fx declares the one
// method it uses rather than depending on the fetchers package.
type Doer interface {
	Do(ctx context.Context, newReq func(ctx context.Context) (*http.Request, error)) (*http.Response, error)
}

// Fetch downloads the reference rates at endpoint (the daily feed unless
// configured otherwise) and returns the newest day.
func Fetch(ctx context.Context, client Doer, endpoint string) (Rates, error) {
	if client == nil {
		return Rates{}, errors.New("fetching ECB rates: no HTTP client")
	}
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	resp, err := client.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/xml, text/xml")
		return req, nil
	})
	if err != nil {
		return Rates{}, fmt.Errorf("fetching ECB rates: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Rates{}, fmt.Errorf("fetching ECB rates: unexpected HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return Rates{}, fmt.Errorf("%w: fetching ECB rates: reading body: %v", ErrIncomplete, err)
	}
	if len(body) > maxBody {
		return Rates{}, fmt.Errorf("%w: fetching ECB rates: response larger than %d bytes", ErrIncomplete, maxBody)
	}
	rates, err := Parse(bytes.NewReader(body))
	if err != nil {
		return Rates{}, fmt.Errorf("fetching ECB rates: %w", err)
	}
	return rates, nil
}
