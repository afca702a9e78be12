// Package daemon is `pricewatch run` without the command line: the
// scheduler that runs each provider on its schedule, the immutable config
// snapshot a reload swaps whole, the count of every run that shutdown
// waits for, the stop order, health and readiness, metrics and the HTTP
// listener that mounts the API and dashboard, the alert delivery loop and
// the weekly digest's trigger. New, Start, Reload, Stop; what a snapshot
// runs is composed from the config by the caller (Options.Build).
package daemon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/daemon/metrics"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/run"
	"github.com/pricewatch/pricewatch/secret"
	"github.com/pricewatch/pricewatch/section"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/systemd"
	"github.com/pricewatch/pricewatch/web"
)

// StopGrace bounds how long shutdown waits for in-flight runs to roll back
// after their context is cancelled; the unit's TimeoutStopSec is longer.
const StopGrace = 15 * time.Second

// heartbeatEvery is how often the scheduler proves it is alive; the
// watchdog and /readyz treat a scheduler silent for 4× this as dead.
const heartbeatEvery = 15 * time.Second

// owner names the daemon in the run leases it takes.
const owner = "pricewatch run"

// Job is one provider run and its schedule (providers.<name>.schedule;
// empty: hourly).
type Job struct {
	run.Job
	Schedule string
}

// Alerts delivers the outbox with a snapshot's notifiers.
type Alerts interface {
	// RunDispatcher delivers continuously until ctx ends; each value on
	// nudge (sent after a run queued messages) wakes it.
	RunDispatcher(ctx context.Context, db *storage.DB, nudge <-chan struct{}) error
	// Deliver makes one pass over what is pending, waiting at most
	// maxWait for retries; force also tries what is backing off.
	Deliver(ctx context.Context, db *storage.DB, maxWait time.Duration, force bool) (alerting.Report, error)
}

// Elector decides which of several replicas on one database leads: runs
// the schedules, alert delivery, the digest and maintenance. Package
// leader's Postgres is one; with none (SQLite: one file, one daemon) the
// daemon always leads.
type Elector interface {
	// Run campaigns until ctx ends; each time this replica wins, lead
	// runs with a context that ends when leadership does, and Run waits
	// for lead to return before it campaigns again or returns.
	Run(ctx context.Context, lead func(ctx context.Context)) error
}

// Digests queues the weekly digest.
type Digests interface {
	// QueueDigest builds the digest of the week as of now and queues it
	// unless that week's is queued already; it returns the week, the
	// delivery key and whether this call queued it.
	QueueDigest(ctx context.Context, db *storage.DB, now time.Time) (week, key string, queued bool, err error)
}

// Rates refreshes exchange rates; the daemon asks at most hourly, after a
// run.
type Rates interface {
	AfterCycle(ctx context.Context, store fx.Store) ([]string, error)
}

// Snapshot is what the daemon runs on, composed whole from one loaded
// config: plain settings and built services, never the config itself
// (package daemon links no fetcher and reads no YAML). Nothing in it
// changes after it is built: whoever needs the settings takes the snapshot
// once and keeps it for the whole of its work, so a reload in the middle
// of a run, a digest or a delivery pass never mixes two configs.
type Snapshot struct {
	// Source names where the settings came from (the config file), for
	// the log.
	Source string
	// LogLevel is log.level, applied by a reload (Options.SetLogLevel).
	LogLevel string
	// HTTP is the listener's; only the starting snapshot's is used (a
	// reload does not move the listener).
	HTTP HTTP
	// FX is how the API and dashboard convert prices (fx.*).
	FX report.FX
	// Prices are the /metrics price series' settings.
	Prices metrics.PriceSettings
	// Maintenance is storage.maintenance_schedule (cron, UTC; empty:
	// none) and Retention what it applies.
	Maintenance string
	Retention   storage.Retention
	// Digest is when the weekly digest is queued (nil: never).
	Digest *DigestSchedule
	Jobs   []Job
	// Save are the storage settings of every run (alert policy, outbox).
	Save storage.SaveOptions
	// Secrets are every secret value the config names, read when the
	// snapshot was built; the daemon's log masks them from then on.
	Secrets []string
	Alerts  Alerts
	Digests Digests
	Rates   Rates
	// Expected maps each enabled provider to the longest gap its schedule
	// allows between runs (the API's and dashboard's staleness).
	Expected func(now time.Time) map[string]time.Duration
}

