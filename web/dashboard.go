package web

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

var pageFuncs = template.FuncMap{
	"rate":      rateText,
	"money":     pricewatch.FormatAmount,
	"pct":       func(d decimal.Decimal) string { return d.StringFixed(1) + "%" },
	"share":     func(d decimal.Decimal) string { return d.Mul(decimal.NewFromInt(100)).StringFixed(1) + "%" },
	"move":      moveText,
	"moveClass": moveClass,
	"when":      whenText,
	"whenp": func(t *time.Time) string {
		if t == nil {
			return "never"
		}
		return whenText(*t)
	},
	"buy":       buyText,
	"gpus":      func(n float64, m string) string { return fmt.Sprintf("%s×%s", trimFloat(n), m) },
	"place":     pricewatch.Place,
	"avail":     availText,
	"ci":        func(i int) int { return i % len(palette) },
	"pathEsc":   url.PathEscape,
	"dur":       durText,
	"list":      func(v ...string) []string { return v },
	"offerRows": offerRows,
	"api":       func() string { return APIPrefix },
	"nd": func(d report.NullDecimal) decimal.NullDecimal {
		return decimal.NullDecimal{Decimal: d.D, Valid: d.Valid}
	},
	// The offers page's machine view (issue 31 item 3).
	"machineRows": machineRows,
}

// pages are parsed once: each page with the shared layout.
var pages = func() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range []string{"overview", "gpu", "gpus", "instance", "commitments", "offers", "offerscompare", "error"} {
		t := template.Must(template.New("layout.html").Funcs(pageFuncs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
		out[name] = t
	}
	return out
}()

func (s *Server) mountDashboard(mux *http.ServeMux) {
	static, _ := fs.Sub(staticFS, "static")
	files := http.FileServerFS(static)
	mux.Handle("GET /static/", http.StripPrefix("/static/", cacheStatic(files)))
	limited := func(h http.HandlerFunc) http.Handler { return s.cached(s.limiter.Wrap(h, s.pageShed)) }
	mux.Handle("GET /{$}", limited(s.pageOverview))
	mux.Handle("GET /gpu/{model}", limited(s.pageGPU))
	mux.Handle("GET /instance/{instance_type}", limited(s.pageInstance))
	mux.Handle("GET /commitments", limited(s.pageCommitments))
	mux.Handle("GET /offers", limited(s.pageOffers))
	mux.Handle("GET /offers.csv", limited(s.offersCSV))
	mux.Handle("GET /offers/compare", limited(s.pageOffersCompare))
	mux.Handle("GET /gpu/{$}", limited(s.pageGPUIndex))
	mux.HandleFunc("GET /gpu", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/gpu/", http.StatusMovedPermanently)
	})
	// Every other path is a 404 page that says where to look: the daemon
	// routes its own few paths (/metrics, /healthz, /readyz) beside these.
	mux.HandleFunc("/", s.pageNotFound)
}

// pageNotFound answers a path nothing serves with 404 and the pages there
// are (the API's own 404 stays JSON).
func (s *Server) pageNotFound(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.errorPage(w, http.StatusMethodNotAllowed, "The dashboard is read-only: GET only.")
		return
	}
	s.renderError(w, http.StatusNotFound, errorData{Msg: fmt.Sprintf("No page at %s.", r.URL.Path), Pages: true})
}

// errorData is what error.html shows: the message, the stored names
// nearest to one asked for (linked), and with Pages the pages there are.
type errorData struct {
	Msg     string
	Nearest []pageLink
	Pages   bool
}

type pageLink struct{ Href, Text string }

