package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/report"
)

// The dashboard is tested in a real browser: headless Chromium loads every
// page from a database filled by fetching the fake Azure (real captures)
// and the fake AWS bucket (real layouts) twice, with a price drop between
// the runs that queues an alert. Each page must load without a console
// error, show its chart and its ranked table with the offers the API
// ranks, and fit the screen at 1,400, 1,280 and 390 px; the offers table
// is also worked through clicks and typing (offersInBrowser); screenshots go to $PRICEWATCH_ARTIFACTS
// (CI keeps them), else testdata/out (ignored by git).

// chromiumPath finds the browser; without one the test skips locally and
// fails in CI, where .ci/run installs it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed; .ci/run installs it (apt-get install chromium)")
	}
	t.Skip("chromium is not installed (apt-get install chromium): the dashboard's browser test is skipped")
	return ""
}

func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("PRICEWATCH_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("testdata", "out")
	}
	dir = filepath.Join(dir, "dashboard")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// dashboardConfig writes a config with Azure and AWS pointed at the fakes
// (the Spot Advisor too, so that the pages show interruption bands and
// capacity signals) and Slack at a fake, with the example's price-drop
// rule.
func dashboardConfig(t *testing.T, azureURL string, b *awstest.Bucket, slackURL string) string {
	t.Helper()
	return testConfig{
		clouds: []cloud{azureCloud(azureURL, westus2), awsBucketCloud(b, "    spot_advisor: true\n    spot_advisor_endpoint: "+b.SpotAdvisorURL()+"\n")},
		slack:  fakeSlackSection(slackURL, "C0GPUALERTS"),
		alerts: `alerts:
  fetch_delivery_wait: 2s
  rules:
    - name: price-drops
      events: [price_drop]
      gpu_models: [H100, A100]
      min_change_pct: 5
`,
	}.write(t, t.TempDir())
}

// dashboardNow is the browser test's clock: the fixture's runs and every
// page are as of this instant, so that which date labels fall where on a
// chart is the same on every run (with the wall clock, a label at the
// timeline's start stuck out on a phone on some days only: CI failed on
// 2026-12-05 so). It is that day's failing time of day.
var dashboardNow = time.Date(2026, 12, 5, 11, 19, 0, 0, time.UTC)

func fillDashboardDB(t *testing.T) string {
	t.Helper()
	t.Setenv(envSlackToken, alertsToken)
	az := newFakeAzure(t)
	slack := newSlackAPI(t)
	b := awsScenarioBucket(t)
	// The real Spot Advisor excerpt: ap-northeast-1 p5.48xlarge is 10-15%.
	b.Put(awstest.SpotAdvisorPath, awstest.SampleFile(t, "spot-advisor-data-excerpt.json"))
	cfg := dashboardConfig(t, az.URL, b, slack.URL)
	// The runs are stored as of 20 and 3 days ago, so that the charts have
	// a history to draw and the overview a week-old price to compare with.
	a, db := loadApp(t, cfg)
	now := dashboardNow
	db.Now = func() time.Time { return now.Add(-20 * 24 * time.Hour) }
	fetchOnce(t, a, db)
	// Azure's H100 falls 6.98 → 6.5 per hour: a price drop alert.
	az.setPrice(t, "2", `"retailPrice": 6.98,`, `"retailPrice": 6.5,`)
	az.setPrice(t, "2", `"unitPrice": 6.98,`, `"unitPrice": 6.5,`)
	db.Now = func() time.Time { return now.Add(-3 * 24 * time.Hour) }
	if line := fetchOnce(t, a, db); line != "alerts   1 sent" {
		t.Fatalf("second run delivered %q, want one price-drop alert", line)
	}
	return cfg
}

// consoleLog collects what the page writes to the console.
type consoleLog struct {
	mu   sync.Mutex
	msgs []chromedp.ConsoleMessage
}

func (c *consoleLog) take() []chromedp.ConsoleMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.msgs
	c.msgs = nil
	return out
}

