package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// APIPrefix is where the API lives; a breaking change gets /api/v2/.
const APIPrefix = "/api/v1/"

// CacheControl is sent with every API answer: a client may keep it but must
// ask again (with If-None-Match, answered 304 while nothing changed) before
// using it, so a run that just committed is seen at once.
const CacheControl = "private, no-cache"

// apiEndpoint is one endpoint of the API: how it is mounted and what the
// index at /api/v1/ says of it.
type apiEndpoint struct {
	Path  string   `json:"path"`
	About string   `json:"about"`
	CLI   string   `json:"cli,omitempty"`
	Takes []string `json:"parameters"`
	// light endpoints read a few rows and skip the limiter.
	light   bool
	handler func(*Server, http.ResponseWriter, *http.Request)
}

// apiEndpoints are every endpoint, mounted in this order and listed so by
// the index: one list, so the index cannot miss one (it once lacked
// signals).
var apiEndpoints = []apiEndpoint{
	{Path: "offers", About: "the current offers of a GPU model, ranked per GPU-hour; by=machine: one row per machine with on-demand, spot, best 1-year and 3-year prices per hour, day, month or year", CLI: "compare --format json", Takes: offersParams,
		handler: (*Server).apiOffers},
	{Path: "offer-table", About: "every current offer with hardware, availability and 30-day move (the dashboard's offers table); by=machine: one row per machine", Takes: offerTableParams,
		handler: (*Server).apiOfferTable},
	{Path: "history/{instance_type}", About: "an instance type's price intervals", CLI: "history TYPE --format json", Takes: historyParams,
		handler: (*Server).apiHistory},
	{Path: "availability", About: "availability (in stock, sold out) per place", CLI: "availability --format json", Takes: availabilityParams,
		handler: (*Server).apiAvailability},
	{Path: "signals", About: "capacity signals: spot interruption and eviction bands, capacity blocks, placement scores", CLI: "availability (its signals table)", Takes: signalsParams,
		handler: (*Server).apiSignals},
	{Path: "savings/{instance_type}", About: "what each commitment of an instance type saves against on-demand", CLI: "savings TYPE --format json", Takes: savingsParams,
		handler: (*Server).apiSavings},
	{Path: "trends", About: "the biggest price moves over a window", CLI: "trends --format json", Takes: trendsParams,
		handler: (*Server).apiTrends},
	{Path: "recommend", About: "which cloud and which commitment for N GPUs at a utilisation over a horizon", CLI: "recommend --format json", Takes: recommendParams,
		handler: (*Server).apiRecommend},
	{Path: "changes", About: "the price and availability changes runs found, newest first", CLI: "changes --format json", Takes: changesParams,
		handler: (*Server).apiChanges},
	{Path: "runs", About: "each provider's latest fetch run", CLI: "runs --format json", Takes: []string{}, light: true,
		handler: (*Server).apiRuns},
	{Path: "alerts", About: "queued, sent and failed alerts", CLI: "alerts list --format json", Takes: alertsParams,
		handler: (*Server).apiAlerts},
}

func (s *Server) mountAPI(mux *http.ServeMux) {
	// The queries read price history, and alerts renders each message's
	// summary: they run under the limiter. Runs reads a few rows.
	limited := func(h http.HandlerFunc) http.Handler { return s.cached(s.limiter.Wrap(h, apiShed)) }
	for _, e := range apiEndpoints {
		h := func(w http.ResponseWriter, r *http.Request) { e.handler(s, w, r) }
		if e.light {
			mux.Handle("GET "+APIPrefix+e.Path, s.cached(http.HandlerFunc(h)))
		} else {
			mux.Handle("GET "+APIPrefix+e.Path, limited(h))
		}
	}
	mux.HandleFunc("GET "+APIPrefix+"{$}", s.apiIndex)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "the API is read-only: GET only")
			return
		}
		paths := make([]string, len(apiEndpoints))
		for i, e := range apiEndpoints {
			paths[i] = e.Path
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint %s %s (%s lists them: %s)",
			r.Method, r.URL.Path, APIPrefix, strings.Join(paths, ", ")))
	})
}

