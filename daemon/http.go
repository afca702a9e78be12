package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/mcpserver"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/web"
)

// newWebServer is the API's and the dashboard's server. It is built with
// the daemon rather than with its listener because /metrics' price series
// read the same current state it keeps per data version (issue 30: one
// read model, not a second read of every current price per version).
func (d *Daemon) newWebServer() *web.Server {
	return &web.Server{
		Store: d.db,
		FX:    func() report.FX { return d.state().FX },
		Expected: func(now time.Time) map[string]time.Duration {
			if e := d.state().Expected; e != nil {
				return e(now)
			}
			return nil
		},
		AlertSummary: d.opts.AlertSummary,
		Log:          d.log.Named("http"),
		Versions:     d.versions,
		// A round of first views after a run stores holds tens of MB at
		// once for a second or two; the live heap after it is a fraction.
		Idle:  freeMemory,
		Conns: &web.Conns{},
	}
}

// webHandler prepares what the daemon's listener serves besides /metrics,
// /healthz and /readyz: the JSON API and the dashboard, and in front of all
// of it the bearer-token check. An error (a non-loopback listen without a
// token, a token file that is missing or empty) stops the daemon before it
// starts: it must never come up open when it was meant to be closed.
func (d *Daemon) webHandler() (func(http.Handler) http.Handler, error) {
	h := d.state().HTTP
	if h.TokenErr != nil {
		return nil, h.TokenErr
	}
	token, listen := h.Token, h.Listen
	if listen != "" && !h.Loopback && token == "" && !h.AllowUnauthenticated {
		// config.Validate refuses this already; checked again here because
		// an open listener is the one mistake that must not slip through.
		return nil, fmt.Errorf("http.listen %q is not a loopback address: set http.token_file or http.allow_unauthenticated: true", listen)
	}
	switch {
	case token != "":
		d.log.Info("http: every request but /healthz needs the bearer token from http.token_file")
	case listen != "" && !h.Loopback:
		d.log.Warn("http: listening beyond loopback without a token (http.allow_unauthenticated: true): anyone who reaches it can read prices, runs and alerts", zap.String("listen", listen))
	}
	srv := d.web
	return func(base http.Handler) http.Handler {
		// The API and the dashboard; the MCP server asks the API's routes
		// in the process (under the same limiter, never through the token
		// check, which stands in front of /mcp itself).
		site := http.NewServeMux()
		srv.Mount(site)
		mux := http.NewServeMux()
		mux.Handle("/", site)
		mux.Handle(MCPPath, mcpserver.Handler(site, d.opts.Version))
		// The listener's own paths go to its handler; every other path
		// is the API's or the dashboard's (which answers 404 pages).
		for _, path := range []string{"/metrics", "/healthz", "/readyz"} {
			mux.Handle(path, base)
		}
		if token == "" {
			return mux
		}
		return web.RequireToken(token, mux)
	}, nil
}

// MCPPath is where the daemon serves MCP over streamable HTTP, behind the
// same bearer token as the API.
const MCPPath = "/mcp"

// serveHTTP runs base (/metrics, /healthz and /readyz), and what wrap adds
// around it (the API, the dashboard and the token check: webHandler),
// until ctx is done; conns counts its connections serving a request
// (web.Server.Conns).
func serveHTTP(ctx context.Context, ln net.Listener, base http.Handler, conns *web.Conns, log *zap.Logger, wrap ...func(http.Handler) http.Handler) error {
	handler := base
	for _, w := range wrap {
		handler = w(handler)
	}
	srv := newHTTPServer(handler)
	if conns != nil {
		srv.ConnState = conns.Track
	}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	log.Info("http listening", zap.String("addr", ln.Addr().String()))
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newHTTPServer bounds every phase of a connection: a client that sends
// slowly, reads slowly or idles holds no goroutine and socket for long.
// /readyz answers within its own 5 s; a scrape of /metrics is small.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
}