// HTTP is the daemon's listener (http.*).
type HTTP struct {
	// Listen is host:port; empty: no listener.
	Listen string
	// Loopback says Listen binds only loopback addresses.
	Loopback bool
	// Token is the bearer token every request but /healthz must carry
	// (empty: none); TokenErr says why the token file could not be read,
	// and stops the daemon before it listens.
	Token    string
	TokenErr error
	// AllowUnauthenticated lets a non-loopback listener go without a
	// token.
	AllowUnauthenticated bool
}

// DigestSchedule is when the weekly digest is queued: Schedule (cron) in
// Timezone.
type DigestSchedule struct {
	Schedule string
	Timezone string
}

// Options are what New needs.
type Options struct {
	// Build composes the snapshot the daemon starts with, or says why the
	// config cannot run (alert rules, provider settings, credentials).
	Build func() (*Snapshot, error)
	// DB is the open database; Stop closes it.
	DB  *storage.DB
	Log *zap.Logger
	// Secrets is the program's secret set: each snapshot's secrets are
	// added to it, and so to the log's masking (nil: added nowhere).
	Secrets *secret.Set
	// SetLogLevel applies a reloaded log.level (nil: the level stays).
	SetLogLevel func(level string) error
	// Version is the build's, for the log and pricewatch_build_info.
	Version string
	// AlertSummary is an outbox document's one-line text for the API's
	// and dashboard's alert listings (web.Server.AlertSummary).
	AlertSummary func(payload []byte) string
	// Elect builds the election among replicas sharing the database, at
	// Start (nil, or a nil Elector: this process always leads).
	Elect func() (Elector, error)
}

// Daemon is `pricewatch run`: the process-wide parts (database, metrics,
// health, the run bookkeeping) and the config snapshot in effect.
type Daemon struct {
	opts Options
	// ctx is what every run derives from. Stop cancels it, after it has
	// stopped scheduling and said so, rather than the signal itself: the
	// log then tells the stop order as it happened ("stopping" before the
	// runs' "fetch failed"), and no run can start between the two.
	ctx        context.Context
	cancelRuns context.CancelFunc
	db         *storage.DB
	metrics    *metrics.Metrics
	health     *health
	notify     *systemd.Notifier
	log        *zap.Logger

	// cur is the config snapshot in effect, swapped whole by a reload.
	cur atomic.Pointer[state]

	// versions is the data version the HTTP answers and the price series
	// are kept by: refreshed when a run of this process stores, and
	// polled (VersionPoll) for what other processes store (a leader
	// replica on PostgreSQL, `pricewatch fetch` on the same file).
	versions *web.Versions
	// web is the API's and the dashboard's server, whose current state
	// the price series read too.
	web *web.Server
	// scrape is the database as /metrics reads it, one for every series
	// so that each of its reads is made once per data version.
	scrape scrapeStore

	mu       sync.Mutex             // guards locks and stopping, and orders runs.Add before runs.Wait
	locks    map[string]*sync.Mutex // per provider; shared by every snapshot's runs
	stopping bool                   // set by Stop: no run starts after it
	// runs counts every run in flight, scheduled or catch-up, whichever
	// snapshot started it, and the digest: Stop waits for all of them.
	runs sync.WaitGroup

	// nudge wakes the alert dispatcher after a run queued messages.
	nudge chan struct{}
	// reloaded tells the dispatcher to pick up a reloaded config.
	reloaded chan struct{}
	// fxUpdated is when exchange rates were last fetched (unix nanos); the
	// ECB publishes once a day, so one fetch an hour is plenty.
	fxUpdated atomic.Int64

	// stopBackground and stopDelivery end Start's goroutines, stopLeading
	// the election (or the one term of a daemon without one); Stop calls
	// them in its order.
	stopBackground func()
	stopDelivery   func()
	stopLeading    func()
	// deliveryBase is what each term's delivery derives from: stopDelivery
	// ends it, after the runs, whatever the term.
	deliveryBase context.Context
	delivery     sync.WaitGroup

	// term is this replica's leadership while it leads, nil while it
	// follows; set and cleared under mu.
	term atomic.Pointer[term]
	// elector is Options.Elect's, nil when this process always leads.
	elector Elector
}

