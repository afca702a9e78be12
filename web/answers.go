package web

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net/http"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/singleflight"

	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// The answers of the data: every page and API answer is computed once per
// data version (and query, settings and minute of the clock), kept
// rendered and gzip-compressed, and served from memory (issue 30). The
// data change only when a run stores, a few times an hour per cloud, while
// a team opens pages every few seconds: reading a quarter of interval
// history again for each view was what made two concurrent views cost
// several times one.
//
// When the data move on (a run stores) or the clock does (an answer is of
// an earlier minute: a 30-day move, "3 h ago", a trend window ending now),
// the kept answer is served while its successor is computed beside it, by
// one refresher for the whole server, for the newest version only: a
// request never waits for a computation its answer already has a
// predecessor of (issue 30: with a run storing every 5 s, answers dropped
// at each new version and computed again by whoever asked next held the
// limiter's slots with computations of versions already gone, and shed
// everyone else). Right after a version moves, the refresher recomputes
// the answers asked for lately, hottest first, so that the first view
// after a run is a map lookup of the new data too. A request waits only
// for an answer nothing was ever kept of (a query no one asked before),
// or one older than staleFor.
type answers struct {
	mu      sync.Mutex
	version string
	seq     uint64 // counts the versions seen, to order answers by age
	minute  int64  // the newest minute of the clock a request was of
	m       map[string]*answer
	bytes   int
	flight  singleflight.Group

	// The refresher's queue: keys to compute at the newest version, each
	// with the request that asked for it.
	queue      []string
	queued     map[string]*http.Request
	refreshers int // refresh loops running, at most maxRefreshers
	// inflight is the refresher's computation now, which a move may set
	// aside (setAside).
	inflight *inflight

	// While the refresher computes (refreshing), kept answers are served
	// through gate, a few at once: see serveKept.
	refreshing atomic.Bool
	gateOnce   sync.Once
	gate       chan struct{}
}

// answer is one kept answer.
type answer struct {
	version string
	seq     uint64
	minute  int64
	status  int
	header  http.Header
	// The body: plain, or gz alone when it was worth compressing (body).
	// Nearly every asker takes gzip (browsers, Prometheus, Grafana, Go's
	// and Python's clients), so the plain bodies were kept for almost
	// none of them, 5-10 times the compressed ones' memory.
	plain []byte
	gz    []byte
	etag  string
	// lastAsked (minute of the clock) and the askings of that minute and
	// the one before (demandAt) rank the answers the refresher recomputes
	// when a version moves, and which to drop when the kept answers are
	// full. Guarded by answers.mu.
	lastAsked int64
	askedNow  int // in minute lastAsked
	askedPrev int // in the minute before it
	// askedAt is the last asking's Unix second: the answers asked in the
	// last recentFor seconds go first (refreshOrder).
	askedAt int64
	req     *http.Request
	// cost is the CPU time the answer took to compute (computeCost):
	// the refresher does the cheap, much-asked answers first.
	cost time.Duration
	// runs: the answer shows the runs themselves (showsRuns), so a run's
	// start changes it.
	runs bool
	// history: the answer charts history (drawsHistory).
	history bool
	// typeOnly: the answer shows one instance type's rows alone
	// (showsInstanceType), with the current state's read marks of when it
	// was computed; the refresher carries it through the runs of
	// providers that stored none of that type (carryTypeOnly).
	typeOnly *typeOnly
	// at is when the answer was computed (Unix seconds of the clock).
	at int64
	// setAside: the refresher's computation was cancelled (setAside);
	// the answer is nobody's, and never kept.
	setAside bool
}

// inflight is a computation of the refresher: its key, the version it
// computes for, and whether the answer it replaces charts history and
// when that was computed.
type inflight struct {
	key     string
	version string
	history bool
	keptAt  int64
	cancel  context.CancelFunc
}

