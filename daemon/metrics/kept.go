package metrics

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/pricewatch/pricewatch/web"
)

// keptFor is how long a rendered scrape is served again to scrapes that
// negotiate the same way, while nothing the daemon counts or stores has
// moved: the process's and Go's own series are then up to this old.
// Issue 30: under 200 clients asking back to back, 420 scrapes a second
// each gathered every series again (the process collector reading /proc,
// the text encoding, gzip): 22 % of the daemon's CPU, which the
// refresher computing a stored run's answers then lacked. A Prometheus
// server scrapes every 10-60 s; two of an HA pair scraping in the same
// second get the same values.
const keptFor = time.Second

// maxKeptScrapes bounds the renderings kept, one per negotiation seen
// (Accept and Accept-Encoding): Prometheus, a browser, curl. Past it
// they are all dropped, so no run of odd headers grows the memory.
const maxKeptScrapes = 8

// keptScrape serves h's answers (the registry's exposition) from memory
// while they are fresh: of the same negotiation, at most keptFor old, of
// the data version now and of the same count of the daemon's own
// observations (Metrics.moved). Concurrent scrapes that find none share
// one rendering.
type keptScrape struct {
	h       http.Handler
	m       *Metrics
	version func(ctx context.Context) (string, error)
	now     func() time.Time

	mu     sync.Mutex
	kept   map[string]*scrape
	flight singleflight.Group
}

// scrape is one rendered answer and what it was rendered at.
type scrape struct {
	version string
	moved   uint64
	at      time.Time
	header  http.Header
	body    []byte
}

func (k *keptScrape) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	version, err := k.version(r.Context())
	if err != nil {
		// Rendered afresh: the series say what they can read.
		k.h.ServeHTTP(w, r)
		return
	}
	key := r.Header.Get("Accept") + "\x00" + r.Header.Get("Accept-Encoding")
	moved := k.m.moved.Load()
	now := k.now()
	k.mu.Lock()
	s := k.kept[key]
	k.mu.Unlock()
	if s == nil || s.version != version || s.moved != moved || now.Sub(s.at) >= keptFor || now.Before(s.at) {
		flight := key + "\x00" + version + "\x00" + strconv.FormatUint(moved, 10)
		v, _, _ := k.flight.Do(flight, func() (any, error) {
			// What moves while it renders renders again: the next scrape
			// finds the version or the count past these.
			s := &scrape{version: version, moved: moved, at: k.now()}
			rec := web.NewRecorder()
			req := r.Clone(context.WithoutCancel(r.Context()))
			k.h.ServeHTTP(rec, req)
			if rec.Status() != http.StatusOK {
				return rec, nil
			}
			s.header, s.body = rec.Header(), rec.Body()
			k.mu.Lock()
			if k.kept == nil || len(k.kept) >= maxKeptScrapes {
				k.kept = map[string]*scrape{}
			}
			k.kept[key] = s
			k.mu.Unlock()
			return s, nil
		})
		if rec, ok := v.(*web.Recorder); ok {
			// Not kept: a failed gathering is told as promhttp tells it.
			for name, vals := range rec.Header() {
				w.Header()[name] = vals
			}
			w.WriteHeader(rec.Status())
			w.Write(rec.Body())
			return
		}
		s = v.(*scrape)
	}
	for name, vals := range s.header {
		w.Header()[name] = vals
	}
	w.WriteHeader(http.StatusOK)
	w.Write(s.body)
}
