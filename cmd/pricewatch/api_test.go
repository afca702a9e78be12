package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/web"
)

// apiServer serves the API and the dashboard over the database of cfgPath,
// as the daemon mounts them (without a token).
func apiServer(t *testing.T, cfgPath string) (*httptest.Server, *app, *storage.DB) {
	t.Helper()
	return apiServerAt(t, cfgPath, nil)
}

// apiServerAt is apiServer with a clock (nil: the wall clock) for the
// store and the pages, so that what a page draws does not depend on the
// day the test runs.
func apiServerAt(t *testing.T, cfgPath string, now func() time.Time) (*httptest.Server, *app, *storage.DB) {
	t.Helper()
	a, db := loadApp(t, cfgPath)
	if now != nil {
		db.Now = now
	}
	srv := &web.Server{Store: db, FX: func() report.FX { return reportFX(a.cfg.FX) }, Expected: a.wiring().ExpectedIntervals, Now: now, AlertSummary: digest.AlertSummary}
	mux := http.NewServeMux()
	srv.Mount(mux)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts, a, db
}

func apiGet(t *testing.T, rawURL string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// queueAlerts puts three messages in the outbox: one sent, one failed,
// one pending.
func queueAlerts(t *testing.T, db *storage.DB) {
	t.Helper()
	ctx := context.Background()
	for i, status := range []string{"sent", "failed", "pending"} {
		payload := fmt.Sprintf(`{"text":"pricewatch: 🔻 Price drop %d &lt;test&gt;"}`, i)
		if _, err := db.Enqueue(ctx, storage.OutboxMessage{DeliveryKey: fmt.Sprintf("test/%d", i), Channel: "C0GPU", Kind: "price_drop", Payload: []byte(payload)}, nil); err != nil {
			t.Fatal(err)
		}
		e, err := db.OutboxByKey(ctx, fmt.Sprintf("test/%d", i))
		if err != nil {
			t.Fatal(err)
		}
		switch status {
		case "sent":
			err = db.MarkSent(ctx, e.ID)
		case "failed":
			err = db.MarkFailed(ctx, e.ID, "channel_not_found")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestAPIRowsEqualCLIJSON: for the same query on the same database every
// endpoint answers with exactly the bytes the CLI prints with --format json,
// and the CLI with --server prints them too.
func TestAPIRowsEqualCLIJSON(t *testing.T) {
	cfg := analysisConfig(t, true)
	ts, _, db := apiServer(t, cfg)
	queueAlerts(t, db)
	now := analysisNow
	cases := []struct {
		name string
		cli  []string
		api  string
	}{
		{"offers", []string{"compare", "--gpu", "A100", "--count", "8", "--now=" + now}, "offers?gpu=A100&count=8&now=" + now},
		{"offers any CNY available", []string{"compare", "--gpu", "A100", "--price-type", "any", "--currency", "CNY", "--available-only", "--now=" + now},
			"offers?gpu=A100&price_type=any&currency=CNY&available_only=true&now=" + now},
		{"offers spot+reserved azure", []string{"compare", "--gpu", "H100", "--price-type", "spot,reserved", "--provider", "azure", "--now=" + now},
			"offers?gpu=H100&price_type=spot&price_type=reserved&provider=azure&now=" + now},
		{"offers none", []string{"compare", "--gpu", "A100", "--region", "nowhere-1", "--now=" + now}, "offers?gpu=A100&region=nowhere-1&now=" + now},
		{"offers empty params are defaults", []string{"compare", "--gpu", "H100", "--now=" + now},
			"offers?gpu=H100&count=&price_type=&provider=&region=&currency=&available_only=&now=" + now},
		{"offers seller hardware", []string{"compare", "--gpu", "A100", "--price-type", "any", "--seller", "cloud", "--min-vcpus", "96", "--min-gpu-memory", "80",
			"--max-price", "5/gpu-hour", "--now=" + now},
			"offers?gpu=A100&price_type=any&seller=cloud&min_vcpus=96&min_gpu_memory=80&max_price=5%2Fgpu-hour&now=" + now},
		{"offers marketplace none", []string{"compare", "--gpu", "A100", "--seller", "marketplace", "--now=" + now}, "offers?gpu=A100&seller=marketplace&now=" + now},
		{"history seller", []string{"history", "Standard_ND96amsr_A100_v4", "--seller", "cloud"}, "history/Standard_ND96amsr_A100_v4?seller=cloud"},
		{"availability seller", []string{"availability", "--seller", "marketplace"}, "availability?seller=marketplace"},
		{"trends seller", []string{"trends", "--gpu", "A100", "--window", "7d", "--seller", "cloud", "--now=" + now}, "trends?gpu=A100&window=7d&seller=cloud&now=" + now},
		{"history", []string{"history", "Standard_ND96amsr_A100_v4"}, "history/Standard_ND96amsr_A100_v4"},
		{"history since region", []string{"history", "ecs.gn7-c13g1.26xlarge", "--region", "cn-hangzhou", "--since", "2022-07-08"},
			"history/ecs.gn7-c13g1.26xlarge?region=cn-hangzhou&since=2022-07-08"},
		{"history none in filter", []string{"history", "Standard_ND96amsr_A100_v4", "--region", "nowhere-1"}, "history/Standard_ND96amsr_A100_v4?region=nowhere-1"},
		{"history empty params", []string{"history", "Standard_ND96amsr_A100_v4"}, "history/Standard_ND96amsr_A100_v4?provider=&region=&since="},
		{"availability", []string{"availability"}, "availability"},
		{"availability gpu all", []string{"availability", "--gpu", "A100", "--all"}, "availability?gpu=A100&all=true"},
		{"availability type", []string{"availability", "Standard_ND96amsr_A100_v4", "--provider", "azure"}, "availability?instance_type=Standard_ND96amsr_A100_v4&provider=azure"},
		{"savings", []string{"savings", "Standard_ND96amsr_A100_v4", "--utilization", "0.7", "--now=" + now}, "savings/Standard_ND96amsr_A100_v4?utilization=0.7&now=" + now},
		{"savings CNY", []string{"savings", "ecs.gn7-c13g1.26xlarge", "--currency", "CNY", "--utilization", "25%", "--now=" + now},
			"savings/ecs.gn7-c13g1.26xlarge?currency=CNY&utilization=25%25&now=" + now},
		{"trends", []string{"trends", "--gpu", "A100", "--window", "7d", "--now=" + now}, "trends?gpu=A100&window=7d&now=" + now},
		{"trends all", []string{"trends", "--window", "30d", "--price-type", "any", "--top", "3", "--currency", "CNY", "--now=" + now},
			"trends?window=30d&price_type=any&top=3&currency=CNY&now=" + now},
		{"changes", []string{"changes", "--since", "2020-01-01"}, "changes?since=2020-01-01"},
		{"changes price gpu provider", []string{"changes", "--since", "2020-01-01", "--kind", "price", "--gpu", "A100", "--provider", "alibaba"},
			"changes?since=2020-01-01&kind=price&gpu=A100&provider=alibaba"},
		{"changes sold out limit", []string{"changes", "--since", "2020-01-01", "--kind", "sold_out,back_in_stock", "--limit", "2"},
			"changes?since=2020-01-01&kind=sold_out&kind=back_in_stock&limit=2"},
		{"runs", []string{"runs"}, "runs"},
		{"alerts", []string{"alerts", "list"}, "alerts"},
		{"alerts failed", []string{"alerts", "list", "--failed"}, "alerts?status=failed"},
		{"alerts pending limit", []string{"alerts", "list", "--pending", "--limit", "1"}, "alerts?status=pending&limit=1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, errOut, code := runCLI(t, append([]string{"--config", cfg}, append(c.cli, "--format", "json")...)...)
			if code != 0 {
				t.Fatalf("CLI exit %d: %s", code, errOut)
			}
			if !json.Valid([]byte(want)) || want == "" {
				t.Fatalf("CLI printed no JSON: %q", want)
			}
			resp, got := apiGet(t, ts.URL+"/api/v1/"+c.api)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d %s", c.api, resp.StatusCode, got)
			}
			if got != want {
				t.Errorf("GET %s differs from the CLI's JSON\nAPI:\n%s\nCLI:\n%s", c.api, clipText(got), clipText(want))
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if resp.Header.Get("ETag") == "" || resp.Header.Get("Cache-Control") == "" {
				t.Errorf("no ETag or Cache-Control: %v", resp.Header)
			}
			// The CLI reading from the daemon prints the same bytes.
			remote, errOut, code := runCLI(t, append([]string{"--config", cfg}, append(c.cli, "--format", "json", "--server", ts.URL)...)...)
			if code != 0 {
				t.Fatalf("CLI --server exit %d: %s", code, errOut)
			}
			if remote != want {
				t.Errorf("--server output differs\nremote:\n%s\nlocal:\n%s", clipText(remote), clipText(want))
			}
		})
	}
}

// Issue 31 (must show): the API, the dashboard and the CLI give the same
// rows for the same filters: compare's JSON, GET /api/v1/offers, GET
// /api/v1/offer-table and the offers page's CSV name the same offers.
func TestSameRowsForSameFilters(t *testing.T) {
	cfg := analysisConfig(t, true)
	ts, _, _ := apiServer(t, cfg)
	now := analysisNow
	keys := func(raw string) string {
		var rows []struct {
			Provider     string `json:"provider"`
			Region       string `json:"region"`
			InstanceType string `json:"instance_type"`
			PriceType    string `json:"price_type"`
			Term         string `json:"term"`
			Payment      string `json:"payment"`
		}
		if err := json.Unmarshal([]byte(raw), &rows); err != nil {
			t.Fatalf("%v: %s", err, clipText(raw))
		}
		var out []string
		for _, r := range rows {
			out = append(out, strings.Join([]string{r.Provider, r.Region, r.InstanceType, r.PriceType, r.Term, r.Payment}, "/"))
		}
		sort.Strings(out)
		return strings.Join(out, "\n")
	}
	for _, c := range []struct {
		name   string
		cli    []string
		filter string // the same filters as URL parameters
	}{
		{"cloud, 80 GB per GPU, 96 vCPUs, at most 4 per GPU-hour",
			[]string{"--seller", "cloud", "--min-gpu-memory", "80", "--min-vcpus", "96", "--max-price", "4/gpu-hour"},
			"seller=cloud&min_gpu_memory=80&min_vcpus=96&max_price=4%2Fgpu-hour"},
		{"at most 30 per hour, 1 TB of RAM", []string{"--max-price", "30", "--min-memory", "1024"}, "max_price=30&min_memory=1024"},
		{"marketplace", []string{"--seller", "marketplace"}, "seller=marketplace"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cli, errOut, code := runCLI(t, append([]string{"--config", cfg, "compare", "--gpu", "A100", "--price-type", "any", "--format", "json", "--now=" + now}, c.cli...)...)
			if code != 0 {
				t.Fatalf("CLI exit %d: %s", code, errOut)
			}
			want := keys(cli)
			q := "gpu=A100&price_type=any&now=" + now + "&" + c.filter
			for _, path := range []string{"/api/v1/offers?" + q, "/api/v1/offer-table?" + q} {
				resp, got := apiGet(t, ts.URL+path)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("GET %s: %d %s", path, resp.StatusCode, got)
				}
				if g := keys(got); g != want {
					t.Errorf("GET %s:\n%s\nCLI:\n%s", path, g, want)
				}
			}
			resp, csvText := apiGet(t, ts.URL+"/offers.csv?"+q)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /offers.csv: %d %s", resp.StatusCode, csvText)
			}
			recs, err := csv.NewReader(strings.NewReader(csvText)).ReadAll()
			if err != nil || len(recs) == 0 {
				t.Fatalf("offers.csv: %v", err)
			}
			var page []string
			for _, r := range recs[1:] { // provider, region, zone, instance_type, price_type, term, payment
				page = append(page, strings.Join([]string{r[0], r[1], r[3], r[4], r[5], r[6]}, "/"))
			}
			sort.Strings(page)
			if g := strings.Join(page, "\n"); g != want {
				t.Errorf("the dashboard's offers.csv:\n%s\nCLI:\n%s", g, want)
			}
			if c.filter != "seller=marketplace" && want == "" {
				t.Error("the filters keep nothing: the test compares nothing")
			}
		})
	}
}