const (
	// staleFor is how old (in minutes of the clock) a kept answer may be
	// and still be served while its successor is computed: past it (the
	// refresher fell that far behind, or nobody asked for a while) a
	// request waits for a fresh one.
	staleFor = 5
	// hotFor: the answers asked for in the last hotFor minutes are
	// recomputed as soon as the data version moves.
	hotFor = 5
	// recentFor (seconds): the answers asked within it are being asked
	// now, and are recomputed before those that were not. As long as a
	// dashboard's auto-refresh; Grafana's default panel refresh (30 s)
	// falls outside it at times, and a panel that waits 30 s between
	// askings can wait for the pages asked every second.
	recentFor = 15
	// maxAnswerBytes bounds what the kept answers hold (plain and
	// compressed bodies); past it the least asked-for are dropped.
	maxAnswerBytes = 24 << 20
	// maxAnswerBody: a body larger than this (an offers table of 20,000
	// rows) is computed every time rather than crowding out the rest.
	maxAnswerBody = 4 << 20
	// chartLag (seconds) bounds how far behind a chart may fall when a
	// move sets its computation aside (setAside): one whose kept answer
	// is older than this is finished, whatever moves meanwhile.
	chartLag = 30
)

// cached serves h's answers from memory.
func (s *Server) cached(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		version, err := s.dataVersion(r.Context())
		if err != nil {
			s.log().Warn("http: reading the data version; answering without the kept answers")
			h.ServeHTTP(w, r)
			return
		}
		s.advance(version)
		now := s.now().Unix()
		minute := now / 60
		key := s.answerKey(r)
		// The refresher's own asking is not a client's: counted, every
		// answer once asked stayed hot for as long as runs stored, and was
		// computed again at every version though nobody asked for it.
		a, fresh := s.answers.get(version, key, now, !isRefresh(r.Context()))
		switch {
		case fresh:
		case a != nil && minute-a.minute <= staleFor && !isRefresh(r.Context()):
			// Serve what is kept; its successor is computed beside it.
			s.refresh(key, r)
		default:
			a = s.compute(h, r, version, key, minute)
			if a.setAside && !isRefresh(r.Context()) {
				// It joined the refresher's computation, which a move set
				// aside (setAside): it computes its own.
				a = s.compute(h, r, version, key, minute)
			}
		}
		s.answers.serveKept(w, r, a, s.crowded)
	})
}

// crowded says whether more clients are being served than there are
// cores (Conns; without it, always).
func (s *Server) crowded() bool {
	return s.Conns == nil || s.Conns.Active() > runtime.GOMAXPROCS(0)
}

// serveKept serves a kept answer; while the refresher computes and more
// clients are being served than there are cores (crowded), at most
// GOMAXPROCS−1 at once (at least one), the other askers parked until
// their turn. Issue 30: under 200 clients asking back to back, each of
// them a goroutine runnable at once, Go's scheduler gave the refresher's
// one goroutine a slice in turn with all of them, and a stored run showed
// on / after 7-21 s; answers already kept can wait a little for the new
// version's to be computed (docs/scale.md has the gates tried). As few
// clients as cores are never made to take turns: two at once should
// cost about what one does.
func (c *answers) serveKept(w http.ResponseWriter, r *http.Request, a *answer, crowded func() bool) {
	// The refresher's own asking (served to nobody) never waits.
	if c.refreshing.Load() && !isRefresh(r.Context()) && crowded() {
		c.gateOnce.Do(func() { c.gate = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1)) })
		select {
		case c.gate <- struct{}{}:
			defer func() { <-c.gate }()
		case <-r.Context().Done():
			return
		}
	}
	a.serve(w, r)
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
	for _, k := range slices.Sorted(maps.Keys(fx.FixedRates)) {
		b.WriteString(k + "=" + fx.FixedRates[k] + ",")
	}
	if s.Expected != nil {
		e := s.Expected(s.now())
		b.WriteString("|")
		for _, k := range slices.Sorted(maps.Keys(e)) {
			b.WriteString(k + "=" + e[k].String() + ",")
		}
	}
	return b.String()
}