// term is one leadership: the runs, delivery, digest and maintenance this
// replica does while it leads, all ended when it steps down.
type term struct {
	// lead is the elector's: it ends when leadership does.
	lead context.Context
	// ctx is what the term's runs, digest and maintenance derive from:
	// it ends when leadership does or Stop cancels the runs, its cause
	// the elector's (leader.ErrLost when leadership was lost).
	ctx    context.Context
	cancel context.CancelCauseFunc
	// cancelDelivery ends the term's delivery loop; delivered is closed
	// when it has returned.
	cancelDelivery context.CancelFunc
	delivered      chan struct{}
}

// state is a snapshot with its scheduler, which is not started until the
// snapshot takes effect.
type state struct {
	*Snapshot
	cron *cron.Cron
}

func (d *Daemon) state() *state { return d.cur.Load() }

// New prepares the daemon; Start starts it.
func New(opts Options) *Daemon {
	log := opts.Log
	if log == nil {
		log = zap.NewNop()
	}
	notify, err := systemd.New()
	if err != nil {
		log.Warn("systemd notifications disabled", zap.Error(err))
	}
	versions := web.NewVersions(opts.DB.DataVersion)
	d := &Daemon{
		opts: opts, db: opts.DB, versions: versions,
		health: &health{}, notify: notify, log: log,
		locks: map[string]*sync.Mutex{}, nudge: make(chan struct{}, 1), reloaded: make(chan struct{}, 1),
		stopBackground: func() {}, stopDelivery: func() {}, stopLeading: func() {},
	}
	d.web = d.newWebServer()
	d.scrape = scrapeStore{DB: d.db, versions: versions, current: d.web.CurrentReads, memo: &scrapeMemo{}}
	d.metrics = metrics.New(d.scrape, opts.Version)
	return d
}

// buildState builds a snapshot and its scheduler, or says why its config
// cannot run: alert rules, provider settings, credentials and schedules are
// all checked before anything takes effect.
func (d *Daemon) buildState(build func() (*Snapshot, error)) (*state, error) {
	snap, err := build()
	if err != nil {
		return nil, err
	}
	st := &state{Snapshot: snap}
	if st.cron, err = d.newCron(st); err != nil {
		return nil, err
	}
	return st, nil
}

func (d *Daemon) addSecrets(values []string) { d.opts.Secrets.Add(values...) }

// maybeUpdateFX refreshes exchange rates after a run, at most hourly.
func (d *Daemon) maybeUpdateFX(ctx context.Context) {
	last := time.Unix(0, d.fxUpdated.Load())
	if time.Since(last) < time.Hour || !d.fxUpdated.CompareAndSwap(last.UnixNano(), time.Now().UnixNano()) {
		return
	}
	if r := d.state().Rates; r != nil {
		if _, err := r.AfterCycle(ctx, d.db); err != nil {
			d.log.Warn("exchange rates not updated", zap.Error(err))
		}
	}
}