// TestServerTablesMatchLocal: the read commands whose tables are drawn from
// the rows alone print the same table and CSV from --server as locally.
func TestServerTablesMatchLocal(t *testing.T) {
	cfg := analysisConfig(t, true)
	ts, _, db := apiServer(t, cfg)
	queueAlerts(t, db)
	for _, args := range [][]string{
		{"history", "Standard_ND96amsr_A100_v4"},
		{"history", "Standard_ND96amsr_A100_v4", "--format", "csv"},
		{"history", "ecs.gn7-c13g1.26xlarge", "--plot"},
		{"availability", "--all"},
		{"runs"},
		{"runs", "--format", "csv"},
		{"alerts", "list"},
		{"alerts", "list", "--format", "csv"},
		{"compare", "--gpu", "A100", "--price-type", "any", "--format", "csv", "--now=" + analysisNow},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			want, errOut, code := runCLI(t, append([]string{"--config", cfg}, args...)...)
			if code != 0 {
				t.Fatalf("local exit %d: %s", code, errOut)
			}
			got, errOut, code := runCLI(t, append(append([]string{"--config", cfg}, args...), "--server", ts.URL)...)
			if code != 0 {
				t.Fatalf("--server exit %d: %s", code, errOut)
			}
			if got != want {
				t.Errorf("--server differs\nremote:\n%s\nlocal:\n%s", clipText(got), clipText(want))
			}
		})
	}
	// A layout that needs the analysis says so instead of guessing.
	_, errOut, code := runCLI(t, "--config", cfg, "savings", "Standard_ND96amsr_A100_v4", "--server", ts.URL)
	if code == 0 || !strings.Contains(errOut, "with --server this command prints --format json") {
		t.Errorf("savings table with --server: exit %d, %q", code, errOut)
	}
}