// apiIndex is /api/v1/: every endpoint, what it answers and the
// parameters it takes.
func (s *Server) apiIndex(w http.ResponseWriter, r *http.Request) {
	if len(r.URL.Query()) > 0 {
		writeError(w, http.StatusBadRequest, "the index takes no parameters")
		return
	}
	type entry struct {
		apiEndpoint
		Path string `json:"path"`
	}
	var out struct {
		Endpoints []entry `json:"endpoints"`
	}
	for _, e := range apiEndpoints {
		out.Endpoints = append(out.Endpoints, entry{apiEndpoint: e, Path: APIPrefix + e.Path})
	}
	var body bytes.Buffer
	if err := report.WriteJSON(&body, out); err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Write(body.Bytes())
}

// apiShed answers a query the limiter turned away.
func apiShed(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusServiceUnavailable, "too many requests at once: try again after Retry-After seconds")
}

// Parameters each endpoint takes; anything else is a 400, so that a typo
// ("provder=aws") never silently widens a query.
var (
	scopeParams        = []string{"provider", "region", "os", "currency", "now"}
	hardwareParams     = []string{"min_gpu_memory", "min_vcpus", "min_memory", "interconnect", "max_price"}
	offersParams       = append(append([]string{"gpu", "count", "price_type", "available_only", "seller", "by", "per"}, hardwareParams...), scopeParams...)
	historyParams      = []string{"provider", "region", "since", "seller"}
	availabilityParams = []string{"instance_type", "gpu", "all", "provider", "region", "seller"}
	signalsParams      = []string{"instance_type", "gpu", "all", "provider", "region", "kind"}
	savingsParams      = append([]string{"utilization"}, scopeParams...)
	trendsParams       = append([]string{"gpu", "window", "price_type", "top", "seller"}, scopeParams...)
	alertsParams       = []string{"status", "channel", "limit"}
	recommendParams    = append(append([]string{"gpu", "count", "utilization", "horizon", "include_spot", "seller", "hosts"}, hardwareParams...), scopeParams...)
	changesParams      = []string{"since", "kind", "gpu", "provider", "region", "instance_type", "limit"}
)

func (s *Server) apiOffers(w http.ResponseWriter, r *http.Request) {
	s.serveAPI(w, r, offersParams, func(ctx context.Context, p *params) (any, error) {
		q, err := s.compareQuery(p)
		if err != nil {
			return nil, err
		}
		if err := report.CheckGPUModel(ctx, s.Store, q.GPU); err != nil {
			return nil, err
		}
		res, err := s.compare(ctx, q)
		if err != nil {
			return nil, err
		}
		return report.CompareAnswer(res, q), nil
	})
}

func (s *Server) apiHistory(w http.ResponseWriter, r *http.Request) {
	drawsHistory(r.Context()) // its intervals over a window
	s.serveAPI(w, r, historyParams, queryEndpoint(
		func(p *params) (report.HistoryQuery, error) { return s.historyQuery(r.PathValue("instance_type"), p) },
		func(ctx context.Context, q *report.HistoryQuery) error {
			if err := s.resolveInstanceType(ctx, &q.InstanceType); err != nil {
				return err
			}
			showsInstanceType(ctx, q.InstanceType) // its intervals alone, in their own currency
			return nil
		},
		func(ctx context.Context, q report.HistoryQuery) ([]storage.PriceInterval, error) {
			return report.History(ctx, s.Store, q)
		},
		report.HistoryRows))
}

