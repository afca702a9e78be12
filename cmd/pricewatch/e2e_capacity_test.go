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
// defaults). Flap suppression is off: the runs are seconds apart, and the
// flap window has its own tests.
func capacityConfig(t *testing.T, provider, endpoint, slackURL, rules string) string {
	t.Helper()
	return testConfig{
		clouds: []cloud{{name: provider, endpoint: endpoint}},
		slack:  fakeSlackSection(slackURL, "C0GPUALERTS"),
		alerts: "alerts:\n  fetch_delivery_wait: 5s\n  flap_window: 0s\n" + rules,
	}.write(t, t.TempDir())
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

func fetchExpect(t *testing.T, cfg, wantLine string) string {
	t.Helper()
	out, errOut, code := runCLI(t, "--config", cfg, "fetch")
	if code != 0 || !strings.Contains(out, wantLine) {
		t.Fatalf("fetch exited %d, want a line %q:\n%s%s", code, wantLine, out, errOut)
	}
	return out
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

// oneAlertSent wants the fetch (its output out) to have delivered one
// alert, and Slack to have received just that one; it returns what Slack
// received.
func oneAlertSent(t *testing.T, out string, slack *slackAPI) []slackPost {
	t.Helper()
	if !strings.Contains(out, "alerts   1 sent") {
		t.Errorf("fetch did not deliver one alert: %s", out)
	}
	got := slack.received()
	if len(got) != 1 {
		t.Fatalf("Slack received %d messages, want 1: %+v", len(got), got)
	}
	return got
}

func lambdaCapacity(t *testing.T, rules string) {
	const key = "secret_e2e_lambda.ThisKeyMustNeverBePrinted"
	const h100 = "gpu_8x_h100_sxm5"
	t.Setenv(lambda.EnvAPIKey, key)
	t.Setenv(envSlackToken, alertsToken)
	srv := lambdatest.New(t, key)
	slack := newSlackAPI(t)
	cfg := capacityConfig(t, "lambda", srv.URL, slack.URL, rules)

	srv.SetCapacity(t, h100, "us-east-1")
	out := fetchExpect(t, cfg, "lambda   ok       8 offers: 8 new")
	if !strings.Contains(out, "first run") {
		t.Errorf("first run not a baseline: %s", out)
	}

	srv.SetCapacity(t, h100)
	fetchExpect(t, cfg, "lambda   ok       8 offers: 0 new, 0 changed, 8 unchanged, 0 closed")
	if got := slack.received(); len(got) != 0 {
		t.Fatalf("selling out alerted through a back-in-stock rule: %+v", got)
	}

	srv.SetCapacity(t, h100, "us-east-1")
	out = fetchExpect(t, cfg, "lambda   ok")
	got := oneAlertSent(t, out, slack)
	// Two places: us-east-1, and "global" (in stock anywhere), the record
	// beside the price that compare reads.
	if msg := got[0].text; !strings.Contains(msg, "Back in stock: 2 places on Lambda") || !strings.Contains(msg, h100) {
		t.Errorf("message: %s", msg)
	}

	iv := intervals(t, cfg, h100)
	want := map[string]string{
		"us-east-1":   "in_stock,sold_out,in_stock*",
		lambda.Region: "in_stock,sold_out,in_stock*",
	}
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

	// A truncated answer fails the run and changes nothing (throttling,
	// whose retries take seconds, is tested in the fetcher's package); the
	// key is never printed.
	srv.FailNext(fetcherstest.Truncated)
	stdout, stderr, code := runCLI(t, "--config", cfg, "fetch")
	if code == 0 || !strings.Contains(stdout, "lambda   FAILED") {
		t.Errorf("truncated fetch exited %d: %s", code, stdout)
	}
	if strings.Contains(stdout+stderr, key) {
		t.Errorf("key printed: %s%s", stdout, stderr)
	}
	if g := strings.Join(intervals(t, cfg, h100)["us-east-1"], ","); g != want["us-east-1"] {
		t.Errorf("after a failed run: %s", g)
	}
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
	t.Setenv(envSlackToken, alertsToken)
	srv := runpodtest.New(t, "")
	slack := newSlackAPI(t)
	cfg := capacityConfig(t, "runpod", srv.URL, slack.URL, rules)

	out := fetchExpect(t, cfg, "runpod   ok       30 offers: 30 new")
	if !strings.Contains(out, "first run") {
		t.Errorf("first run not a baseline: %s", out)
	}
	srv.SetStock(t, "EU-NL-1", h100, true, "Low")
	srv.SetStock(t, "AP-IN-1", h100, false, "")
	out = fetchExpect(t, cfg, "runpod   ok       30 offers: 0 new, 0 changed, 30 unchanged")
	got := oneAlertSent(t, out, slack)
	if msg := got[0].text; !strings.Contains(msg, "Back in stock") || !strings.Contains(msg, h100) || !strings.Contains(msg, "EU-NL-1") || strings.Contains(msg, "AP-IN-1") {
		t.Errorf("message: %s", msg)
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
