package loadgen

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pricewatch/pricewatch/storage"
)

// FreshPaths are the answers issue 30 asks to show a stored run within
// 2 s of its commit (5 s on a follower): the overview, the offers table,
// the API and /metrics.
var FreshPaths = []string{"/", "/offers", "/api/v1/offers?gpu=H100", "/metrics"}

// freshMetric is the /metrics line a stored Azure run changes: the
// provider's last successful run, read from the store per data version.
const freshMetric = `pricewatch_fetch_last_success_timestamp_seconds{provider="azure"}`

// Freshness is how long after a run's commit one answer first showed it.
type Freshness struct {
	// Profile is the load profile running at the commits ("" for every
	// commit followed): under 200 clients a core serves requests that
	// the refresher would compute with, under a team's load it does not.
	Profile string
	Path    string
	// Runs is how many commits were followed; Missed how many the answer
	// had not shown within the probe's limit (counted, not in the times).
	Runs, Missed  int
	P50, P99, Max time.Duration
}

// pollEvery is how often a followed answer is asked for again: fine
// enough for a 2 s bound, and a load of its own the profiles share (four
// answers, a /metrics scrape among them, ten times a second).
const pollEvery = 100 * time.Millisecond

// freshProbe follows stored runs: what each path answers is marked before
// a commit, and polled after it until the answer changes. A probe runs
// for one commit at a time; commits meanwhile are not followed, so that
// every change seen is the followed commit's, not an earlier one's
// computation ending late.
type freshProbe struct {
	base   string
	client *http.Client
	limit  time.Duration
	busy   atomic.Bool
	wg     sync.WaitGroup

	phase atomic.Pointer[string] // the profile running (setPhase)

	// old are the data versions committed before the next commit to be
	// followed (note): an answer of one of them does not show it. A
	// run's start is committed before its prices and moves the version
	// too; the pages' ETags moved with it, and were taken for the run's
	// showing.
	oldMu sync.Mutex
	old   map[string]bool

	mu sync.Mutex
	// Keyed by profile ("" for all) then path; runs by profile.
	samples  map[string]map[string][]time.Duration
	missed   map[string]map[string]int
	runs     map[string]int
	profiles []string // in the order first followed
}

func newFreshProbe(base string, limit time.Duration) *freshProbe {
	return &freshProbe{base: base, client: &http.Client{Timeout: 30 * time.Second}, limit: limit,
		samples: map[string]map[string][]time.Duration{}, missed: map[string]map[string]int{}, runs: map[string]int{}}
}

// setPhase names the profile the commits followed from now on run under.
func (p *freshProbe) setPhase(profile string) { p.phase.Store(&profile) }

// profile is the profile running now ("" before any).
func (p *freshProbe) profile() string {
	if s := p.phase.Load(); s != nil {
		return *s
	}
	return ""
}

// note records version as committed before the next commit followed.
func (p *freshProbe) note(version string) {
	p.oldMu.Lock()
	defer p.oldMu.Unlock()
	if p.old == nil {
		p.old = map[string]bool{}
	}
	p.old[version] = true
}

// mark is what each path answers now; nil while a probe is running or
// when an answer could not be read.
func (p *freshProbe) mark(ctx context.Context) map[string]string {
	if p.busy.Load() {
		return nil
	}
	marks := map[string]string{}
	for _, path := range FreshPaths {
		m := p.state(ctx, path)
		if m == "" {
			// Unread (a 503, say): any answer after the commit would
			// count as showing it. This commit is not followed.
			return nil
		}
		marks[path] = m
	}
	return marks
}

// state is what identifies path's current answer: the data version it
// is of (storage.DataVersionHeader), or for /metrics the Azure run's line.
func (p *freshProbe) state(ctx context.Context, path string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+path, nil)
	if err != nil {
		return ""
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ""
	}
	if path != "/metrics" {
		return resp.Header.Get(storage.DataVersionHeader)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, freshMetric) {
			return line
		}
	}
	return ""
}

// follow polls every path, beside the caller, until its answer differs
// from before (marked before the commit at committed).
func (p *freshProbe) follow(ctx context.Context, before map[string]string, committed time.Time) {
	if before == nil || !p.busy.CompareAndSwap(false, true) {
		return
	}
	profile := p.profile()
	// The versions before this commit: those noted later are after it.
	p.oldMu.Lock()
	old := maps.Clone(p.old)
	p.oldMu.Unlock()
	shown := func(path, state string) bool {
		if path == "/metrics" {
			return state != before[path]
		}
		return !old[state]
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer p.busy.Store(false)
		var wg sync.WaitGroup
		took := make([]time.Duration, len(FreshPaths))
		for i, path := range FreshPaths {
			wg.Add(1)
			go func() {
				defer wg.Done()
				took[i] = -1
				for time.Since(committed) < p.limit && ctx.Err() == nil {
					if s := p.state(ctx, path); s != "" && shown(path, s) {
						took[i] = time.Since(committed)
						return
					}
					time.Sleep(pollEvery)
				}
			}()
		}
		wg.Wait()
		if ctx.Err() != nil {
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if profile != "" && p.runs[profile] == 0 {
			p.profiles = append(p.profiles, profile)
		}
		for _, k := range slices.Compact([]string{"", profile}) {
			p.runs[k]++
			if p.samples[k] == nil {
				p.samples[k], p.missed[k] = map[string][]time.Duration{}, map[string]int{}
			}
			for i, path := range FreshPaths {
				if took[i] < 0 {
					p.missed[k][path]++
					continue
				}
				p.samples[k][path] = append(p.samples[k][path], took[i])
			}
		}
	}()
}

// results waits for a running probe and sums up every path's times:
// over every commit followed, then per profile.
func (p *freshProbe) results() []Freshness {
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Freshness
	for _, profile := range append([]string{""}, p.profiles...) {
		for _, path := range FreshPaths {
			s := slices.Clone(p.samples[profile][path])
			slices.Sort(s)
			f := Freshness{Profile: profile, Path: path, Runs: p.runs[profile], Missed: p.missed[profile][path]}
			if len(s) > 0 {
				f.P50, f.P99, f.Max = quantile(s, 0.5), quantile(s, 0.99), s[len(s)-1]
			}
			out = append(out, f)
		}
	}
	return out
}

// FreshTable is freshness as docs/scale.md's table.
func FreshTable(backend string, fs []Freshness) string {
	var b strings.Builder
	b.WriteString("| backend | during | answer | runs followed | not shown within the limit | p50 | p99 | max |\n|---|---|---|---|---|---|---|---|\n")
	for _, f := range fs {
		during := cmp.Or(f.Profile, "every profile")
		fmt.Fprintf(&b, "| %s | %s | `%s` | %d | %d | %s | %s | %s |\n", backend, during, f.Path, f.Runs, f.Missed, ms(f.P50), ms(f.P99), ms(f.Max))
	}
	return b.String()
}