// Start closes the runs an earlier process left running, takes the config
// into effect and starts scheduling, the HTTP listener and the watchdog,
// tells systemd it is ready and, while this replica leads (always, without
// an elector), catch-up runs and alert delivery. The runs outlive ctx's
// cancellation: Stop ends them, in its order.
func (d *Daemon) Start(ctx context.Context) error {
	if d.opts.Elect != nil {
		e, err := d.opts.Elect()
		if err != nil {
			return err
		}
		d.elector = e
	}
	if err := d.db.CloseAbandonedRuns(ctx); err != nil {
		return err
	}
	d.ctx, d.cancelRuns = context.WithCancel(context.WithoutCancel(ctx))
	st, err := d.buildState(d.opts.Build)
	if err != nil {
		d.cancelRuns()
		return err
	}
	d.cur.Store(st)
	d.addSecrets(st.Secrets)
	// The listener is bound first, before anything starts beside it: a
	// port another process holds fails the start with the key to fix,
	// where a daemon that fetched on without its API, dashboard and
	// /metrics would leave Prometheus scraping whoever held the port.
	var ln net.Listener
	if listen := st.HTTP.Listen; listen != "" {
		if ln, err = net.Listen("tcp", listen); err != nil {
			d.cancelRuns()
			return fmt.Errorf("http.listen %q cannot be bound (stop what holds it, or set http.listen to another address): %w", listen, err)
		}
	}
	// closeListener gives the port back when the start fails after it.
	closeListener := func() {
		if ln != nil {
			ln.Close()
		}
	}
	if _, err := d.versions.Refresh(ctx); err != nil {
		closeListener()
		d.cancelRuns()
		return err
	}
	warmPrices := d.metrics.AddPriceSeries(d.scrape, func() metrics.PriceSettings { return d.state().Prices })
	// A new version's price series are computed at once, beside the
	// scrapes (which serve the last ones meanwhile).
	d.versions.OnChange(func(string) { go warmPrices() })
	go warmPrices()
	webWrap, err := d.webHandler()
	if err != nil {
		closeListener()
		d.cancelRuns()
		return err
	}
	d.health.beat()
	// The scheduler runs on every replica (its heartbeat is the
	// watchdog's); its runs go ahead only while this replica leads.
	st.cron.Start()
	d.refreshGauges(ctx)

	// Background work outlives the signal: delivery stops after the runs
	// (so what they queued can still go out), metrics and the watchdog
	// after delivery. Neither context derives from ctx for that reason.
	var bg sync.WaitGroup
	bgCtx, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	deliveryCtx, stopDelivery := context.WithCancel(context.WithoutCancel(ctx))
	d.deliveryBase = deliveryCtx
	d.stopDelivery = func() { stopDelivery(); d.delivery.Wait() }
	d.stopBackground = func() { stopBG(); bg.Wait() }
	if ln != nil {
		bg.Go(func() {
			if err := serveHTTP(bgCtx, ln, metrics.Handler(d.metrics, d.readiness, d.log), d.web.Conns, d.log, webWrap); err != nil {
				d.log.Error("http server failed; metrics and health endpoints are unavailable", zap.String("listen", st.HTTP.Listen), zap.Error(err))
			}
		})
	}
	// Without an elector this process leads from now until Stop, as one
	// term; with one, it leads when elected (see lead).
	leadCtx, stopLead := context.WithCancel(context.WithoutCancel(ctx))
	leadDone := make(chan struct{})
	d.stopLeading = func() { stopLead(); waitAtMost(leadDone, StopGrace) }
	var solo *term
	if d.elector == nil {
		solo = d.beginTerm(leadCtx)
	}

	d.health.ready.Store(true)
	if err := d.notify.Ready(); err != nil {
		d.log.Warn("sd_notify READY failed", zap.Error(err))
	}
	d.notify.Status("running")
	bg.Go(func() { d.notify.RunWatchdog(bgCtx, d.healthy, d.log) })
	bg.Go(func() { d.versions.Watch(bgCtx, VersionPoll) })
	fields := []zap.Field{zap.String("version", d.opts.Version), zap.String("database", d.db.Path())}
	if d.db.Replica != "" {
		fields = append(fields, zap.String("replica", d.db.Replica))
	}
	d.log.Info("pricewatch running", fields...)
	if d.elector != nil {
		go func() {
			defer close(leadDone)
			if err := d.elector.Run(leadCtx, d.lead); err != nil {
				d.log.Error("leader election stopped; this replica follows", zap.Error(err))
			}
		}()
		return nil
	}
	if solo == nil { // Stop has begun
		close(leadDone)
		return nil
	}
	d.catchUp(solo)
	go func() {
		defer close(leadDone)
		<-leadCtx.Done()
		d.endTerm(solo)
	}()
	return nil
}

// lead is one leadership won by the elector: it begins a term, runs the
// catch-up and, when the elector's context ends, ends the term (runs and
// deliveries cancelled and waited for) before it returns.
func (d *Daemon) lead(ctx context.Context) {
	t := d.beginTerm(ctx)
	if t == nil {
		return
	}
	d.log.Info("leading: running schedules, alert delivery and the digest")
	d.catchUp(t)
	<-ctx.Done()
	d.endTerm(t)
	d.log.Info("following: schedules, alert delivery and the digest are the leader's")
}

// beginTerm starts leading under ctx: the scheduler's runs go ahead from
// now on and alert delivery starts. Nil once Stop has begun.
func (d *Daemon) beginTerm(ctx context.Context) *term {
	t := &term{lead: ctx, delivered: make(chan struct{})}
	t.ctx, t.cancel = context.WithCancelCause(d.ctx)
	context.AfterFunc(ctx, func() { t.cancel(context.Cause(ctx)) })
	dctx, cancel := context.WithCancel(d.deliveryBase)
	t.cancelDelivery = cancel
	context.AfterFunc(ctx, cancel)
	d.mu.Lock()
	if d.stopping {
		d.mu.Unlock()
		t.cancel(nil)
		cancel()
		return nil
	}
	d.term.Store(t)
	d.delivery.Add(1)
	d.mu.Unlock()
	d.metrics.Leader(true)
	go func() {
		defer d.delivery.Done()
		defer close(t.delivered)
		d.deliverLoop(dctx)
	}()
	return t
}

