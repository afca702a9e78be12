package loadgen

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestQuantile(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		var out []time.Duration
		for _, x := range n {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	for _, c := range []struct {
		sorted []time.Duration
		q      float64
		want   time.Duration
	}{
		{nil, 0.5, 0},
		{ms(7), 0.99, 7 * time.Millisecond},
		{ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{ms(1, 2, 3, 4), 0.99, 4 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 0.5, 5 * time.Millisecond},
	} {
		if got := quantile(c.sorted, c.q); got != c.want {
			t.Errorf("quantile(%v, %g) = %s, want %s", c.sorted, c.q, got, c.want)
		}
	}
}

func TestRefusesAnotherHost(t *testing.T) {
	for _, base := range []string{"http://example.com", "http://10.0.0.1:9108", "http://[2001:db8::1]:80"} {
		_, err := Run(context.Background(), base, Profile{Duration: time.Millisecond, Streams: []Stream{{Clients: 1, Paths: []string{"/"}}}})
		if !errors.Is(err, ErrNotLoopback) {
			t.Errorf("%s: %v, want ErrNotLoopback", base, err)
		}
	}
	for _, base := range []string{"http://127.0.0.1:1", "http://localhost:1", "http://[::1]:1"} {
		if err := checkLoopback(base); err != nil {
			t.Errorf("%s: %v", base, err)
		}
	}
}

// TestTinyProfile is the small profile `go test` runs: a fake daemon on
// loopback that sheds every third /slow with Retry-After; the counts, the
// shed share and the think time come out as sent.
func TestTinyProfile(t *testing.T) {
	var slow atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow":
			if slow.Add(1)%3 == 0 {
				w.Header().Set("Retry-After", "0")
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			time.Sleep(5 * time.Millisecond)
		case "/broken":
			http.Error(w, "no", http.StatusInternalServerError)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	p := Profile{Name: "tiny", Duration: 600 * time.Millisecond, Streams: []Stream{
		{Name: "users", Clients: 3, Paths: []string{"/slow"}},
		{Name: "scraper", Clients: 1, Paths: []string{"/metrics"}, Think: 250 * time.Millisecond},
		{Clients: 1, Paths: []string{"/broken"}, Think: 200 * time.Millisecond},
	}}
	res, err := Run(context.Background(), srv.URL, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Endpoints) != 3 {
		t.Fatalf("endpoints %+v", res.Endpoints)
	}
	users, scraper, broken := res.Endpoints[0], res.Endpoints[1], res.Endpoints[2]
	if users.Endpoint != "users /slow" || users.Count < 10 || users.Shed == 0 || users.Failed != 0 {
		t.Errorf("users: %+v", users)
	}
	if share := users.ShedShare(); share < 0.2 || share > 0.45 {
		t.Errorf("users shed %.2f, want about a third", share)
	}
	if users.P50 < 5*time.Millisecond && users.P50 > 0 && users.Max < 5*time.Millisecond {
		t.Errorf("users p50 %s max %s: the 5 ms answers are not in it", users.P50, users.Max)
	}
	if users.P50 > users.P99 || users.P99 > users.Max {
		t.Errorf("users: p50 %s, p99 %s, max %s out of order", users.P50, users.P99, users.Max)
	}
	// Every 250 ms over 600 ms: at 0, 250 and 500 ms (the last may miss
	// the end on a loaded machine), not back to back.
	if scraper.Count < 2 || scraper.Count > 3 {
		t.Errorf("scraper sent %d, want 3 (one every 250 ms for 600 ms)", scraper.Count)
	}
	if broken.Endpoint != "/broken" || broken.Failed != broken.Count || broken.Count == 0 {
		t.Errorf("broken: %+v", broken)
	}
	if res.All.Count != users.Count+scraper.Count+broken.Count {
		t.Errorf("all %d, want the sum", res.All.Count)
	}
	table := Table("sqlite", []Result{res})
	for _, want := range []string{"| sqlite | tiny | `users /slow` |", "| sqlite | tiny | `all` |"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

// The profiles: the team's rates and the 200 clients.
func TestProfiles(t *testing.T) {
	ps := Profiles(Targets{GPU: "H100", InstanceType: "p4.H100x8"}, time.Minute)
	var team, crowd *Profile
	for i := range ps {
		switch ps[i].Name {
		case "team":
			team = &ps[i]
		case "200 clients":
			crowd = &ps[i]
		}
	}
	if team == nil || crowd == nil {
		t.Fatalf("profiles %v lack the team or the 200 clients", ps)
	}
	want := map[string][2]int{"dashboard": {50, 10}, "prometheus": {1, 15}, "grafana": {6, 30}}
	got := map[string][2]int{}
	for _, s := range team.Streams {
		g := got[s.Name]
		got[s.Name] = [2]int{g[0] + s.Clients, int(s.Think / time.Second)}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("team %s: %v clients, think s; want %v", k, got[k], w)
		}
	}
	if team.Duration != time.Minute || crowd.Duration != time.Minute || crowd.Streams[0].Clients != 200 {
		t.Errorf("team %s, crowd %s × %d", team.Duration, crowd.Duration, crowd.Streams[0].Clients)
	}
}

// processMemory reads this test's own resident memory: non-zero, and the
// high-water mark at least the current figure.
func TestProcessMemory(t *testing.T) {
	rss, peak := processMemory(os.Getpid())
	if rss <= 0 || peak < rss {
		t.Fatalf("rss %d, peak %d", rss, peak)
	}
	if rss, peak := processMemory(-1); rss != 0 || peak != 0 {
		t.Fatalf("no such process: rss %d, peak %d", rss, peak)
	}
	table := Table("sqlite", []Result{{Profile: "one", Endpoints: []Stats{{Endpoint: "/"}}, RSS: 50e6, PeakRSS: 80e6}})
	if !strings.Contains(table, "| 50 MB (80 MB) |") {
		t.Errorf("the table lacks the daemon's memory:\n%s", table)
	}
}

// The clients take gzip and read the answer as sent, compressed: a body
// that is not gzip at all, sent as gzip, still counts as answered (Go's
// transport decompressing it would fail the read). The load generator
// shares the daemon's cores; decompressing is the clients' own work.
func TestReadsAnswersCompressed(t *testing.T) {
	var asked, gzipped atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			gzipped.Add(1)
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Write([]byte("not gzip: the client must not decompress it"))
	}))
	defer srv.Close()
	res, err := Run(context.Background(), srv.URL, Profile{Name: "gzip", Duration: 100 * time.Millisecond,
		Streams: []Stream{{Clients: 1, Paths: []string{"/offers"}, Think: 20 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	if all := res.All; all.Count == 0 || all.Failed != 0 {
		t.Errorf("answers %d, failed %d; want every one read", all.Count, all.Failed)
	}
	if asked.Load() == 0 || gzipped.Load() != asked.Load() {
		t.Errorf("%d of %d requests took gzip, want all", gzipped.Load(), asked.Load())
	}
}

// A daemon that exits before it is ready (its port taken, a crash) fails
// the start at once, naming its log, not after the 5 minutes allowed for
// a start.
func TestServeFailsWhenTheDaemonExits(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "pricewatch")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho 'http.listen: address already in use' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, _, err := serve(t.Context(), BenchOptions{Binary: bin, Dir: dir}, "sqlite", filepath.Join(dir, "pw.db"), "", t.Logf)
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") || !strings.Contains(err.Error(), "sqlite.log") {
		t.Fatalf("serve = %v; want it to say the daemon exited, naming its log", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("serve took %s to see the daemon had exited", took)
	}
}

// Two clients against one: the ratios at the median, the mean and p99,
// and nothing without both profiles.
func TestTwoAgainstOne(t *testing.T) {
	one := Result{Profile: overviewProfile(1), All: Stats{Count: 10, P50: time.Millisecond, Mean: 2 * time.Millisecond, P99: 4 * time.Millisecond}}
	two := Result{Profile: overviewProfile(2), All: Stats{Count: 20, P50: time.Millisecond, Mean: 3 * time.Millisecond, P99: 10 * time.Millisecond}}
	got, ok := TwoAgainstOne([]Result{one, {Profile: "team"}, two})
	want := "two `/` at once against one: p50 1.0 ms → 1.0 ms (1.00×), mean 2.0 ms → 3.0 ms (1.50×), p99 4.0 ms → 10 ms (2.50×)"
	if !ok || got != want {
		t.Errorf("got %q, %v\nwant %q", got, ok, want)
	}
	if _, ok := TwoAgainstOne([]Result{one}); ok {
		t.Error("a ratio without the two clients' profile")
	}
}

// The mean is of every answer's wall time.
func TestStatsMean(t *testing.T) {
	st := stats("/", []sample{{took: time.Millisecond, status: 200}, {took: 3 * time.Millisecond, status: 200}})
	if st.Mean != 2*time.Millisecond {
		t.Errorf("mean %s, want 2ms", st.Mean)
	}
}