func (s *Server) apiAvailability(w http.ResponseWriter, r *http.Request) {
	s.serveAPI(w, r, availabilityParams, func(ctx context.Context, p *params) (any, error) {
		all, err := p.boolean("all")
		if err != nil {
			return nil, err
		}
		it := p.str("instance_type")
		if it != "" {
			if it, err = report.ResolveInstanceType(ctx, s.Store, it); err != nil {
				return nil, err
			}
		}
		seller, err := report.ParseSeller("seller", p.str("seller"))
		if err != nil {
			return nil, err
		}
		if err := report.CheckGPUModel(ctx, s.Store, p.str("gpu")); err != nil {
			return nil, err
		}
		rows, err := report.Availability(ctx, s.Store, report.AvailabilityQuery{InstanceType: it, GPU: p.str("gpu"),
			All: all, Providers: p.list("provider"), Regions: p.list("region"), Seller: seller})
		if err != nil {
			return nil, err
		}
		return report.AvailabilityRows(rows), nil
	})
}

// apiSignals lists capacity signals (issue 23): current ones, or with
// all=true their history too; kind= selects kinds.
func (s *Server) apiSignals(w http.ResponseWriter, r *http.Request) {
	s.serveAPI(w, r, signalsParams, func(ctx context.Context, p *params) (any, error) {
		all, err := p.boolean("all")
		if err != nil {
			return nil, err
		}
		var kinds []pricewatch.SignalKind
		for _, k := range p.list("kind") {
			if !pricewatch.SignalKind(k).Valid() {
				return nil, &report.ParamError{Msg: fmt.Sprintf("kind %q: want one of %v", k, pricewatch.SignalKinds)}
			}
			kinds = append(kinds, pricewatch.SignalKind(k))
		}
		if err := report.CheckGPUModel(ctx, s.Store, p.str("gpu")); err != nil {
			return nil, err
		}
		rows, err := report.Signals(ctx, s.Store, report.SignalQuery{InstanceType: p.str("instance_type"), GPU: p.str("gpu"),
			Kinds: kinds, All: all, Providers: p.list("provider"), Regions: p.list("region")})
		if err != nil {
			return nil, err
		}
		return report.SignalRows(rows), nil
	})
}

// apiChanges lists the changes runs recorded (price_changed, sold_out, …),
// newest first: what the MCP server's price_changes and
// availability_changes read.
func (s *Server) apiChanges(w http.ResponseWriter, r *http.Request) {
	s.serveAPI(w, r, changesParams, queryEndpoint(s.changesParams,
		func(ctx context.Context, p *report.ChangesParams) error { return nil },
		func(ctx context.Context, p report.ChangesParams) ([]pricewatch.Change, error) {
			q, err := p.Query(ctx, s.Store, s.now())
			if err != nil {
				return nil, err
			}
			return report.Changes(ctx, s.Store, q)
		},
		report.ChangeRows))
}

// apiRecommend answers recommend's question (N GPUs of a model at a
// utilisation over a horizon) with the rows of `recommend --format json`.
func (s *Server) apiRecommend(w http.ResponseWriter, r *http.Request) {
	s.serveAPI(w, r, recommendParams, queryEndpoint(s.recommendQuery,
		func(ctx context.Context, q *report.RecommendQuery) error {
			return report.CheckGPUModel(ctx, s.Store, q.GPU)
		},
		func(ctx context.Context, q report.RecommendQuery) (analysis.Recommendation, error) {
			book, err := report.FXBook(ctx, s.Store, s.FX())
			if err != nil {
				return analysis.Recommendation{}, err
			}
			return report.Recommend(ctx, s.Store, book, q)
		},
		report.RecommendJSONOf))
}

func (s *Server) apiSavings(w http.ResponseWriter, r *http.Request) {
	s.serveAPI(w, r, savingsParams, queryEndpoint(
		func(p *params) (report.SavingsQuery, error) { return s.savingsQuery(r.PathValue("instance_type"), p) },
		func(ctx context.Context, q *report.SavingsQuery) error {
			return s.resolveInstanceType(ctx, &q.InstanceType)
		},
		s.savings, func(sav report.Savings) []report.SavingsRow { return report.SavingsRows(sav.SavingsReport) }))
}

func (s *Server) apiTrends(w http.ResponseWriter, r *http.Request) {
	drawsHistory(r.Context()) // moves and cheapest series over a window
	s.serveAPI(w, r, trendsParams, queryEndpoint(s.trendsQuery,
		func(ctx context.Context, q *report.TrendsQuery) error {
			return report.CheckGPUModel(ctx, s.Store, q.GPU)
		},
		s.trends, report.Trends.JSON))
}

