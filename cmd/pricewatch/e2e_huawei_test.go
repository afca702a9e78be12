package main

import (
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/huawei"
	"github.com/pricewatch/pricewatch/fetchers/huawei/huaweitest"
)

// Issue 22 item 4: Huawei Cloud end to end through the CLI and the
// built-in default rules (no alerts.rules key), the key pair from the
// environment. `pricewatch fetch` signs its calls to the fake IAM, ECS and
// BSS APIs and stores p3.2xlarge.8 (1 × A100 80 GB) in cn-north-4 at 34.21
// CNY an hour (documented-shape sample, see
// fetchers/huawei/huaweitest/testdata/README.md); the next run finds it at
// 30.5 (a 10.8% drop of an A100 on_demand price): one Slack message, from
// the price-drops rule. A throttled run then fails and changes nothing,
// and the secret key shows nowhere.
func TestHuaweiEndToEnd(t *testing.T) {
	t.Setenv(envSlackToken, alertsToken)
	t.Setenv(huawei.EnvAK, huaweitest.AK)
	t.Setenv(huawei.EnvSK, huaweitest.SK)
	fake := huaweitest.New(t)
	slack := newSlackAPI(t)
	cfg := testConfig{
		clouds: []cloud{{name: "huawei", endpoint: fake.URL, keys: "    iam_endpoint: " + fake.URL + "\n    ecs_endpoint: " + fake.ECSEndpoint() + "\n"}},
		slack:  fakeSlackSection(slack.URL, "C0GPUALERTS"),
		alerts: "alerts:\n  fetch_delivery_wait: 5s\n  flap_window: 0s\n",
	}.write(t, t.TempDir())

	out := fetchExpect(t, cfg, "huawei   ok       15 offers: 15 new")
	if !strings.Contains(out, "first run") {
		t.Errorf("first run not a baseline: %s", out)
	}
	if got := slack.received(); len(got) != 0 {
		t.Fatalf("the baseline alerted: %+v", got)
	}
	wantP3(t, cfg, "34.21")
	if r, ok := currentPrice(t, cfg, "p3.2xlarge.8", "cn-north-4", "reserved"); !ok || r.Currency != "CNY" {
		t.Errorf("subscription stored as %+v (found %v)", r, ok)
	}

	fake.SetPrice("cn-north-4", "p3.2xlarge.8", huaweitest.Price{Hour: "30.5", Month: "16670", Year: "170040"})
	out = fetchExpect(t, cfg, "huawei   ok       15 offers: 0 new, 1 changed, 14 unchanged")
	posts := oneAlertSent(t, out, slack)
	if p := posts[0]; p.channel != "C0GPUALERTS" || !strings.Contains(p.key, "/price-drops/price_drop") || !strings.Contains(p.text, "p3.2xlarge.8") {
		t.Errorf("post %+v, want the p3.2xlarge.8 drop from rule price-drops", p)
	}
	wantP3(t, cfg, "30.5")

	fake.FailNext(fetcherstest.Throttled, fetcherstest.Throttled, fetcherstest.Throttled, fetcherstest.Throttled, fetcherstest.Throttled)
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "huawei")
	if code == 0 || !strings.Contains(out+errOut, "huawei") {
		t.Fatalf("a throttled run exited %d:\n%s%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, huaweitest.SK) {
		t.Errorf("the secret key shows:\n%s%s", out, errOut)
	}
	wantP3(t, cfg, "30.5")
	if got := slack.received(); len(got) != 1 {
		t.Errorf("Slack received %d messages after the failed run, want still 1", len(got))
	}
}

// wantP3 wants p3.2xlarge.8's open on_demand price in cn-north-4, in CNY.
func wantP3(t *testing.T, cfg, hourly string) {
	t.Helper()
	storedPrice{provider: "huawei", region: "cn-north-4", currency: "CNY", model: "A100-80GB", hourly: hourly, perGPU: hourly}.check(t, cfg, "p3.2xlarge.8")
}
