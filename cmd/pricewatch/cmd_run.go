package main

import (
	"context"
	"errors"
	"fmt"
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
SIGTERM stops scheduling, cancels runs in flight (they store nothing) and
exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runDaemon(cmd.Context())
		},
	}
}

// daemon is the state of `pricewatch run`.
type daemon struct {
	a       *app
	ctx     context.Context // cancelled on SIGTERM: every run derives from it
	db      *storage.DB
	metrics *metrics
	health  *health
	notify  *systemd.Notifier
	log     *zap.Logger

	mu    sync.Mutex // guards cron, jobs and cfg across reloads
	cron  *cron.Cron
	jobs  []providerJob
	locks map[string]*sync.Mutex // per provider; shared by cron and start-up runs
	runs  sync.WaitGroup         // start-up runs in flight (cron.Stop awaits cron's)

	// nudge wakes the alert dispatcher after a run queued messages.
	nudge chan struct{}
	// reloaded tells the dispatcher to pick up a reloaded config.
	reloaded chan struct{}
	// fxUpdated is when exchange rates were last fetched (unix nanos); the
	// ECB publishes once a day, so one fetch an hour is plenty.
	fxUpdated atomic.Int64
}

// maybeUpdateFX refreshes exchange rates after a run, at most hourly.
func (d *daemon) maybeUpdateFX() {
	last := time.Unix(0, d.fxUpdated.Load())
	if time.Since(last) < time.Hour || !d.fxUpdated.CompareAndSwap(last.UnixNano(), time.Now().UnixNano()) {
		return
	}
	d.mu.Lock()
	candidate := *d.a
	d.mu.Unlock()
	candidate.afterCycle(d.ctx, d.db)
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
	d := &daemon{
		a: a, ctx: ctx, db: db, metrics: newMetrics(db), health: &health{}, notify: notify, log: a.log,
		locks: map[string]*sync.Mutex{}, nudge: make(chan struct{}, 1), reloaded: make(chan struct{}, 1),
	}
	d.metrics.addPriceSeries(db, func() priceSettings {
		d.mu.Lock()
		defer d.mu.Unlock()
		return priceSettingsOf(d.a.cfg)
	})
	if _, err := a.outboxFunc(); err != nil {
		return err
	}
	webWrap, err := d.webHandler()
	if err != nil {
		return err
	}
	d.health.beat()
	if err := d.schedule(); err != nil {
		return err
	}
	d.refreshGauges(ctx)

	var bg sync.WaitGroup
	defer bg.Wait()
	bgCtx, stopBG := context.WithCancel(ctx)
	defer stopBG()
	if listen := a.cfg.HTTP.Listen; listen != "" {
		bg.Go(func() {
			if err := serveHTTP(bgCtx, listen, d.metrics, d.readiness, d.log, webWrap); err != nil {
				d.log.Error("http listener failed; metrics and health endpoints are unavailable", zap.String("listen", listen), zap.Error(err))
			}
		})
	}
	bg.Go(func() { d.deliverLoop(bgCtx) })

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
			return d.shutdown(stopBG)
		case <-hup:
			d.reload()
		}
	}
}

// schedule (re)builds the cron scheduler from the current config.
func (d *daemon) schedule() error {
	cfg := d.a.cfg
	jobs, err := d.a.buildJobs(nil)
	if err != nil {
		return err
	}
	clog := cronLogger{d.log.Named("cron")}
	// No cron.SkipIfStillRunning: it logs a skipped tick at debug and
	// counts nothing. runJob skips an overlapping tick itself, logged and
	// counted (pricewatch_fetch_runs_total{result="overlap"}).
	c := cron.New(cron.WithLocation(time.UTC), cron.WithLogger(clog), cron.WithChain(cron.Recover(clog)))
	for _, job := range jobs {
		job := job
		job.owner = "pricewatch run"
		spec := job.schedule
		if spec == "" {
			spec = "@hourly"
		}
		if _, err := c.AddFunc(spec, func() { d.runJob(job) }); err != nil {
			return fmt.Errorf("providers.%s.schedule %q: %w", job.name, spec, err)
		}
	}
	if _, err := c.AddFunc(fmt.Sprintf("@every %s", heartbeatEvery), d.health.beat); err != nil {
		return err
	}
	if spec := cfg.Storage.MaintenanceSchedule; spec != "" {
		if _, err := c.AddFunc(spec, d.runMaintenance); err != nil {
			return fmt.Errorf("storage.maintenance_schedule %q: %w", spec, err)
		}
	}
	if cfg.Digest.Enabled {
		spec := fmt.Sprintf("CRON_TZ=%s %s", cfg.Digest.Timezone, cfg.Digest.Schedule)
		if _, err := c.AddFunc(spec, d.runDigest); err != nil {
			return fmt.Errorf("digest.schedule %q: %w", cfg.Digest.Schedule, err)
		}
	}
	d.mu.Lock()
	old := d.cron
	d.cron, d.jobs = c, jobs
	for _, j := range jobs {
		if d.locks[j.name] == nil {
			d.locks[j.name] = &sync.Mutex{}
		}
	}
	d.mu.Unlock()
	if old != nil {
		// Runs the old scheduler started carry on under the provider lock;
		// only their future ticks are dropped.
		old.Stop()
	}
	c.Start()
	return nil
}