func TestDashboardInBrowser(t *testing.T) {
	chromium := chromiumPath(t)
	cfg := fillDashboardDB(t)
	ts, _, _ := apiServerAt(t, cfg, func() time.Time { return dashboardNow })
	shots := artifactsDir(t)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)...)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(allocCtx)
	defer cancelTab()
	// Start the browser before subscribing to its console.
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	var console consoleLog
	msgs := chromedp.Console(tab)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			console.mu.Lock()
			console.msgs = append(console.msgs, m)
			console.mu.Unlock()
		}
	}()

	// The offers the API ranks are the ones each page must show, in order.
	apiRows := func(path string, v any) {
		t.Helper()
		resp, body := apiGet(t, ts.URL+path)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatal(err)
		}
	}
	var h100 []report.CompareRow
	apiRows("/api/v1/offers?gpu=H100&price_type=any", &h100)
	if len(h100) < 10 {
		t.Fatalf("fixture: only %d H100 offers", len(h100))
	}
	var p5Savings []report.SavingsRow
	apiRows("/api/v1/savings/p5.48xlarge?utilization=0.7", &p5Savings)

	type check struct {
		sel  string
		want func(t *testing.T, text string)
	}
	contains := func(subs ...string) func(*testing.T, string) {
		return func(t *testing.T, text string) {
			t.Helper()
			for _, s := range subs {
				if !strings.Contains(text, s) {
					t.Errorf("missing %q in:\n%s", s, clipText(text))
				}
			}
		}
	}
	pages := []struct {
		name, path string
		checks     []check
		// rankedSel lists rows whose data attributes must follow want.
		rankedSel string
		ranked    []string
		charts    []string // svg ids with at least one drawn series
		// notFound: the page is a 404, which the browser itself reports
		// on the console (the one message allowed).
		notFound bool
		// wholeAt1400 selects what must lie inside its scrolling box at
		// 1,400 px.
		wholeAt1400 string
	}{
		{name: "overview", path: "/",
			checks: []check{
				{"#cheapest", contains("H100", "A100-80GB", "A100-40GB", "6.50", "Standard_NC40ads_H100_v5azure westus2", "-6.9%")},
				{"#freshness", contains("aws", "azure", "ok")},
				{"#alerts", contains("price_drop", "Price drop", "C0GPUALERTS: sent")},
			}, wholeAt1400: "#cheapest, #freshness, #alerts"},
		{name: "gpu-H100", path: "/gpu/H100?price_type=any&days=7", charts: []string{"chart-cheapest"},
			checks: []check{{"#offers", contains("Standard_NC40ads_H100_v5azure westus2", "p5.48xlargeaws eu-west-1", "offered", "6.50", "1.396", "10-15%")},
				{"#signals", contains("spot interruption band", "p5.48xlargeaws ap-northeast-1", "10-15%", "os=linux")}},
			rankedSel: "#offers tbody tr", ranked: rowKeys(h100)},
		{name: "gpu-H100-ondemand-30d", path: "/gpu/H100?days=30", charts: []string{"chart-cheapest"},
			checks: []check{{"#offers", contains("Standard_NC40ads_H100_v5", "p5.48xlarge")}, {"#timeline-availability", contains("azure westus2 Standard_NC40ads_H100_v5")}}},
		{name: "instance-NC40ads_H100", path: "/instance/Standard_NC40ads_H100_v5", charts: []string{"chart-history"},
			checks: []check{{"#current", contains("westus2", "on-demand", "6.50")}, {"#timeline-availability", contains("azure westus2")}}},
		{name: "instance-p5", path: "/instance/p5.48xlarge", charts: []string{"chart-history"},
			checks: []check{{"#current", contains("eu-west-1", "ap-northeast-1", "reserved 3y all upfront", "spot", "10-15%")}, {"#signals", contains("spot interruption band", "10-15%")}}},
		{name: "offers-band", path: "/offers?price_type=spot&sort=band",
			checks: []check{{"#offers", contains("p5.48xlarge", "10-15%")}}},
		{name: "commitments-p5", path: "/commitments?instance_type=p5.48xlarge&utilization=0.7",
			checks:    []check{{"main", contains("eu-west-1", "ap-northeast-1", "break-even", "★")}},
			rankedSel: "table.savings tbody tr", ranked: savingsKeys(p5Savings)},
		{name: "commitments", path: "/commitments", checks: []check{{"main", contains("p5.48xlarge", "p4d.24xlarge")}}},
		{name: "offers", path: "/offers", checks: []check{{"#offers", contains("p5.48xlarge", "Standard_NC40ads_H100_v5", "H100", "on-demand", "spot")}},
			wholeAt1400: "#offers th[data-col=hourly], #offers th[data-col=price]"},
		{name: "offers-hardware", path: "/offers?gpu=H100&col=instance&col=gpus&col=gpu_mem&col=vcpus&col=memory&col=interconnect&col=storage&col=price&sort=-vcpus",
			checks: []check{{"#offers", contains("p5.48xlarge", "unknown", "3200 Gigabit", "8 x 3800 GB NVMe SSD")}}},
		// Issue 31 item 3: one row per machine, for a month; the ticked
		// machines side by side.
		{name: "offers-machine", path: "/offers?by=machine&per=month&gpu=H100",
			checks: []check{{"#offers", contains("p5.48xlarge", "Standard_NC40ads_H100_v5", "on-demand", "best 3-year", "reserved 3y all upfront")}}},
		{name: "offers-compare", path: "/offers/compare?id=aws/eu-west-1/p5.48xlarge/linux&id=azure/westus2/Standard_NC40ads_H100_v5/linux&per=month",
			checks: []check{{"#compare", contains("p5.48xlarge", "Standard_NC40ads_H100_v5", "eu-west-1", "westus2", "on-demand", "best 3-year")}}},
		{name: "gpu-index", path: "/gpu/", checks: []check{{"#gpu-index", contains("H100", "A100-80GB", "aws", "azure")}}, wholeAt1400: "#gpu-index"},
		{name: "not-found", path: "/no/such/page", checks: []check{{"#error", contains("No page at /no/such/page")}, {"#pages", contains("every GPU model", "every offer")}}, notFound: true},
	}
	for _, p := range pages {
		for _, device := range []struct {
			name string
			w, h int64
		}{{"wide", 1400, 900}, {"laptop", 1280, 800}, {"phone", 390, 844}} {
			t.Run(p.name+"/"+device.name, func(t *testing.T) {
				console.take()
				start := time.Now()
				err := chromedp.Do(tab, chromedp.EmulateViewport(device.w, device.h), chromedp.Navigate(ts.URL+p.path), chromedp.WaitVisible("main"))
				if err != nil {
					t.Fatalf("loading %s: %v", p.path, err)
				}
				t.Logf("%s loaded in %v", p.path, time.Since(start).Round(time.Millisecond))
				for _, c := range p.checks {
					text, err := chromedp.Run(tab, chromedp.TextContent(c.sel))
					if err != nil {
						t.Fatalf("%s: %v", c.sel, err)
					}
					c.want(t, text)
				}
				for _, id := range p.charts {
					n, err := chromedp.Run(tab, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll("svg#%s path.line").length`, id)))
					if err != nil || n == 0 {
						t.Errorf("chart #%s: %d series drawn (%v)", id, n, err)
					}
					w, err := chromedp.Run(tab, chromedp.Evaluate[float64](fmt.Sprintf(`document.getElementById(%q).getBoundingClientRect().width`, id)))
					if err != nil || w < 200 {
						t.Errorf("chart #%s is %v px wide (%v)", id, w, err)
					}
				}
				if p.rankedSel != "" {
					got, err := chromedp.Run(tab, chromedp.Evaluate[[]string](fmt.Sprintf(
						`Array.from(document.querySelectorAll(%q)).map(r => r.dataset.key || Array.from(r.cells).map(c => c.textContent.trim()).join("|"))`, p.rankedSel)))
					if err != nil {
						t.Fatal(err)
					}
					if strings.Join(got, "\n") != strings.Join(p.ranked, "\n") {
						t.Errorf("ranked rows:\n%s\nwant (as the API ranks them):\n%s", strings.Join(got, "\n"), strings.Join(p.ranked, "\n"))
					}
				}
				// Every availability-timeline label lies wholly inside its
				// chart: at 390 px the phone's larger font once pushed
				// right-aligned labels off the left edge.
				clipped, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("svg.timeline")).flatMap(svg => {
					const box = svg.getBoundingClientRect();
					return Array.from(svg.querySelectorAll("text")).filter(el => {
						const r = el.getBoundingClientRect();
						return r.width > 0 && (r.left < box.left - 0.5 || r.right > box.right + 0.5);
					}).map(el => el.textContent + " at " + Math.round(el.getBoundingClientRect().left) + ".." + Math.round(el.getBoundingClientRect().right) + " in " + Math.round(box.left) + ".." + Math.round(box.right));
				})`))
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range clipped {
					t.Errorf("timeline label cut off: %s", c)
				}
				// axe-core's scrollable-region-focusable: a region that
				// scrolls is reached by Tab and named, so a keyboard can
				// scroll it and a screen reader says what it is.
				unfocusable, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("body *")).filter(el => {
					const s = getComputedStyle(el), scrolls = v => v === "auto" || v === "scroll";
					return (scrolls(s.overflowX) && el.scrollWidth > el.clientWidth + 1) || (scrolls(s.overflowY) && el.scrollHeight > el.clientHeight + 1);
				}).filter(el => el.tabIndex < 0 || !(el.getAttribute("aria-label") || el.getAttribute("aria-labelledby"))).map(el => el.outerHTML.slice(0, 80))`))
				if err != nil {
					t.Fatal(err)
				}
				for _, el := range unfocusable {
					t.Errorf("a scrolling region Tab cannot reach or that has no name: %s", el)
				}
				// A skip link to the content comes first.
				skip, err := chromedp.Run(tab, chromedp.Evaluate[string](`(() => {
					const a = document.querySelector("a[href]"), h = a.getAttribute("href");
					return a.textContent + " " + h + " " + (h.startsWith("#") && document.querySelector(h) === document.querySelector("main"));
				})()`))
				if err != nil || skip != "Skip to content #content true" {
					t.Errorf("the first link is not a skip link to main: %q (%v)", skip, err)
				}
				// At 1,400 px the tables the issue names show whole, and the
				// offers table's prices are on screen without scrolling it.
				if device.w == 1400 && p.wholeAt1400 != "" {
					clipped, err := chromedp.Run(tab, chromedp.Evaluate[[]string](fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).filter(el => el.closest(".scroll") && el.getBoundingClientRect().right > el.closest(".scroll").getBoundingClientRect().right + 1).map(el => el.id || el.textContent)`, p.wholeAt1400)))
					if err != nil {
						t.Fatal(err)
					}
					for _, c := range clipped {
						t.Errorf("%s is clipped at 1,400 px", c)
					}
				}
				// Nothing wider than the screen but the scrolling tables.
				overflow, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
				if err != nil || overflow {
					t.Errorf("the page is wider than a %d px screen (%v)", device.w, err)
				}
				png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(shots, p.name+"-"+device.name+".png"), png, 0o644); err != nil {
					t.Fatal(err)
				}
				// Let late console messages arrive before reading them.
				if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`new Promise(r => setTimeout(() => r(true), 100))`, chromedp.EvalAwaitPromise)); err != nil {
					t.Fatal(err)
				}
				for _, m := range console.take() {
					if p.notFound && strings.Contains(m.String(), "status of 404") && strings.HasSuffix(m.URL, p.path) {
						continue
					}
					if m.Type == chromedp.ConsoleError || m.IsException() {
						t.Errorf("console: %s (%s:%d)", m, m.URL, m.Line+1)
					}
				}
			})
		}
	}
	t.Run("offers-interactive", func(t *testing.T) { offersInBrowser(t, tab, ts.URL, shots, &console) })
	t.Run("offers-keyboard", func(t *testing.T) { offersByKeyboard(t, tab, ts.URL, shots, &console) })
	t.Run("offers-tick-compare", func(t *testing.T) { offersTickAndCompare(t, tab, ts.URL, &console) })
	t.Logf("screenshots in %s", shots)
}