func clipText(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

// TestAPIBadRequests: unknown parameters and bad values are 400 with a JSON
// body naming the parameter; an unknown endpoint is a JSON 404.
func TestAPIBadRequests(t *testing.T) {
	cfg := analysisConfig(t, true)
	ts, _, _ := apiServer(t, cfg)
	cases := []struct {
		path   string
		status int
		want   string
	}{
		{"offers?gpu=H100&provder=aws", 400, `unknown parameter "provder"`},
		{"offers?gpu=H100&provider=awz", 400, `unknown provider "awz"`},
		{"history/p5.48xlarge?provider=aws,gcloud", 400, `unknown provider "gcloud"`},
		{"offers", 400, "gpu is required"},
		{"offers?gpu=H100&price_type=cheap", 400, `price_type "cheap"`},
		{"offers?gpu=H100&count=-1", 400, `count "-1"`},
		{"offers?gpu=H100&count=NaN", 400, `count "NaN"`},
		{"offers?gpu=H100&currency=dollars", 400, `currency "dollars"`},
		{"offers?gpu=H100&available_only=perhaps", 400, `available_only "perhaps"`},
		{"offers?gpu=H100&os=beos", 400, `os "beos"`},
		{"offers?gpu=H100&now=yesterday", 400, `now "yesterday"`},
		{"history/p5.48xlarge?since=lately", 400, `since "lately"`},
		{"history/p5.48xlarge?gpu=H100", 400, `unknown parameter "gpu"`},
		{"availability?all=maybe", 400, `all "maybe"`},
		{"savings/p5.48xlarge?utilization=2", 400, "utilization"},
		{"trends?window=forever", 400, "window"},
		{"trends?window=900d", 400, "at most 366d"},
		{"trends?top=-2", 400, `top "-2"`},
		{"runs?verbose=1", 400, `unknown parameter "verbose"`},
		{"alerts?status=lost", 400, `status "lost"`},
		{"alerts?limit=all", 400, `limit "all"`},
		{"prices", 404, "no such endpoint"},
	}
	for _, c := range cases {
		resp, body := apiGet(t, ts.URL+"/api/v1/"+c.path)
		var e struct {
			Status int    `json:"status"`
			Error  string `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil {
			t.Errorf("%s: body is not JSON: %q", c.path, body)
			continue
		}
		if resp.StatusCode != c.status || e.Status != c.status || !strings.Contains(e.Error, c.want) {
			t.Errorf("%s: %d %+v, want %d with %q", c.path, resp.StatusCode, e, c.status, c.want)
		}
	}
	// Read-only: nothing but GET (and HEAD).
	resp, err := http.Post(ts.URL+"/api/v1/runs", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /api/v1/runs: %d, want 405", resp.StatusCode)
	}
}

// TestAPIETag: the same data gives the same ETag and a 304 on
// If-None-Match; a run that commits changes it (once the answer's
// successor is computed: the kept one is served meanwhile).
func TestAPIETag(t *testing.T) {
	cfg := analysisConfig(t, true)
	ts, _, db := apiServer(t, cfg)
	paths := []string{"runs", "offers?gpu=A100&now=" + analysisNow, "history/Standard_ND96amsr_A100_v4"}
	tags := map[string]string{}
	for _, p := range paths {
		resp, _ := apiGet(t, ts.URL+"/api/v1/"+p)
		tag := resp.Header.Get("ETag")
		if !strings.HasPrefix(tag, `"`) || resp.Header.Get("Cache-Control") != web.CacheControl {
			t.Fatalf("%s: ETag %q Cache-Control %q", p, tag, resp.Header.Get("Cache-Control"))
		}
		again, body := apiGet(t, ts.URL+"/api/v1/"+p, "If-None-Match", tag)
		if again.StatusCode != http.StatusNotModified || body != "" || again.Header.Get("ETag") != tag {
			t.Errorf("%s with If-None-Match: %d %q", p, again.StatusCode, body)
		}
		tags[p] = tag
	}
	// A run commits (a failed one: no price moves, yet the data changed).
	ctx := context.Background()
	id, err := db.StartRun(ctx, "azure")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.FinishRun(ctx, id, pricewatch.RunFailed, "test: throttled"); err != nil {
		t.Fatal(err)
	}
	// The kept answer is served while its successor computes (issue 30):
	// the new ETag comes as soon as that is done.
	for _, p := range paths {
		deadline := time.Now().Add(5 * time.Second)
		for {
			resp, _ := apiGet(t, ts.URL+"/api/v1/"+p, "If-None-Match", tags[p])
			if resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != tags[p] {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("%s 5 s after a run: %d, ETag %q (was %q)", p, resp.StatusCode, resp.Header.Get("ETag"), tags[p])
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// freePort finds a port for a daemon to listen on, below the kernel's
// ephemeral range (32768 and up on Linux). A port taken from 127.0.0.1:0
// and closed again was handed out anew before the daemon bound it: once in
// CI another test's fake got it, answered the daemon's /readyz with 200 and
// its /metrics with a price page, and the test waited 30 s for series that
// could never come. Below that range the kernel hands out no port, so only
// a fixed listener could take it in between.
func freePort(t *testing.T) string {
	t.Helper()
	for range 100 {
		port := strconv.Itoa(20000 + rand.IntN(10000))
		ln, err := net.Listen("tcp", "127.0.0.1:"+port)
		if err != nil {
			continue // taken
		}
		ln.Close()
		return port
	}
	t.Fatal("no free port in 20000-29999 after 100 tries")
	return ""
}

func daemonOnlyConfig(t *testing.T, dir, httpSection string) string {
	t.Helper()
	return testConfig{logLevel: "debug", logJSON: true, http: httpSection}.write(t, dir)
}

// TestNonLoopbackListenNeedsToken: binding beyond loopback without a token
// (or an explicit opt-out) is refused with the key and its line; a token
// file that is missing or empty is refused too.
func TestNonLoopbackListenNeedsToken(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty-token")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, http, want string
	}{
		{"all interfaces", "http:\n  listen: 0.0.0.0:9108\n", "pricewatch.yaml:line 7: http.listen: \"0.0.0.0:9108\" is not a loopback address"},
		{"empty host", "http:\n  listen: \":9108\"\n", "line 7: http.listen: \":9108\" is not a loopback address"},
		{"missing token file", "http:\n  listen: 0.0.0.0:9108\n  token_file: " + filepath.Join(dir, "nope") + "\n", "line 8: http.token_file: reading secret file"},
		{"empty token file", "http:\n  listen: 0.0.0.0:9108\n  token_file: " + empty + "\n", "line 8: http.token_file: " + empty + " is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := daemonOnlyConfig(t, t.TempDir(), c.http)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var out, errOut syncBuffer
			code := run(ctx, []string{"--config", cfg, "run"}, &out, &errOut)
			if code == 0 || !strings.Contains(errOut.String(), c.want) {
				t.Errorf("exit %d, stderr %q, want it to say %q", code, errOut.String(), c.want)
			}
		})
	}
	// Loopback needs nothing; allow_unauthenticated is the explicit way out.
	for _, http := range []string{"http:\n  listen: 127.0.0.1:9108\n", "http:\n  listen: \"[::1]:9108\"\n",
		"http:\n  listen: 0.0.0.0:9108\n  allow_unauthenticated: true\n"} {
		if _, err := config.Load(daemonOnlyConfig(t, t.TempDir(), http)); err != nil {
			t.Errorf("%q: %v", http, err)
		}
	}
}

// TestTokenRequired runs the daemon on all interfaces with a token: a
// request without it (or with a wrong one) gets 401, with it 200, /healthz
// and /readyz stay open (issue 20 item 18: probes carry no token), and the
// token appears in no log line.
func TestTokenRequired(t *testing.T) {
	dir := t.TempDir()
	const token = "pw-test-token-3f9c0d8e1b7a4c2e"
	tokenFile := filepath.Join(dir, "http-token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cfg := daemonOnlyConfig(t, dir, fmt.Sprintf("http:\n  listen: 0.0.0.0:%s\n  token_file: %s\n", port, tokenFile))
	// /readyz answers without the token: the daemon is waited for as any.
	base, stop, daemonLogs := serveInProcessLogged(t, cfg, port)
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, body := apiGet(t, base+path)
		if resp.StatusCode != http.StatusOK || strings.Contains(body, token) || strings.Contains(body, tokenFile) {
			t.Errorf("%s without a token: %d %q, want 200 naming no secret", path, resp.StatusCode, body)
		}
	}
	// (Nothing is stored: /gpu/H100 is a 404 page once past the token.)
	for _, path := range []string{"/api/v1/runs", "/metrics", "/", "/commitments", "/api/v1/availability"} {
		for _, auth := range []string{"", "Bearer wrong-" + token, "Bearer " + token[:len(token)-1], "Basic " + token} {
			resp, body := apiGet(t, base+path, "Authorization", auth)
			if resp.StatusCode != http.StatusUnauthorized || strings.Contains(body, token) {
				t.Errorf("%s with %q: %d %q, want 401", path, auth, resp.StatusCode, body)
			}
			if !strings.Contains(strings.Join(resp.Header.Values("WWW-Authenticate"), ","), "Bearer") {
				t.Errorf("%s: no WWW-Authenticate", path)
			}
		}
		resp, body := apiGet(t, base+path, "Authorization", "Bearer "+token)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s with the token: %d %s", path, resp.StatusCode, body)
		}
	}
	// A browser sends the token as a Basic password.
	req, _ := http.NewRequest(http.MethodGet, base+"/", nil)
	req.SetBasicAuth("me", token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("Basic with the token: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	// The CLI takes the token from $PRICEWATCH_TOKEN for --server.
	t.Setenv(envServerToken, token)
	if o, e, code := runCLI(t, "--config", cfg, "runs", "--format", "json", "--server", base); code != 0 || o != "[]\n" {
		t.Errorf("runs --server with the token: %d %q %q", code, o, e)
	}
	t.Setenv(envServerToken, "wrong")
	if _, e, code := runCLI(t, "--config", cfg, "runs", "--server", base); code == 0 || !strings.Contains(e, "answered 401") || strings.Contains(e, token) {
		t.Errorf("runs --server with a wrong token: %d %q", code, e)
	}
	// MCP under /mcp: the same token; without it, 401 and no session.
	mcpClient := mcp.NewClient(&mcp.Implementation{Name: "pricewatch-test", Version: "v0"}, nil)
	for _, auth := range []string{"", "Bearer wrong-" + token} {
		tr := &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1, HTTPClient: &http.Client{Transport: authHeader{auth}}}
		if cs, err := mcpClient.Connect(t.Context(), tr, nil); err == nil {
			cs.Close()
			t.Errorf("MCP with %q: connected, want 401", auth)
		} else if !strings.Contains(err.Error(), "401") && !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("MCP with %q: %v, want a 401", auth, err)
		}
	}
	tr := &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1, HTTPClient: &http.Client{Transport: authHeader{"Bearer " + token}}}
	cs, err := mcpClient.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatalf("MCP with the token: %v", err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "freshness", Arguments: map[string]any{}})
	if err != nil || res.IsError || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != "[]\n" {
		t.Errorf("MCP freshness with the token: %v %+v", err, res)
	}
	cs.Close()
	stop()
	logs := daemonLogs()
	if !strings.Contains(logs, "bearer token") || !strings.Contains(logs, "http listening") {
		t.Errorf("log does not say the listener needs a token:\n%s", logs)
	}
	if strings.Contains(logs, token) || strings.Contains(logs, token[:12]) {
		t.Errorf("the token is in the log:\n%s", logs)
	}
}