// runJob performs one provider run unless one is already going.
func (d *daemon) runJob(job providerJob) {
	d.mu.Lock()
	lock := d.locks[job.name]
	d.mu.Unlock()
	if !lock.TryLock() {
		d.metrics.fetchRuns.WithLabelValues(job.name, "overlap").Inc()
		d.log.Info("tick skipped: the previous run of this provider is still going", zap.String("provider", job.name))
		return
	}
	defer lock.Unlock()
	if d.ctx.Err() != nil {
		return
	}
	d.notify.Status(fmt.Sprintf("fetching %s", job.name))
	// The config may be swapped by a reload while the run goes on; take
	// what the run needs now.
	d.mu.Lock()
	opts := d.a.saveOptions()
	d.mu.Unlock()
	sum := runProvider(d.ctx, d.db, job, opts, d.log)
	d.metrics.observe(sum)
	d.notify.Status(fmt.Sprintf("last run: %s %s at %s", job.name, sum.Status, time.Now().UTC().Format("15:04Z")))
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
	d.mu.Lock()
	jobs := d.jobs
	d.mu.Unlock()
	now := time.Now().UTC()
	for _, job := range jobs {
		last, err := d.db.LastSuccess(d.ctx, job.name)
		if err != nil {
			d.log.Error("reading last run", zap.String("provider", job.name), zap.Error(err))
			continue
		}
		if last != nil && !isStale(job.schedule, last.StartedAt, now) {
			continue
		}
		// Counted before the goroutine starts, so that shutdown's Wait
		// cannot miss it; cron's own runs are awaited through cron.Stop.
		d.runs.Add(1)
		go func() {
			defer d.runs.Done()
			d.runJob(job)
		}()
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

// reload re-reads the config; an invalid one keeps the running config.
func (d *daemon) reload() {
	if err := d.notify.Reloading(); err != nil {
		d.log.Warn("sd_notify RELOADING failed", zap.Error(err))
	}
	defer func() {
		if err := d.notify.Ready(); err != nil {
			d.log.Warn("sd_notify READY failed", zap.Error(err))
		}
	}()
	cfg, err := config.Load(config.Locate(d.a.configFlag))
	if err == nil {
		// Alert rules are checked against the new config before it
		// replaces the running one.
		candidate := *d.a
		candidate.cfg = cfg
		_, err = candidate.outboxFunc()
	}
	if err != nil {
		d.log.Error("config reload failed; keeping the running config", zap.Error(err))
		return
	}
	d.mu.Lock()
	prev := d.a.cfg
	d.a.cfg = cfg
	d.mu.Unlock()
	if err := d.a.applyLogLevel(cfg.Log.Level); err != nil {
		d.log.Warn("log level not changed", zap.Error(err))
	}
	if err := d.schedule(); err != nil {
		d.mu.Lock()
		d.a.cfg = prev
		d.mu.Unlock()
		d.log.Error("config reload failed; keeping the running config", zap.Error(err))
		if err := d.schedule(); err != nil {
			d.log.Error("restoring the previous schedule failed", zap.Error(err))
		}
		return
	}
	select {
	case d.reloaded <- struct{}{}:
	default:
	}
	d.log.Info("config reloaded", zap.String("file", cfg.Source))
}

func (d *daemon) shutdown(stopBG context.CancelFunc) error {
	d.log.Info("stopping")
	d.notify.Stopping()
	d.health.ready.Store(false)
	d.mu.Lock()
	c := d.cron
	d.mu.Unlock()
	// The root context is already cancelled, so runs in flight abort and
	// roll back; wait for them briefly so the database closes cleanly.
	stopped := c.Stop()
	done := make(chan struct{})
	go func() {
		<-stopped.Done()
		d.runs.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(stopGrace):
		d.log.Warn("runs did not stop in time; exiting anyway (their transactions roll back)")
	}
	stopBG()
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
			p["error"] = d.a.redactor.String(r.Error)
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