// offersInBrowser sets filters and a sort on /offers as a person would
// (typing and clicks, not the address), checks that the script applied
// them without a reload, that the rows are the API's for the address the
// page then shows, and that the address opened afresh shows the same rows.
func offersInBrowser(t *testing.T, tab context.Context, base, shots string, console *consoleLog) {
	console.take()
	keys := func() []string {
		t.Helper()
		got, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#offers tbody tr[data-key]")).map(r => r.dataset.key)`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	err := chromedp.Do(tab, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(base+"/offers"), chromedp.WaitVisible("#offers"))
	if err != nil {
		t.Fatalf("loading /offers: %v", err)
	}
	all := len(keys())
	// A mark the page loses if anything reloads it.
	if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`window.stayed = true`)); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(tab,
		chromedp.SendKeys("#offer-search", "p5"),
		chromedp.Click(`input[name=price_type][value=on_demand]`),
		chromedp.Click(`th[data-col=hourly] a`),
		chromedp.Click(`th[data-col=hourly] a`),
	)
	if err != nil {
		t.Fatalf("setting filters: %v", err)
	}
	stayed, err := chromedp.Run(tab, chromedp.Evaluate[bool](`window.stayed === true`))
	if err != nil || !stayed {
		t.Errorf("the page reloaded: the filters were not applied in the browser (%v)", err)
	}
	loc, err := chromedp.Run(tab, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"q=p5", "price_type=on_demand", "sort=-hourly"} {
		if !strings.Contains(loc, want) {
			t.Errorf("the address %s lacks %s", loc, want)
		}
	}
	got := keys()
	query := loc[strings.Index(loc, "?")+1:]
	var api []report.OfferTableRow
	resp, body := apiGet(t, base+"/api/v1/offer-table?"+query)
	if resp.StatusCode != 200 {
		t.Fatalf("API: %d %s", resp.StatusCode, body)
	}
	if err := json.Unmarshal([]byte(body), &api); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range api {
		want = append(want, r.Key().String())
	}
	if len(want) == 0 || len(want) >= all {
		t.Errorf("the filters kept %d of %d rows", len(want), all)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows in the browser:\n%s\nthe API's for %s:\n%s", strings.Join(got, "\n"), query, strings.Join(want, "\n"))
	}
	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err == nil {
		err = os.WriteFile(filepath.Join(shots, "offers-filtered-wide.png"), png, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The address, opened afresh, shows the same rows (rendered by the
	// server this time).
	if err := chromedp.Do(tab, chromedp.Navigate(loc), chromedp.WaitVisible("#offers")); err != nil {
		t.Fatal(err)
	}
	if again := keys(); strings.Join(again, "\n") != strings.Join(want, "\n") {
		t.Errorf("the address opened afresh shows:\n%s\nwant:\n%s", strings.Join(again, "\n"), strings.Join(want, "\n"))
	}
	// Widening a filter the server applied (the search this page was
	// loaded with) asks the server: the rows it had left out come back.
	if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`window.stayed = true`)); err != nil {
		t.Fatal(err)
	}
	// A click in the box puts the caret after its text, as a person's.
	if err := chromedp.Do(tab, chromedp.Click("#offer-search"), chromedp.SendKeys("#offer-search", kb.End+"\b\b")); err != nil {
		t.Fatal(err)
	}
	var wider string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if wider, err = chromedp.Run(tab, chromedp.Location()); err == nil && !strings.Contains(wider, "q=") {
			break
		}
	}
	if err := chromedp.Do(tab, chromedp.WaitVisible("#offers")); err != nil {
		t.Fatal(err)
	}
	if stayed, _ := chromedp.Run(tab, chromedp.Evaluate[bool](`window.stayed === true`)); stayed || strings.Contains(wider, "q=") {
		t.Errorf("clearing the search did not ask the server (at %s)", wider)
	}
	var widerAPI []report.OfferTableRow
	resp, body = apiGet(t, base+"/api/v1/offer-table?"+wider[strings.Index(wider, "?")+1:])
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &widerAPI) != nil {
		t.Fatalf("API: %d %s", resp.StatusCode, body)
	}
	if got := keys(); len(got) != len(widerAPI) || len(got) <= len(want) {
		t.Errorf("after clearing the search: %d rows, the API %d (before %d)", len(got), len(widerAPI), len(want))
	}
	if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`new Promise(r => setTimeout(() => r(true), 100))`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	for _, m := range console.take() {
		if m.Type == chromedp.ConsoleError || m.IsException() {
			t.Errorf("console: %s (%s:%d)", m, m.URL, m.Line+1)
		}
	}
}

