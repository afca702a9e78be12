package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/compose"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/internal/golden"
	"github.com/pricewatch/pricewatch/storage"
)

// digestNow is the moment the golden digests describe: Monday 2022-10-03
// 09:00 UTC, ISO week 2022-W40 (see testdata/digest/README.md).
const digestNow = "2022-10-03T09:00:00Z"

// digestFixture is testdata/digest/fixture.json.
type digestFixture struct {
	Runs      []time.Time                    `json:"runs"`
	Coverage  map[string][]string            `json:"coverage"`
	RunStatus map[string]map[string]string   `json:"run_status"`
	FXDays    []fixtureFXDay                 `json:"fx_days"`
	Hardware  map[string]pricewatch.Hardware `json:"-"`
	RawHW     map[string]fixtureHardware     `json:"hardware"`
	Offers    []struct {
		Key      string            `json:"key"`
		Currency string            `json:"currency"`
		Hourly   map[string]string `json:"hourly"`
		Upfront  map[string]string `json:"upfront"`
	} `json:"offers"`
	Availability []struct {
		Place        string            `json:"place"`
		InstanceType string            `json:"instance_type"`
		States       map[string]string `json:"states"`
		Detail       string            `json:"detail"`
	} `json:"availability"`
}

// valueAt reads a change-point map: the value set at the latest index ≤ run,
// and whether any was set by then.
func valueAt(m map[string]string, run int) (string, bool) {
	best, val := -1, ""
	for k, v := range m {
		i, err := strconv.Atoi(k)
		if err != nil {
			panic(fmt.Sprintf("fixture index %q", k))
		}
		if i <= run && i > best {
			best, val = i, v
		}
	}
	return val, best >= 0
}

func loadDigestFixture(t *testing.T) *digestFixture {
	t.Helper()
	var f digestFixture
	readFixture(t, filepath.Join("testdata", "digest", "fixture.json"), &f)
	f.Hardware = map[string]pricewatch.Hardware{}
	for typ, h := range f.RawHW {
		f.Hardware[typ] = h.hardware()
	}
	return &f
}

// snapshot is what provider's fetcher returned at run i.
func (f *digestFixture) snapshot(t *testing.T, provider string, run int) *pricewatch.Snapshot {
	t.Helper()
	s := &pricewatch.Snapshot{Provider: provider, SourceVersion: "fixture"}
	for _, r := range f.Coverage[provider] {
		s.Coverage = append(s.Coverage, pricewatch.Scope{Region: r, Availability: true})
	}
	for _, fo := range f.Offers {
		o := fixtureOffer(t, fo.Key, fo.Currency)
		if o.Provider != provider {
			continue
		}
		hourly, ok := valueAt(fo.Hourly, run)
		if !ok {
			continue
		}
		upfront, _ := valueAt(fo.Upfront, run)
		if upfront == "" {
			upfront = "0"
		}
		o.Hourly, o.Upfront = decimal.RequireFromString(hourly), decimal.RequireFromString(upfront)
		hw, ok := f.Hardware[o.InstanceType]
		if !ok {
			t.Fatalf("fixture: no hardware for %s", o.InstanceType)
		}
		o.Hardware = hw
		s.Offers = append(s.Offers, o)
	}
	for _, fa := range f.Availability {
		p := strings.Split(fa.Place, "/")
		if p[0] != provider {
			continue
		}
		state, ok := valueAt(fa.States, run)
		if !ok || state == "" {
			continue
		}
		hw := f.Hardware[fa.InstanceType]
		s.Availability = append(s.Availability, pricewatch.Availability{Provider: p[0], Region: p[1], Zone: p[2], InstanceType: fa.InstanceType,
			State: pricewatch.AvailabilityState(state), StockDetail: fa.Detail, Hardware: pricewatch.Hardware{GPUModel: hw.GPUModel, GPUCount: hw.GPUCount, GPUMemoryGB: hw.GPUMemoryGB}})
	}
	return s
}