// notStoredData words a name nothing stored carries for a page: the CLI's
// message names commands, a page links the nearest names and the index.
func notStoredData(r *http.Request, ns *report.NotStoredError) errorData {
	if ns.What == "" {
		return errorData{Msg: ns.Msg, Pages: true}
	}
	d := errorData{Msg: fmt.Sprintf("No %s %q is stored.", ns.What, ns.Asked), Pages: true}
	if ns.What == "GPU model" {
		d.Msg = fmt.Sprintf("No GPU model matching %q is stored.", ns.Asked)
	}
	if ns.Stored == 0 {
		d.Msg += " Nothing of the kind is stored yet: no fetch has stored an offer."
	}
	for _, n := range ns.Nearest {
		href := "/instance/" + url.PathEscape(n)
		switch {
		case ns.What == "GPU model":
			href = "/gpu/" + url.PathEscape(n)
		case strings.HasPrefix(r.URL.Path, "/commitments"):
			v := r.URL.Query()
			v.Set("instance_type", n)
			href = "/commitments?" + v.Encode()
		}
		d.Nearest = append(d.Nearest, pageLink{Href: href, Text: n})
	}
	return d
}

// cacheStatic lets browsers keep the stylesheet a day; it changes only
// with the binary.
func cacheStatic(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		h.ServeHTTP(w, r)
	})
}

// page is what the layout needs besides the page's own data.
type page struct {
	Title    string
	Nav      string
	Now      time.Time
	Currency string
	// Script is a same-origin script the page loads (the CSP allows
	// 'self' only: no inline script, no eval).
	Script string
	Data   any
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, p page) {
	var buf bytes.Buffer
	if err := pages[name].Execute(&buf, p); err != nil {
		s.log().Error("http: rendering "+name, zap.Error(err))
		http.Error(w, "internal error rendering the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", CacheControl)
	w.Header().Set("Content-Security-Policy", ContentSecurityPolicy)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	writeMaybeGzip(w, r, buf.Bytes())
}

// ContentSecurityPolicy is every page's: nothing from elsewhere, no
// inline script or style; the offers table's script is a same-origin file
// (/static/offers.js) and reads the same-origin API.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// pageShed answers a page the limiter turned away.
func (s *Server) pageShed(w http.ResponseWriter, r *http.Request) {
	s.errorPage(w, http.StatusServiceUnavailable, "Too many requests at once: reload in a moment.")
}

// pageError shows a bad query as a page with a 400, a name nothing stored
// carries as 404 linking the nearest stored names, a page past its time as 503
// and anything else as 500.
func (s *Server) pageError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := http.StatusInternalServerError, "internal error reading the database (the daemon's log says more)"
	var pe *report.ParamError
	var ns *report.NotStoredError
	switch {
	case errors.As(err, &pe):
		status, msg = http.StatusBadRequest, pe.Msg
	case errors.As(err, &ns):
		s.renderError(w, http.StatusNotFound, notStoredData(r, ns))
		return
	case overBudget(r, err):
		w.Header().Set("Retry-After", s.retryAfter())
		status, msg = http.StatusServiceUnavailable, "This page took longer than the server allows: reload in a moment, or narrow it."
	case errors.Is(err, context.Canceled):
		return
	default:
		s.log().Error("http: page "+r.URL.Path, zap.Error(err))
	}
	s.errorPage(w, status, msg)
}

// errorPage is the error page with status and msg.
func (s *Server) errorPage(w http.ResponseWriter, status int, msg string) {
	s.renderError(w, status, errorData{Msg: msg})
}