// get is the kept answer of key (of any version), and whether it is of
// this version and the minute of now (Unix seconds); it counts the asking
// if asked is set.
func (c *answers) get(version, key string, now int64, asked bool) (*answer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.m[key]
	if a == nil {
		return nil, false
	}
	minute := now / 60
	if asked {
		a.ask(minute)
		a.askedAt = max(a.askedAt, now)
	}
	return a, a.version == version && a.minute >= minute
}

// ask counts an asking at minute.
func (a *answer) ask(minute int64) {
	switch {
	case minute <= a.lastAsked:
		a.askedNow++
		return
	case minute == a.lastAsked+1:
		a.askedPrev = a.askedNow
	default:
		a.askedPrev = 0
	}
	a.lastAsked, a.askedNow = minute, 1
}

// demandAt is how often a was asked in minute and the one before: what a
// team asks for now. Issue 30: counted since the answer was first kept,
// the overview hammered by one load profile stayed first in every later
// round, and the 0.1 s API answer waited about 1 s behind it; halved per
// minute, the 30,000 askings of a minute of trends by 6 clients still
// put them first two minutes after the last, before the pages the team
// was asking for.
func (a *answer) demandAt(minute int64) int {
	switch minute {
	case a.lastAsked:
		return a.askedNow + a.askedPrev
	case a.lastAsked + 1:
		return a.askedNow
	}
	return 0
}

// advance makes version and the clock's minute the newest. When either
// moved from an earlier one (not at the first seen), the answers a run's
// start leaves as they were are carried to the new version, and the hot
// ones that are not are recomputed, in the refresher's order: queued as
// their next views came, the most viewed (often the dearest) would go
// first.
func (s *Server) advance(version string) {
	moved, starts := s.answers.advance(version, s.now().Unix()/60)
	if !moved {
		return
	}
	if starts {
		s.carry(version)
	} else {
		s.setAside()
	}
	s.refreshHot()
}

// setAside cancels the refresher's computation of a chart for a version
// the data have moved past, when the chart it replaces is at most
// chartLag seconds old: the new round, the prices now first, starts at
// once, and the chart is computed again in it, for the new version.
// Issue 30: on the share-1 database a round after a stored run took
// most of the 5 s between runs, and the 90-day trends last in it (0.6-0.9
// s of CPU) were often still computing for the old version when the next
// run stored, holding the overview's new prices back by up to a second.
// The bound keeps a chart from being set aside at every run for ever.
func (s *Server) setAside() {
	c := &s.answers
	now := s.now().Unix()
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.inflight
	if f == nil || !f.history || sameContent(f.version, c.version) || now-f.keptAt > chartLag {
		return
	}
	f.cancel()
	c.inflight = nil
	s.log().Debug("http: set aside a chart of a version moved past", zap.String("key", f.key))
}

// advance makes version and minute the newest, and reports whether
// either moved from an earlier one (not at the first seen), and whether
// runs' starts alone moved the version.
func (c *answers) advance(version string, minute int64) (moved, starts bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version {
		moved = c.version != "" || c.seq != 0
		starts = storage.OnlyStarts(c.version, version)
		c.version = version
		c.seq++
	}
	if minute > c.minute {
		moved = moved || c.minute != 0
		c.minute = minute
	}
	if c.m == nil {
		c.m = map[string]*answer{}
	}
	return moved, starts
}

