package metrics

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// gpuCountLabel is the gpu_count label: 8, 0.5 (the CLI's number format;
// the collectors import nothing of cmd, so that they can live beside the
// daemon).
func gpuCountLabel(n float64) string { return strconv.FormatFloat(n, 'f', -1, 64) }

// scrapeTimeout bounds the database reads of one scrape.
const scrapeTimeout = 5 * time.Second

// FreshnessStore is what the freshness collector reads at scrape time.
type FreshnessStore interface {
	LastSuccessTimes(ctx context.Context) (map[string]time.Time, error)
	LastQueued(ctx context.Context, kind string) (time.Time, bool, error)
}

// freshnessCollector exports when each provider last succeeded and when the
// digest was last queued, read from the database at every scrape: a gauge
// set in memory would vanish with a restart in which the provider fails,
// and `time() - pricewatch_fetch_last_success_timestamp_seconds > …` could
// then never fire.
type freshnessCollector struct {
	db          FreshnessStore
	readErrors  *prometheus.CounterVec
	lastSuccess *prometheus.Desc
	digest      *prometheus.Desc
}

// NewFreshnessCollector reads the freshness series from db at each
// scrape, counting failed reads in readErrors.
func NewFreshnessCollector(db FreshnessStore, readErrors *prometheus.CounterVec) prometheus.Collector {
	return &freshnessCollector{
		db: db, readErrors: readErrors,
		lastSuccess: prometheus.NewDesc("pricewatch_fetch_last_success_timestamp_seconds",
			"Unix time the last successful run of each provider finished (from the database; absent until one succeeded).", []string{"provider"}, nil),
		digest: prometheus.NewDesc("pricewatch_digest_last_success_timestamp_seconds",
			"Unix time the last weekly digest was queued (from the database; absent until one was).", nil, nil),
	}
}

func (c *freshnessCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.lastSuccess
	ch <- c.digest
}