func (s *Server) renderError(w http.ResponseWriter, status int, d errorData) {
	var buf bytes.Buffer
	if e := pages["error"].Execute(&buf, page{Title: http.StatusText(status), Now: s.now(), Data: d}); e != nil {
		http.Error(w, d.Msg, status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", ContentSecurityPolicy)
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func (s *Server) pageParams(w http.ResponseWriter, r *http.Request, allowed ...string) (*params, bool) {
	p, err := parseParams(r.URL.Query(), allowed)
	if err != nil {
		s.pageError(w, r, &report.ParamError{Msg: err.Error()})
		return nil, false
	}
	return p, true
}

// ---- Overview ----

type overviewData struct {
	Models    []digest.ModelRow
	Freshness []digest.ProviderStatus
	Alerts    []alertView
	Rates     []digest.Rate
}

// alertView is one alert with its delivery to each channel: the outbox
// holds a message per channel, which listed as they are showed every
// alert once per channel with no channel named.
type alertView struct {
	Kind, Summary string
	CreatedAt     any
	Deliveries    []report.AlertRow
}

// latestAlerts are the newest n alerts, newest first, each with its
// delivery to every channel: a run queues an alert's messages together
// (one created_at), so kind, summary and that time name an alert.
func latestAlerts(rows []report.AlertRow, n int) []alertView {
	var out []alertView
	at := map[string]int{}
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		key := fmt.Sprint(r.Kind, "\x00", r.Summary, "\x00", r.CreatedAt)
		if j, ok := at[key]; ok {
			out[j].Deliveries = append(out[j].Deliveries, r)
			continue
		}
		if len(out) == n {
			break
		}
		at[key] = len(out)
		out = append(out, alertView{Kind: r.Kind, Summary: r.Summary, CreatedAt: r.CreatedAt, Deliveries: []report.AlertRow{r}})
	}
	for _, a := range out {
		sort.SliceStable(a.Deliveries, func(i, j int) bool { return a.Deliveries[i].Channel < a.Deliveries[j].Channel })
	}
	return out
}

func (s *Server) pageOverview(w http.ResponseWriter, r *http.Request) {
	// The providers' freshness shows each one's last run, a running one too.
	showsRuns(r.Context())
	p, ok := s.pageParams(w, r, "currency", "now")
	if !ok {
		return
	}
	ctx := r.Context()
	sc, err := s.scope(p)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	model, err := s.overviewModel(r, sc, p.str("now") == "")
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	// The providers' freshness is read for every version: a run's start
	// shows in it, and in nothing else of the page.
	runs, err := report.ProviderRuns(ctx, s.Store)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	var expected map[string]time.Duration
	if s.Expected != nil {
		expected = s.Expected(sc.At)
	}
	freshness := digest.Freshness(runs, expected, sc.At)
	// The last 10 alerts, of at most 5 channels each.
	alerts, err := report.Alerts(ctx, s.Store, report.AlertsQuery{Limit: 50}, s.AlertSummary)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	s.render(w, r, "overview", page{Title: "GPU prices", Nav: "overview", Now: sc.At, Currency: sc.Currency,
		Data: overviewData{Models: model.models, Freshness: freshness, Alerts: latestAlerts(alerts, 10), Rates: model.rates}})
}

// overviewPrices is what the overview shows of the prices: the cheapest
// per model and buy option, the week's moves and the rates used. It is
// the page's whole cost (a read of every current offer and of the week's
// closed intervals, each rated), and the same at every data version of
// one ContentVersion: a run's start, which recomputes the page for its
// freshness, reuses it (issue 30).
type overviewPrices struct {
	key    string // content version, query and settings, minute of the clock
	models []digest.ModelRow
	rates  []digest.Rate
}

// overviewModel is the overview's prices for r, computed or kept.
// present: without a now= of its own, the prices in force now are the
// current state's, kept in memory per data version; with one, the
// store's.
func (s *Server) overviewModel(r *http.Request, sc report.Scope, present bool) (*overviewPrices, error) {
	ctx := r.Context()
	version, err := s.dataVersion(ctx)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s\x00%s\x00%d", storage.ContentVersion(version), s.answerKey(r), s.now().Unix()/60)
	if m := s.overview.Load(); m != nil && m.key == key {
		return m, nil
	}
	book, err := report.FXBook(ctx, s.Store, s.FX())
	if err != nil {
		return nil, err
	}
	var st report.Store = s.Store
	if present {
		st = s.CurrentReads(ctx)
	}
	m := &overviewPrices{key: key}
	if cur, ok := st.(providerReads); ok {
		m.models, m.rates, err = s.overviewByProvider(ctx, cur, sc, book, key)
	} else {
		var d digest.Digest
		d, err = overviewPartOf(ctx, st, sc, book, present, nil, nil)
		m.models, m.rates = d.Models, d.Rates
	}
	if err != nil {
		return nil, err
	}
	s.overview.Store(m)
	return m, nil
}

// overviewPartOf is the overview's digest of providers' offers (nil: every
// provider's), with models as its rows (nil: those with a current price).
func overviewPartOf(ctx context.Context, st report.Store, sc report.Scope, book *fx.Book, present bool, providers, models []string) (digest.Digest, error) {
	set := func(in *digest.Input) {
		in.Currency, in.FX, in.Models = sc.Currency, book, models
		if models == nil {
			in.Models = currentModels(in.Prices, sc.At)
		}
		// The overview shows the commitment column, not the savings,
		// and neither chart nor movers.
		in.WithoutSavings, in.WithoutChart, in.WithoutMoves = true, true, true
	}
	if present && models != nil {
		// The models known, the prices are read one part of them at a
		// time (a provider's part of the kept overview).
		return report.OverviewDigest(ctx, st, sc.At, providers, set)
	}
	// The overview shows the week-over-week moves, not the digest's
	// changes or 12-week chart: the prices now and a week ago are all it
	// reads.
	in, err := report.OverviewInput(ctx, st, sc.At, present, providers)
	if err != nil {
		return digest.Digest{}, err
	}
	set(&in)
	return report.BuildInParts(in)
}

// providerReads is a store whose current reads come from a current state
// that tells when each provider's rows were read (report.CurrentState).
type providerReads interface {
	report.Store
	ReadAt(provider string) string
	CurrentGPUModels(os string, at time.Time) []string
}

// overviewPart is one provider's rows and rates of the overview.
type overviewPart struct {
	rows  []digest.ModelRow
	rates []digest.Rate
}

// overviewByProvider is the overview's rows and rates merged from one
// part per provider (digest.MergeRows, providerParts), each built again
// only when its provider ran, or the models shown, the newest rates, the
// settings or the minute changed. A day of older rates stored later shows
// once the state is next read whole (report.CurrentState.ReadAt). key is
// the whole overview's, but for its content version.
func (s *Server) overviewByProvider(ctx context.Context, st providerReads, sc report.Scope, book *fx.Book, key string) ([]digest.ModelRow, []digest.Rate, error) {
	// Every part has a row for each model any provider shows, so that
	// the rows merge one to one.
	names := st.CurrentGPUModels(pricewatch.Linux, sc.At)
	_, settings, _ := strings.Cut(key, "\x00")
	parts, err := s.overviewParts.get(ctx, st, partKey(latestRates(book), strings.Join(names, ","), settings), func(p string) (overviewPart, error) {
		d, err := overviewPartOf(ctx, st, sc, book, true, []string{p}, names)
		return overviewPart{rows: d.Models, rates: d.Rates}, err
	})
	if err != nil {
		return nil, nil, err
	}
	rows := make([][]digest.ModelRow, 0, len(parts))
	rateParts := make([][]digest.Rate, 0, len(parts))
	for _, part := range parts {
		rows, rateParts = append(rows, part.rows), append(rateParts, part.rates)
	}
	merged, err := digest.MergeRows(rows)
	if err != nil {
		return nil, nil, err
	}
	if merged == nil {
		merged = []digest.ModelRow{}
	}
	return merged, digest.MergeRates(rateParts), nil
}

// latestRates names the newest day of exchange rates in book: a part
// converted with older ones is built again.
func latestRates(book *fx.Book) string {
	if latest, ok := book.Latest(); ok {
		return latest.Date.Format(time.DateOnly) + " " + latest.Source
	}
	return ""
}

// currentModels are the GPU models with a current price, each exactly as
// stored (a family name would fold A100-40GB and A100-80GB into one row).
func currentModels(prices []analysis.Interval, now time.Time) []string {
	seen := map[string]bool{}
	for _, iv := range prices {
		if iv.GPUModel != "" && (iv.To.IsZero() || iv.To.After(now)) {
			seen[iv.GPUModel] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// ---- GPU ----

type gpuData struct {
	Model         string
	Count         string
	PriceType     string
	AvailableOnly bool
	Days          int
	DaysChoices   []int
	PriceTypes    []string
	Compare       analysis.CompareResult
	Chart         LineChart
	// Timeline is the availability of the GPU's types over the chart's days.
	Timeline Timeline
	Query    url.Values // the page's own parameters, for links
	// AnyBand: some spot row has an interruption or eviction band (the
	// band column is shown then).
	AnyBand bool
	// Signals are the GPU's current capacity signals.
	Signals []signalView
}

var chartDays = []int{7, 30, 90}

func (s *Server) pageGPU(w http.ResponseWriter, r *http.Request) {
	drawsHistory(r.Context()) // the cheapest price's chart over 7-90 days
	p, ok := s.pageParams(w, r, "count", "price_type", "available_only", "days", "currency", "provider", "region", "now")
	if !ok {
		return
	}
	ctx := r.Context()
	model := r.PathValue("model")
	p.v.Set("gpu", model)
	// On-demand unless asked, as compare and the API default (issue 25).
	if !p.has("price_type") {
		p.v.Set("price_type", "on_demand")
	}
	q, err := s.compareQuery(p)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	// A model nothing stored matches is a 404 with the CLI's suggestions,
	// not an empty page (issue 20 item 23).
	if err := report.CheckGPUModel(ctx, s.Store, model); err != nil {
		s.pageError(w, r, err)
		return
	}
	days := 30
	if v := p.str("days"); v != "" {
		if _, err := fmt.Sscanf(v, "%d", &days); err != nil || days < 1 || days > 366 {
			s.pageError(w, r, &report.ParamError{Msg: fmt.Sprintf("days %q: want a number of days from 1 to 366 (7, 30, 90)", v)})
			return
		}
	}
	book, err := report.FXBook(ctx, s.Store, s.FX())
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	res, err := report.Compare(ctx, s.CurrentReads(ctx), book, q)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	chart := LineChart{ID: "chart-cheapest", Title: fmt.Sprintf("Cheapest %s per GPU-hour, last %d days", model, days),
		Unit: q.Currency + " per GPU-hour", From: q.At.Add(-time.Duration(days) * 24 * time.Hour), To: q.At}
	pts := []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Spot}
	cheapest, err := report.CheapestByPriceType(ctx, s.Store, book, report.TrendsQuery{Scope: q.Scope, GPU: model,
		Window: time.Duration(days) * 24 * time.Hour, PriceTypes: pts})
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	for i, cs := range cheapest {
		line := Line{Name: strings.ReplaceAll(string(pts[i]), "_", "-"), Dashed: pts[i] == pricewatch.Spot}
		for _, pnt := range cs.Points {
			line.Steps = append(line.Steps, Step{At: pnt.At, Value: pnt.PerGPUHour.InexactFloat64(),
				Label: fmt.Sprintf("%s %s/GPU-h at %s %s %s", rateText(pnt.PerGPUHour), q.Currency, pnt.Key.Provider, pnt.Key.Region, pnt.Key.InstanceType)})
		}
		if len(line.Steps) > 0 {
			chart.Lines = append(chart.Lines, line)
		}
	}
	avail, err := report.Availability(ctx, s.Store, report.AvailabilityQuery{GPU: model, All: true, Providers: q.Providers, Regions: q.Regions})
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	signals, err := s.currentSignals(ctx, report.SignalQuery{GPU: model, Providers: q.Providers, Regions: q.Regions})
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	anyBand := false
	for _, row := range res.Rows {
		anyBand = anyBand || row.InterruptionBand != "" || row.EvictionBand != ""
	}
	pt := p.str("price_type")
	query := url.Values{}
	for _, k := range []string{"count", "price_type", "available_only", "currency", "provider", "region", "now"} {
		if p.has(k) && !(k == "price_type" && pt == "on_demand" && !r.URL.Query().Has("price_type")) {
			query[k] = p.v[k]
		}
	}
	s.render(w, r, "gpu", page{Title: model + " prices", Nav: "gpu", Now: q.At, Currency: q.Currency, Data: gpuData{
		Model: model, Count: p.str("count"), PriceType: pt, AvailableOnly: q.AvailableOnly, Days: days, DaysChoices: chartDays,
		PriceTypes: []string{"any", "on_demand", "spot", "reserved", "savings_plan"}, Compare: res, Chart: chart, Query: query,
		Timeline: availabilityTimeline(avail, chart.From, q.At, true), AnyBand: anyBand, Signals: signals,
	}})
}

// ---- Instance type ----

type instanceData struct {
	InstanceType string
	Since        string
	Current      []currentPrice
	Chart        LineChart
	Timeline     Timeline
	HasHistory   bool
	// AnyBand: some current spot price has a band (the column is shown).
	AnyBand bool
	// Signals are the type's current capacity signals.
	Signals []signalView
}

// currentPrice is a current price with its spot band ("" for none).
type currentPrice struct {
	storage.PriceInterval
	Band string
}

func (s *Server) pageInstance(w http.ResponseWriter, r *http.Request) {
	drawsHistory(r.Context()) // its price chart over 30-365 days
	p, ok := s.pageParams(w, r, "provider", "region", "since")
	if !ok {
		return
	}
	ctx := r.Context()
	it := r.PathValue("instance_type")
	if !p.has("since") {
		p.v.Set("since", "90d")
	}
	q, err := s.historyQuery(it, p)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	// The stored spelling, or a 404 with the CLI's suggestions (issue 20
	// item 23), as the API's history does.
	if err := s.resolveInstanceType(ctx, &q.InstanceType); err != nil {
		s.pageError(w, r, err)
		return
	}
	it = q.InstanceType
	showsInstanceType(ctx, it)
	now := s.now()
	// The chart reads the daily summary before the last days (a year
	// costs a point per offer and day); the table the current prices.
	var chart historyChart
	if err := report.EachChartHistory(ctx, s.Store, q, now, func(r *storage.PriceInterval) error {
		chart.add(r)
		return nil
	}); err != nil {
		s.pageError(w, r, err)
		return
	}
	cq := q
	cq.Since, cq.Limit, cq.CurrentOnly = time.Time{}, 0, true
	current, err := report.History(ctx, s.Store, cq)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	avail, err := report.Availability(ctx, s.Store, report.AvailabilityQuery{InstanceType: it, All: true, Providers: q.Providers, Regions: q.Regions})
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	// The charts start at the first stored price when that is later than
	// the period asked: a type first seen last week draws no empty months.
	first := now
	if chart.n > 0 && chart.first.Before(first) {
		first = chart.first
	}
	from := maxTime(q.Since, first)
	if !from.Before(now) {
		from = now.Add(-24 * time.Hour)
	}
	bands, err := report.CurrentSpotBands(ctx, s.Store)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	d := instanceData{InstanceType: it, Since: p.str("since"), HasHistory: chart.n > 0 || len(current) > 0}
	for _, r := range current {
		c := currentPrice{PriceInterval: r, Band: spotBand(bands, r.Offer)}
		d.AnyBand = d.AnyBand || c.Band != ""
		d.Current = append(d.Current, c)
	}
	if d.Signals, err = s.currentSignals(ctx, report.SignalQuery{InstanceType: it, Providers: q.Providers, Regions: q.Regions}); err != nil {
		s.pageError(w, r, err)
		return
	}
	sort.SliceStable(d.Current, func(i, j int) bool { return d.Current[i].EffectiveHourly.LessThan(d.Current[j].EffectiveHourly) })
	currency := ""
	if len(current) > 0 {
		currency = current[0].Currency
	} else if chart.n > 0 {
		currency = chart.currency
	}
	d.Chart = LineChart{ID: "chart-history", Title: it + ": lowest effective hourly price per place and price type", Unit: currency + " per hour",
		From: from, To: now, Lines: chart.lines(from, now)}
	d.Timeline = availabilityTimeline(avail, from, now, false)
	s.render(w, r, "instance", page{Title: it, Nav: "instance", Now: now, Currency: currency, Data: d})
}

// availabilityTimeline is a row per place (and per type with byType, for
// a GPU's many types) and a bar per interval since from.
func availabilityTimeline(avail []pricewatch.AvailabilityInterval, from, to time.Time, byType bool) Timeline {
	t := Timeline{ID: "timeline-availability", From: from, To: to, Rows: map[string][]Bar{}}
	for _, a := range avail {
		if a.Until != nil && a.Until.Before(from) {
			continue
		}
		place := a.Provider + " " + pricewatch.Place(a.Region, a.Zone)
		if byType {
			place += " " + a.InstanceType
		}
		b := Bar{From: a.Since, State: string(a.State)}
		if a.Until != nil {
			b.Until = *a.Until
		}
		t.Rows[place] = append(t.Rows[place], b)
		if n := clouds.ConfidentialAvailability(a.Provider); n != "" && !slices.Contains(t.Confidential, n) {
			t.Confidential = append(t.Confidential, n)
		}
	}
	return t
}

// historyChart gathers an instance chart's intervals as the store hands
// them out, keeping of each only what its line draws: a year of a busy
// type is tens of thousands of intervals, and whole rows of them (two
// copies, the read's and its line's) were 17 MB of the 20 MB the
// instance page's 365-day view held on the share-1 database (issue 30).
type historyChart struct {
	byName map[string][]chartInterval
	// n counts every interval added, first is the earliest start and
	// currency the first one's: Windows prices are left out of the lines
	// only.
	n        int
	first    time.Time
	currency string
}

// chartInterval is an interval as a line draws it; to is zero while open.
type chartInterval struct {
	from, to time.Time
	eff      decimal.Decimal
}

// add takes r into its line (one per place, price type and term). A
// commitment's line is per term: the lowest of 1 and 3 years drawn as one
// "reserved" line made a 3-year price in one region look comparable with
// a 1-year one in the next. Windows prices are left out: they would sit
// above Linux ones on every line.
func (c *historyChart) add(r *storage.PriceInterval) {
	if c.n == 0 || r.ValidFrom.Before(c.first) {
		c.first = r.ValidFrom
	}
	if c.n == 0 {
		c.currency = r.Currency
	}
	c.n++
	if r.OS != "" && r.OS != pricewatch.Linux {
		return
	}
	iv := chartInterval{from: r.ValidFrom, eff: r.EffectiveHourly}
	if r.ValidTo != nil {
		iv.to = *r.ValidTo
	}
	if c.byName == nil {
		c.byName = map[string][]chartInterval{}
	}
	name := pricewatch.Place(r.Region, r.Zone) + " " + pricewatch.HowBought(r.PriceType, r.Term, "", "")
	c.byName[name] = append(c.byName[name], iv)
}

// lines draws one line per place, price type and term: at every moment
// the lowest effective hourly price among its offers (payments, classes),
// in the cloud's own currency.
func (c *historyChart) lines(from, to time.Time) []Line {
	var out []Line
	for _, name := range slices.Sorted(maps.Keys(c.byName)) {
		ivs := c.byName[name]
		// Every start and end is a moment the minimum may change.
		var times []time.Time
		for _, iv := range ivs {
			times = append(times, maxTime(iv.from, from))
			if !iv.to.IsZero() && iv.to.Before(to) {
				times = append(times, iv.to)
			}
		}
		sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
		line := Line{Name: name, Dashed: strings.HasSuffix(name, "spot")}
		var last *decimal.Decimal
		for i, t := range times {
			if i > 0 && t.Equal(times[i-1]) {
				continue
			}
			var low *decimal.Decimal
			for j := range ivs {
				iv := &ivs[j]
				if !iv.from.After(t) && (iv.to.IsZero() || iv.to.After(t)) {
					if low == nil || iv.eff.LessThan(*low) {
						low = &iv.eff
					}
				}
			}
			if low == nil {
				// A gap: the line ends here and picks up at the next price.
				if last != nil {
					line.End = t
				}
				continue
			}
			if last == nil || !low.Equal(*last) {
				line.Steps = append(line.Steps, Step{At: t, Value: low.InexactFloat64(), Label: rateText(*low)})
				line.End = time.Time{}
			}
			last = low
		}
		if len(line.Steps) > 0 {
			out = append(out, line)
		}
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// ---- Commitments ----

type commitmentsData struct {
	InstanceType string
	Utilization  string
	Savings      report.Savings
	Choices      []string // instance types with a commitment price
}

func (s *Server) pageCommitments(w http.ResponseWriter, r *http.Request) {
	p, ok := s.pageParams(w, r, "instance_type", "utilization", "currency", "provider", "region", "os", "now")
	if !ok {
		return
	}
	ctx := r.Context()
	it := p.str("instance_type")
	if !p.has("utilization") || p.str("utilization") == "" {
		p.v.Set("utilization", "1")
	}
	q, err := s.savingsQuery(it, p)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	if it != "" {
		if err := s.resolveInstanceType(ctx, &q.InstanceType); err != nil {
			s.pageError(w, r, err)
			return
		}
		it = q.InstanceType
	}
	d := commitmentsData{InstanceType: it, Utilization: p.str("utilization")}
	if d.Choices, err = commitmentTypes(ctx, s.Store, q.Scope); err != nil {
		s.pageError(w, r, err)
		return
	}
	if it != "" {
		if d.Savings, err = s.savings(ctx, q); err != nil {
			s.pageError(w, r, err)
			return
		}
	}
	s.render(w, r, "commitments", page{Title: "Commitments " + it, Nav: "commitments", Now: q.At, Currency: q.Currency, Data: d})
}

// commitmentTypes are the instance types with both a commitment and an
// on-demand price now, for the page's picker.
func commitmentTypes(ctx context.Context, st report.Store, sc report.Scope) ([]string, error) {
	offers, err := report.CurrentOffers(ctx, st, sc)
	if err != nil {
		return nil, err
	}
	commit, od := map[string]bool{}, map[string]bool{}
	for _, o := range offers {
		if o.PriceType.IsCommitment() {
			commit[o.InstanceType] = true
		}
		if o.PriceType == pricewatch.OnDemand {
			od[o.InstanceType] = true
		}
	}
	var out []string
	for t := range commit {
		if od[t] {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out, nil
}

// ---- Formatting ----

// rateText shows a derived rate to four decimals, as the CLI's tables do.
func rateText(d decimal.Decimal) string {
	if d.Equal(d.Round(4)) {
		return pricewatch.FormatPrice(d)
	}
	return d.StringFixed(4)
}

func moveText(d decimal.NullDecimal) string {
	if !d.Valid {
		return "–"
	}
	sign := ""
	if d.Decimal.IsPositive() {
		sign = "+"
	}
	return sign + d.Decimal.StringFixed(1) + "%"
}

func moveClass(d decimal.NullDecimal) string {
	switch {
	case !d.Valid || d.Decimal.IsZero():
		return "flat"
	case d.Decimal.IsPositive():
		return "up"
	}
	return "down"
}

func whenText(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func durText(d time.Duration) string {
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return d.Round(time.Minute).String()
}

// buyText is the one "how it's bought" label (pricewatch.HowBought).
func buyText(o pricewatch.Offer) string { return o.Key().HowBought() }

func availText(a *bool, state string) string {
	switch {
	case a == nil:
		return "unknown"
	case *a:
		return strings.ReplaceAll(report.AvailabilityName(state), "_", " ")
	}
	return "sold out"
}

func trimFloat(f float64) string {
	s := fmt.Sprintf("%g", f)
	return s
}