// queryEndpoint is the work of an endpoint that answers a query, in the
// order every one keeps: the parameters parsed into the query (a bad one is
// a 400), what it names looked up (an unknown GPU or instance type is a 404,
// never before a 400), then the answer computed and shaped into its rows.
func queryEndpoint[Q, R, J any](parse func(*params) (Q, error), lookUp func(context.Context, *Q) error,
	answer func(context.Context, Q) (R, error), rows func(R) J) func(context.Context, *params) (any, error) {
	return func(ctx context.Context, p *params) (any, error) {
		q, err := parse(p)
		if err != nil {
			return nil, err
		}
		if err := lookUp(ctx, &q); err != nil {
			return nil, err
		}
		res, err := answer(ctx, q)
		if err != nil {
			return nil, err
		}
		return rows(res), nil
	}
}

// resolveInstanceType replaces an asked instance type by its stored name.
func (s *Server) resolveInstanceType(ctx context.Context, instanceType *string) error {
	resolved, err := report.ResolveInstanceType(ctx, s.Store, *instanceType)
	*instanceType = resolved
	return err
}

func (s *Server) apiRuns(w http.ResponseWriter, r *http.Request) {
	showsRuns(r.Context())
	s.serveAPI(w, r, nil, func(ctx context.Context, p *params) (any, error) {
		return report.Runs(ctx, s.Store)
	})
}

func (s *Server) apiAlerts(w http.ResponseWriter, r *http.Request) {
	s.serveAPI(w, r, alertsParams, func(ctx context.Context, p *params) (any, error) {
		q, err := alertsQuery(p)
		if err != nil {
			return nil, err
		}
		return report.Alerts(ctx, s.Store, q, s.AlertSummary)
	})
}

// ---- Queries: the same parsers the CLI's flags go through ----

func (s *Server) scope(p *params) (report.Scope, error) {
	if err := report.CheckOS("os", p.str("os")); err != nil {
		return report.Scope{}, err
	}
	cur, err := report.Currency("currency", p.str("currency"), s.FX().Currency)
	if err != nil {
		return report.Scope{}, err
	}
	at := s.now()
	if v := p.str("now"); v != "" {
		if at, err = report.ParseNow("now", v); err != nil {
			return report.Scope{}, err
		}
	}
	return report.Scope{Providers: p.list("provider"), Regions: p.list("region"), OS: p.str("os"), Currency: cur, At: at}, nil
}

func (s *Server) compareQuery(p *params) (report.CompareQuery, error) {
	sc, err := s.scope(p)
	if err != nil {
		return report.CompareQuery{}, err
	}
	gpu := strings.TrimSpace(p.str("gpu"))
	if gpu == "" {
		return report.CompareQuery{}, &report.ParamError{Msg: "gpu is required (e.g. gpu=H100, gpu=A100-80GB)"}
	}
	count, err := p.number("count")
	if err != nil {
		return report.CompareQuery{}, err
	}
	by, per, err := report.ParseView("by", p.str("by"), "per", p.str("per"))
	if err != nil {
		return report.CompareQuery{}, err
	}
	// on_demand as compare's --price-type default; every price type for
	// the machine rows, whose columns are the price types.
	defaultTypes := []string{"on_demand"}
	if by == report.ByMachine {
		defaultTypes = []string{"any"}
	}
	types, err := report.ParsePriceTypes("price_type", p.listOr("price_type", defaultTypes))
	if err != nil {
		return report.CompareQuery{}, err
	}
	avail, err := p.boolean("available_only")
	if err != nil {
		return report.CompareQuery{}, err
	}
	seller, err := report.ParseSeller("seller", p.str("seller"))
	if err != nil {
		return report.CompareQuery{}, err
	}
	hw, err := hardwareFilter(p)
	if err != nil {
		return report.CompareQuery{}, err
	}
	return report.CompareQuery{Scope: sc, GPU: gpu, Count: count, PriceTypes: types, AvailableOnly: avail, Seller: seller, Hardware: hw, By: by, Per: per}, nil
}