// rowKeys are the ranked rows as the GPU page marks them.
func rowKeys(rows []report.CompareRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Key().String() // as the page writes data-key
	}
	return out
}

func savingsKeys(rows []report.SavingsRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Key().String() // as the page writes data-key
	}
	return out
}

// offersByKeyboard works /offers with the keyboard alone (issue 25 item 5):
// Tab reaches the search box, the price-type filter and a sort header in
// document order, each showing a visible focus ring (a computed outline
// on :focus-visible); typing, Space on the checkbox and Enter on the
// header set the view, and the rows are then the API's for the address.
func offersByKeyboard(t *testing.T, tab context.Context, base, shots string, console *consoleLog) {
	console.take()
	err := chromedp.Do(tab, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(base+"/offers"), chromedp.WaitVisible("#offers"))
	if err != nil {
		t.Fatalf("loading /offers: %v", err)
	}
	// tabTo presses Tab until the focused element matches sel, and checks
	// its focus is visible.
	tabTo := func(sel string) {
		t.Helper()
		for range 200 {
			at, err := chromedp.Run(tab, chromedp.Evaluate[bool](fmt.Sprintf(`document.activeElement !== null && document.activeElement.matches(%q)`, sel)))
			if err != nil {
				t.Fatal(err)
			}
			if at {
				ring, err := chromedp.Run(tab, chromedp.Evaluate[string](`(() => {
					const el = document.activeElement, s = getComputedStyle(el);
					return el.matches(":focus-visible") + " " + s.outlineStyle + " " + s.outlineWidth;
				})()`))
				if err != nil {
					t.Fatal(err)
				}
				if f := strings.Fields(ring); len(f) != 3 || f[0] != "true" || f[1] == "none" || f[2] == "0px" {
					t.Errorf("%s has focus but no visible ring (:focus-visible, outline style, width: %s)", sel, ring)
				}
				return
			}
			if err := chromedp.Do(tab, chromedp.KeyEvent(kb.Tab)); err != nil {
				t.Fatal(err)
			}
		}
		t.Fatalf("Tab never reached %s", sel)
	}
	if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.activeElement.blur(), true`)); err != nil {
		t.Fatal(err)
	}
	// The first Tab stop is the skip link, shown with its ring.
	if err := chromedp.Do(tab, chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatal(err)
	}
	if at, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.activeElement.className + " " + document.activeElement.getBoundingClientRect().top`)); err != nil || !strings.HasPrefix(at, "skip ") || strings.HasPrefix(at, "skip -") {
		t.Errorf("the first Tab stop is not the skip link, on screen: %q (%v)", at, err)
	}
	tabTo("a.skip")
	tabTo("#offer-search")
	if err := chromedp.Do(tab, chromedp.KeyEvent("p5")); err != nil {
		t.Fatal(err)
	}
	// The search box comes after the price-type boxes: Shift+Tab back.
	for range 200 {
		at, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.activeElement.matches("input[name=price_type][value=on_demand]")`))
		if err != nil {
			t.Fatal(err)
		}
		if at {
			break
		}
		if err := chromedp.Do(tab, chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift))); err != nil {
			t.Fatal(err)
		}
	}
	tabTo("input[name=price_type][value=on_demand]")
	if err := chromedp.Do(tab, chromedp.KeyEvent(" ")); err != nil {
		t.Fatal(err)
	}
	tabTo(`th[data-col=hourly] a`)
	if err := chromedp.Do(tab, chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	var loc string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if loc, err = chromedp.Run(tab, chromedp.Location()); err == nil && strings.Contains(loc, "sort=") {
			break
		}
	}
	for _, want := range []string{"q=p5", "price_type=on_demand", "sort=hourly"} {
		if !strings.Contains(loc, want) {
			t.Errorf("after the keys the address %s lacks %s", loc, want)
		}
	}
	if err := chromedp.Do(tab, chromedp.WaitVisible("#offers")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#offers tbody tr[data-key]")).filter(r => !r.hidden).map(r => r.dataset.key)`))
	if err != nil {
		t.Fatal(err)
	}
	var api []report.OfferTableRow
	resp, body := apiGet(t, base+"/api/v1/offer-table?"+loc[strings.Index(loc, "?")+1:])
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &api) != nil {
		t.Fatalf("API: %d %s", resp.StatusCode, body)
	}
	want := make([]string, len(api))
	for i, r := range api {
		want[i] = r.Key().String()
	}
	if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows after the keys:\n%s\nthe API's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err == nil {
		err = os.WriteFile(filepath.Join(shots, "offers-keyboard-wide.png"), png, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`new Promise(r => setTimeout(() => r(true), 100))`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	for _, m := range console.take() {
		if m.Type == chromedp.ConsoleError || m.IsException() {
			t.Errorf("console: %s (%s:%d)", m, m.URL, m.Line+1)
		}
	}
}

