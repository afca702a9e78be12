package main

import (
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/volcengine"
	"github.com/pricewatch/pricewatch/fetchers/volcengine/volcenginetest"
)

// Issue 33 item 2: Volcengine end to end through the CLI, over the fake
// OpenAPI (signatures checked; made-up values in the SDK's field names,
// fetchers/volcengine/volcenginetest/README.md) and its price sheet. The
// baseline stores 2 offers and the 8 × H20 type sold out in
// cn-beijing-a; the sheet's H20 price drops from 11.48 to 9.50 CNY per
// GPU-hour: one alert; then the zone has it again: one alert. A cut
// answer fails the run and closes nothing; the keys are never printed.
func TestVolcengineEndToEnd(t *testing.T) {
	const ak, sk = "AKLTe2eVolcengineAccessKey0001", "ZTJlVm9sY2VuZ2luZVNlY3JldE11c3ROZXZlckJlUHJpbnRlZA=="
	h20 := volcenginetest.H20x8
	t.Setenv(envSlackToken, alertsToken)
	t.Setenv(volcengine.EnvAccessKey, ak)
	t.Setenv(volcengine.EnvSecretKey, sk)
	fake := volcenginetest.New(t, ak, sk)
	slack := newSlackAPI(t)
	cfg := testConfig{
		clouds: []cloud{{name: "volcengine", endpoint: fake.URL, keys: "    regions: [cn-beijing]\n    price_sheets: [" + fake.SheetURL() + "]\n"}},
		slack:  fakeSlackSection(slack.URL, "C0GPUALERTS"),
		alerts: "alerts:\n  fetch_delivery_wait: 5s\n  flap_window: 0s\n  rules:\n" +
			"    - {name: h20-capacity, events: [availability_new, back_in_stock], gpu_models: [H20]}\n" +
			"    - {name: h20-prices, events: [price_drop], gpu_models: [H20]}\n",
	}.write(t, t.TempDir())

	out := fetchExpect(t, cfg, "2 offers: 2 new")
	if !strings.Contains(out, "first run") {
		t.Errorf("first run not a baseline: %s", out)
	}
	if got := slack.received(); len(got) != 0 {
		t.Fatalf("the baseline alerted: %+v", got)
	}
	wantVolcengine(t, cfg, h20, "91.84", "11.48")
	wantVolcengine(t, cfg, volcenginetest.GNI2, "9.61", "9.61")
	if got := strings.Join(intervals(t, cfg, h20)["cn-beijing"], ","); got != "sold_out*" {
		t.Errorf("%s intervals %s, want sold_out*", h20, got)
	}

	fake.SetSheet(strings.Replace(volcenginetest.Sheet(), "price: 11.48", "price: 9.50", 1))
	out = fetchExpect(t, cfg, "2 offers: 0 new, 1 changed, 1 unchanged")
	posts := oneAlertSent(t, out, slack)
	if p := posts[0]; !strings.Contains(p.key, "/h20-prices/price_drop") || !strings.Contains(p.text, h20) {
		t.Errorf("post %+v, want the %s drop from rule h20-prices", p, h20)
	}
	wantVolcengine(t, cfg, h20, "76", "9.5")

	fake.SetStock("cn-beijing", "cn-beijing-a", h20, "Available")
	out = fetchExpect(t, cfg, "2 offers: 0 new, 0 changed, 2 unchanged")
	if !strings.Contains(out, "alerts   1 sent") {
		t.Errorf("back in stock did not deliver one alert: %s", out)
	}
	if got := slack.received(); len(got) != 2 || !strings.Contains(got[1].key, "/h20-capacity/back_in_stock") || !strings.Contains(got[1].text, h20) {
		t.Errorf("Slack received %+v, want a second message: %s back in stock", got, h20)
	}

	fake.FailNext("truncated")
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "volcengine")
	if code == 0 || !strings.Contains(out+errOut, "volcengine") {
		t.Fatalf("a cut answer exited %d:\n%s%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, sk) || strings.Contains(out+errOut, ak) {
		t.Errorf("key printed: %s%s", out, errOut)
	}
	wantVolcengine(t, cfg, h20, "76", "9.5")
	if got := strings.Join(intervals(t, cfg, h20)["cn-beijing"], ","); got != "sold_out,in_stock*" {
		t.Errorf("after a failed run: %s", got)
	}
	if got := slack.received(); len(got) != 2 {
		t.Errorf("Slack received %d messages after the failed run, want still 2", len(got))
	}
}

// wantVolcengine wants typ's open on_demand price in CNY in cn-beijing.
func wantVolcengine(t *testing.T, cfg, typ, hourly, perGPU string) {
	t.Helper()
	storedPrice{provider: "volcengine", region: "cn-beijing", currency: "CNY", hourly: hourly, perGPU: perGPU}.check(t, cfg, typ)
}