// hardwareFilter reads the hardware bounds (issue 31 item 2) as the CLI's
// flags are read.
func hardwareFilter(p *params) (analysis.HardwareFilter, error) {
	n := report.HardwareParamNames
	return report.ParseHardware(report.HardwareParams{MinGPUMemory: p.str(n.MinGPUMemory), MinVCPUs: p.str(n.MinVCPUs),
		MinMemory: p.str(n.MinMemory), Interconnect: p.str(n.Interconnect), MaxPrice: p.str(n.MaxPrice)}, n)
}

func (s *Server) historyQuery(instanceType string, p *params) (report.HistoryQuery, error) {
	since, err := report.ParseSince("since", p.str("since"), s.now())
	if err != nil {
		return report.HistoryQuery{}, err
	}
	seller, err := report.ParseSeller("seller", p.str("seller"))
	if err != nil {
		return report.HistoryQuery{}, err
	}
	return report.HistoryQuery{InstanceType: instanceType, Providers: p.list("provider"), Regions: p.list("region"), Since: since, Seller: seller}, nil
}

func (s *Server) recommendQuery(p *params) (report.RecommendQuery, error) {
	sc, err := s.scope(p)
	if err != nil {
		return report.RecommendQuery{}, err
	}
	gpu := strings.TrimSpace(p.str("gpu"))
	if gpu == "" {
		return report.RecommendQuery{}, &report.ParamError{Msg: "gpu is required (e.g. gpu=A100)"}
	}
	count := 1
	if p.has("count") {
		if count, err = strconv.Atoi(p.str("count")); err != nil || count < 1 {
			return report.RecommendQuery{}, &report.ParamError{Msg: fmt.Sprintf("count %q: want at least 1 GPU", p.str("count"))}
		}
	}
	u, err := analysis.ParseUtilization(p.strOr("utilization", "1"))
	if err != nil {
		return report.RecommendQuery{}, &report.ParamError{Msg: "utilization: " + err.Error()}
	}
	horizon := p.strOr("horizon", "1y")
	if _, err := pricewatch.TermHours(horizon); err != nil {
		return report.RecommendQuery{}, &report.ParamError{Msg: "horizon: " + err.Error()}
	}
	spot, err := p.boolean("include_spot")
	if err != nil {
		return report.RecommendQuery{}, err
	}
	q := report.RecommendQuery{Scope: sc, GPU: gpu, Count: count, Utilization: u, Horizon: horizon, IncludeSpot: spot}
	if p.has("hosts") {
		if q.Hosts, err = strconv.Atoi(p.str("hosts")); err != nil || q.Hosts < 0 {
			return q, &report.ParamError{Msg: fmt.Sprintf("hosts %q: want 1 or more machines (0: one, or several with a stated interconnect)", p.str("hosts"))}
		}
	}
	if q.Seller, err = report.ParseSeller("seller", p.str("seller")); err != nil {
		return q, err
	}
	q.Hardware, err = hardwareFilter(p)
	return q, err
}

func (s *Server) changesParams(p *params) (report.ChangesParams, error) {
	limit := report.DefaultChangesLimit
	if p.has("limit") {
		var err error
		if limit, err = strconv.Atoi(p.str("limit")); err != nil {
			return report.ChangesParams{}, &report.ParamError{Msg: fmt.Sprintf("limit %q: want 0 (all) or more", p.str("limit"))}
		}
	}
	return report.ChangesParams{Since: p.strOr("since", report.DefaultChangesSince), Kinds: p.list("kind"), GPU: p.str("gpu"),
		InstanceType: p.str("instance_type"), Providers: p.list("provider"), Regions: p.list("region"), Limit: limit}, nil
}

