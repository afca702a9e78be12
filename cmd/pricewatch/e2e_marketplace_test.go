package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/oci/ocitest"
	"github.com/pricewatch/pricewatch/fetchers/vastai/vastaitest"
)

// End to end through the CLI for Vast.ai and OCI: `pricewatch fetch`
// against fakes replaying the real captures in testdata/vastai and
// testdata/oci (see their READMEs), capacity changing between runs, and
// one Slack message (fake Slack) when an H100 comes back. The alert rule
// is written into each test's config: it does not rely on default rules.

// newCloudConfig writes a config with only provider enabled, pointed at
// endpoint, Slack at slackURL, and the given provider keys and rules.
func newCloudConfig(t *testing.T, provider, endpoint, slackURL, providerKeys, rules string) string {
	t.Helper()
	return testConfig{
		clouds: []cloud{{name: provider, endpoint: endpoint, keys: providerKeys + "\n"}},
		slack:  fakeSlackSection(slackURL, "C0GPUALERTS"),
		alerts: `alerts:
  fetch_delivery_wait: 2s
  # Every stock flip alerts: these runs are seconds apart.
  flap_window: 0s
  rules:
` + rules,
	}.write(t, t.TempDir())
}

// openIntervals maps region|type → state of the open availability intervals.
func openIntervals(rows []availabilityJSON) map[string]string {
	out := map[string]string{}
	for _, r := range rows {
		if r.Until == nil {
			out[r.Region+"|"+r.InstanceType] = r.State
		}
	}
	return out
}

func wantStates(t *testing.T, got, want map[string]string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("open availability\n got %v\nwant %v", got, want)
	}
}

// currentPrice is the open price interval of typ in region with price type pt.
func currentPrice(t *testing.T, cfg, typ, region, pt string) (historyJSON, bool) {
	t.Helper()
	for _, r := range history(t, cfg, typ) {
		if r.ValidTo == nil && r.Region == region && string(r.PriceType) == pt {
			return r, true
		}
	}
	return historyJSON{}, false
}

