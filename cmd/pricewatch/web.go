package main

import (
	"fmt"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/web"
)

// webHandler prepares what the daemon's listener serves besides /metrics,
// /healthz and /readyz: the JSON API and the dashboard, and in front of all
// of it the bearer-token check. An error (a non-loopback listen without a
// token, a token file that is missing or empty) stops the daemon before it
// starts: it must never come up open when it was meant to be closed.
func (d *daemon) webHandler() (func(http.Handler) http.Handler, error) {
	cfg := d.state().cfg
	token, err := cfg.HTTPToken()
	if err != nil {
		return nil, err
	}
	listen := cfg.HTTP.Listen
	if listen != "" && !config.ListenIsLoopback(listen) && token.Empty() && !cfg.HTTP.AllowUnauthenticated {
		// config.Validate refuses this already; checked again here because
		// an open listener is the one mistake that must not slip through.
		return nil, fmt.Errorf("http.listen %q is not a loopback address: set http.token_file or http.allow_unauthenticated: true", listen)
	}
	switch {
	case !token.Empty():
		d.log.Info("http: every request but /healthz needs the bearer token from http.token_file")
	case listen != "" && !config.ListenIsLoopback(listen):
		d.log.Warn("http: listening beyond loopback without a token (http.allow_unauthenticated: true): anyone who reaches it can read prices, runs and alerts", zap.String("listen", listen))
	}
	srv := &web.Server{
		Store: d.db,
		FX: func() report.FX {
			f := d.state().cfg.FX
			return report.FX{Currency: f.Currency, FixedRates: f.FixedRates, MaxAge: f.MaxAge}
		},
		Expected: func(now time.Time) map[string]time.Duration {
			return d.state().app.expectedIntervals(now)
		},
		Log: d.log.Named("http"),
	}
	return func(base http.Handler) http.Handler {
		mux := http.NewServeMux()
		srv.Mount(mux)
		// Everything the API and dashboard do not claim (/metrics,
		// /healthz, /readyz) goes to the listener's own handler.
		mux.Handle("/", base)
		if token.Empty() {
			return mux
		}
		return web.RequireToken(token.Value(), mux)
	}, nil
}