// endTerm steps down: no run starts any more, the term's runs, digest and
// maintenance are cancelled and its delivery stops (a post in flight is
// cancelled and released, see alerting.Dispatcher), and it waits for all
// of them, at most StopGrace.
func (d *Daemon) endTerm(t *term) {
	d.mu.Lock()
	d.term.CompareAndSwap(t, nil)
	d.mu.Unlock()
	d.metrics.Leader(false)
	t.cancel(context.Cause(t.lead))
	t.cancelDelivery()
	// Terms of one process never overlap (the elector waits for lead to
	// return) and no run is counted in once the term is cleared, so every
	// run still counted is this term's.
	work := make(chan struct{})
	go func() {
		d.runs.Wait()
		close(work)
	}()
	if !waitAtMost(work, StopGrace) || !waitAtMost(t.delivered, StopGrace) {
		d.log.Warn("runs or deliveries of the last leadership did not stop in time")
	}
}

// waitAtMost waits for done at most d; false when it did not close.
func waitAtMost(done <-chan struct{}, d time.Duration) bool {
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// newCron builds (without starting) the scheduler of a snapshot: its
// providers' schedules, the heartbeat and the digest. Each tick runs with
// the snapshot it was scheduled by.
func (d *Daemon) newCron(st *state) (*cron.Cron, error) {
	clog := cronLogger{d.log.Named("cron")}
	// No cron.SkipIfStillRunning: it logs a skipped tick at debug and
	// counts nothing. runJob skips an overlapping tick itself, logged and
	// counted (pricewatch_fetch_runs_total{result="overlap"}).
	c := cron.New(cron.WithLocation(time.UTC), cron.WithLogger(clog), cron.WithChain(cron.Recover(clog)))
	for _, job := range st.Jobs {
		job.Owner = owner
		sched, err := section.ParseSchedule(job.Schedule)
		if err != nil {
			spec := cmp.Or(job.Schedule, section.DefaultSchedule)
			return nil, fmt.Errorf("providers.%s.schedule %q: %w", job.Name, spec, err)
		}
		c.Schedule(sched, cron.FuncJob(func() { d.runJob(st, job) }))
	}
	if _, err := c.AddFunc(fmt.Sprintf("@every %s", heartbeatEvery), d.health.beat); err != nil {
		return nil, err
	}
	// A follower runs nothing, so nothing refreshes its offer gauges
	// after a run: it reads them from the database the leader writes.
	if _, err := c.AddFunc("@every 1m", d.refreshFollowerGauges); err != nil {
		return nil, err
	}
	if spec := st.Maintenance; spec != "" {
		if _, err := c.AddFunc(spec, func() { d.runMaintenance(st) }); err != nil {
			return nil, fmt.Errorf("storage.maintenance_schedule %q: %w", spec, err)
		}
	}
	if dg := st.Digest; dg != nil {
		spec := fmt.Sprintf("CRON_TZ=%s %s", dg.Timezone, dg.Schedule)
		if _, err := c.AddFunc(spec, func() { d.runDigest(st) }); err != nil {
			return nil, fmt.Errorf("digest.schedule %q: %w", dg.Schedule, err)
		}
	}
	return c, nil
}

// startWork counts one run (or digest) for shutdown, unless shutdown has
// begun or this replica follows; the caller calls d.runs.Done when it
// ends. Counting happens under the same lock Stop sets stopping with and a
// step-down clears the term with, so runs.Add never races runs.Wait.
func (d *Daemon) startWork() bool {
	_, ok := d.startWorkIn()
	return ok
}

// startWorkIn is startWork that also returns the context the work runs
// under: its term's, which ends when this replica steps down.
func (d *Daemon) startWorkIn() (context.Context, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopping || d.ctx.Err() != nil {
		return nil, false
	}
	ctx := d.ctx
	if t := d.term.Load(); t != nil {
		ctx = t.ctx
	} else if d.elector != nil {
		return nil, false // following: the leader runs it
	}
	// Without an elector this process always leads, also outside the
	// term Start begins (work driven directly, as in tests).
	if ctx.Err() != nil {
		return nil, false
	}
	d.runs.Add(1)
	return ctx, true
}

func (d *Daemon) providerLock(name string) *sync.Mutex {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.locks[name] == nil {
		d.locks[name] = &sync.Mutex{}
	}
	return d.locks[name]
}

// runJob performs one provider run with the snapshot st unless one is
// already going.
func (d *Daemon) runJob(st *state, job Job) {
	ctx, ok := d.startWorkIn()
	if !ok {
		return
	}
	defer d.runs.Done()
	lock := d.providerLock(job.Name)
	if !lock.TryLock() {
		d.metrics.Overlap(job.Name)
		d.log.Info("tick skipped: the previous run of this provider is still going", zap.String("provider", job.Name))
		return
	}
	defer lock.Unlock()
	d.notify.Status(fmt.Sprintf("fetching %s", job.Name))
	sum := run.Provider(ctx, run.DB(d.db), job.Job, st.Save, d.log)
	d.metrics.Observe(sum)
	d.notify.Status(fmt.Sprintf("last run: %s %s at %s", job.Name, sum.Status, time.Now().UTC().Format("15:04Z")))
	d.maybeUpdateFX(ctx)
	// What the run stored is served at once, not at the next poll.
	if _, err := d.versions.Refresh(ctx); err != nil {
		d.log.Warn("reading the data version after a run", zap.Error(err))
	}
	d.refreshGauges(ctx)
	select {
	case d.nudge <- struct{}{}:
	default:
	}
}

// catchUp runs, in the background, each provider whose stored data is
// older than its schedule (or that never succeeded): at start, and when a
// replica begins leading (the previous leader may have missed a tick).
func (d *Daemon) catchUp(t *term) {
	st := d.state()
	now := time.Now().UTC()
	for _, job := range st.Jobs {
		last, err := d.db.LastSuccess(t.ctx, job.Name)
		if err != nil {
			d.log.Error("reading last run", zap.String("provider", job.Name), zap.Error(err))
			continue
		}
		if last != nil && !isStale(job.Schedule, last.StartedAt, now) {
			continue
		}
		job.Owner = owner
		go d.runJob(st, job)
	}
}

// isStale reports whether the schedule would have fired since the last
// successful run, i.e. a run is due.
func isStale(spec string, last, now time.Time) bool {
	sched, err := section.ParseSchedule(spec)
	if err != nil {
		return true
	}
	return !sched.Next(last).After(now)
}

// Reload swaps in the snapshot build composes from a reloaded config; a
// config that cannot run keeps the running one (the error says why, and is
// logged). Runs the old snapshot started carry on with it (under the
// provider lock, counted for Stop); only the old scheduler's future ticks
// are dropped.
func (d *Daemon) Reload(build func() (*Snapshot, error)) error {
	if err := d.notify.Reloading(); err != nil {
		d.log.Warn("sd_notify RELOADING failed", zap.Error(err))
	}
	defer d.ready()
	st, err := d.buildState(build)
	if err != nil {
		d.log.Error("config reload failed; keeping the running config", zap.Error(err))
		return err
	}
	// The log masks every secret any snapshot held: runs of the previous
	// one may still be logging, and a secret taken out of the config is
	// still a secret.
	d.addSecrets(st.Secrets)
	if d.opts.SetLogLevel != nil {
		if err := d.opts.SetLogLevel(st.LogLevel); err != nil {
			d.log.Warn("log level not changed", zap.Error(err))
		}
	}
	old := d.cur.Swap(st)
	old.cron.Stop()
	st.cron.Start()
	select {
	case d.reloaded <- struct{}{}:
	default:
	}
	d.log.Info("config reloaded", zap.String("file", st.Source))
	return nil
}

// ReloadFailed reports a reload whose config could not even be loaded: the
// running config stays, and systemd hears the reload begin and end as for
// any other.
func (d *Daemon) ReloadFailed(err error) {
	if nerr := d.notify.Reloading(); nerr != nil {
		d.log.Warn("sd_notify RELOADING failed", zap.Error(nerr))
	}
	d.log.Error("config reload failed; keeping the running config", zap.Error(err))
	d.ready()
}

func (d *Daemon) ready() {
	if err := d.notify.Ready(); err != nil {
		d.log.Warn("sd_notify READY failed", zap.Error(err))
	}
}

// Stop stops the daemon in this order, within StopGrace in all (or ctx's
// deadline, when sooner):
//
//  1. stop scheduling: no tick, catch-up or reload starts a run any more;
//  2. cancel and wait for the runs: every run derives from d.ctx, so each
//     run in flight, whichever snapshot started it, rolls back and records
//     itself failed (cancelled);
//  3. deliver what can be delivered: the delivery loop stops and, on the
//     leader, one last pass tries every pending message once, and again
//     while retries fall before the deadline; what is left stays queued
//     for the next start (or the next leader);
//  4. give up leadership, so that a follower takes over at its next look;
//  5. stop metrics, health and the watchdog (they answered throughout, so
//     a scrape during shutdown sees the runs end);
//  6. close the database.
func (d *Daemon) Stop(ctx context.Context) error {
	deadline := time.Now().Add(StopGrace)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	d.log.Info("stopping")
	d.notify.Stopping()
	d.health.ready.Store(false)

	d.mu.Lock()
	d.stopping = true
	d.mu.Unlock()
	st := d.state()
	st.cron.Stop()
	d.cancelRuns()

	done := make(chan struct{})
	go func() {
		d.runs.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Until(deadline)):
		d.log.Warn("runs did not stop in time; closing anyway (their transactions roll back)")
	}

	d.stopDelivery()
	// Only a leader delivers, and only while it still leads: the last
	// pass ends with its leadership.
	if t := d.term.Load(); t != nil && st.Alerts != nil {
		if left := time.Until(deadline); left > 0 {
			dctx, cancel := context.WithDeadline(t.lead, deadline)
			if _, err := st.Alerts.Deliver(dctx, d.db, left, true); err != nil && dctx.Err() == nil {
				d.log.Error("alerts not delivered at stop; they stay queued", zap.Error(err))
			}
			cancel()
		}
	}
	// Give up leadership (a follower takes over at its next look).
	d.stopLeading()

	d.stopBackground()
	if err := d.db.Close(); err != nil {
		d.log.Error("closing the database", zap.Error(err))
	}
	d.log.Info("stopped")
	return nil
}