// Vast.ai capacity is the marketplace's: a (country, GPU count) is in
// stock while some host offers it for rent, sold out while none does (for
// up to a week after it was last seen), and in stock again when an offer
// reappears. The H100 rule alerts on back_in_stock and availability_new.
func TestVastAIEndToEnd(t *testing.T) {
	t.Setenv(envSlackToken, alertsToken)
	h100 := vastaitest.LoadOffers(t, "testdata/vastai/bundles-H100_SXM-asc-limit8-20260822.json")
	b300 := vastaitest.LoadOffers(t, "testdata/vastai/bundles-B300-asc-limit8-20260822.json")
	fake := vastaitest.NewServer(t, append(append([]vastaitest.Offer{}, h100...), b300...))
	slack := newSlackAPI(t)
	cfg := newCloudConfig(t, "vastai", fake.URL, slack.URL, `    gpu_models: ["H100 SXM", B300]
    request_interval: 0s`, `    - name: h100-capacity
      events: [back_in_stock, availability_new]
      gpu_models: [H100]
      providers: [vastai]
`)

	out := fetchOK(t, cfg, "vastai")
	if !strings.Contains(out, "10 offers: 10 new") || !strings.Contains(out, "first run") {
		t.Errorf("first fetch summary: %q", out)
	}
	wantStates(t, openIntervals(availability(t, cfg, "vastai")), map[string]string{
		"US|1x H100 SXM": "in_stock", "JP|1x H100 SXM": "in_stock", "RU|1x H100 SXM": "in_stock",
		"US|2x B300": "in_stock", "US|4x B300": "in_stock",
	})
	// Prices per instance, exact: the cheapest rentable offer per country.
	if r, ok := currentPrice(t, cfg, "1x H100 SXM", "JP", "on_demand"); !ok || r.HourlyPrice.String() != "1.605926" || r.Currency != "USD" || r.GPUModel != "H100" {
		t.Errorf("JP H100 on-demand: %+v", r)
	}
	if r, ok := currentPrice(t, cfg, "2x B300", "US", "spot"); !ok || r.HourlyPrice.String() != "11.25" || r.GPUCount != 2 {
		t.Errorf("US 2x B300 spot: %+v", r)
	}
	if out, _, _ := runCLI(t, "--config", cfg, "availability", "--provider", "vastai", "--format", "csv"); !strings.Contains(out, "JP,,1x H100 SXM") ||
		!strings.Contains(out, "3 rentable offers") || !strings.Contains(out, "4 rentable offers") {
		t.Errorf("stock details (number of rentable offers) missing:\n%s", out)
	}

	// Second run: every Japanese host has been rented out.
	var noJP []vastaitest.Offer
	for _, o := range append(append([]vastaitest.Offer{}, h100...), b300...) {
		if !strings.Contains(string(o["geolocation"]), "JP") {
			noJP = append(noJP, o)
		}
	}
	fake.SetOffers(noJP)
	out = fetchOK(t, cfg, "vastai")
	if !strings.Contains(out, "8 offers: 0 new, 0 changed, 8 unchanged, 2 closed") {
		t.Errorf("second fetch summary: %q", out)
	}
	rows := availability(t, cfg, "vastai")
	wantStates(t, openIntervals(rows), map[string]string{
		"US|1x H100 SXM": "in_stock", "JP|1x H100 SXM": "sold_out", "RU|1x H100 SXM": "in_stock",
		"US|2x B300": "in_stock", "US|4x B300": "in_stock",
	})
	if _, ok := currentPrice(t, cfg, "1x H100 SXM", "JP", "on_demand"); ok {
		t.Error("JP still has a current price with no rentable offer")
	}
	if n := len(slack.received()); n != 0 {
		t.Errorf("%d Slack messages before any H100 came back", n)
	}

	// Third run: one Japanese H100 is for rent again, dearer than before.
	back := h100[4] // 48184680, Japan, 1.7392592592592593
	fake.SetOffers(append(noJP, back))
	out = fetchOK(t, cfg, "vastai")
	if !strings.Contains(out, "10 offers: 2 new") {
		t.Errorf("third fetch summary: %q", out)
	}
	rows = availability(t, cfg, "vastai")
	wantStates(t, openIntervals(rows), map[string]string{
		"US|1x H100 SXM": "in_stock", "JP|1x H100 SXM": "in_stock", "RU|1x H100 SXM": "in_stock",
		"US|2x B300": "in_stock", "US|4x B300": "in_stock",
	})
	var jp []availabilityJSON
	for _, r := range rows {
		if r.Region == "JP" {
			jp = append(jp, r)
		}
	}
	if len(jp) != 3 || jp[0].State != "in_stock" || jp[1].State != "sold_out" || jp[2].State != "in_stock" ||
		jp[0].Until == nil || *jp[0].Until != jp[1].Since || jp[1].Until == nil || *jp[1].Until != jp[2].Since {
		t.Errorf("JP intervals, want in_stock → sold_out → in_stock back to back: %+v", jp)
	}
	if r, ok := currentPrice(t, cfg, "1x H100 SXM", "JP", "on_demand"); !ok || r.HourlyPrice.String() != "1.739259" {
		t.Errorf("JP H100 on-demand after the return: %+v", r)
	}
	posts := slack.received()
	if len(posts) != 1 {
		t.Fatalf("%d Slack messages, want 1 (the H100 back in stock in JP): %+v", len(posts), posts)
	}
	t.Logf("Slack message: %s", posts[0].text)
	if p := posts[0]; p.channel != "C0GPUALERTS" || !strings.Contains(p.text, "H100") || !strings.Contains(p.text, "JP") {
		t.Errorf("Slack message %+v", p)
	}

	// compare marks the marketplace.
	out, errOut, code := runCLI(t, "--config", cfg, "compare", "--gpu", "H100", "--price-type", "on_demand", "--format", "json")
	if code != 0 || !strings.Contains(out, `"marketplace": true`) || strings.Contains(out, `"marketplace": false`) {
		t.Errorf("compare exited %d, every Vast.ai row should be marked marketplace:\n%s%s", code, out, errOut)
	}
}

// A Vast.ai answer cut off, or an empty book where offers were stored,
// fails the run and changes nothing.
func TestVastAIBadAnswerChangesNothing(t *testing.T) {
	h100 := vastaitest.LoadOffers(t, "testdata/vastai/bundles-H100_SXM-asc-limit8-20260822.json")
	fake := vastaitest.NewServer(t, h100)
	slack := newSlackAPI(t)
	cfg := newCloudConfig(t, "vastai", fake.URL, slack.URL, `    gpu_models: ["H100 SXM"]
    request_interval: 0s`, `    - name: any
      events: [sold_out, availability_gone]
`)
	fetchOK(t, cfg, "vastai")
	before := availability(t, cfg, "vastai")
	for name, setup := range map[string]func(){
		"truncated":  func() { fake.Truncate(1) },
		"empty book": func() { fake.SetOffers(nil) },
	} {
		setup()
		out, _, code := runCLI(t, "--config", cfg, "fetch", "--provider", "vastai")
		if code == 0 || !strings.Contains(out, "FAILED") {
			t.Errorf("%s: fetch exited %d: %s", name, code, out)
		}
		if after := availability(t, cfg, "vastai"); !reflect.DeepEqual(after, before) {
			t.Errorf("%s: availability changed by a failed run:\n%+v\n%+v", name, before, after)
		}
		if r, ok := currentPrice(t, cfg, "1x H100 SXM", "US", "on_demand"); !ok || r.HourlyPrice.String() != "1.386741" {
			t.Errorf("%s: US price after a failed run: %+v", name, r)
		}
	}
	if n := len(slack.received()); n != 0 {
		t.Errorf("%d Slack messages from failed runs", n)
	}
}