// offersTickAndCompare ticks two machines on the offers table's machine
// view, as a person would, and compares them (issue 31 item 3): the
// side-by-side page shows the ticked machines, in the unit of the view.
func offersTickAndCompare(t *testing.T, tab context.Context, base string, console *consoleLog) {
	console.take()
	err := chromedp.Do(tab, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(base+"/offers?by=machine&per=month&gpu=H100"), chromedp.WaitVisible("#offers"))
	if err != nil {
		t.Fatalf("loading the machine view: %v", err)
	}
	ids, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#offers tbody tr[data-machine]")).slice(0, 2).map(r => r.dataset.machine)`))
	if err != nil || len(ids) != 2 {
		t.Fatalf("machine rows %v: %v", ids, err)
	}
	err = chromedp.Do(tab,
		chromedp.Click(`#offers tbody tr:nth-child(1) input[name=id]`),
		chromedp.Click(`#offers tbody tr:nth-child(2) input[name=id]`),
		chromedp.Click(`#offer-compare button`),
		chromedp.WaitVisible("#compare"),
	)
	if err != nil {
		t.Fatalf("ticking and comparing: %v", err)
	}
	loc, err := chromedp.Run(tab, chromedp.Location())
	if err != nil || !strings.Contains(loc, "/offers/compare?") || !strings.Contains(loc, "per=month") {
		t.Errorf("compare went to %s (%v)", loc, err)
	}
	got, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#compare thead th[data-machine]")).map(th => th.dataset.machine)`))
	if err != nil || strings.Join(got, " ") != strings.Join(ids, " ") {
		t.Errorf("side by side %v, ticked %v (%v)", got, ids, err)
	}
	for _, m := range console.take() {
		if m.Type == chromedp.ConsoleError || m.IsException() {
			t.Errorf("console: %s (%s:%d)", m, m.URL, m.Line+1)
		}
	}
}
