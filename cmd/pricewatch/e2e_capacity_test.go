package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/lambda"
	"github.com/pricewatch/pricewatch/fetchers/lambda/lambdatest"
	"github.com/pricewatch/pricewatch/fetchers/runpod"
	"github.com/pricewatch/pricewatch/fetchers/runpod/runpodtest"
)

// capacityRules are the two ways the capacity alert is configured: the
// rule stated in the config, and the built-in default rules (no rules key).
var capacityRules = []struct{ name, yaml string }{
	{"explicit rule", `  rules:
    - name: new-h100-capacity
      events: [back_in_stock, availability_new]
      gpu_models: [H100, H200, B200]
`},
	{"default rules", ""},
}

// capacityConfig writes a config with only provider enabled, pointed at a
// fake, a fake Slack, and the given alerts.rules YAML ("" for the
// defaults).
func capacityConfig(t *testing.T, provider, endpoint, slackURL, rules string) string {
	t.Helper()
	return alertConfig(t, cloud{name: provider, endpoint: endpoint}, slackURL, rules)
}

// intervals returns, per region, the states of a type's availability
// intervals in time order, open ones marked with a trailing "*".
func intervals(t *testing.T, cfg, instanceType string) map[string][]string {
	t.Helper()
	var rows []availabilityJSON
	cliJSON(t, &rows, "--config", cfg, "availability", instanceType, "--all", "--format", "json")
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Since < rows[j].Since })
	got := map[string][]string{}
	for _, r := range rows {
		s := r.State
		if r.Until == nil {
			s += "*"
		}
		got[r.Region] = append(got[r.Region], s)
	}
	return got
}

// TestLambdaCapacityEndToEnd: 8x H100 has capacity in us-east-1, sells out
// (a sold_out interval, not a withdrawal: Lambda just stops listing the
// region), and comes back: one Slack message, the intervals in_stock →
// sold_out → in_stock, the price untouched throughout.
func TestLambdaCapacityEndToEnd(t *testing.T) {
	for _, rules := range capacityRules {
		t.Run(rules.name, func(t *testing.T) { lambdaCapacity(t, rules.yaml) })
	}
}

func lambdaCapacity(t *testing.T, rules string) {
	const key = "secret_e2e_lambda.ThisKeyMustNeverBePrinted"
	const h100 = "gpu_8x_h100_sxm5"
	t.Setenv(lambda.EnvAPIKey, key)
	srv := lambdatest.New(t, key)
	// Two places: us-east-1, and "global" (in stock anywhere), the record
	// beside the price that compare reads.
	want := map[string]string{
		"us-east-1":   "in_stock,sold_out,in_stock*",
		lambda.Region: "in_stock,sold_out,in_stock*",
	}
	cloudE2E{
		cloud: cloud{name: "lambda", endpoint: srv.URL},
		rules: rules,
		baseline: alertStep{change: func(t *testing.T) { srv.SetCapacity(t, h100, "us-east-1") },
			line: "lambda   ok       8 offers: 8 new"},
		steps: []alertStep{
			// Selling out alerts nothing through a back-in-stock rule.
			{change: func(t *testing.T) { srv.SetCapacity(t, h100) },
				line: "lambda   ok       8 offers: 0 new, 0 changed, 8 unchanged, 0 closed"},
			{change: func(t *testing.T) { srv.SetCapacity(t, h100, "us-east-1") },
				line: "lambda   ok", rule: "back_in_stock", text: []string{"Back in stock: 2 places on Lambda", h100},
				check: func(t *testing.T, cfg string) {
					iv := intervals(t, cfg, h100)
					for region, w := range want {
						if g := strings.Join(iv[region], ","); g != w {
							t.Errorf("%s intervals %s, want %s", region, g, w)
						}
					}
					if len(iv) != len(want) {
						t.Errorf("intervals in %d regions, want %d: %v", len(iv), len(want), iv)
					}
					rows := history(t, cfg, h100)
					if len(rows) != 1 || rows[0].ValidTo != nil || rows[0].HourlyPrice.String() != "31.92" || rows[0].GPUModel != "H100" || rows[0].GPUCount != 8 {
						t.Errorf("history %+v, want one open 31.92 interval", rows)
					}
				}},
		},
		// A truncated answer fails the run and changes nothing (throttling,
		// whose retries take seconds, is tested in the fetcher's package); the
		// key is never printed.
		fail:    func() { srv.FailNext(fetcherstest.Truncated) },
		secrets: []string{key},
	}.run(t)
}

// TestLambdaWithoutKeyIsSkipped: no key, one line, exit 0.
func TestLambdaWithoutKeyIsSkipped(t *testing.T) {
	t.Setenv(lambda.EnvAPIKey, "")
	srv := lambdatest.New(t, "k")
	cfg := capacityConfig(t, "lambda", srv.URL, "http://127.0.0.1:1", "")
	out, errOut, code := runCLI(t, "--config", cfg, "fetch")
	if code != 0 || !strings.Contains(out, "lambda   skipped") || srv.Requests() != 0 {
		t.Errorf("exit %d, %d requests: %s%s", code, srv.Requests(), out, errOut)
	}
}

