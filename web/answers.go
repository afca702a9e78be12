package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/singleflight"
)

// The answers of one data version: every page and API answer is computed
// once per data version (and query, settings and minute of the clock),
// kept rendered and gzip-compressed, and served from memory until a run
// stores something (issue 30). The data change only when a run stores, a
// few times an hour per cloud, while a team opens pages every few seconds:
// reading a quarter of interval history again for each view was what made
// two concurrent views cost several times one.
//
// An answer also depends on the clock (a 30-day move, "3 h ago", a trend
// window ending now), so it is kept for the minute it was computed in;
// the first request of a later minute is answered from the previous
// minute's answer while a fresh one is computed beside it (at most
// staleFor old). A new data version is never answered from an old one.
type answers struct {
	mu      sync.Mutex
	version string
	m       map[string]*answer
	bytes   int
	flight  singleflight.Group
}

// answer is one kept answer.
type answer struct {
	version string
	minute  int64
	status  int
	header  http.Header
	plain   []byte
	gz      []byte // nil when the body is too small to be worth compressing
	etag    string
}

const (
	// staleFor is how old (in minutes of the clock) an answer of the same
	// data version may be and still be served while its successor is
	// computed.
	staleFor = 2
	// maxAnswerBytes bounds what one data version's answers hold (plain
	// and compressed bodies); past it answers are computed and not kept.
	maxAnswerBytes = 24 << 20
	// maxAnswerBody: a body larger than this (an offers table of 20,000
	// rows) is computed every time rather than crowding out the rest.
	maxAnswerBody = 4 << 20
)

// cached serves h's answers from memory per data version.
func (s *Server) cached(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		version, err := s.dataVersion(r.Context())
		if err != nil {
			s.log().Warn("http: reading the data version; answering without the kept answers")
			h.ServeHTTP(w, r)
			return
		}
		s.answers.advance(version)
		key := s.answerKey(r)
		minute := s.now().Unix() / 60
		a, fresh := s.answers.get(version, key, minute)
		if !fresh {
			if a != nil && minute-a.minute <= staleFor {
				// Serve the previous minute's answer; compute the next one
				// beside it (once, whoever asks).
				go s.compute(h, r, version, key, minute)
			} else {
				a = s.compute(h, r, version, key, minute)
			}
		}
		a.serve(w, r)
	})
}

// dataVersion is the version the kept answers are keyed by: the watched
// one when the daemon keeps it current, else read now (a cheap query).
func (s *Server) dataVersion(ctx context.Context) (string, error) {
	if s.Versions == nil {
		return s.Store.DataVersion(ctx)
	}
	if v, ok := s.Versions.Current(); ok {
		return v, nil
	}
	return s.Versions.Refresh(ctx)
}

// answerKey is what an answer depends on besides the data and the clock:
// the path and query (in a canonical order) and the settings that shape
// it (the fx section, how often each cloud is expected to run).
func (s *Server) answerKey(r *http.Request) string {
	var b strings.Builder
	b.WriteString(r.URL.Path)
	b.WriteString("?")
	b.WriteString(r.URL.Query().Encode())
	fx := s.FX()
	fmt.Fprintf(&b, "|%s|%s|", fx.Currency, fx.MaxAge)
	for _, k := range sortedMapKeys(fx.FixedRates) {
		b.WriteString(k + "=" + fx.FixedRates[k] + ",")
	}
	if s.Expected != nil {
		e := s.Expected(s.now())
		b.WriteString("|")
		for _, k := range sortedMapKeys(e) {
			b.WriteString(k + "=" + e[k].String() + ",")
		}
	}
	return b.String()
}

func sortedMapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// get is the kept answer of key, and whether it is of this minute.
func (c *answers) get(version, key string, minute int64) (*answer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version {
		return nil, false
	}
	a := c.m[key]
	return a, a != nil && a.minute >= minute
}

