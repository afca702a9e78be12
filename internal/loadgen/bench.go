package loadgen

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/internal/scalegen"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/systemd"
)

// BenchOptions configure Bench.
type BenchOptions struct {
	// Binary is the pricewatch binary to serve with (`pricewatch run`).
	Binary string
	// Share of a simulated year (internal/scalegen; 0.25 in the issue).
	Share float64
	// Backends to run on: "sqlite", "postgres".
	Backends []string
	// PostgresURL is an empty database or one the bench may add a schema
	// to (its own, dropped and made again each time).
	PostgresURL string
	// Duration of the team and 200-client profiles (60 s in the issue).
	Duration time.Duration
	// WriteEvery is how often the writer stores a run (5 s).
	WriteEvery time.Duration
	// Dir holds the copies of the database, configs and daemon logs.
	Dir string
	// MemoryLimit is the daemon's GOMEMLIMIT ("": the unit's).
	MemoryLimit string
	// LogLevel is the daemon's log.level ("": info); at debug its log
	// (Dir/<backend>.log) says what the refresher computed and when.
	LogLevel string
	Log      io.Writer
}

// benchSchema is the PostgreSQL schema the bench fills.
const benchSchema = "pricewatch_loadtest"

// Bench is `make loadtest`: it builds (or finds) the scale database,
// moves its times to end today, serves it with `pricewatch run` (on
// PostgreSQL a leader and a follower, the load sent to the follower)
// while a writer stores a simulated run every WriteEvery, runs every
// profile one after the other and returns the results as docs/scale.md's
// table.
func Bench(ctx context.Context, o BenchOptions) (string, error) {
	d := scalegen.Default(o.Share)
	logf := func(format string, args ...any) { fmt.Fprintf(o.Log, format+"\n", args...) }
	cached, err := scalegen.Cached(ctx, d, o.Log)
	if err != nil {
		return "", err
	}
	path, err := scalegen.CopyTo(cached, o.Dir)
	if err != nil {
		return "", fmt.Errorf("copying the scale database: %w", err)
	}
	days, err := scalegen.Shift(ctx, path, d, time.Now().UTC())
	if err != nil {
		return "", err
	}
	logf("scale database %s (share %g), times moved %d days to end today", path, o.Share, days)
	// Migrated once here, not by the daemon under load (the daily
	// summary's backfill).
	began := time.Now()
	db, err := storage.Open(ctx, path, storage.Options{Progress: func(m string) { logf("%s", m) }})
	if err != nil {
		return "", err
	}
	db.Close()
	logf("migrated in %s", time.Since(began).Round(time.Second))
	var out strings.Builder
	for _, backend := range o.Backends {
		target := path
		if backend == "postgres" {
			if target, err = copyToPostgres(ctx, path, o.PostgresURL, logf); err != nil {
				return "", err
			}
		}
		results, fresh, err := benchOn(ctx, o, d, backend, target, logf)
		if err != nil {
			return "", fmt.Errorf("load test on %s: %w", backend, err)
		}
		out.WriteString(Table(backend, results))
		out.WriteString("\n")
		out.WriteString(FreshTable(backend, fresh))
		out.WriteString("\n")
	}
	return out.String(), nil
}

// copyToPostgres copies the SQLite history at path into a fresh schema of
// base and returns that schema's URL.
func copyToPostgres(ctx context.Context, path, base string, logf func(string, ...any)) (string, error) {
	if base == "" {
		return "", fmt.Errorf("the postgres backend needs a PostgreSQL URL (PRICEWATCH_TEST_POSTGRES)")
	}
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	s := pgx.Identifier{benchSchema}.Sanitize()
	_, err = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+s+" CASCADE; CREATE SCHEMA "+s)
	conn.Close(ctx)
	if err != nil {
		return "", fmt.Errorf("making schema %s: %w", benchSchema, err)
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("the PostgreSQL URL: %w", err)
	}
	q := u.Query()
	q.Set("search_path", benchSchema)
	u.RawQuery = q.Encode()
	target := u.String()
	src, err := storage.Open(ctx, path, storage.Options{})
	if err != nil {
		return "", err
	}
	defer src.Close()
	dst, err := storage.OpenPostgres(ctx, target, storage.Options{})
	if err != nil {
		return "", err
	}
	defer dst.Close()
	began := time.Now()
	if _, err := storage.Copy(ctx, src, dst, storage.CopyOptions{}); err != nil {
		return "", err
	}
	if err := dst.Vacuum(ctx); err != nil {
		return "", err
	}
	logf("copied to PostgreSQL schema %s in %s", benchSchema, time.Since(began).Round(time.Second))
	return target, nil
}