// TestAPINotStored: a name nothing stored carries is a JSON 404 with the
// CLI's message and suggestions (the CLI exits 4 on the same), after the
// parameters are checked; a case difference is not a different type; the
// CLI's --server turns the daemon's 404 into exit 4 too.
func TestAPINotStored(t *testing.T) {
	cfg := analysisConfig(t, true)
	ts, _, _ := apiServer(t, cfg)
	for _, c := range []struct{ path, want string }{
		{"history/Standard_ND96amsr_A10_v4", `no instance type "Standard_ND96amsr_A10_v4" is stored; did you mean Standard_ND96amsr_A100_v4`},
		{"savings/Standard_ND96amsr_A10_v4", `no instance type "Standard_ND96amsr_A10_v4" is stored; did you mean`},
		{"offers?gpu=Z999", `no GPU model matching "Z999" is stored`},
		{"trends?gpu=Z999", `no GPU model matching "Z999" is stored`},
		{"availability?instance_type=nope.large", `no instance type "nope.large" is stored`},
		{"availability?gpu=Z999", `no GPU model matching "Z999" is stored`},
	} {
		resp, body := apiGet(t, ts.URL+"/api/v1/"+c.path)
		var e struct {
			Status int    `json:"status"`
			Error  string `json:"error"`
		}
		if json.Unmarshal([]byte(body), &e) != nil || resp.StatusCode != 404 || e.Status != 404 || !strings.Contains(e.Error, c.want) {
			t.Errorf("%s: %d %s, want 404 with %q", c.path, resp.StatusCode, body, c.want)
		}
	}
	_, canonical := apiGet(t, ts.URL+"/api/v1/history/Standard_ND96amsr_A100_v4")
	resp, upper := apiGet(t, ts.URL+"/api/v1/history/STANDARD_ND96AMSR_A100_V4")
	if resp.StatusCode != 200 || upper != canonical || canonical == "[]\n" {
		t.Errorf("upper-case type: %d, body equal to the canonical one: %v", resp.StatusCode, upper == canonical)
	}
	_, stderr, code := runCLI(t, "--config", cfg, "history", "Standard_ND96amsr_A10_v4", "--format", "json", "--server", ts.URL)
	if code != exitNotFound || !strings.Contains(stderr, "did you mean Standard_ND96amsr_A100_v4") {
		t.Errorf("--server unknown type: exit %d, stderr %q; want %d with the suggestion", code, stderr, exitNotFound)
	}
}

