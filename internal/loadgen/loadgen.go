// Package loadgen is pricewatch's load generator (issue 30 item 5): a
// bounded number of clients send requests to a daemon on loopback for a
// while, each waiting a think time between requests (and what a 503's
// Retry-After asks), and the answers are summed up per endpoint: count,
// share shed with 503, p50, p99 and max. Profiles are lists of streams
// run together; Profiles holds the four. bench.go runs them
// against the daemon on the scale database (`make loadtest`).
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Stream is a group of clients alike.
type Stream struct {
	// Name labels the stream's endpoints in the results ("" none).
	Name    string
	Clients int
	// Paths are requested in turn, each client starting at its own.
	Paths []string
	// Think is how long a client waits between the start of one request
	// and the next (a page opened every 10 s): 0 sends back to back. A
	// request slower than Think is followed at once.
	Think time.Duration
}

// Profile is streams run together for Duration.
type Profile struct {
	Name     string
	Duration time.Duration
	Streams  []Stream
}

// Stats is what one endpoint answered.
type Stats struct {
	Endpoint string
	Count    int
	// Shed answered 503; Failed anything else but 200 and 304, or no
	// answer (a dropped connection, a timeout).
	Shed, Failed  int
	P50, P99, Max time.Duration
	Mean          time.Duration
}

// ShedShare is the share of answers that were 503s.
func (s Stats) ShedShare() float64 {
	if s.Count == 0 {
		return 0
	}
	return float64(s.Shed) / float64(s.Count)
}

// Result is a profile's outcome, per endpoint in the order first asked
// and over all.
type Result struct {
	Profile   string
	Endpoints []Stats
	All       Stats
	// ServerCPU is the CPU time the daemon used during the profile, and
	// Load the machine's load average at its end (Bench fills both; zero
	// when not known): on a shared machine wall times say as much about
	// the neighbours as about the daemon.
	ServerCPU time.Duration
	Load      string
	// RSS and PeakRSS are the daemon's resident memory at the profile's
	// end and its high-water mark since it started, in bytes (Bench
	// fills both from /proc; zero when not known): issue 30's 100 MB.
	RSS, PeakRSS int64
}

// ErrNotLoopback refuses a target that is not this machine: the load
// generator is for one's own daemon.
var ErrNotLoopback = errors.New("the load generator sends only to loopback (127.0.0.1, ::1, localhost)")

// checkLoopback refuses base unless its host is a loopback address.
func checkLoopback(base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return fmt.Errorf("load target %q: %w", base, err)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("load target %q: %w", base, ErrNotLoopback)
}

// sample is one answer.
type sample struct {
	endpoint string
	took     time.Duration
	status   int // 0: no answer
}