// advance makes version the one whose answers are kept: a new data
// version drops every answer of the previous one.
func (c *answers) advance(version string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version {
		c.version, c.m, c.bytes = version, map[string]*answer{}, 0
	}
}

// put keeps a, unless the data moved on while it was computed or the
// version's answers are full.
func (c *answers) put(key string, a *answer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != a.version {
		return
	}
	size := len(a.plain) + len(a.gz)
	if old := c.m[key]; old != nil {
		c.bytes -= len(old.plain) + len(old.gz)
	} else if c.bytes+size > maxAnswerBytes {
		return
	}
	c.m[key] = a
	c.bytes += size
}

// compute runs h once for key (whoever else asks meanwhile waits for the
// same answer) and keeps a 200 answer.
func (s *Server) compute(h http.Handler, r *http.Request, version, key string, minute int64) *answer {
	v, _, _ := s.answers.flight.Do(version+"\x00"+key+"\x00"+fmt.Sprint(minute), func() (any, error) {
		// The computation is shared: one client going away must not
		// cancel it for the others, and it runs under the shared budget
		// (its answer is kept; a 503 is not).
		req := r.Clone(sharedComputation(context.WithoutCancel(r.Context())))
		req.Header.Del("Accept-Encoding")
		req.Header.Del("If-None-Match")
		rec := &recorder{header: http.Header{}}
		h.ServeHTTP(rec, req)
		a := &answer{version: version, minute: minute, status: rec.status(), header: rec.header, plain: rec.body.Bytes()}
		a.etag = answerETag(version, a.plain)
		if a.status == http.StatusOK && len(a.plain) <= maxAnswerBody {
			if len(a.plain) >= 1024 {
				var gz bytes.Buffer
				zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
				zw.Write(a.plain)
				zw.Close()
				a.gz = gz.Bytes()
			}
			s.answers.put(key, a)
		}
		return a, nil
	})
	return v.(*answer)
}

// answerETag is a strong validator over the data version and the body
// (which also moves with the clock, e.g. since=30d): the same as the
// API's answers have always carried.
func answerETag(version string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(version))
	h.Write([]byte{0})
	h.Write(body)
	return `"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`
}

// serve writes the kept answer: 304 when the client has it, gzip when
// the client takes it.
func (a *answer) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for k, v := range a.header {
		switch k {
		case "Content-Length", "Content-Encoding", "Vary", "Etag":
			continue
		}
		h[k] = v
	}
	if a.status != http.StatusOK {
		w.WriteHeader(a.status)
		w.Write(a.plain)
		return
	}
	h.Set("Vary", "Accept-Encoding")
	h.Set("ETag", a.etag)
	if etagMatches(r.Header.Get("If-None-Match"), a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if a.gz != nil && acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		w.Write(a.gz)
		return
	}
	w.Write(a.plain)
}

// recorder keeps what a handler writes.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.body.Write(b)
}
func (r *recorder) status() int {
	if r.code == 0 {
		return http.StatusOK
	}
	return r.code
}

// warm computes the hot pages of a new data version before anyone asks,
// so that the first view after a run stores is a map lookup too. One warm
// runs at a time, for the newest version: runs storing faster than the
// pages compute must not stack computations (each holds its own working
// set, which is what made concurrent views slow).
func (s *Server) warm(paths ...string) {
	s.warmAgain.Store(true)
	// Whoever sets warming warms; after it is done, warmAgain set in the
	// meantime is seen by the loop's condition (or by a caller that set
	// it after warming was cleared).
	for s.warmAgain.Load() && s.warming.CompareAndSwap(false, true) {
		for s.warmAgain.Swap(false) {
			for _, p := range paths {
				if s.warmAgain.Load() {
					break // a newer version came: start again with it
				}
				req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, p, nil)
				if err != nil {
					continue
				}
				s.handler.ServeHTTP(&recorder{header: http.Header{}}, req)
			}
		}
		s.warming.Store(false)
	}
}