// healthy gates the systemd watchdog: the scheduler ticks and the database answers.
func (d *Daemon) healthy(ctx context.Context) error {
	if err := d.health.schedulerAlive(4 * heartbeatEvery); err != nil {
		return err
	}
	return d.db.Ping(ctx)
}

// readiness is /readyz: healthy, plus each provider's last run. /readyz is
// open to probes, so each failure is wrapped in the words it may show.
func (d *Daemon) readiness(ctx context.Context) (web.Readiness, error) {
	if !d.health.ready.Load() {
		return web.Readiness{}, web.NotReady
	}
	if err := d.health.schedulerAlive(4 * heartbeatEvery); err != nil {
		return web.Readiness{}, fmt.Errorf("%w: %w", web.SchedulerStalled, err)
	}
	if err := d.db.Ping(ctx); err != nil {
		return web.Readiness{}, fmt.Errorf("%w: %w", web.DatabaseUnavailable, err)
	}
	rd, err := ProviderRuns(ctx, d.db)
	rd.Role = web.RoleFollower
	if d.term.Load() != nil {
		rd.Role = web.RoleLeader
	}
	return rd, err
}

// RunStore holds each provider's last run.
type RunStore interface {
	LastRuns(ctx context.Context) ([]pricewatch.Run, error)
}