type digestSetup struct {
	rates  bool   // store the ECB day
	maxAge string // fx.max_age
	slack  string // extra slack: keys (indented two spaces)
	chart  bool
}

// digestConfig stores the fixture in a new database, run by run with the
// clock at each run's time, and returns a config file for it.
func digestConfig(t *testing.T, s digestSetup) string {
	t.Helper()
	f := loadDigestFixture(t)
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "pw.db")
	ctx := context.Background()
	db := openTestDB(t, dbPath)
	defer db.Close()
	providers := sortedKeysOf(f.Coverage)
	for i, at := range f.Runs {
		db.Now = func() time.Time { return at }
		for _, p := range providers {
			status := f.RunStatus[p][strconv.Itoa(i)]
			if status == "none" {
				continue
			}
			id, err := db.StartRun(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if msg, failed := strings.CutPrefix(status, "failed: "); failed {
				if err := db.FinishRun(ctx, id, pricewatch.RunFailed, msg); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if _, err := db.SaveSnapshot(ctx, id, f.snapshot(t, p, i), storage.SaveOptions{}); err != nil {
				t.Fatalf("run %d, %s: %v", i, p, err)
			}
		}
	}
	if s.rates {
		storeFXDays(ctx, t, db, f.FXDays)
	}
	maxAge := s.maxAge
	if maxAge == "" {
		maxAge = "2400h"
	}
	everyMonThu := `    schedule: "0 6 * * 1,4"` + "\n"
	return testConfig{
		logLevel: "warn",
		clouds: []cloud{
			{name: "aws", keys: `    schedule: "0 6 * * *"` + "\n    regions: [us-east-1]\n"},
			{name: "azure", keys: everyMonThu + "    regions: [eastus]\n"},
			{name: "alibaba", keys: everyMonThu + "    regions: [cn-hangzhou]\n"},
			{name: "tencent", keys: everyMonThu + "    regions: [ap-guangzhou]\n"},
		},
		fx:     "  currency: USD\n  max_age: " + maxAge + "\n",
		slack:  "slack:\n  channel: C0GPUALERTS\n" + s.slack + "\n",
		alerts: "alerts:\n  fetch_delivery_wait: 3s\n",
		digest: fmt.Sprintf(`digest:
  enabled: true
  timezone: UTC
  channel: C0FINOPS
  currency: USD
  gpu_models: [H100, H200, B200, A100-80GB, A100-40GB, L40S]
  chart: %v
`, s.chart),
	}.write(t, dir)
}

// TestDigestGolden: the digest's text, Markdown, JSON and Block Kit
// payload from the two-currency fixture, plus the stale-rate and
// missing-rate variants.
func TestDigestGolden(t *testing.T) {
	t.Setenv(envSlackToken, alertsToken)
	now := "--now=" + digestNow
	main := digestConfig(t, digestSetup{rates: true, chart: true})
	stale := digestConfig(t, digestSetup{rates: true, maxAge: "168h", chart: true})
	missing := digestConfig(t, digestSetup{rates: false, chart: true})
	for _, c := range []struct {
		name, cfg string
		args      []string
	}{
		{"digest.txt", main, nil},
		{"digest.md", main, []string{"--format", "markdown"}},
		{"digest.json", main, []string{"--format", "json"}},
		{"digest_blockkit.json", main, []string{"--format", "slack"}},
		{"digest_stale_rate.txt", stale, nil},
		{"digest_missing_rate.txt", missing, nil},
		{"digest_missing_rate_blockkit.json", missing, []string{"--format", "slack"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append([]string{"--config", c.cfg, "digest", now}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if strings.HasSuffix(c.name, ".json") && !json.Valid([]byte(out)) {
				t.Fatalf("not JSON:\n%s", out)
			}
			if strings.HasSuffix(c.name, "blockkit.json") {
				// Pretty-print the payload so the golden diff reads.
				var v any
				if err := json.Unmarshal([]byte(out), &v); err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				enc := json.NewEncoder(&b)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				if err := enc.Encode(v); err != nil {
					t.Fatal(err)
				}
				checkBlockKitLimits(t, []byte(out))
				out = b.String()
			}
			checkGolden(t, filepath.Join("digest", c.name), out)
			if strings.HasSuffix(c.name, ".txt") {
				checkWidth(t, out)
			}
		})
	}
}

// checkBlockKitLimits holds the payload to Slack's documented limits.
func checkBlockKitLimits(t *testing.T, payload []byte) {
	t.Helper()
	var p struct {
		Text   string `json:"text"`
		Blocks []struct {
			Type string `json:"type"`
			Text *struct {
				Text string `json:"text"`
			} `json:"text"`
			Elements []struct {
				Text string `json:"text"`
			} `json:"elements"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Blocks) > 50 || len(p.Blocks) == 0 {
		t.Errorf("%d blocks", len(p.Blocks))
	}
	total := 0
	for i, b := range p.Blocks {
		n := 0
		if b.Text != nil {
			n = len([]rune(b.Text.Text))
		}
		for _, e := range b.Elements {
			n += len([]rune(e.Text))
		}
		total += n
		limit := 3000
		if b.Type == "header" {
			limit = 150
		}
		if n > limit {
			t.Errorf("block %d (%s) has %d characters, limit %d", i, b.Type, n, limit)
		}
	}
	if total > 12000 {
		t.Errorf("blocks hold %d characters in all; Slack rejects about 13,000", total)
	}
	if p.Text == "" || len([]rune(p.Text)) > 3000 {
		t.Errorf("fallback text of %d characters", len([]rune(p.Text)))
	}
}

// TestDigestFiguresFromTheFixture checks the JSON against figures worked
// out by hand from fixture.json and the ECB rate.
func TestDigestFiguresFromTheFixture(t *testing.T) {
	cfg := digestConfig(t, digestSetup{rates: true, chart: true})
	var d struct {
		Week   string `json:"week"`
		Models []struct {
			Model    string `json:"gpu_model"`
			OnDemand *struct {
				Provider     string      `json:"provider"`
				InstanceType string      `json:"instance_type"`
				Price        json.Number `json:"price_per_gpu_hour"`
			} `json:"on_demand"`
			Spot *struct {
				Provider       string      `json:"provider"`
				Price          json.Number `json:"price_per_gpu_hour"`
				NativeCurrency string      `json:"native_currency"`
				Native         json.Number `json:"native_price_per_gpu_hour"`
			} `json:"spot"`
			OnDemandWoW *json.Number `json:"on_demand_wow_pct"`
			SpotWoW     *json.Number `json:"spot_wow_pct"`
		} `json:"models"`
		StaleProviders []string `json:"stale_providers"`
		Savings        []struct {
			Model     string      `json:"gpu_model"`
			Provider  string      `json:"provider"`
			PriceType string      `json:"price_type"`
			Pct       json.Number `json:"full_use_savings_pct"`
			BreakEven json.Number `json:"break_even_utilization"`
		} `json:"best_savings"`
		Chart struct {
			Series []struct {
				Label  string `json:"label"`
				Points []struct {
					At    string      `json:"at"`
					Price json.Number `json:"price_per_gpu_hour"`
				} `json:"points"`
			} `json:"series"`
		} `json:"chart"`
	}
	cliJSON(t, &d, "--config", cfg, "digest", "--now="+digestNow, "--format", "json")
	if d.Week != "2022-W40" {
		t.Errorf("week %s", d.Week)
	}
	dec := decimal.RequireFromString
	usdPerCNY := dec("1.0163").Div(dec("6.8095"))
	models := map[string]int{}
	for i, m := range d.Models {
		models[m.Model] = i
	}
	h100 := d.Models[models["H100"]]
	// NC40ads (1× H100 NVL) went 6.98 → 6.631 USD: −5%, the cheapest H100
	// family on-demand GPU-hour (ND96isr: 98.32 / 8 = 12.29).
	if h100.OnDemand == nil || h100.OnDemand.InstanceType != "Standard_NC40ads_H100_v5" || h100.OnDemand.Price.String() != "6.631" ||
		h100.OnDemandWoW == nil || h100.OnDemandWoW.String() != "-5" {
		t.Errorf("H100 on-demand %+v, w/w %v", h100.OnDemand, h100.OnDemandWoW)
	}
	// Azure H100 spot 16.352582 / 8 = 2.04407275 USD, down 10% from
	// 18.169536 / 8.
	if h100.Spot == nil || h100.Spot.Provider != "azure" || !dec(h100.Spot.Price.String()).Equal(dec("2.04407275")) || h100.SpotWoW == nil || h100.SpotWoW.String() != "-10" {
		t.Errorf("H100 spot %+v, w/w %v", h100.Spot, h100.SpotWoW)
	}
	// Alibaba's A100 spot 46.20 CNY / 8 = 5.775 CNY, converted at the ECB
	// rate, is 0.8619 USD: cheaper than Azure's 7.2094 / 8 = 0.901175 USD,
	// though by the raw numbers it would come last.
	a100 := d.Models[models["A100-80GB"]]
	want := dec("5.775").Mul(usdPerCNY)
	if a100.Spot == nil || a100.Spot.Provider != "alibaba" || a100.Spot.NativeCurrency != "CNY" || a100.Spot.Native.String() != "5.775" ||
		dec(a100.Spot.Price.String()).Sub(want).Abs().GreaterThan(dec("0.0000000001")) {
		t.Errorf("A100-80GB spot %+v, want %s USD", a100.Spot, want)
	}
	// A week ago the cheapest was Azure's 6.554 / 8 = 0.81925 USD.
	wantWoW := want.Sub(dec("0.81925")).Div(dec("0.81925")).Mul(dec("100"))
	if a100.SpotWoW == nil || dec(a100.SpotWoW.String()).Sub(wantWoW).Abs().GreaterThan(dec("0.0001")) {
		t.Errorf("A100-80GB spot w/w %v, want %s", a100.SpotWoW, wantWoW.Round(4))
	}
	if strings.Join(d.StaleProviders, ",") != "aws,tencent" {
		t.Errorf("stale providers %v, want aws and tencent", d.StaleProviders)
	}
	// The best H100 commitment: Azure's 3y savings plan at 51.00 against
	// 98.32 on demand saves 1 − 51/98.32 = 48.1286% and breaks even at
	// 0.518714 of the hours; AWS's at 46.00 against 84.80 saves only
	// 45.7547%, though it is the cheaper commitment per GPU-hour.
	found := false
	for _, s := range d.Savings {
		if s.Model == "H100" {
			found = true
			if s.Provider != "azure" || s.PriceType != "savings_plan" || s.Pct.String() != "48.1286" || s.BreakEven.String() != "0.518714" {
				t.Errorf("H100 best savings %+v", s)
			}
		}
	}
	if !found {
		t.Error("no H100 savings row")
	}
	// Twelve weeks of weekly points: 13 samples per series.
	for _, s := range d.Chart.Series {
		if len(s.Points) != 13 {
			t.Errorf("%s: %d points, want 13", s.Label, len(s.Points))
		}
	}
}

// TestDigestChartPNG renders the chart through `digest --out`, decodes it
// and checks its size and that it is not blank. With -update it also
// refreshes testdata/digest/chart.png for people to look at.
func TestDigestChartPNG(t *testing.T) {
	cfg := digestConfig(t, digestSetup{rates: true, chart: true})
	path := filepath.Join(t.TempDir(), "chart.png")
	if _, errOut, code := runCLI(t, "--config", cfg, "digest", "--now="+digestNow, "--out", path); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	checkNotBlank(t, img)
	if golden.Update() {
		if err := os.WriteFile(filepath.Join("testdata", "digest", "chart.png"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Without any price there is nothing to draw, and the command says so.
	empty := filepath.Join(t.TempDir(), "pricewatch.yaml")
	emptyDB := filepath.Join(t.TempDir(), "e.db")
	if err := os.WriteFile(empty, []byte("database:\n  path: "+emptyDB+"\nlog:\n  level: error\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A read command never creates the database; make an empty one.
	edb := openTestDB(t, emptyDB)
	edb.Close()
	_, errOut, code := runCLI(t, "--config", empty, "digest", "--out", filepath.Join(t.TempDir(), "x.png"))
	if code == 0 || !strings.Contains(errOut, "no H100 or A100 price") {
		t.Errorf("empty database: exit %d, %q", code, errOut)
	}
}

func checkNotBlank(t *testing.T, img image.Image) {
	t.Helper()
	b := img.Bounds()
	if b.Dx() != 1200 || b.Dy() != 600 {
		t.Errorf("chart is %dx%d, want 1200x600", b.Dx(), b.Dy())
	}
	// Luminance variance over a grid of samples: a blank (one-colour)
	// image has none; lines, text and the legend give plenty.
	var sum, sq float64
	n := 0
	colours := map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			l := 0.299*float64(r>>8) + 0.587*float64(g>>8) + 0.114*float64(bl>>8)
			sum += l
			sq += l * l
			n++
		}
	}
	mean := sum / float64(n)
	if variance := sq/float64(n) - mean*mean; variance < 100 {
		t.Errorf("chart looks blank: luminance variance %.1f", variance)
	}
	// The two series colours (blue H100, orange A100) are drawn.
	var blue, orange bool
	for c := range colours {
		blue = blue || (c[0] < 0x40 && c[1] > 0x50 && c[1] < 0x70 && c[2] > 0xb0)
		orange = orange || (c[0] > 0xc0 && c[1] > 0x50 && c[1] < 0x70 && c[2] < 0x30)
	}
	if !blue || !orange {
		t.Errorf("series colours missing: blue %v orange %v", blue, orange)
	}
}

// finopsSlack fakes the Web API calls a digest with a chart makes:
// chat.postMessage and the external file upload. A scripted error code
// answers the next chat.postMessage.
type finopsSlack struct {
	*httptest.Server
	mu       sync.Mutex
	script   []string
	posts    []string // delivery keys of accepted messages
	uploads  [][]byte
	complete []string // "channel thread_ts" of shared files
}

func newFinopsSlack(t *testing.T) *finopsSlack {
	t.Helper()
	s := &finopsSlack{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(r.URL.Path, "/upload/") {
			f, _, err := r.FormFile("file")
			if err != nil {
				http.Error(w, "no file", http.StatusBadRequest)
				return
			}
			b, _ := io.ReadAll(f)
			s.uploads = append(s.uploads, b)
			return
		}
		if r.ParseForm() != nil || r.PostFormValue("token") != alertsToken {
			fmt.Fprint(w, `{"ok":false,"error":"invalid_auth"}`)
			return
		}
		switch r.URL.Path {
		case "/api/files.getUploadURLExternal":
			fmt.Fprintf(w, `{"ok":true,"upload_url":%q,"file_id":"F0%d"}`, s.URL+"/upload/"+strconv.Itoa(len(s.uploads)), len(s.uploads))
		case "/api/chat.postMessage":
			if len(s.script) > 0 {
				code := s.script[0]
				s.script = s.script[1:]
				fmt.Fprintf(w, `{"ok":false,"error":%q}`, code)
				return
			}
			var meta struct {
				EventPayload struct {
					DeliveryKey string `json:"delivery_key"`
				} `json:"event_payload"`
			}
			_ = json.Unmarshal([]byte(r.PostFormValue("metadata")), &meta)
			s.posts = append(s.posts, meta.EventPayload.DeliveryKey)
			fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":"1664787600.00000%d"}`, r.PostFormValue("channel"), len(s.posts))
		case "/api/files.completeUploadExternal":
			s.complete = append(s.complete, r.PostFormValue("channel_id")+" "+r.PostFormValue("thread_ts"))
			fmt.Fprintf(w, `{"ok":true,"files":%s}`, r.PostFormValue("files"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *finopsSlack) state() (posts []string, uploads int, complete []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.posts...), len(s.uploads), append([]string(nil), s.complete...)
}

// TestDigestSendOncePerWeek: --send posts the digest with its chart in the
// thread; a second --send in the same week and the daemon's trigger post
// nothing; --again posts another copy.
func TestDigestSendOncePerWeek(t *testing.T) {
	t.Setenv(envSlackToken, alertsToken)
	fake := newFinopsSlack(t)
	cfg := digestConfig(t, digestSetup{rates: true, chart: true, slack: "  api_url: " + fake.URL + "/api/"})
	now := "--now=" + digestNow

	out, errOut, code := runCLI(t, "--config", cfg, "digest", "--send", now)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	if !strings.Contains(out, "Digest of 2022-W40 sent (digest/2022-W40/C0FINOPS)") {
		t.Errorf("output %q", out)
	}
	posts, uploads, complete := fake.state()
	if len(posts) != 1 || posts[0] != "digest/2022-W40/C0FINOPS" || uploads != 1 || len(complete) != 1 || complete[0] != "C0FINOPS 1664787600.000001" {
		t.Fatalf("Slack got posts %q, %d uploads, shares %q", posts, uploads, complete)
	}

	out, errOut, code = runCLI(t, "--config", cfg, "digest", "--send", now)
	if code != 0 || !strings.Contains(out, "already sent") {
		t.Errorf("second --send: exit %d, %q %q", code, out, errOut)
	}
	// The daemon's trigger later that week builds the same key.
	a, db := loadApp(t, cfg)
	st, err := compose.Snapshot(a.wiring(), a.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := st.Digests.QueueDigest(context.Background(), db, time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	if posts, _, _ := fake.state(); len(posts) != 1 {
		t.Errorf("after the daemon's trigger Slack holds %d digests", len(posts))
	}
	entries, err := db.ListOutbox(context.Background(), storage.OutboxFilter{})
	if err != nil {
		t.Fatal(err)
	}
	// The daemon builds the digest of the real clock's week; whichever
	// week that is, one key per week.
	keys := map[string]int{}
	for _, e := range entries {
		keys[e.DeliveryKey]++
	}
	for k, n := range keys {
		if n != 1 {
			t.Errorf("key %s stored %d times", k, n)
		}
	}

	out, errOut, code = runCLI(t, "--config", cfg, "digest", "--send", "--again", now)
	if code != 0 {
		t.Fatalf("--again: exit %d: %s%s", code, out, errOut)
	}
	posts, uploads, _ = fake.state()
	if len(posts) < 2 || posts[len(posts)-1] != "digest/2022-W40/C0FINOPS/again-20221003T090000Z" || uploads < 2 {
		t.Errorf("--again: posts %q, %d uploads", posts, uploads)
	}
}

// TestDaemonDigestQueuesOnce: two triggers in one week queue one message
// and set the gauge. (That each trigger wakes the dispatcher is
// daemon.TestDigestTriggerNudges.)
func TestDaemonDigestQueuesOnce(t *testing.T) {
	t.Setenv(envSlackToken, alertsToken)
	cfg := digestConfig(t, digestSetup{rates: true, chart: true})
	a, db := loadApp(t, cfg)
	st, err := compose.Snapshot(a.wiring(), a.cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, _, queued, err := st.Digests.QueueDigest(context.Background(), db, time.Now().UTC()); err != nil || queued != (i == 0) {
			t.Errorf("trigger %d: queued %v, %v", i+1, queued, err)
		}
	}
	entries, err := db.ListOutbox(context.Background(), storage.OutboxFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Kind != "digest" || entries[0].Channel != "C0FINOPS" ||
		!strings.HasPrefix(entries[0].DeliveryKey, "digest/") || !strings.HasSuffix(entries[0].DeliveryKey, "/C0FINOPS") {
		t.Fatalf("outbox %+v", entries)
	}
	// The fixture's last prices are still current on the real clock, so
	// there is a chart, stored as a PNG beside the message; the message is
	// the digest's data, which the Slack notifier renders with the chart.
	doc, err := alerting.DecodeDocument(entries[0].Payload)
	if err != nil || doc.Type != alerting.TypeDigest {
		t.Fatalf("outbox payload is not a digest document (%v): %.300s", err, entries[0].Payload)
	}
	rendered, err := digest.RenderSlack(doc.Digest, false, true)
	if _, perr := png.Decode(bytes.NewReader(entries[0].Attachment)); perr != nil || err != nil || !strings.Contains(string(rendered), `"file":{"name":"pricewatch-digest-`) {
		t.Errorf("attachment of %d bytes (%v), rendered %s (%v)", len(entries[0].Attachment), perr, rendered, err)
	}
	// The digest gauge read from the outbox: daemon/metrics' TestDigestGaugeFromOutbox.
}

// TestDigestSendRefused: Slack refusing the digest exits non-zero with
// Slack's reason and the fix.
func TestDigestSendRefused(t *testing.T) {
	t.Setenv(envSlackToken, alertsToken)
	fake := newFinopsSlack(t)
	fake.script = []string{"channel_not_found"}
	cfg := digestConfig(t, digestSetup{rates: true, chart: true, slack: "  api_url: " + fake.URL + "/api/"})
	out, errOut, code := runCLI(t, "--config", cfg, "digest", "--send", "--now="+digestNow)
	if code == 0 {
		t.Fatalf("exit 0: %s", out)
	}
	if !strings.Contains(errOut, "slack refused the digest of 2022-W40") || !strings.Contains(errOut, "channel_not_found") ||
		!strings.Contains(errOut, "channel C0FINOPS was not found") {
		t.Errorf("stderr %q", errOut)
	}
	// Issue 31 item 6: the fix is said once, not by the log line's message,
	// its field and the error each.
	if n := strings.Count(errOut, "was not found"); n != 1 {
		t.Errorf("the fix is printed %d times:\n%s", n, errOut)
	}
	if strings.Contains(errOut+out, alertsToken) {
		t.Error("the token was printed")
	}
}

// TestDigestWebhookGoesWithoutChart: an incoming webhook cannot upload, so
// no chart is stored and the message says why.
func TestDigestWebhookGoesWithoutChart(t *testing.T) {
	var bodies []string
	var mu sync.Mutex
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		fmt.Fprint(w, "ok")
	}))
	defer hook.Close()
	cfg := digestConfig(t, digestSetup{rates: true, chart: true, slack: "  webhook_url: " + hook.URL + "/services/T0/B0/XyZ"})
	out, errOut, code := runCLI(t, "--config", cfg, "digest", "--send", "--now="+digestNow)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 1 || !strings.Contains(bodies[0], "Chart not attached: an incoming webhook cannot upload files") {
		t.Errorf("webhook got %q", bodies)
	}
	_, db := loadApp(t, cfg)
	e, err := db.OutboxByKey(context.Background(), "digest/2022-W40/C0FINOPS")
	if err != nil {
		t.Fatal(err)
	}
	if e.Attachment != nil || e.Status != storage.OutboxSent {
		t.Errorf("stored %d attachment bytes, status %s", len(e.Attachment), e.Status)
	}
}