// TestRunPodCapacityEndToEnd: H100 is sold out in EU-NL-1 in the real
// capture; it comes back there on the second run: one Slack message and
// the intervals sold_out → in_stock; prices per GPU-hour as RunPod quotes.
func TestRunPodCapacityEndToEnd(t *testing.T) {
	for _, rules := range capacityRules {
		t.Run(rules.name, func(t *testing.T) { runpodCapacity(t, rules.yaml) })
	}
}

func runpodCapacity(t *testing.T, rules string) {
	const h100 = "NVIDIA H100 80GB HBM3"
	t.Setenv(runpod.EnvAPIKey, "")
	srv := runpodtest.New(t, "")
	cfg, slack := cloudE2E{
		cloud:    cloud{name: "runpod", endpoint: srv.URL},
		rules:    rules,
		baseline: alertStep{line: "runpod   ok       30 offers: 30 new"},
		steps: []alertStep{{change: func(t *testing.T) {
			srv.SetStock(t, "EU-NL-1", h100, true, "Low")
			srv.SetStock(t, "AP-IN-1", h100, false, "")
		}, line: "runpod   ok       30 offers: 0 new, 0 changed, 30 unchanged", rule: "back_in_stock", text: []string{"Back in stock", h100, "EU-NL-1"}}},
	}.run(t)
	if msg := slack.received()[0].text; strings.Contains(msg, "AP-IN-1") {
		t.Errorf("message names AP-IN-1, which sold out: %s", msg)
	}

	iv := intervals(t, cfg, h100)
	for region, w := range map[string]string{
		"EU-NL-1":     "sold_out,in_stock*",
		"AP-IN-1":     "in_stock,sold_out*",
		runpod.Region: "in_stock*",
	} {
		if g := strings.Join(iv[region], ","); g != w {
			t.Errorf("%s intervals %s, want %s", region, g, w)
		}
	}

	prices := map[string]string{}
	for _, r := range history(t, cfg, h100) {
		if r.GPUCount != 1 || r.GPUModel != "H100" || r.Region != runpod.Region || r.ValidTo != nil {
			t.Errorf("row %+v", r)
		}
		prices[r.OfferingClass+"/"+string(r.PriceType)] = r.HourlyPrice.String()
	}
	want := map[string]string{"secure/on_demand": "3.29", "secure/spot": "3.29", "community/on_demand": "2.69", "community/spot": "2.69"}
	if fmt.Sprint(prices) != fmt.Sprint(want) {
		t.Errorf("prices %v, want %v", prices, want)
	}

	// compare ranks RunPod per GPU-hour as RunPod quotes it, with the
	// "global" stock as its availability.
	out, errOut, code := runCLI(t, "--config", cfg, "compare", "--gpu", "H100", "--price-type", "on_demand", "--format", "json")
	if code != 0 {
		t.Fatalf("compare exited %d: %s", code, errOut)
	}
	var rows []struct {
		Provider        string      `json:"provider"`
		PricePerGPUHour json.Number `json:"price_per_gpu_hour"`
		Available       *bool       `json:"available"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].PricePerGPUHour.String() != "2.69" || rows[1].PricePerGPUHour.String() != "3.29" ||
		rows[0].Available == nil || !*rows[0].Available || rows[0].Provider != "runpod" {
		t.Errorf("compare: %s", out)
	}

	// A GraphQL error answer fails the run and changes nothing.
	srv.FailNext(runpodtest.GraphQLError)
	if stdout, _, code := runCLI(t, "--config", cfg, "fetch"); code == 0 || !strings.Contains(stdout, "runpod   FAILED") || !strings.Contains(stdout, "GraphQL errors") {
		t.Errorf("GraphQL error: exit %d: %s", code, stdout)
	}
	if g := strings.Join(intervals(t, cfg, h100)["EU-NL-1"], ","); g != "sold_out,in_stock*" {
		t.Errorf("after a failed run: %s", g)
	}

	// A well-formed answer with one GPU type where nine were stored is
	// refused by storage (fetch.min_offer_ratio), not read as eight
	// withdrawals.
	srv.SetBody(t, []byte(`{"data":{"gpuTypes":[{"id":"NVIDIA L40S","displayName":"L40S","memoryInGb":48,"securePrice":0.99,"secureCloud":true,"lowestPrice":{"stockStatus":"Low"}}],"dataCenters":[{"id":"EU-NL-1","name":"EU-NL-1","listed":true,"gpuAvailability":[]}]}}`))
	stdout, _, code := runCLI(t, "--config", cfg, "fetch")
	if code == 0 || !strings.Contains(stdout, "runpod   FAILED") || !strings.Contains(stdout, "far fewer offers") {
		t.Errorf("suspicious drop: exit %d: %s", code, stdout)
	}
	if rows := history(t, cfg, h100); len(rows) != 4 || rows[0].ValidTo != nil {
		t.Errorf("after a refused run: %+v", rows)
	}
}
