package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/web"
)

// envServerToken holds the bearer token `--server` sends; without it, the
// token in http.token_file of the local config (the daemon's own) is used.
const envServerToken = "PRICEWATCH_TOKEN"

// serverFlag is --server: read from a running daemon's API instead of the
// local database. The daemon answers with the same rows (they come from
// the same code), so --format json prints exactly what a local run would.
type serverFlag struct{ url string }

func (f *serverFlag) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.url, "server", "", serverHelp)
}

const serverHelp = "read from the daemon at this URL (e.g. http://127.0.0.1:9108) instead of the local database"

// remoteFormat says whether a command can print format from the API's rows
// alone; the others need the analysis only a local run has.
func remoteFormat(server, format string, allowed ...string) error {
	if server == "" {
		return nil
	}
	for _, a := range allowed {
		if a == format {
			return nil
		}
	}
	return fmt.Errorf("with --server this command prints --format %s (the %s layout needs the local database)", strings.Join(allowed, " or --format "), format)
}

// remoteGet asks the daemon's API for endpoint (relative to /api/v1/) and
// returns the body; an error answer is returned as the daemon put it.
func (a *app) remoteGet(ctx context.Context, server, endpoint string, q url.Values) ([]byte, error) {
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
	tok, err := a.serverToken()
	if err != nil {
		return nil, err
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
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

// remoteRows asks the daemon's API for endpoint. With passThrough (--format
// json and nothing left to filter here) the answer is printed as it came and
// printed is true; else it is decoded into rows for the table or the CSV.
func (a *app) remoteRows(ctx context.Context, server, endpoint string, q url.Values, passThrough bool, rows any) (printed bool, err error) {
	body, err := a.remoteGet(ctx, server, endpoint, q)
	if err != nil {
		return false, err
	}
	if passThrough {
		_, err := a.stdout.Write(body)
		return true, err
	}
	return false, decodeRemote(body, rows)
}

func (a *app) serverToken() (string, error) {
	if v := strings.TrimSpace(os.Getenv(envServerToken)); v != "" {
		return v, nil
	}
	if a.cfg == nil || a.cfg.HTTP.TokenFile == "" {
		return "", nil
	}
	tok, err := config.ReadSecret("", config.Secret{}, a.cfg.HTTP.TokenFile)
	if err != nil {
		return "", fmt.Errorf("http.token_file: %w", err)
	}
	return tok.Value(), nil
}

func decodeRemote(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("reading the daemon's answer: %w", err)
	}
	return nil
}

// query builds API parameters from flag values, leaving out empty ones.
type query url.Values

func (q query) set(name, v string) {
	if v != "" {
		url.Values(q).Set(name, v)
	}
}

func (q query) list(name string, vs []string) {
	for _, v := range vs {
		url.Values(q).Add(name, v)
	}
}

// remoteTime reads an RFC 3339 time the API sent as a JSON string.
func remoteTime(v any) (time.Time, error) {
	s, _ := v.(string)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("reading the daemon's answer: time %v: %w", v, err)
	}
	return t, nil
}

// remoteEnd reads the end of an interval the API sent: null while it is
// open.
func remoteEnd(v any) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	t, err := remoteTime(v)
	return &t, err
}

// readRemoteRows reads the API's rows back into what the local path prints,
// with read; the first row it cannot read fails them all.
func readRemoteRows[R, T any](rows []R, read func(R) (T, error)) ([]T, error) {
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