func (s *Server) savingsQuery(instanceType string, p *params) (report.SavingsQuery, error) {
	sc, err := s.scope(p)
	if err != nil {
		return report.SavingsQuery{}, err
	}
	u, err := analysis.ParseUtilization(p.strOr("utilization", "1"))
	if err != nil {
		return report.SavingsQuery{}, &report.ParamError{Msg: "utilization: " + err.Error()}
	}
	return report.SavingsQuery{Scope: sc, InstanceType: instanceType, Utilization: u}, nil
}

// maxTrendWindow bounds the window of a trends query: past it the cheapest
// series would be sampled too often for a page to stay fast.
const maxTrendWindow = 366 * 24 * time.Hour

func (s *Server) trendsQuery(p *params) (report.TrendsQuery, error) {
	sc, err := s.scope(p)
	if err != nil {
		return report.TrendsQuery{}, err
	}
	ws := p.strOr("window", "30d")
	window, err := analysis.ParseWindow(ws)
	if err != nil {
		return report.TrendsQuery{}, &report.ParamError{Msg: "window: " + err.Error()}
	}
	if window > maxTrendWindow {
		return report.TrendsQuery{}, &report.ParamError{Msg: fmt.Sprintf("window %q: at most 366d", ws)}
	}
	var defaultTypes []string
	for _, t := range report.DefaultTrendPriceTypes {
		defaultTypes = append(defaultTypes, string(t))
	}
	types, err := report.ParsePriceTypes("price_type", p.listOr("price_type", defaultTypes))
	if err != nil {
		return report.TrendsQuery{}, err
	}
	top := 10
	if p.has("top") {
		if top, err = strconv.Atoi(p.str("top")); err != nil || top < 0 {
			return report.TrendsQuery{}, &report.ParamError{Msg: fmt.Sprintf("top %q: want 0 (all) or more", p.str("top"))}
		}
	}
	seller, err := report.ParseSeller("seller", p.str("seller"))
	if err != nil {
		return report.TrendsQuery{}, err
	}
	return report.TrendsQuery{Scope: sc, GPU: strings.TrimSpace(p.str("gpu")), Window: window, PriceTypes: types, Top: top, Seller: seller}, nil
}

func alertsQuery(p *params) (report.AlertsQuery, error) {
	q := report.AlertsQuery{Status: p.str("status"), Channel: p.str("channel"), Limit: 50}
	if err := report.CheckAlertStatus("status", q.Status); err != nil {
		return q, err
	}
	if p.has("limit") {
		n, err := strconv.Atoi(p.str("limit"))
		if err != nil || n < 0 {
			return q, &report.ParamError{Msg: fmt.Sprintf("limit %q: want 0 (all) or more", p.str("limit"))}
		}
		q.Limit = n
	}
	return q, nil
}

// ---- Computations that need the exchange rates ----

func (s *Server) compare(ctx context.Context, q report.CompareQuery) (analysis.CompareResult, error) {
	book, err := report.FXBook(ctx, s.Store, s.FX())
	if err != nil {
		return analysis.CompareResult{}, err
	}
	st := s.CurrentReads
	if q.GPU != "" {
		st = s.narrowReads
	}
	return report.Compare(ctx, st(ctx), book, q)
}

func (s *Server) savings(ctx context.Context, q report.SavingsQuery) (report.Savings, error) {
	book, err := report.FXBook(ctx, s.Store, s.FX())
	if err != nil {
		return report.Savings{}, err
	}
	return report.ComputeSavings(ctx, s.Store, book, q)
}

func (s *Server) trends(ctx context.Context, q report.TrendsQuery) (report.Trends, error) {
	book, err := report.FXBook(ctx, s.Store, s.FX())
	if err != nil {
		return report.Trends{}, err
	}
	return report.ComputeTrends(ctx, s.Store, book, q)
}

// ---- Plumbing ----

// serveAPI checks the parameters, builds the rows and answers them as the
// CLI prints them, with an ETag over the data version and the body.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, allowed []string, build func(context.Context, *params) (any, error)) {
	p, err := parseParams(r.URL.Query(), allowed)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	v, err := build(ctx, p)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var body bytes.Buffer
	if err := report.WriteJSON(&body, v); err != nil {
		s.fail(w, r, err)
		return
	}
	etag, err := s.etag(ctx, body.Bytes())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", CacheControl)
	h.Set("ETag", etag)
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(body.Bytes())
}