// carry keeps the answers that show no runs, of a version that runs'
// starts alone tell from to (sameContent), as answers of to (issue 30: a run's
// start commits seconds to minutes before its prices, and every page was
// computed again for it, the work wasted and the prices' own round
// delayed). Each gets its ETag of the new version; the bodies are hashed
// outside the lock.
func (s *Server) carry(to string) {
	c := &s.answers
	type kept struct {
		key string
		a   *answer
	}
	var carried []kept
	c.mu.Lock()
	for k, a := range c.m {
		if a.version != to && !a.runs && sameContent(a.version, to) {
			carried = append(carried, kept{k, a})
		}
	}
	c.mu.Unlock()
	etags := make([]string, len(carried))
	for i, k := range carried {
		etags[i] = answerETag(to, k.a.body())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != to {
		return // moved on meanwhile: the next move carries or recomputes
	}
	for i, k := range carried {
		if c.m[k.key] != k.a {
			continue // a newer answer was kept meanwhile
		}
		// A copy: the kept answer is served without the lock.
		b := *k.a
		b.version, b.seq, b.etag = to, c.seq, etags[i]
		c.m[k.key] = &b
	}
}

// carriedTo is the newest version when runs' starts alone tell it from
// version (sameContent), else "": an answer computed at version that
// shows no runs is kept as one of it.
func (c *answers) carriedTo(version string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version && sameContent(c.version, version) {
		return c.version
	}
	return ""
}

// marksKey marks a kept answer's computation: what it notes of itself
// (showsRuns, drawsHistory) is read into the answer.
type marksKey struct{}

// computeMarks are what a computation notes of the answer it computes.
type computeMarks struct {
	runs         atomic.Bool
	history      atomic.Bool
	instanceType atomic.Pointer[string]
}

// typeOnly is what an answer of one instance type's rows alone was
// computed from.
type typeOnly struct {
	instanceType string
	marks        report.ReadMarks
}

func marksOf(ctx context.Context) *computeMarks {
	m, _ := ctx.Value(marksKey{}).(*computeMarks)
	return m
}

// showsRuns says that the answer computed under ctx shows the runs
// themselves (their list, the providers' last run): a run's start, which
// changes nothing else, computes it again rather than carrying it.
func showsRuns(ctx context.Context) {
	if m := marksOf(ctx); m != nil {
		m.runs.Store(true)
	}
}

// drawsHistory says that the answer computed under ctx charts prices
// over a window of history (a GPU's or an instance type's chart, trends,
// an instance type's intervals): a stored run moves its last points,
// where it changes a page of the prices now throughout. The refresher
// computes it after the answers of the prices now (refreshOrder).
func drawsHistory(ctx context.Context) {
	if m := marksOf(ctx); m != nil {
		m.history.Store(true)
	}
}

// showsInstanceType says that the answer computed under ctx shows the
// rows (offers, prices, availability, signals) of instance type it alone,
// in no other currency than their own: a run of a provider that stored
// none of that type leaves it as it is (carryTypeOnly).
func showsInstanceType(ctx context.Context, it string) {
	if m := marksOf(ctx); m != nil {
		m.instanceType.Store(&it)
	}
}

// typeStore is a store that tells whether providers stored rows of an
// instance type (storage.DB does).
type typeStore interface {
	InstanceTypeStoredBy(ctx context.Context, instanceType string, providers []string) (bool, error)
}

// carryTypeOnly keeps the answer of key, when it shows one instance
// type's rows alone and none of the providers that ran since it was
// computed stored a row of that type, as an answer of the newest version
// (with its ETag), and says whether it did. Issue 30: on the share-1
// database an AWS type's 365-day page cost ~1 s of CPU and ~15 MB of
// heap at once, and was computed again for every Azure run, which
// changed nothing of it.
func (s *Server) carryTypeOnly(ctx context.Context, key string) bool {
	c := &s.answers
	c.mu.Lock()
	a, version := c.m[key], c.version
	c.mu.Unlock()
	if a == nil || a.typeOnly == nil || a.runs || a.version == version {
		return false
	}
	ts, ok := s.Store.(typeStore)
	if !ok {
		return false
	}
	s.CurrentReads(ctx) // the state of version, read once for every answer of it
	st := s.current.Load()
	if st == nil || !sameContent(st.Version, version) {
		return false
	}
	// Only runs write offers, prices, availability and signals that move
	// the data version (storage.Maintain's thinning moves none, and so
	// no kept answer either): a version the outbox or the exchange rates
	// alone moved (none ran) changed no instance type's rows.
	ran, all := st.ReadAgainSince(a.typeOnly.marks)
	if all {
		return false
	}
	if stored, err := ts.InstanceTypeStoredBy(ctx, a.typeOnly.instanceType, ran); err != nil || stored {
		return false
	}
	b := *a
	b.version, b.seq, b.etag = version, c.stamp(version), answerETag(version, a.body())
	b.typeOnly = &typeOnly{instanceType: a.typeOnly.instanceType, marks: st.Marks()}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[key] != a || c.version != version {
		return false // a newer answer was kept, or the version moved on meanwhile
	}
	c.m[key] = &b
	return true
}

// stamp is the sequence number of version: answers of a version the
// cache has moved past are older than those of the newest one.
func (c *answers) stamp(version string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version == version {
		return c.seq
	}
	// A version the cache has moved past (it moved between the request
	// reading it and its computation starting) is older than the newest.
	return c.seq - min(c.seq, 1)
}

// put keeps a unless a newer answer of key is kept already; past
// maxAnswerBytes the least lately asked-for answers make room.
func (c *answers) put(key string, a *answer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*answer{}
	}
	old := c.m[key]
	if old != nil {
		if old.seq > a.seq || (old.seq == a.seq && old.minute > a.minute) {
			return
		}
		a.lastAsked, a.askedNow, a.askedPrev, a.askedAt = old.lastAsked, old.askedNow, old.askedPrev, old.askedAt
		if sameContent(old.version, a.version) && old.minute == a.minute {
			// Computed again for a run's start (the overview), it reused
			// what its content had computed: 20 ms instead of 1 s says
			// nothing of what the run's prices will cost, and ranked
			// first by it, the overview held up the round's cheap answers.
			a.cost = max(a.cost, old.cost)
		}
		c.bytes -= old.size()
		delete(c.m, key)
	}
	if c.bytes+a.size() > maxAnswerBytes {
		c.evict(a.size())
	}
	if c.bytes+a.size() > maxAnswerBytes {
		return
	}
	c.m[key] = a
	c.bytes += a.size()
}