// benchOn serves target and runs the profiles against it.
func benchOn(ctx context.Context, o BenchOptions, d scalegen.Deployment, backend, target string, logf func(string, ...any)) ([]Result, []Freshness, error) {
	replicas := []string{""}
	if backend == "postgres" {
		// The leader first, so that the follower, where the load goes,
		// finds it leading.
		replicas = []string{"load-leader", "load-follower"}
	}
	var base string
	var pid int // the daemon the load goes to
	for _, replica := range replicas {
		url, p, stop, err := serve(ctx, o, backend, target, replica, logf)
		if err != nil {
			return nil, nil, err
		}
		defer stop()
		base, pid = url, p
	}
	profiles := Profiles(Targets{GPU: "H100", InstanceType: "p4.H100x8"}, o.Duration)
	if err := WarmUp(ctx, base, profiles, 10*time.Minute, logf); err != nil {
		return nil, nil, err
	}
	sim, err := scalegen.Open(ctx, target, d)
	if err != nil {
		return nil, nil, err
	}
	defer sim.Close()
	// The writer: a simulated Azure run (every offer, ~1.4 % of the spot
	// prices moved) every WriteEvery, as fetches store beside the load.
	writeCtx, stopWrites := context.WithCancel(ctx)
	writes := make(chan int, 1)
	// Beside the writer, how long each stored run takes to show on the
	// overview, the offers table, the API and /metrics.
	probe := newFreshProbe(base, 30*time.Second)
	// The versions committed before a run's prices, the run's start
	// among them, are not its showing.
	noteVersion := func(ctx context.Context) {
		if v, err := sim.DB.DataVersion(ctx); err == nil {
			probe.note(v)
		}
	}
	sim.Started = noteVersion
	go func() {
		n := 0
		defer func() { writes <- n }()
		for tick := time.NewTicker(o.WriteEvery); ; {
			select {
			case <-writeCtx.Done():
				tick.Stop()
				return
			case <-tick.C:
			}
			sim.Now = time.Now().UTC()
			noteVersion(writeCtx)
			before := probe.mark(writeCtx)
			if _, err := sim.AzureRun(writeCtx, true); err != nil {
				if writeCtx.Err() == nil {
					logf("a run during the load: %v", err)
				}
				continue
			}
			probe.follow(writeCtx, before, time.Now())
			n++
		}
	}()
	var results []Result
	for _, p := range profiles {
		probe.setPhase(p.Name)
		cpu, own := processCPU(pid), processCPU(os.Getpid())
		res, err := Run(ctx, base, p)
		if err != nil {
			stopWrites()
			<-writes
			return nil, nil, err
		}
		if cpu > 0 {
			res.ServerCPU = processCPU(pid) - cpu
		}
		res.Load = loadAverage()
		res.RSS, res.PeakRSS = processMemory(pid)
		// The load generator shares the machine's cores with the daemon.
		own = processCPU(os.Getpid()) - own
		// MB as the table's (10⁶ bytes): until 2026-12-07 this line gave
		// MiB under the same name, 4.9 % less.
		logf("%s: %s, %d answers, %.1f %% 503, p50 %s p99 %s max %s, server CPU %s, load generator CPU %s, RSS %.0f MB (peak %.0f MB), load %s", backend, p.Name, res.All.Count, 100*res.All.ShedShare(),
			res.All.P50, res.All.P99, res.All.Max, res.ServerCPU, own, float64(res.RSS)/1e6, float64(res.PeakRSS)/1e6, res.Load)
		results = append(results, res)
	}
	stopWrites()
	if line, ok := TwoAgainstOne(results); ok {
		logf("%s: %s", backend, line)
	}
	logf("%s: %d runs stored during the load", backend, <-writes)
	fresh := probe.results()
	for _, f := range fresh {
		if f.Profile != "" {
			continue // in the table
		}
		logf("%s: %s showed a stored run after p50 %s p99 %s max %s (%d runs followed, %d not shown within 30 s)", backend, f.Path, f.P50, f.P99, f.Max, f.Runs, f.Missed)
	}
	return results, fresh, nil
}

