package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/pricewatch/pricewatch/apiclient"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/config"
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
	return usagef("with --server this command prints --format %s (the %s layout needs the local database)", strings.Join(allowed, " or --format "), format)
}

// remoteGet asks the daemon's API for endpoint (relative to /api/v1/) and
// returns the body, with the token of serverToken.
func (a *app) remoteGet(ctx context.Context, server, endpoint string, q url.Values) ([]byte, error) {
	tok, err := a.serverToken()
	if err != nil {
		return nil, err
	}
	return apiclient.Get(ctx, server, tok, endpoint, q)
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
	return false, apiclient.Decode(body, rows)
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
