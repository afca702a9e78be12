package main

import (
	"context"
	"errors"
	"fmt"
	providerrun "github.com/pricewatch/pricewatch/run"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/logging"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/systemd"
)

// stopGrace bounds how long shutdown waits for in-flight runs to roll back
// after their context is cancelled; the unit's TimeoutStopSec is longer.
const stopGrace = 15 * time.Second

// heartbeatEvery is how often the scheduler proves it is alive; the
// watchdog and /readyz treat a scheduler silent for 4× this as dead.
const heartbeatEvery = 15 * time.Second

func (a *app) runCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "run",
		Short: "Run the daemon: scheduled fetches, alerts, the weekly digest, metrics",
		Long: `Run fetches each enabled provider on its schedule (providers.<name>.schedule,
UTC), stores and diffs every run, delivers alerts continuously and posts the
weekly digest (digest.schedule in digest.timezone). It serves /metrics,
/healthz, /readyz, the read-only JSON API under /api/v1/ and the dashboard
at / on http.listen (beyond loopback only with http.token_file or
http.allow_unauthenticated) and speaks sd_notify under systemd.

SIGHUP reloads the config (an invalid config keeps the running one);
SIGTERM stops scheduling, cancels runs in flight and waits for them (they
store nothing and are recorded failed), delivers pending alerts within the
stop timeout, stops metrics, closes the database and exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runDaemon(cmd.Context())
		},
	}
}

// daemon is `pricewatch run`: the process-wide parts (database, metrics,
// health, the run bookkeeping) and the current config snapshot.
type daemon struct {
	// root is the process's app: its logger and redactor serve every
	// snapshot. Snapshots get apps of their own (app.bound); none is a copy.
	root *app
	// ctx is what every run derives from. Shutdown cancels it, after it
	// has stopped scheduling and said so, rather than the signal itself:
	// the log then tells the stop order as it happened ("stopping" before
	// the runs' "fetch failed"), and no run can start between the two.
	ctx        context.Context
	cancelRuns context.CancelFunc
	db         *storage.DB
	metrics    *metrics
	health     *health
	notify     *systemd.Notifier
	log        *zap.Logger

	// cur is the config snapshot in effect, swapped whole by a reload.
	cur atomic.Pointer[daemonState]

	mu       sync.Mutex             // guards locks and stopping, and orders runs.Add before runs.Wait
	locks    map[string]*sync.Mutex // per provider; shared by every snapshot's runs
	stopping bool                   // set by shutdown: no run starts after it
	// runs counts every run in flight, scheduled or catch-up, whichever
	// snapshot started it, and the digest: shutdown waits for all of them.
	runs sync.WaitGroup

	// nudge wakes the alert dispatcher after a run queued messages.
	nudge chan struct{}
	// reloaded tells the dispatcher to pick up a reloaded config.
	reloaded chan struct{}
	// fxUpdated is when exchange rates were last fetched (unix nanos); the
	// ECB publishes once a day, so one fetch an hour is plenty.
	fxUpdated atomic.Int64
}

// daemonState is one immutable snapshot of what the daemon runs on, built
// whole from one loaded config (buildState) and swapped atomically by a
// reload. Nothing in it changes after it is built: whoever needs the config
// takes d.state() once and keeps that snapshot for the whole of its work,
// so a reload in the middle of a run, a digest or a delivery pass never
// mixes two configs.
type daemonState struct {
	cfg *config.Config
	// app is bound to cfg, with this snapshot's one secret set (every
	// credential the config names, read when the snapshot was built).
	app  *app
	jobs []providerJob
	opts storage.SaveOptions
	cron *cron.Cron // not started until the snapshot takes effect
}

func (d *daemon) state() *daemonState { return d.cur.Load() }

// bound returns an app for cfg that shares a's output, logger and level
// but has a secret set of its own: the daemon builds one per snapshot.
func (a *app) bound(cfg *config.Config) *app {
	return &app{stdout: a.stdout, stderr: a.stderr, configFlag: a.configFlag, cfg: cfg,
		log: a.log, level: a.level, redactor: logging.NewRedactor()}
}

// buildState builds the snapshot for cfg, or says why cfg cannot run: alert
// rules, provider settings, credentials and schedules are all checked
// before anything takes effect.
func (d *daemon) buildState(cfg *config.Config) (*daemonState, error) {
	a := d.root.bound(cfg)
	if _, err := a.outboxFunc(); err != nil {
		return nil, err
	}
	jobs, err := a.buildJobs(nil)
	if err != nil {
		return nil, err
	}
	// Every secret is read now, so that the snapshot's set is complete
	// before anything uses it (the notifier built later adds nothing).
	if token, err := a.slackToken(); err == nil {
		a.addSecrets(token)
	}
	a.addSecrets(cfg.Slack.WebhookURL)
	if token, err := cfg.HTTPToken(); err == nil {
		a.addSecrets(token)
	}
	if u, err := config.ReadSecret("", cfg.Webhook.URL, cfg.Webhook.URLFile); err == nil {
		a.addSecrets(u)
	}
	if key, err := config.ReadSecret("", config.Secret{}, cfg.Webhook.SecretFile); err == nil {
		a.addSecrets(key)
	}
	st := &daemonState{cfg: cfg, app: a, jobs: jobs, opts: a.saveOptions()}
	if st.cron, err = d.newCron(st); err != nil {
		return nil, err
	}
	return st, nil
}

// maybeUpdateFX refreshes exchange rates after a run, at most hourly.
func (d *daemon) maybeUpdateFX() {
	last := time.Unix(0, d.fxUpdated.Load())
	if time.Since(last) < time.Hour || !d.fxUpdated.CompareAndSwap(last.UnixNano(), time.Now().UnixNano()) {
		return
	}
	d.state().app.afterCycle(d.ctx, d.db)
}

func (a *app) runDaemon(ctx context.Context) error {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)

	notify, err := systemd.New()
	if err != nil {
		a.log.Warn("systemd notifications disabled", zap.Error(err))
	}
	db, err := a.openDB(ctx)
	if err != nil {
		return err
	}
	if err := db.CloseAbandonedRuns(ctx); err != nil {
		return err
	}
	runsCtx, cancelRuns := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRuns()
	d := &daemon{
		root: a, ctx: runsCtx, cancelRuns: cancelRuns, db: db, metrics: newMetrics(db), health: &health{}, notify: notify, log: a.log,
		locks: map[string]*sync.Mutex{}, nudge: make(chan struct{}, 1), reloaded: make(chan struct{}, 1),
	}
	st, err := d.buildState(a.cfg)
	if err != nil {
		return err
	}
	d.cur.Store(st)
	a.addSecretValues(st.app.secretValues...)
	d.metrics.addPriceSeries(db, func() priceSettings { return priceSettingsOf(d.state().cfg) })
	webWrap, err := d.webHandler()
	if err != nil {
		return err
	}
	d.health.beat()
	st.cron.Start()
	d.refreshGauges(ctx)

	// Background work outlives the signal: delivery stops after the runs
	// (so what they queued can still go out), metrics and the watchdog
	// after delivery. Neither context derives from ctx for that reason.
	var bg, delivery sync.WaitGroup
	bgCtx, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBG()
	deliveryCtx, stopDelivery := context.WithCancel(context.WithoutCancel(ctx))
	defer stopDelivery()
	if listen := st.cfg.HTTP.Listen; listen != "" {
		bg.Go(func() {
			if err := serveHTTP(bgCtx, listen, d.metrics, d.readiness, d.log, webWrap); err != nil {
				d.log.Error("http listener failed; metrics and health endpoints are unavailable", zap.String("listen", listen), zap.Error(err))
			}
		})
	}
	delivery.Go(func() { d.deliverLoop(deliveryCtx) })

	d.health.ready.Store(true)
	if err := notify.Ready(); err != nil {
		d.log.Warn("sd_notify READY failed", zap.Error(err))
	}
	notify.Status("running")
	bg.Go(func() { notify.RunWatchdog(bgCtx, d.healthy, d.log) })
	d.log.Info("pricewatch running", zap.String("version", buildVersion()), zap.String("database", db.Path()))
	d.catchUp()

	for {
		select {
		case <-ctx.Done():
			return d.shutdown(stopper{
				delivery: func() { stopDelivery(); delivery.Wait() },
				background: func() {
					stopBG()
					bg.Wait()
				},
			})
		case <-hup:
			d.reload()
		}
	}
}

// newCron builds (without starting) the scheduler of a snapshot: its
// providers' schedules, the heartbeat and the digest. Each tick runs with
// the snapshot it was scheduled by.
func (d *daemon) newCron(st *daemonState) (*cron.Cron, error) {
	clog := cronLogger{d.log.Named("cron")}
	// No cron.SkipIfStillRunning: it logs a skipped tick at debug and
	// counts nothing. runJob skips an overlapping tick itself, logged and
	// counted (pricewatch_fetch_runs_total{result="overlap"}).
	c := cron.New(cron.WithLocation(time.UTC), cron.WithLogger(clog), cron.WithChain(cron.Recover(clog)))
	for _, job := range st.jobs {
		job.Owner = "pricewatch run"
		spec := job.schedule
		if spec == "" {
			spec = "@hourly"
		}
		if _, err := c.AddFunc(spec, func() { d.runJob(st, job) }); err != nil {
			return nil, fmt.Errorf("providers.%s.schedule %q: %w", job.Name, spec, err)
		}
	}
	if _, err := c.AddFunc(fmt.Sprintf("@every %s", heartbeatEvery), d.health.beat); err != nil {
		return nil, err
	}
	if spec := st.cfg.Storage.MaintenanceSchedule; spec != "" {
		if _, err := c.AddFunc(spec, func() { d.runMaintenance(st) }); err != nil {
			return nil, fmt.Errorf("storage.maintenance_schedule %q: %w", spec, err)
		}
	}
	if st.cfg.Digest.Enabled {
		spec := fmt.Sprintf("CRON_TZ=%s %s", st.cfg.Digest.Timezone, st.cfg.Digest.Schedule)
		if _, err := c.AddFunc(spec, func() { d.runDigest(st) }); err != nil {
			return nil, fmt.Errorf("digest.schedule %q: %w", st.cfg.Digest.Schedule, err)
		}
	}
	return c, nil
}

// startWork counts one run (or digest) for shutdown, unless shutdown has
// begun; the caller calls d.runs.Done when it ends. Counting happens under
// the same lock shutdown sets stopping with, so runs.Add never races
// runs.Wait.
func (d *daemon) startWork() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopping || d.ctx.Err() != nil {
		return false
	}
	d.runs.Add(1)
	return true
}

func (d *daemon) providerLock(name string) *sync.Mutex {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.locks[name] == nil {
		d.locks[name] = &sync.Mutex{}
	}
	return d.locks[name]
}

// runJob performs one provider run with the snapshot st unless one is
// already going.
func (d *daemon) runJob(st *daemonState, job providerJob) {
	if !d.startWork() {
		return
	}
	defer d.runs.Done()
	lock := d.providerLock(job.Name)
	if !lock.TryLock() {
		d.metrics.fetchRuns.WithLabelValues(job.Name, "overlap").Inc()
		d.log.Info("tick skipped: the previous run of this provider is still going", zap.String("provider", job.Name))
		return
	}
	defer lock.Unlock()
	d.notify.Status(fmt.Sprintf("fetching %s", job.Name))
	sum := providerrun.Provider(d.ctx, providerrun.DB(d.db), job.Job, st.opts, d.log)
	d.metrics.observe(sum)
	d.notify.Status(fmt.Sprintf("last run: %s %s at %s", job.Name, sum.Status, time.Now().UTC().Format("15:04Z")))
	d.maybeUpdateFX()
	d.refreshGauges(d.ctx)
	select {
	case d.nudge <- struct{}{}:
	default:
	}
}

// catchUp runs, in the background, each provider whose stored data is
// older than its schedule (or that never succeeded).
func (d *daemon) catchUp() {
	st := d.state()
	now := time.Now().UTC()
	for _, job := range st.jobs {
		last, err := d.db.LastSuccess(d.ctx, job.Name)
		if err != nil {
			d.log.Error("reading last run", zap.String("provider", job.Name), zap.Error(err))
			continue
		}
		if last != nil && !isStale(job.schedule, last.StartedAt, now) {
			continue
		}
		job.Owner = "pricewatch run"
		go d.runJob(st, job)
	}
}

// isStale reports whether the schedule would have fired since the last
// successful run, i.e. a run is due.
func isStale(spec string, last, now time.Time) bool {
	if spec == "" {
		spec = "@hourly"
	}
	sched, err := cron.ParseStandard(spec)
	if err != nil {
		return true
	}
	return !sched.Next(last).After(now)
}

// reload re-reads the config and swaps in a new snapshot; an invalid
// config keeps the running one. Runs the old snapshot started carry on
// with it (under the provider lock, counted for shutdown); only the old
// scheduler's future ticks are dropped.
func (d *daemon) reload() {
	if err := d.notify.Reloading(); err != nil {
		d.log.Warn("sd_notify RELOADING failed", zap.Error(err))
	}
	defer func() {
		if err := d.notify.Ready(); err != nil {
			d.log.Warn("sd_notify READY failed", zap.Error(err))
		}
	}()
	cfg, err := config.Load(config.Locate(d.root.configFlag))
	var st *daemonState
	if err == nil {
		st, err = d.buildState(cfg)
	}
	if err != nil {
		d.log.Error("config reload failed; keeping the running config", zap.Error(err))
		return
	}
	// The log masks every secret any snapshot held: runs of the previous
	// one may still be logging, and a secret taken out of the config is
	// still a secret.
	d.root.addSecretValues(st.app.secretValues...)
	if err := d.root.applyLogLevel(cfg.Log.Level); err != nil {
		d.log.Warn("log level not changed", zap.Error(err))
	}
	old := d.cur.Swap(st)
	old.cron.Stop()
	st.cron.Start()
	select {
	case d.reloaded <- struct{}{}:
	default:
	}
	d.log.Info("config reloaded", zap.String("file", cfg.Source))
}

// stopper holds the steps of shutdown that belong to runDaemon's goroutines.
type stopper struct {
	delivery   func() // stop the delivery loop and wait for it
	background func() // stop metrics, health and the watchdog, and wait
}

// shutdown stops the daemon in this order, within stopGrace in all:
//
//  1. stop scheduling: no tick, catch-up or reload starts a run any more;
//  2. cancel and wait for the runs: every run derives from d.ctx, so each
//     run in flight, whichever snapshot started it, rolls back and records
//     itself failed (cancelled);
//  3. deliver what can be delivered: the delivery loop stops and one last
//     pass tries every pending message once, and again while retries fall
//     before the deadline; what is left stays queued for the next start;
//  4. stop metrics, health and the watchdog (they answered throughout, so
//     a scrape during shutdown sees the runs end);
//  5. close the database.
func (d *daemon) shutdown(s stopper) error {
	deadline := time.Now().Add(stopGrace)
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

	s.delivery()
	if left := time.Until(deadline); left > 0 {
		dctx, cancel := context.WithDeadline(context.WithoutCancel(d.ctx), deadline)
		if _, err := st.app.deliver(dctx, d.db, left, true); err != nil && dctx.Err() == nil {
			d.log.Error("alerts not delivered at stop; they stay queued", zap.Error(err))
		}
		cancel()
	}

	s.background()
	if err := d.db.Close(); err != nil {
		d.log.Error("closing the database", zap.Error(err))
	}
	d.root.db = nil
	d.log.Info("stopped")
	return nil
}

// healthy gates the systemd watchdog: the scheduler ticks and the database answers.
func (d *daemon) healthy(ctx context.Context) error {
	if err := d.health.schedulerAlive(4 * heartbeatEvery); err != nil {
		return err
	}
	return d.db.Ping(ctx)
}

// readiness is /readyz: healthy, plus each provider's last run.
func (d *daemon) readiness(ctx context.Context) (map[string]any, error) {
	body := map[string]any{"ready": d.health.ready.Load()}
	if !d.health.ready.Load() {
		return body, errors.New("not ready")
	}
	if err := d.healthy(ctx); err != nil {
		return body, err
	}
	runs, err := d.db.LastRuns(ctx)
	if err != nil {
		return body, err
	}
	providers := map[string]any{}
	for _, r := range runs {
		p := map[string]any{"status": r.Status, "started_at": r.StartedAt.Format(time.RFC3339)}
		if r.Error != "" {
			p["error"] = d.root.redactor.String(r.Error)
		}
		providers[r.Provider] = p
	}
	body["providers"] = providers
	return body, nil
}

func (d *daemon) refreshGauges(ctx context.Context) {
	counts, err := d.db.CurrentOfferCounts(ctx)
	if err != nil {
		d.log.Warn("metrics: counting offers", zap.Error(err))
		return
	}
	for p, n := range counts {
		d.metrics.offersTracked.WithLabelValues(p).Set(float64(n))
	}
}

// cronLogger adapts zap to cron.Logger.
type cronLogger struct{ log *zap.Logger }

func (l cronLogger) Info(msg string, kv ...any) { l.log.Sugar().Debugw(msg, kv...) }
func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.log.Sugar().Errorw(msg, append(kv, "error", err)...)
}
