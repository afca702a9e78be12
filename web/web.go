// Package web serves pricewatch over HTTP: the read-only JSON API under
// /api/v1/ (the same rows the CLI prints with --format json, built by the
// report package) and the dashboard at / (server-rendered HTML with SVG
// charts drawn in Go; every asset is embedded, nothing is fetched from
// elsewhere). Nothing here writes.
package web

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/singleflight"

	"github.com/pricewatch/pricewatch/report"
)

// Store is what the API and the dashboard read.
type Store interface {
	report.Store
	// StoredNames lets the API answer 404 for a name nothing stored
	// carries, as the CLI exits 4.
	report.NameStore
	// ChangeStore lists the changes runs recorded (/api/v1/changes).
	report.ChangeStore
	// DataVersion changes whenever a run commits or an alert moves; ETags
	// are derived from it.
	DataVersion(ctx context.Context) (string, error)
}

// Server answers the API and the dashboard from one database.
type Server struct {
	Store Store
	// FX is the running fx section (it may change on reload).
	FX func() report.FX
	// Expected maps each enabled provider to how often it is meant to run,
	// for the dashboard's freshness column.
	Expected func(now time.Time) map[string]time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// AlertSummary is an outbox document's plain one-line text for the
	// alert listings (digest.AlertSummary; nil: none). It is handed in so
	// that the server links neither the Slack renderer nor the chart
	// library.
	AlertSummary func(payload []byte) string
	Log          *zap.Logger
	// Idle, when set, is called each time the refresher has computed
	// every answer it was given (after a new data version or minute):
	// the daemon returns the computations' memory to the system there
	// (issue 30's memory budget) rather than holding their peak.
	Idle func()
	// Conns, when set, counts the listener's connections serving a
	// request (its Track is the http.Server's ConnState): while the
	// refresher computes, kept answers take turns only when more clients
	// than cores are being served (serveKept). Without it they always do.
	Conns *Conns
	// Limits bound the requests that read much of the database (zero
	// fields take their defaults; see Limits).
	Limits Limits
	// Versions, when set, is the data version kept current by its owner
	// (the daemon: refreshed when a run stores and polled every second);
	// answers are then kept per version without asking the database on
	// each request. Unset, each request reads the version.
	Versions *Versions

	limiter *Limiter
	answers answers
	// current is the newest data version's current state (CurrentReads),
	// read once per version under currentFlight.
	current       atomic.Pointer[report.CurrentState]
	currentFlight singleflight.Group
	// overview is the overview's prices last computed (overviewModel),
	// and overviewParts each provider's part of them.
	overview      atomic.Pointer[overviewPrices]
	overviewParts providerParts[overviewPart]
	// gpuIndexParts are the GPU index's parts of each provider.
	gpuIndexParts providerParts[report.GPUIndexPart]
	handler       http.Handler
}

// WarmPaths are the pages computed at start, before anyone asks.
var WarmPaths = []string{"/", "/offers", "/gpu/"}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Server) log() *zap.Logger {
	if s.Log == nil {
		return zap.NewNop()
	}
	return s.Log
}

// Mount registers the API and the dashboard on mux. Every route is GET (and
// so HEAD) only: nothing here changes anything. The routes that read much
// of the database run under one Limiter (s.Limits).
func (s *Server) Mount(mux *http.ServeMux) {
	s.limiter = NewLimiter(s.Limits)
	s.handler = mux
	s.mountAPI(mux)
	s.mountDashboard(mux)
	if s.Versions != nil {
		s.followVersions()
		s.warm()
	}
}

// retryAfter is what a shed or over-budget answer says to wait.
func (s *Server) retryAfter() string {
	if s.limiter == nil {
		return NewLimiter(s.Limits).RetryAfter()
	}
	return s.limiter.RetryAfter()
}

// overBudget reports whether err (or the request's own context) says the
// request ran out of its time: an answer of 503, not 500.
func overBudget(r *http.Request, err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(r.Context().Err(), context.DeadlineExceeded)
}
