package main

import (
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
	t.Setenv(huawei.EnvAK, huaweitest.AK)
	t.Setenv(huawei.EnvSK, huaweitest.SK)
	fake := huaweitest.New(t)
	cloudE2E{
		cloud: cloud{name: "huawei", endpoint: fake.URL, keys: "    iam_endpoint: " + fake.URL + "\n    ecs_endpoint: " + fake.ECSEndpoint() + "\n"},
		typ:   "p3.2xlarge.8",
		baseline: alertStep{line: "huawei   ok       15 offers: 15 new", check: func(t *testing.T, cfg string) {
			wantP3(t, cfg, "34.21")
			if r, ok := currentPrice(t, cfg, "p3.2xlarge.8", "cn-north-4", "reserved"); !ok || r.Currency != "CNY" {
				t.Errorf("subscription stored as %+v (found %v)", r, ok)
			}
		}},
		steps: []alertStep{{
			change: func(*testing.T) {
				fake.SetPrice("cn-north-4", "p3.2xlarge.8", huaweitest.Price{Hour: "30.5", Month: "16670", Year: "170040"})
			},
			line: "huawei   ok       15 offers: 0 new, 1 changed, 14 unchanged", rule: priceDrop,
			check: func(t *testing.T, cfg string) { wantP3(t, cfg, "30.5") },
		}},
		fail: func() {
			fake.FailNext(fetcherstest.Throttled, fetcherstest.Throttled, fetcherstest.Throttled, fetcherstest.Throttled, fetcherstest.Throttled)
		},
		secrets: []string{huaweitest.SK},
	}.run(t)
}

// wantP3 wants p3.2xlarge.8's open on_demand price in cn-north-4, in CNY.
func wantP3(t *testing.T, cfg, hourly string) {
	t.Helper()
	storedPrice{provider: "huawei", region: "cn-north-4", currency: "CNY", model: "A100-80GB", hourly: hourly, perGPU: hourly}.check(t, cfg, "p3.2xlarge.8")
}