// etag is a strong validator over the data version (which moves when a
// run commits) and the body (which also moves with the clock, e.g. since=30d).
func (s *Server) etag(ctx context.Context, body []byte) (string, error) {
	ver, err := s.Store.DataVersion(ctx)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(ver))
	h.Write([]byte{0})
	h.Write(body)
	return `"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`, nil
}

func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// fail answers a bad query with 400, a name nothing stored carries with
// 404, a query past its time with 503 and anything else with 500; the
// detail of a 500 goes to the log, not to the client.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var pe *report.ParamError
	if errors.As(err, &pe) {
		writeError(w, http.StatusBadRequest, pe.Msg)
		return
	}
	var ns *report.NotStoredError
	if errors.As(err, &ns) {
		writeError(w, http.StatusNotFound, ns.Msg)
		return
	}
	if overBudget(r, err) {
		w.Header().Set("Retry-After", s.retryAfter())
		writeError(w, http.StatusServiceUnavailable, "the query took longer than this server allows: try again after Retry-After seconds, or narrow it")
		return
	}
	if errors.Is(err, context.Canceled) {
		return
	}
	s.log().Error("http: answering "+r.URL.Path, zap.Error(err))
	writeError(w, http.StatusInternalServerError, "internal error reading the database (the daemon's log says more)")
}

// apiError is every error's body: {"status": 400, "error": "…"}.
type apiError struct {
	Status int    `json:"status"`
	Error  string `json:"error"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(apiError{Status: status, Error: msg})
}

// params are a request's query parameters, checked against the names an
// endpoint takes.
type params struct{ v url.Values }

func parseParams(v url.Values, allowed []string) (*params, error) {
	known := map[string]bool{}
	for _, a := range allowed {
		known[a] = true
	}
	var unknown []string
	for k := range v {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		want := "none"
		if len(allowed) > 0 {
			want = strings.Join(allowed, ", ")
		}
		return nil, fmt.Errorf("unknown parameter %q (this endpoint takes: %s)", unknown[0], want)
	}
	p := &params{v: v}
	// A misspelt cloud would otherwise match nothing and answer an empty
	// list, which reads as "no offers" rather than "no such cloud".
	for _, name := range p.list("provider") {
		if _, ok := clouds.Lookup(name); !ok {
			return nil, fmt.Errorf("unknown provider %q (known: %s)", name, strings.Join(clouds.Names(), ", "))
		}
	}
	return p, nil
}

// has reports whether the parameter was given a value: "count=" is the
// same as leaving count out (forms and scripts send empty fields), so an
// empty value always means the default.
func (p *params) has(name string) bool { return p.str(name) != "" || len(p.list(name)) > 0 }

// strOr is the parameter, or def when the query leaves it out.
func (p *params) strOr(name, def string) string {
	if p.has(name) {
		return p.str(name)
	}
	return def
}

// listOr is the parameter's list, or def when the query leaves it out.
func (p *params) listOr(name string, def []string) []string {
	if p.has(name) {
		return p.list(name)
	}
	return def
}

func (p *params) str(name string) string { return strings.TrimSpace(p.v.Get(name)) }

// list takes repeated parameters and comma-separated values alike, as the
// CLI's repeatable flags do.
func (p *params) list(name string) []string {
	var out []string
	for _, v := range p.v[name] {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func (p *params) boolean(name string) (bool, error) {
	v := p.str(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, &report.ParamError{Msg: fmt.Sprintf("%s %q: want true or false", name, v)}
	}
	return b, nil
}

func (p *params) number(name string) (float64, error) {
	v := p.str(name)
	if v == "" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, &report.ParamError{Msg: fmt.Sprintf("%s %q: want a positive number of GPUs per instance", name, v)}
	}
	return f, nil
}