func (c *freshnessCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	// A failed read leaves the series out (and counts it) rather than
	// failing the whole scrape, which would hide every other series too.
	if last, err := c.db.LastSuccessTimes(ctx); err != nil {
		c.readErrors.WithLabelValues("last_success").Inc()
	} else {
		for p, t := range last {
			ch <- prometheus.MustNewConstMetric(c.lastSuccess, prometheus.GaugeValue, unixSeconds(t), p)
		}
	}
	if at, ok, err := c.db.LastQueued(ctx, digest.Kind); err != nil {
		c.readErrors.WithLabelValues("digest").Inc()
	} else if ok {
		ch <- prometheus.MustNewConstMetric(c.digest, prometheus.GaugeValue, unixSeconds(at))
	}
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// PriceStore is what the price collector reads.
type PriceStore interface {
	DataVersion(ctx context.Context) (string, error)
	// EachPrice streams the rows: the series keep each current offer's
	// identity, not its interval, so a whole slice of rows (≈20 MB at
	// 45k offers) is never held at once.
	EachPrice(ctx context.Context, f storage.PriceFilter, fn func(p *storage.PriceInterval) error) error
	FXDays(ctx context.Context) ([]storage.FXDay, error)
}

// PriceSettings are the parts of the config the price series depend on;
// the daemon passes a function so that a reload takes effect.
type PriceSettings struct {
	Currency string
	Fixed    map[string]string
	MaxAge   time.Duration
	Offers   Offers
}

// Offers is metrics.offers: the offers exported one series each
// (pricewatch_offer_price_per_gpu_hour); the config's section documents
// each field.
type Offers struct {
	GPUModels, PriceTypes, Providers []string
}

// priceCollector exports the cheapest current price per GPU-hour of each
// GPU model and price type, converted into fx.currency exactly as
// `compare` converts (the same analysis.Compare), the offer it comes from
// as an info series, and, for the offers metrics.offers selects, one
// series per offer. The rows are computed once per committed run (or
// stored exchange rate, or config): a scrape between runs reuses them.
type priceCollector struct {
	db         PriceStore
	settings   func() PriceSettings
	now        func() time.Time
	readErrors *prometheus.CounterVec

	cheapest, info, offer *prometheus.Desc

	mu      sync.Mutex // guards key and metrics
	key     string
	metrics []prometheus.Metric
	// computing is held while the series are recomputed: one at a time.
	computing sync.Mutex
	// recomputed, when set, hears that new series replaced the last
	// (a kept scrape of them is then stale: keptScrape).
	recomputed func()
}

// NewPriceCollector computes the price series from db with the settings
// the function returns, once per committed run.
func NewPriceCollector(db PriceStore, settings func() PriceSettings, readErrors *prometheus.CounterVec) prometheus.Collector {
	return &priceCollector{
		db: db, settings: settings, now: time.Now, readErrors: readErrors,
		cheapest: prometheus.NewDesc("pricewatch_cheapest_price_per_gpu_hour",
			"Cheapest current Linux price per GPU-hour of a GPU model and price type across clouds, converted into fx.currency as compare does (commitments: effective hourly, upfront spread over the term).",
			[]string{"gpu_model", "price_type", "currency"}, nil),
		info: prometheus.NewDesc("pricewatch_cheapest_offer_info",
			"The offer behind pricewatch_cheapest_price_per_gpu_hour; always 1.",
			[]string{"gpu_model", "price_type", "currency", "provider", "region", "zone", "instance_type", "term", "payment", "offering_class", "gpu_count"}, nil),
		offer: prometheus.NewDesc("pricewatch_offer_price_per_gpu_hour",
			"Current Linux price per GPU-hour of each offer metrics.offers selects, in fx.currency.",
			[]string{"provider", "region", "zone", "instance_type", "price_type", "term", "payment", "offering_class", "gpu_model", "gpu_count", "currency"}, nil),
	}
}

func (c *priceCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.cheapest
	ch <- c.info
	ch <- c.offer
}

func (c *priceCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	ms, err := c.current(ctx)
	if err != nil {
		// The prices did not change because they could not be read: the
		// last good series stand, and the failure is counted.
		c.readErrors.WithLabelValues("prices").Inc()
		c.mu.Lock()
		ms = c.metrics
		c.mu.Unlock()
	}
	for _, m := range ms {
		ch <- m
	}
}

// current returns the cached series, recomputing them when a run has
// committed, rates were stored or the settings changed since. Once there
// are series, a scrape never computes: it gets the last ones and starts
// the recomputation beside it if none is going (issue 30: scrapes took 13 s
// behind pages, and a scrape that found no recomputation going computed
// in-line, 6.6 s on the share-1 database). Only the first series make
// their scrape wait.
func (c *priceCollector) current(ctx context.Context) ([]prometheus.Metric, error) {
	key, set, err := c.keyNow(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	last, have := c.metrics, c.key != ""
	fresh := key == c.key
	c.mu.Unlock()
	if fresh {
		return last, nil
	}
	if have {
		if c.computing.TryLock() {
			go func() {
				defer c.computing.Unlock()
				// Its own deadline: the scrape that started it is gone.
				ctx, cancel := context.WithTimeout(context.Background(), recomputeTimeout)
				defer cancel()
				if _, err := c.recompute(ctx, key, set); err != nil {
					c.readErrors.WithLabelValues("prices").Inc()
				}
			}()
		}
		return last, nil
	}
	c.computing.Lock()
	defer c.computing.Unlock()
	return c.recompute(ctx, key, set)
}

// keyNow is the key of the series of the data version and settings now.
func (c *priceCollector) keyNow(ctx context.Context) (string, PriceSettings, error) {
	version, err := c.db.DataVersion(ctx)
	if err != nil {
		return "", PriceSettings{}, err
	}
	set := c.settings()
	// A run's start moves the version, not the prices: ContentVersion.
	return storage.ContentVersion(version) + "|" + settingsKey(set), set, nil
}

// recomputeTimeout bounds a recomputation no scrape waits for.
const recomputeTimeout = time.Minute

// recompute computes the series of key unless they are there already;
// the caller holds computing.
func (c *priceCollector) recompute(ctx context.Context, key string, set PriceSettings) ([]prometheus.Metric, error) {
	c.mu.Lock()
	if key == c.key {
		ms := c.metrics
		c.mu.Unlock()
		return ms, nil
	}
	c.mu.Unlock()
	ms, err := c.compute(ctx, set)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.key, c.metrics = key, ms
	c.mu.Unlock()
	if c.recomputed != nil {
		c.recomputed()
	}
	return ms, nil
}

func settingsKey(s PriceSettings) string {
	var b strings.Builder
	b.WriteString(s.Currency + " " + s.MaxAge.String())
	keys := make([]string, 0, len(s.Fixed))
	for k := range s.Fixed {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString(" " + k + "=" + s.Fixed[k])
	}
	for _, l := range [][]string{s.Offers.GPUModels, s.Offers.PriceTypes, s.Offers.Providers} {
		b.WriteString(" [" + strings.Join(l, ",") + "]")
	}
	return b.String()
}

// compute rates each current Linux offer once, as it is read, and keeps
// the cheapest of each stored GPU model and price type, in Compare's order
// (price per GPU-hour, then key), with the offers metrics.offers selects.
// A Compare per model sorted every row and derived figures the series do
// not show, over a copy of every offer: 270 ms of CPU at each version on
// the share-0.25 database, every replica's, scraped or not.
func (c *priceCollector) compute(ctx context.Context, set PriceSettings) ([]prometheus.Metric, error) {
	book, err := report.FXBook(ctx, c.db, report.FX{FixedRates: set.Fixed, MaxAge: set.MaxAge})
	if err != nil {
		return nil, err
	}
	cur := strings.ToUpper(set.Currency)
	rater, err := analysis.NewRater(analysis.AvailabilityIndex{}, analysis.CompareOptions{Currency: cur, FX: book, At: c.now().UTC(), CheapestOnly: true})
	if err != nil {
		return nil, err
	}
	type kind struct {
		model string
		pt    pricewatch.PriceType
	}
	cheapest := map[kind]*analysis.CompareRow{}
	// A model name no filter can match (gpu.Matches: nothing left once
	// normalised) was never compared; each name is looked at once.
	matchable := map[string]bool{}
	var out []prometheus.Metric
	err = c.db.EachPrice(ctx, storage.PriceFilter{OS: pricewatch.Linux, CurrentOnly: true}, func(p *storage.PriceInterval) error {
		model := p.GPUModel
		if model == "" {
			return nil
		}
		ok, seen := matchable[model]
		if !seen {
			ok = gpu.Matches(model, model)
			matchable[model] = ok
		}
		if !ok {
			return nil
		}
		r, ok := rater.Rate(&p.Offer)
		if !ok || !r.PerGPU {
			return nil // Compare's skipped and unconverted offers
		}
		k := kind{model, r.PriceType}
		if b := cheapest[k]; b == nil || analysis.PriceCompare(true, r.PricePerGPUHour, &r.OfferKeyJSON, true, b.PricePerGPUHour, &b.OfferKeyJSON) < 0 {
			row := r.CompareRow
			cheapest[k] = &row
		}
		if selected(set.Offers, r.CompareRow) {
			out = append(out, prometheus.MustNewConstMetric(c.offer, prometheus.GaugeValue, r.PricePerGPUHour.InexactFloat64(),
				r.Provider, r.Region, r.Zone, r.InstanceType, string(r.PriceType), r.Term, r.Payment, r.OfferingClass,
				model, gpuCountLabel(r.GPUCount), cur))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k, r := range cheapest {
		out = append(out,
			prometheus.MustNewConstMetric(c.cheapest, prometheus.GaugeValue, r.PricePerGPUHour.InexactFloat64(), k.model, string(k.pt), cur),
			prometheus.MustNewConstMetric(c.info, prometheus.GaugeValue, 1, k.model, string(k.pt), cur,
				r.Provider, r.Region, r.Zone, r.InstanceType, r.Term, r.Payment, r.OfferingClass, gpuCountLabel(r.GPUCount)))
	}
	return out, nil
}

// selected reports whether metrics.offers asks for a series of the row.
func selected(f Offers, r analysis.CompareRow) bool {
	if len(f.GPUModels) == 0 {
		return false
	}
	model := false
	for _, g := range f.GPUModels {
		model = model || gpu.Matches(g, r.GPUModel)
	}
	return model && (len(f.PriceTypes) == 0 || slices.Contains(f.PriceTypes, string(r.PriceType))) &&
		(len(f.Providers) == 0 || slices.Contains(f.Providers, r.Provider))
}

// AddPriceSeries registers the price series, computed from db with the
// settings the function returns at scrape time. The function it returns
// computes the series of the data version now, so that the next scrapes
// find them ready; when a scrape already started their recomputation, it
// waits for that one and then computes again only if the version moved
// past it (CI failed once when it returned at once instead, and a scrape
// right after it served the last series).
func (m *Metrics) AddPriceSeries(db PriceStore, settings func() PriceSettings) (warm func()) {
	c := NewPriceCollector(db, settings, m.readErrors).(*priceCollector)
	c.recomputed = func() { m.moved.Add(1) }
	m.reg.MustRegister(c)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), recomputeTimeout)
		defer cancel()
		if err := c.warm(ctx); err != nil {
			m.readErrors.WithLabelValues("prices").Inc()
		}
	}
}

// warm computes the series of the data version and settings now, after
// any recomputation already going.
func (c *priceCollector) warm(ctx context.Context) error {
	key, set, err := c.keyNow(ctx)
	if err != nil {
		return err
	}
	c.computing.Lock()
	defer c.computing.Unlock()
	_, err = c.recompute(ctx, key, set)
	return err
}