// OCI publishes no stock: its capacity signal is the price list itself. A
// shape is offered while the list prices it; the H100 shape appearing in
// the list is availability_new, which the rule sends to Slack.
func TestOCIEndToEnd(t *testing.T) {
	t.Setenv(envSlackToken, alertsToken)
	list := ocitest.Load(t, "testdata/oci/cetools-products-currencyCode-USD-GPU-rows-20260822.json")
	fake := ocitest.NewServer(t, list.Without("B98415")) // the H100 rental row
	slack := newSlackAPI(t)
	cfg := newCloudConfig(t, "oci", fake.URL, slack.URL, "", `    - name: h100-capacity
      events: [back_in_stock, availability_new]
      gpu_models: [H100]
      providers: [oci]
`)
	out := fetchOK(t, cfg, "oci")
	if !strings.Contains(out, "20 offers: 20 new") {
		t.Errorf("first fetch summary: %q", out)
	}
	if _, ok := currentPrice(t, cfg, "BM.GPU.H100.8", "global", "on_demand"); ok {
		t.Error("H100 priced without its row")
	}
	if r, ok := currentPrice(t, cfg, "BM.GPU.B200.8", "global", "on_demand"); !ok || r.HourlyPrice.String() != "112" || r.GPUCount != 8 || r.GPUModel != "B200" {
		t.Errorf("B200 shape: %+v", r)
	}

	fake.SetList(list)
	out = fetchOK(t, cfg, "oci")
	if !strings.Contains(out, "21 offers: 1 new, 0 changed, 20 unchanged, 0 closed") {
		t.Errorf("second fetch summary: %q", out)
	}
	r, ok := currentPrice(t, cfg, "BM.GPU.H100.8", "global", "on_demand")
	if !ok || r.HourlyPrice.String() != "80" || r.EffectiveHourly.String() != "80" || r.GPUModel != "H100" || r.GPUCount != 8 || r.Currency != "USD" {
		t.Errorf("H100 shape: %+v", r)
	}
	states := openIntervals(availability(t, cfg, "oci"))
	if states["global|BM.GPU.H100.8"] != "offered" || len(states) != 21 {
		t.Errorf("availability %v", states)
	}
	posts := slack.received()
	if len(posts) != 1 || !strings.Contains(posts[0].text, "H100") {
		t.Fatalf("Slack messages %+v, want one about the H100 shape", posts)
	}
	// No licence row became a price: 2.50 × 8 would be 20.
	out, _, _ = runCLI(t, "--config", cfg, "compare", "--gpu", "H100", "--format", "csv")
	if strings.Contains(out, ",2.5,") || !strings.Contains(out, "BM.GPU.H100.8") || !strings.Contains(out, ",false\n") {
		t.Errorf("compare:\n%s", out)
	}

	// An empty list where prices are stored fails and stores nothing.
	fake.SetRaw([]byte(`{"lastUpdated": "2026-08-14T09:09:55.872Z", "items": []}`))
	out, _, code := runCLI(t, "--config", cfg, "fetch", "--provider", "oci")
	if code == 0 || !strings.Contains(out, "FAILED") {
		t.Errorf("empty list: fetch exited %d: %s", code, out)
	}
	if _, ok := currentPrice(t, cfg, "BM.GPU.H100.8", "global", "on_demand"); !ok {
		t.Error("an empty list closed the H100 price")
	}
}