// ProviderRuns is what /readyz says of each provider: its last run's
// status and start. No error text: /readyz is open to probes, and an error
// may quote a provider's answer (`pricewatch runs` and the token-guarded
// /api/v1/runs have it).
func ProviderRuns(ctx context.Context, db RunStore) (web.Readiness, error) {
	runs, err := db.LastRuns(ctx)
	if err != nil {
		return web.Readiness{}, fmt.Errorf("%w: reading the latest runs: %w", web.DatabaseUnavailable, err)
	}
	rd := web.Readiness{Providers: map[string]web.ProviderRun{}}
	for _, r := range runs {
		rd.Providers[r.Provider] = web.ProviderRun{Status: r.Status, StartedAt: r.StartedAt}
	}
	return rd, nil
}

func (d *Daemon) refreshFollowerGauges() {
	if d.elector == nil || d.term.Load() != nil || d.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
	defer cancel()
	d.refreshGauges(ctx)
}

func (d *Daemon) refreshGauges(ctx context.Context) {
	counts, err := d.db.CurrentOfferCounts(ctx)
	if err != nil {
		d.log.Warn("metrics: counting offers", zap.Error(err))
		return
	}
	for p, n := range counts {
		d.metrics.OffersTracked(p, n)
	}
}

// VersionPoll is how often the daemon reads the data version: how soon
// what another process stored (the leading replica, a CLI fetch) is
// served. A read is a few aggregates over the runs and the outbox
// (storage.DB.DataVersion); at a second, the wait for it was half a
// second on average of the 2 s issue 30 allows a stored run to show.
const VersionPoll = 250 * time.Millisecond