// serve starts `pricewatch run` on target on a free loopback port, waits
// until it answers /readyz and returns its URL and how to stop it.
func serve(ctx context.Context, o BenchOptions, backend, target, replica string, logf func(string, ...any)) (string, int, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", 0, nil, err
	}
	addr := l.Addr().String()
	l.Close()
	name := backend
	if replica != "" {
		name = replica
	}
	cfg := filepath.Join(o.Dir, name+".yaml")
	if err := os.WriteFile(cfg, []byte(benchConfig(backend, target, addr, replica, o.LogLevel)), 0o600); err != nil {
		return "", 0, nil, err
	}
	logFile, err := os.Create(filepath.Join(o.Dir, name+".log"))
	if err != nil {
		return "", 0, nil, err
	}
	cmd := exec.CommandContext(ctx, o.Binary, "--config", cfg, "run")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// As the unit runs it (systemd/pricewatch.service), unless asked to
	// weigh another soft limit (the last of a key's values is the one
	// used).
	cmd.Env = append(os.Environ(), systemd.MemoryEnvironment()...)
	if o.MemoryLimit != "" {
		cmd.Env = append(cmd.Env, "GOMEMLIMIT="+o.MemoryLimit)
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return "", 0, nil, fmt.Errorf("starting %s: %w", o.Binary, err)
	}
	// Waited for once: a daemon that exits before it is ready (its port
	// taken meanwhile, a crash) fails the start at once, not after the
	// 5 minutes a migration may take.
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		logFile.Close()
	}
	base := "http://" + addr
	deadline := time.Now().Add(5 * time.Minute)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			stop()
			return "", 0, nil, fmt.Errorf("pricewatch run (%s) not ready within 5 minutes: see %s", name, logFile.Name())
		}
		select {
		case <-exited:
			logFile.Close()
			return "", 0, nil, fmt.Errorf("pricewatch run (%s) exited before it was ready (%v): see %s", name, waitErr, logFile.Name())
		case <-time.After(500 * time.Millisecond):
		}
	}
	logf("%s serving on %s", name, base)
	return base, cmd.Process.Pid, stop, nil
}

// processCPU is the CPU time (user and system) process pid has used so
// far, from /proc (0 where there is none).
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's closing parenthesis: utime and stime
	// are the 12th and 13th, in clock ticks (100 a second on Linux).
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(u+st) * 10 * time.Millisecond
}

// processMemory is process pid's resident memory now and its high-water
// mark, in bytes, from /proc (zeros where there is none).
func processMemory(pid int) (rss, peak int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, val, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			continue
		}
		if name == "VmRSS" {
			rss = kb << 10
		} else {
			peak = kb << 10
		}
	}
	return rss, peak
}

// loadAverage is the machine's 1-minute load average ("" where unknown).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// benchConfig is the daemon's configuration: the database, the listener,
// no cloud, exchange rate or digest of its own (the writer stores runs).
func benchConfig(backend, target, addr, replica, logLevel string) string {
	var b strings.Builder
	if logLevel != "" {
		fmt.Fprintf(&b, "log:\n  level: %s\n", logLevel)
	}
	if backend == "postgres" {
		fmt.Fprintf(&b, "database:\n  url: %q\n", target)
	} else {
		fmt.Fprintf(&b, "database:\n  path: %q\n", target)
	}
	fmt.Fprintf(&b, "http:\n  listen: %s\nfx:\n  enabled: false\ndigest:\n  enabled: false\nproviders:\n", addr)
	for _, p := range clouds.Names() {
		fmt.Fprintf(&b, "  %s:\n    enabled: false\n", p)
	}
	if replica != "" {
		fmt.Fprintf(&b, "ha:\n  replica: %s\n", replica)
	}
	return b.String()
}