// One database holding every provider, each fetched from its fake (AWS
// China, issue 22, holds only an A100 and is not in the H100 ranking):
// `compare --gpu H100 --price-type on_demand` ranks every H100 together
// (Alibaba's and Tencent's scenarios hold no H100, so they are stored but
// not in the ranking) and marks the marketplace rows — every Vast.ai row and
// RunPod's Community Cloud, not its Secure Cloud — in the table (MARKET
// column and its legend) and in JSON.
func TestCompareEightProvidersMarksMarketplaceGolden(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	seven, _ := originalSevenFakes(t)
	bucket := awstest.NewBucket(t)
	bucket.PublishEC2(map[string]awstest.Region{"ap-northeast-1": {Version: awsV1, Types: []awstest.GPUType{awsAPNp5.gpuType()}}})

	clouds := append([]cloud{{name: "aws", endpoint: bucket.URL(), keys: "    regions: [ap-northeast-1]\n    spot: false\n    savings_plans: false\n    spot_advisor: false\n"}}, seven...)
	clouds = append(clouds, awsChinaCloud(t)) // issue 22: no H100, so it is stored but not ranked
	cfg := testConfig{clouds: clouds}.write(t, t.TempDir())
	out, errOut, code := runCLI(t, "--config", cfg, "fetch")
	if code != 0 {
		t.Fatalf("fetch of all eight exited %d:\n%s%s", code, out, errOut)
	}
	// The eight this golden was written for (a cloud added since is
	// disabled here, so the golden stays the eight's).
	for _, p := range []string{"aws", "azure", "alibaba", "tencent", "lambda", "runpod", "vastai", "oci"} {
		if !strings.Contains(out, p+" ") || strings.Contains(out, "FAILED") || strings.Contains(out, "skipped") {
			t.Fatalf("fetch summary should have %s ok:\n%s", p, out)
		}
	}
	// Prices stay current, so any later moment shows them; a fixed one
	// keeps the header's date still. CNY prices would need a rate, and no
	// CNY offer is an H100, so none is needed.
	now := "--now=2030-01-01T00:00:00Z"
	for _, g := range []struct{ name, format string }{
		{"compare_h100_eight_providers.txt", "table"},
		{"compare_h100_eight_providers.json", "json"},
	} {
		out, errOut, code := runCLI(t, "--config", cfg, "compare", "--gpu", "H100", "--price-type", "on_demand", "--format", g.format, now)
		if code != 0 {
			t.Fatalf("compare exited %d: %s", code, errOut)
		}
		if g.format == "table" {
			checkWidth(t, out)
			checkAvailOutlastsMarket(t, cfg, now)
		}
		checkGolden(t, filepath.Join("analysis", g.name), out)
		if g.format != "json" {
			continue
		}
		var rows []struct {
			Provider      string `json:"provider"`
			OfferingClass string `json:"offering_class"`
			Marketplace   bool   `json:"marketplace"`
		}
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, r := range rows {
			seen[r.Provider] = true
			want := r.Provider == "vastai" || (r.Provider == "runpod" && r.OfferingClass == "community")
			if r.Marketplace != want {
				t.Errorf("%s %s: marketplace %v, want %v", r.Provider, r.OfferingClass, r.Marketplace, want)
			}
		}
		for _, p := range []string{"aws", "azure", "lambda", "runpod", "vastai", "oci"} {
			if !seen[p] {
				t.Errorf("no H100 row of %s", p)
			}
		}
	}
	// recommend keeps the difference visible: the cheapest H100 is a Vast.ai
	// host's, and the answer says so and names the cheapest cloud beside it.
	out, errOut, code = runCLI(t, "--config", cfg, "recommend", "--gpu", "H100", "--count", "1", "--utilization", "0.5", "--horizon", "1y", now)
	if code != 0 {
		t.Fatalf("recommend exited %d: %s", code, errOut)
	}
	flat := strings.Join(strings.Fields(out), " ")
	t.Logf("recommend:\n%s", out)
	if !strings.Contains(flat, "on Vast.ai at 1.39 USD per GPU-hour, if interruptions and the marketplace terms are acceptable") ||
		!strings.Contains(flat, "The cheapest cloud option is") {
		t.Errorf("recommend does not note the marketplace:\n%s", out)
	}
}

// checkAvailOutlastsMarket: on a narrow terminal compare leaves MARKET out
// before AVAIL (issue 31 item 6: whether it can be had matters more than
// who hosts it), at every width.
func checkAvailOutlastsMarket(t *testing.T, cfg, now string) {
	t.Helper()
	sawMarketOnly, sawAvailOnly := false, false
	for cols := 60; cols <= 130; cols += 2 {
		t.Setenv("COLUMNS", strconv.Itoa(cols))
		out, errOut, code := runCLI(t, "--config", cfg, "compare", "--gpu", "H100", "--price-type", "on_demand", now)
		if code != 0 {
			t.Fatalf("COLUMNS=%d: exit %d: %s", cols, code, errOut)
		}
		checkWidthAt(t, out, cols)
		var head string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "PROVIDER") {
				head = l
				break
			}
		}
		market, avail := strings.Contains(head, "MARKET"), strings.Contains(head, "AVAIL")
		sawMarketOnly = sawMarketOnly || market && !avail
		sawAvailOnly = sawAvailOnly || avail && !market
	}
	if sawMarketOnly || !sawAvailOnly {
		t.Errorf("MARKET kept without AVAIL at some width (%v), or no width keeps AVAIL without MARKET (%v)", sawMarketOnly, !sawAvailOnly)
	}
}
