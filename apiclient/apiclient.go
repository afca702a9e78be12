// Package apiclient reads the running daemon's JSON API (`--server`): the
// request with its bearer token, the daemon's error answers, and the
// API's times and rows read back into what the local path prints.
package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/web"
)

// Get asks the daemon's API at server for endpoint (relative to /api/v1/)
// with the bearer token (none when empty) and returns the body; an error
// answer is returned as the daemon put it, a 404 as report.NotStoredError.
func Get(ctx context.Context, server, token, endpoint string, q url.Values) ([]byte, error) {
	base, err := url.Parse(server)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("--server %q: want an http(s) URL such as http://127.0.0.1:9108", server)
	}
	u := base.JoinPath(web.APIPrefix, endpoint)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Timeout: time.Minute}
	resp, err := client.Do(req)
	if err != nil {
		// The URL holds no secret (the token travels in a header).
		return nil, fmt.Errorf("asking the daemon: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("reading the answer of %s: %w", base.Redacted(), err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			if resp.StatusCode == http.StatusNotFound {
				// Not stored there: the same exit 4 as a local miss.
				return nil, fmt.Errorf("%s answered %d: %w", base.Redacted(), resp.StatusCode, &report.NotStoredError{Msg: e.Error})
			}
			return nil, fmt.Errorf("%s answered %d: %s", base.Redacted(), resp.StatusCode, e.Error)
		}
		return nil, fmt.Errorf("%s answered %s", base.Redacted(), resp.Status)
	}
	return body, nil
}

// Decode reads the daemon's JSON answer into v.
func Decode(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("reading the daemon's answer: %w", err)
	}
	return nil
}

// Time reads an RFC 3339 time the API sent as a JSON string.
func Time(v any) (time.Time, error) {
	s, _ := v.(string)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("reading the daemon's answer: time %v: %w", v, err)
	}
	return t, nil
}

// End reads the end of an interval the API sent: null while it is
// open.
func End(v any) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	t, err := Time(v)
	return &t, err
}

// ReadRows reads the API's rows back into what the local path prints,
// with read; the first row it cannot read fails them all.
func ReadRows[R, T any](rows []R, read func(R) (T, error)) ([]T, error) {
	out := make([]T, 0, len(rows))
	for _, r := range rows {
		v, err := read(r)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// History reads back the API's history rows (for --server) into the
// intervals the table and the plot are drawn from.
func History(rows []report.HistoryRow) ([]storage.PriceInterval, error) {
	return ReadRows(rows, func(r report.HistoryRow) (storage.PriceInterval, error) {
		iv := storage.PriceInterval{Offer: pricewatch.Offer{Provider: r.Provider, Region: r.Region, Zone: r.Zone, InstanceType: r.InstanceType,
			PriceType: pricewatch.PriceType(r.PriceType), Term: r.Term, Payment: r.Payment, OfferingClass: r.OfferingClass, OS: r.OS,
			Currency: r.Currency, Hourly: decimal.Decimal(r.HourlyPrice), Upfront: decimal.Decimal(r.Upfront),
			Hardware: pricewatch.Hardware{GPUModel: r.GPUModel, GPUCount: r.GPUCount, GPUMemoryGB: r.GPUMemoryGB}},
			EffectiveHourly: decimal.Decimal(r.EffectiveHourly)}
		var err error
		if iv.ValidFrom, err = Time(r.ValidFrom); err != nil {
			return iv, err
		}
		if iv.LastSeen, err = Time(r.LastSeen); err != nil {
			return iv, err
		}
		iv.ValidTo, err = End(r.ValidTo)
		return iv, err
	})
}

// Availability reads back the API's rows (for --server); the JSON
// carries no stock detail, so that CSV column stays empty.
func Availability(rows []report.AvailabilityRow) ([]pricewatch.AvailabilityInterval, error) {
	return ReadRows(rows, func(r report.AvailabilityRow) (pricewatch.AvailabilityInterval, error) {
		iv := pricewatch.AvailabilityInterval{AvailabilityKey: pricewatch.AvailabilityKey{Provider: r.Provider, Region: r.Region, Zone: r.Zone,
			InstanceType: r.InstanceType}, GPUModel: r.GPUModel, GPUCount: r.GPUCount, State: pricewatch.AvailabilityState(r.State)}
		var err error
		if iv.Since, err = Time(r.Since); err != nil {
			return iv, err
		}
		iv.Until, err = End(r.Until)
		return iv, err
	})
}