func (a *answer) size() int { return len(a.plain) + len(a.gz) }

// body is the answer's body, uncompressed.
func (a *answer) body() []byte {
	if a.gz == nil {
		return a.plain
	}
	zr, err := gzip.NewReader(bytes.NewReader(a.gz))
	if err != nil {
		return nil // never: gz was compressed here
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil
	}
	return b
}

// evict drops the least lately asked-for answers until need bytes fit.
func (c *answers) evict(need int) {
	keys := make([]string, 0, len(c.m))
	for k := range c.m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := c.m[keys[i]], c.m[keys[j]]
		if a.lastAsked != b.lastAsked {
			return a.lastAsked < b.lastAsked
		}
		return a.askedNow+a.askedPrev < b.askedNow+b.askedPrev
	})
	for _, k := range keys {
		if c.bytes+need <= maxAnswerBytes {
			return
		}
		c.bytes -= c.m[k].size()
		delete(c.m, k)
	}
}

// compute runs h once for key (whoever else asks meanwhile waits for the
// same answer) and keeps a 200 answer.
func (s *Server) compute(h http.Handler, r *http.Request, version, key string, minute int64) *answer {
	v, _, _ := s.answers.flight.Do(version+"\x00"+key+"\x00"+fmt.Sprint(minute), func() (any, error) {
		// The computation is shared: one client going away must not
		// cancel it for the others, and it runs under the shared budget
		// (its answer is kept; a 503 is not). The refresher's own may be
		// set aside (setAside).
		base := context.WithoutCancel(r.Context())
		if isRefresh(r.Context()) {
			base = r.Context()
		}
		// Compressed only for a client that takes it (a browser, the
		// refresher recomputing a browser's answer): pricewatch mcp's
		// in-process asker never does, and the compressor's tables were a
		// tenth of its first cheapest. A later gzip client of such an
		// answer gets it plain.
		zip := acceptsGzip(r)
		marks := new(computeMarks)
		// The current state's read marks as the computation starts:
		// every run it may read is then later than their mark, and among
		// those read again since (carryTypeOnly). Marks taken after it
		// could count a run stored while it read as seen.
		before := s.current.Load()
		req := r.Clone(context.WithValue(sharedComputation(base), marksKey{}, marks))
		req.Header.Del("Accept-Encoding")
		req.Header.Del("If-None-Match")
		rec := NewRecorder()
		seq := s.answers.stamp(version)
		cost := computeCost(func() { h.ServeHTTP(rec, req) })
		if base.Err() != nil {
			// Set aside: what it wrote is cut, and never kept.
			return &answer{status: http.StatusServiceUnavailable, header: http.Header{}, setAside: true}, nil
		}
		a := &answer{version: version, seq: seq, minute: minute, status: rec.Status(), header: rec.header, plain: rec.Body(),
			req: r.Clone(context.WithoutCancel(base)), cost: cost, runs: marks.runs.Load(), history: marks.history.Load(), at: s.now().Unix()}
		if it := marks.instanceType.Load(); it != nil && before != nil {
			a.typeOnly = &typeOnly{instanceType: *it, marks: before.Marks()}
		}
		if to := s.answers.carriedTo(version); to != "" && !a.runs {
			// Runs' starts alone moved the version while it computed.
			a.version, a.seq = to, s.answers.stamp(to)
		}
		a.etag = answerETag(a.version, a.plain)
		if a.status == http.StatusOK && len(a.plain) <= maxAnswerBody {
			if zip && len(a.plain) >= 1024 {
				var gz bytes.Buffer
				zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
				zw.Write(a.plain)
				zw.Close()
				a.gz, a.plain = gz.Bytes(), nil
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
	// Which data version the answer is of: how far a follower, or an
	// answer served while its successor computes, is behind the store
	// (the load test times a stored run's showing by it).
	h.Set(storage.DataVersionHeader, a.version)
	if etagMatches(r.Header.Get("If-None-Match"), a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if a.gz != nil && acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		w.Write(a.gz)
		return
	}
	w.Write(a.body())
}

// Recorder keeps what a handler writes, for an answer computed once and
// served to many (the kept answers here, the daemon's kept scrape).
type Recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

// NewRecorder is an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{header: http.Header{}} }

func (r *Recorder) Header() http.Header { return r.header }
func (r *Recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}
func (r *Recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.body.Write(b)
}

// Status is the status written, 200 when none was.
func (r *Recorder) Status() int {
	if r.code == 0 {
		return http.StatusOK
	}
	return r.code
}

// Body is what was written.
func (r *Recorder) Body() []byte { return r.body.Bytes() }

// refreshKey marks the context of the refresher's own requests: they
// compute what is not fresh rather than serve it and queue it again.
type refreshKey struct{}

func isRefresh(ctx context.Context) bool {
	v, _ := ctx.Value(refreshKey{}).(bool)
	return v
}

// refresh queues key's request for the refresher (once, however many ask
// while it waits).
func (s *Server) refresh(key string, r *http.Request) {
	c := &s.answers
	c.mu.Lock()
	defer c.mu.Unlock()
	s.enqueueLocked(key, r)
}

func (s *Server) enqueueLocked(key string, r *http.Request) {
	c := &s.answers
	if c.queued == nil {
		c.queued = map[string]*http.Request{}
	}
	if _, ok := c.queued[key]; ok {
		return
	}
	c.queued[key] = r.Clone(context.WithoutCancel(r.Context()))
	c.queue = append(c.queue, key)
	if c.refreshers < maxRefreshers && c.refreshers < len(c.queue) {
		c.refreshers++
		c.refreshing.Store(true)
		go s.refreshLoop()
	}
}

// refreshHot queues the answers asked for in the last hotFor minutes and
// (in the daemon) the WarmPaths: a version moved.
//
// The hot answers go in the order that makes the views of the new
// version fresh soonest, weighed by how often each is asked (Smith's
// rule: least cost per asking first): a 50 ms API answer asked as often
// as the 1 s overview is fresh after 50 ms instead of after 1.05 s, and
// the overview after 1.05 s instead of 1 s.
func (s *Server) refreshHot() {
	c := &s.answers
	c.mu.Lock()
	defer c.mu.Unlock()
	now := s.now().Unix()
	minute := now / 60
	for k, a := range c.m {
		fresh := a.version == c.version && a.minute >= c.minute
		if a.req != nil && minute-a.lastAsked <= hotFor && !fresh {
			s.enqueueLocked(k, a.req)
		}
	}
	if s.Versions != nil {
		// Only the daemon (which keeps the version) serves the pages: a
		// process answering the API alone (pricewatch mcp) must not
		// compute them.
		s.warmLocked()
	}
	// What still waits from a round the move overtook is ordered with
	// this round's, not before it as a whole (issue 30: with a run stored
	// every 5 s and a round of more than 5 s of work, each round began
	// with the last one's leftover charts, and the overview and the API
	// answer the team was asking for came seconds later); of the prices
	// now, what the overtaken round left goes first (refreshOrder).
	slices.SortStableFunc(c.queue, func(x, y string) int {
		return refreshOrder(x, y, c.m[x], c.m[y], now)
	})
}

// refreshOrder orders the refresher's queue at now (Unix seconds; keys
// ka and kb, their kept answers a and b): answers nothing is kept of
// first, their askers waiting for them; then those asked in the last
// recentFor seconds; within each of these and of the rest, those asked
// in this minute or the last, then those asked before; within each of
// those, the answers of the prices now before those that chart history
// (drawsHistory); then those whose kept answer is of the oldest version
// first; then by cost per asking (demandAt), the most asked first, or by
// cost alone where not asked lately; then by key.
//
// A stored run changes the prices now throughout, and moves a chart's
// line at its last points. Issue 30: under 200 clients the refresher has
// well under a core, and ordered by cost alone the overview and the
// offers table (the run's whole news, what a buyer acts on) waited 2-5 s
// behind the GPU pages' 90-day charts and the trends.
//
// By demand alone, a burst of askings that had stopped still
// led every round for up to two minutes. In the load test the 90-day
// trends, asked 30,000 times a minute by the profiles before the team's,
// were computed first in each of the team's rounds (0.55-0.95 s of CPU)
// though the team never asked for them, and the overview and the offers
// table it was opening waited behind them.
func refreshOrder(ka, kb string, a, b *answer, now int64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	ra, rb := now-a.askedAt <= recentFor, now-b.askedAt <= recentFor
	switch {
	case ra && !rb:
		return -1
	case !ra && rb:
		return 1
	}
	minute := now / 60
	da, db := int64(a.demandAt(minute)), int64(b.demandAt(minute))
	switch {
	case da > 0 && db == 0:
		return -1
	case da == 0 && db > 0:
		return 1
	case !a.history && b.history:
		return -1
	case a.history && !b.history:
		return 1
	case a.seq != b.seq:
		// A move overtook the round before this answer's turn came:
		// its kept answer is of an older version than the others'. It
		// goes first, or an answer dearer than the rest (the overview)
		// would wait behind the cheap ones again in each round while
		// runs store faster than a round ends.
		return cmp.Compare(a.seq, b.seq)
	}
	// a.cost/da against b.cost/db, in integers; by cost alone when
	// neither was asked lately.
	return cmp.Or(
		cmp.Compare(int64(a.cost)*max(db, 1), int64(b.cost)*max(da, 1)),
		cmp.Compare(db, da),
		strings.Compare(ka, kb))
}

// warmLocked queues the WarmPaths that nothing is kept of: the pages a
// team opens first are computed before anyone asks. Kept, they are
// computed again at a move only when asked for lately (hot), as any
// answer: a replica nobody views computes nothing per run (the load
// test's PostgreSQL leader, which serves no one, doubled the machine's
// load when it computed them at every run).
func (s *Server) warmLocked() {
	for _, p := range WarmPaths {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, p, nil)
		if err != nil {
			continue
		}
		key := s.answerKey(req)
		if _, ok := s.answers.m[key]; ok {
			continue // hot, or its successor is computed when asked for
		}
		s.enqueueLocked(key, req)
	}
}

// followVersions recomputes the hot answers as soon as a version moves.
func (s *Server) followVersions() {
	s.Versions.OnChange(func(v string) {
		s.log().Debug("http: the data version moved", zap.String("version", v))
		s.advance(v)
	})
}

// warm queues the WarmPaths (at start).
func (s *Server) warm() {
	c := &s.answers
	c.mu.Lock()
	defer c.mu.Unlock()
	s.warmLocked()
}

// maxRefreshers is how many answers the refresher computes at once: one.
// Two at once (one per core) held the daemon's memory 20-40 MB higher in
// the load test, whose two cores also serve the requests and run the
// collector, and showed a stored run no sooner on the whole: with the
// refresh order of today the API answer soonest, the overview later
// (docs/scale.md, "The refresh round cheaper" and "The refresh round
// ordered by what is asked now"). Each computation holds a working set
// of its own.
const maxRefreshers = 1

// refreshLoop computes the queued answers one after another, each at the
// newest version and minute, and ends when the queue is empty; the
// requests themselves are served from the kept answers meanwhile.
func (s *Server) refreshLoop() {
	c := &s.answers
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			c.refreshers--
			idle := c.refreshers == 0
			c.refreshing.Store(!idle)
			c.mu.Unlock()
			if idle && s.Idle != nil {
				s.Idle()
			}
			return
		}
		key := c.queue[0]
		c.queue = c.queue[1:]
		req := c.queued[key]
		delete(c.queued, key)
		c.mu.Unlock()
		if s.carryTypeOnly(req.Context(), key) {
			s.log().Debug("http: kept an instance type's answer through runs that stored none of it", zap.String("path", req.URL.RequestURI()))
			continue
		}
		c.mu.Lock()
		ctx, cancel := context.WithCancel(context.WithValue(req.Context(), refreshKey{}, true))
		f := &inflight{key: key, version: c.version, cancel: cancel}
		if a := c.m[key]; a != nil {
			f.history, f.keptAt = a.history, a.at
		}
		c.inflight = f
		c.mu.Unlock()
		start := time.Now()
		s.handler.ServeHTTP(NewRecorder(), req.WithContext(ctx))
		c.mu.Lock()
		if c.inflight == f {
			c.inflight = nil
		}
		c.mu.Unlock()
		setAside := ctx.Err() != nil
		cancel()
		if setAside {
			continue
		}
		if ce := s.log().Check(zap.DebugLevel, "http: refreshed a kept answer"); ce != nil {
			c.mu.Lock()
			left := len(c.queue)
			// The answer's own cost: took includes the waits for a core.
			var cpu time.Duration
			if a := c.m[key]; a != nil {
				cpu = a.cost
			}
			c.mu.Unlock()
			ce.Write(zap.String("path", req.URL.RequestURI()), zap.Duration("took", time.Since(start)), zap.Duration("cost", cpu), zap.Int("queued", left))
		}
	}
}