// authHeader sends every request with an Authorization header (none when
// empty).
type authHeader struct{ value string }

func (a authHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if a.value != "" {
		r.Header.Set("Authorization", a.value)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// GET /api/v1/recommend takes recommend's seller, hosts and hardware
// bounds and answers the CLI's JSON (issue 31).
func TestAPIRecommendBuyerFilters(t *testing.T) {
	cfg := analysisConfig(t, true)
	ts, _, _ := apiServer(t, cfg)
	now := "--now=" + analysisNow
	want, errOut, code := runCLI(t, "--config", cfg, "recommend", "--gpu", "A100", "--count", "8", "--utilization", "0.6", "--horizon", "3y",
		"--hosts", "2", "--seller", "cloud", "--min-vcpus", "96", "--max-price", "40", "--format", "json", now)
	if code != 0 {
		t.Fatalf("CLI exit %d: %s", code, errOut)
	}
	resp, got := apiGet(t, ts.URL+"/api/v1/recommend?gpu=A100&count=8&utilization=0.6&horizon=3y&hosts=2&seller=cloud&min_vcpus=96&max_price=40&now="+analysisNow)
	if resp.StatusCode != http.StatusOK || got != want {
		t.Errorf("GET recommend: %d\n%s\nCLI:\n%s", resp.StatusCode, clipText(got), clipText(want))
	}
	if !strings.Contains(want, `"hosts": 2`) {
		t.Errorf("the answer does not carry --hosts: %s", clipText(want))
	}
}