// scrapeStore is the database as /metrics reads it: the data version
// from memory (the watched one), and what the scrape-time series read
// (outbox counts, exchange-rate days, each provider's last success, the
// digest's last queueing) read once per data version, which moves with
// every one of them: a scrape is then a few map reads, whatever the pages
// are doing with the database.
type scrapeStore struct {
	*storage.DB
	versions *web.Versions
	// current answers the reads of what is in force now from the web
	// server's current state of the data version, the one read model the
	// pages and the API read too (issue 30 item 2).
	current func(context.Context) report.Store
	memo    *scrapeMemo
}

// scrapeMemo holds one data version's reads.
type scrapeMemo struct {
	mu      sync.Mutex
	version string
	vals    map[string]any
}

// EachPrice reads the current prices from the current state (the price
// series ask for nothing else); any other read goes to the database.
func (s scrapeStore) EachPrice(ctx context.Context, f storage.PriceFilter, fn func(p *storage.PriceInterval) error) error {
	if f.CurrentOnly && s.current != nil {
		return s.current(ctx).EachPrice(ctx, f, fn)
	}
	return s.DB.EachPrice(ctx, f, fn)
}

func (s scrapeStore) DataVersion(ctx context.Context) (string, error) {
	if v, ok := s.versions.Current(); ok {
		return v, nil
	}
	return s.versions.Refresh(ctx)
}

// memoRead is read's value of the current data version, read once.
func memoRead[T any](s scrapeStore, name string, read func() (T, error)) (T, error) {
	v, ok := s.versions.Current()
	if !ok {
		return read()
	}
	s.memo.mu.Lock()
	defer s.memo.mu.Unlock()
	if s.memo.version != v {
		s.memo.version, s.memo.vals = v, map[string]any{}
	}
	if got, ok := s.memo.vals[name]; ok {
		return got.(T), nil
	}
	val, err := read()
	if err == nil {
		s.memo.vals[name] = val
	}
	return val, err
}

func (s scrapeStore) OutboxCounts(ctx context.Context) (storage.OutboxStats, error) {
	return memoRead(s, "outbox", func() (storage.OutboxStats, error) { return s.DB.OutboxCounts(ctx) })
}

func (s scrapeStore) FXDays(ctx context.Context) ([]storage.FXDay, error) {
	return memoRead(s, "fx", func() ([]storage.FXDay, error) { return s.DB.FXDays(ctx) })
}

func (s scrapeStore) LastSuccessTimes(ctx context.Context) (map[string]time.Time, error) {
	return memoRead(s, "last-success", func() (map[string]time.Time, error) { return s.DB.LastSuccessTimes(ctx) })
}

type queued struct {
	at time.Time
	ok bool
}

func (s scrapeStore) LastQueued(ctx context.Context, kind string) (time.Time, bool, error) {
	q, err := memoRead(s, "queued/"+kind, func() (queued, error) {
		at, ok, err := s.DB.LastQueued(ctx, kind)
		return queued{at, ok}, err
	})
	return q.at, q.ok, err
}

// health is what /readyz, the systemd watchdog and people see.
type health struct {
	ready     atomic.Bool
	heartbeat atomic.Int64 // unix nanos of the scheduler's last tick
}

func (h *health) beat() { h.heartbeat.Store(time.Now().UnixNano()) }

// schedulerAlive reports whether the scheduler loop ticked recently.
func (h *health) schedulerAlive(maxQuiet time.Duration) error {
	last := time.Unix(0, h.heartbeat.Load())
	if quiet := time.Since(last); quiet > maxQuiet {
		return errors.New("scheduler has not ticked for " + quiet.Round(time.Second).String())
	}
	return nil
}

// cronLogger adapts zap to cron.Logger.
type cronLogger struct{ log *zap.Logger }

func (l cronLogger) Info(msg string, kv ...any) { l.log.Sugar().Debugw(msg, kv...) }
func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.log.Sugar().Errorw(msg, append(kv, "error", err)...)
}