// Run sends p's streams to base (a loopback URL) until p.Duration has
// passed and sums up the answers. Requests still running at the end are
// waited for (the client's timeout bounds them) and counted.
func Run(ctx context.Context, base string, p Profile) (Result, error) {
	if err := checkLoopback(base); err != nil {
		return Result{}, err
	}
	clients := 0
	for _, s := range p.Streams {
		if s.Clients <= 0 || len(s.Paths) == 0 {
			return Result{}, fmt.Errorf("profile %s: stream %q needs clients and paths", p.Name, s.Name)
		}
		clients += s.Clients
	}
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	// Past this an answer counts as failed: no dashboard user waits longer.
	client := &http.Client{Timeout: 30 * time.Second, Transport: tr}
	runCtx, stop := context.WithTimeout(ctx, p.Duration)
	defer stop()
	var mu sync.Mutex
	var samples []sample
	var order []string
	seen := map[string]bool{}
	for _, s := range p.Streams {
		for _, path := range s.Paths {
			e := endpoint(s.Name, path)
			if !seen[e] {
				seen[e] = true
				order = append(order, e)
			}
		}
	}
	var wg sync.WaitGroup
	for _, s := range p.Streams {
		for c := range s.Clients {
			wg.Go(func() {
				var mine []sample
				for i := c; runCtx.Err() == nil; i++ {
					path := s.Paths[i%len(s.Paths)]
					began := time.Now()
					status, retry := get(client, base+path)
					mine = append(mine, sample{endpoint(s.Name, path), time.Since(began), status})
					wait := s.Think - time.Since(began)
					if status == http.StatusServiceUnavailable {
						// As a client is asked to: wait, then try again.
						wait = max(wait, retry)
					}
					if wait > 0 {
						select {
						case <-runCtx.Done():
						case <-time.After(wait):
						}
					}
				}
				mu.Lock()
				samples = append(samples, mine...)
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return summarize(p.Name, order, samples), nil
}

// endpoint names a stream's path in the results.
func endpoint(stream, path string) string {
	if stream == "" {
		return path
	}
	return stream + " " + path
}

// get requests u and reads the answer whole, as sent; status 0 for no
// answer, and a 503's Retry-After.
//
// It asks for gzip itself, so the answer is read compressed, as it came
// over the wire, and not decompressed (Go's transport decompresses only
// what it asked for). Issue 30: the 200 clients, decompressing every
// offers table and chart page on the daemon's own two cores, took more
// than one of them; a browser decompresses on its user's machine.
func get(client *http.Client, u string) (int, time.Duration) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return 0, 0
	}
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, 0
	}
	secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	return resp.StatusCode, time.Duration(secs) * time.Second
}

// summarize sums samples up per endpoint (in order) and over all.
func summarize(profile string, order []string, samples []sample) Result {
	by := map[string][]sample{}
	for _, s := range samples {
		by[s.endpoint] = append(by[s.endpoint], s)
	}
	res := Result{Profile: profile, All: stats("all", samples)}
	for _, e := range order {
		res.Endpoints = append(res.Endpoints, stats(e, by[e]))
	}
	return res
}

func stats(name string, samples []sample) Stats {
	st := Stats{Endpoint: name, Count: len(samples)}
	took := make([]time.Duration, 0, len(samples))
	for _, s := range samples {
		took = append(took, s.took)
		switch s.status {
		case http.StatusOK, http.StatusNotModified:
		case http.StatusServiceUnavailable:
			st.Shed++
		default:
			st.Failed++
		}
	}
	slices.Sort(took)
	st.P50, st.P99 = quantile(took, 0.50), quantile(took, 0.99)
	if len(took) > 0 {
		st.Max = took[len(took)-1]
		var sum time.Duration
		for _, d := range took {
			sum += d
		}
		st.Mean = sum / time.Duration(len(took))
	}
	return st
}

// TwoAgainstOne is what two clients asking for the overview at once cost
// against one (issue 30: two concurrent `/` requests should take at most
// 2.2× one), at the median, the mean and p99, from the profiles of one
// and two clients; false when results lack either.
func TwoAgainstOne(results []Result) (string, bool) {
	var one, two *Stats
	for i := range results {
		switch results[i].Profile {
		case overviewProfile(1):
			one = &results[i].All
		case overviewProfile(2):
			two = &results[i].All
		}
	}
	if one == nil || two == nil || one.Count == 0 || two.Count == 0 {
		return "", false
	}
	ratio := func(a, b time.Duration) string {
		if a <= 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2f×", float64(b)/float64(a))
	}
	return fmt.Sprintf("two `/` at once against one: p50 %s → %s (%s), mean %s → %s (%s), p99 %s → %s (%s)",
		ms(one.P50), ms(two.P50), ratio(one.P50, two.P50), ms(one.Mean), ms(two.Mean), ratio(one.Mean, two.Mean),
		ms(one.P99), ms(two.P99), ratio(one.P99, two.P99)), true
}

// quantile is the q-quantile of sorted durations (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Table is results as the markdown rows of docs/scale.md's table, under
// a header naming the backend.
func Table(backend string, results []Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| backend | profile | endpoint | answers | 503 | failed | p50 | p99 | max | server CPU per answer | daemon RSS (peak) | load |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	row := func(r Result, s Stats, whole bool) {
		cpu, mem, load := "", "", ""
		if whole {
			if r.RSS > 0 {
				mem = fmt.Sprintf("%.0f MB (%.0f MB)", float64(r.RSS)/1e6, float64(r.PeakRSS)/1e6)
			}
			// Of the profile as a whole: its last row.
			if r.ServerCPU > 0 && r.All.Count > 0 {
				cpu = ms(r.ServerCPU / time.Duration(r.All.Count))
			}
			load = r.Load
		}
		fmt.Fprintf(&b, "| %s | %s | `%s` | %d | %.1f %% | %d | %s | %s | %s | %s | %s | %s |\n", backend, r.Profile, s.Endpoint, s.Count, 100*s.ShedShare(), s.Failed,
			ms(s.P50), ms(s.P99), ms(s.Max), cpu, mem, load)
	}
	for _, r := range results {
		for i, s := range r.Endpoints {
			row(r, s, len(r.Endpoints) == 1 && i == 0)
		}
		if len(r.Endpoints) > 1 {
			row(r, r.All, true)
		}
	}
	return b.String()
}

// ms is a duration as the tables write it.
func ms(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// WarmUp asks for every path of profiles once, one at a time, before the
// load starts, waiting as long as each first computation takes (up to
// limit, through any 503), and logs how long each took. The profiles
// measure a running daemon: what a just-started one costs for its first
// views is this line of the log, not a share of the first profile's
// answers (issue 30: the first `/` of a start took longer than the
// client's 30 s on a loaded machine, and was counted as one failed view
// of "`/` with 1 client").
func WarmUp(ctx context.Context, base string, profiles []Profile, limit time.Duration, logf func(string, ...any)) error {
	if err := checkLoopback(base); err != nil {
		return err
	}
	seen := map[string]bool{}
	client := &http.Client{Timeout: limit}
	for _, p := range profiles {
		for _, s := range p.Streams {
			for _, path := range s.Paths {
				if seen[path] {
					continue
				}
				seen[path] = true
				start := time.Now()
				for {
					if err := ctx.Err(); err != nil {
						return err
					}
					code, wait := get(client, base+path)
					if code == http.StatusOK || code == http.StatusNotModified {
						break
					}
					if time.Since(start) > limit {
						return fmt.Errorf("warming up %s: answered %d for %s", path, code, limit)
					}
					time.Sleep(max(wait, 100*time.Millisecond))
				}
				logf("warm-up: %s first answered in %s", path, time.Since(start).Round(time.Millisecond))
			}
		}
	}
	return nil
}
