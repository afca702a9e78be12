package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// slackOnlyConfig is a config with a Slack token (from the environment) and
// channel and no alerts section: the built-in rules apply.
func slackOnlyConfig(t *testing.T, azureURL, slackURL, extra string) string {
	t.Helper()
	return writeConfig(t, t.TempDir(), azureURL, fakeSlackSection(slackURL, "C0GPUALERTS"), extra)
}

// setH100 sets the fake's NC40ads H100 v5 Linux on-demand price (6.98 in
// the capture) to price, from whatever it was.
func (f *fakeAzure) setH100(t *testing.T, from, to string) {
	t.Helper()
	f.setPrice(t, "2", `"retailPrice": `+from+`,`, `"retailPrice": `+to+`,`)
	f.setPrice(t, "2", `"unitPrice": `+from+`,`, `"unitPrice": `+to+`,`)
}

// fetchH100Drop runs a baseline fetch, moves the fake's H100 from 6.98 to
// 6.5 (a 6.9% drop) and fetches again; both must exit 0. It returns the
// second fetch's stdout and stderr.
func (f *fakeAzure) fetchH100Drop(t *testing.T, cfg string) (string, string) {
	t.Helper()
	fetchCLI(t, cfg)
	f.setH100(t, "6.98", "6.5")
	out, errOut, code := runCLI(t, "--config", cfg, "fetch")
	if code != 0 {
		t.Fatalf("fetch after the drop exited %d:\n%s\n%s", code, out, errOut)
	}
	return out, errOut
}

func fetchCLI(t *testing.T, cfg string) string {
	t.Helper()
	out, errOut, code := runCLI(t, "--config", cfg, "fetch")
	if code != 0 {
		t.Fatalf("fetch exited %d: %s%s", code, out, errOut)
	}
	return out
}

func currentH100(t *testing.T, cfg string) string {
	t.Helper()
	for _, r := range history(t, cfg, "Standard_NC40ads_H100_v5") {
		if r.ValidTo == nil && r.PriceType == "on_demand" && r.OS == "linux" {
			return r.HourlyPrice.String()
		}
	}
	return ""
}

// h100DropThroughCLI stores a first run through `pricewatch fetch` on a
// slackOnlyConfig with extra, then drops the fake's NC40ads H100
// 6.98 → 6.5 (−6.88%) for the test's next fetch.
func h100DropThroughCLI(t *testing.T, extra string) (cfg string, slack *slackAPI) {
	t.Helper()
	t.Setenv(envSlackToken, alertsToken)
	az := newFakeAzure(t)
	slack = newSlackAPI(t)
	cfg = slackOnlyConfig(t, az.URL, slack.URL, extra)
	fetchCLI(t, cfg)
	az.setH100(t, "6.98", "6.5")
	return cfg, slack
}

// TestDefaultRulesPostH100PriceDrop: a config with a Slack token and
// channel and no alerts section posts a price-drop alert for an H100.
func TestDefaultRulesPostH100PriceDrop(t *testing.T) {
	cfg, slack := h100DropThroughCLI(t, "")
	out := fetchCLI(t, cfg)
	posts := slack.received()
	if len(posts) != 1 || !strings.Contains(out, "alerts   1 sent") {
		t.Fatalf("posts %+v (fetch said %q), want one price-drop alert", posts, out)
	}
	p := posts[0]
	if p.channel != "C0GPUALERTS" || !strings.Contains(p.key, "/price-drops/price_drop") ||
		!strings.Contains(p.text, "Standard_NC40ads_H100_v5") || !strings.Contains(p.text, "6.88") {
		t.Errorf("post %+v, want the H100 drop of 6.88%% from rule price-drops", p)
	}
	// The effective rules say where they come from.
	rules, _, code := runCLI(t, "--config", cfg, "alerts", "rules")
	if code != 0 || !strings.Contains(rules, "price-drops") || !strings.Contains(rules, "built-in defaults") || !strings.Contains(rules, "C0GPUALERTS") {
		t.Errorf("alerts rules: %s", rules)
	}
	// cheap-spot-h100's threshold is per GPU-hour: the table says in which currency.
	if !strings.Contains(rules, "spot < 2.5/GPU-h") || !strings.Contains(rules, "in its own currency, without conversion") {
		t.Errorf("alerts rules does not say the threshold's currency: %s", rules)
	}
}

// TestExplicitEmptyRulesTurnAlertsOff: alerts.rules: [] posts nothing.
func TestExplicitEmptyRulesTurnAlertsOff(t *testing.T) {
	cfg, slack := h100DropThroughCLI(t, "alerts:\n  rules: []\n")
	fetchCLI(t, cfg)
	if posts := slack.received(); len(posts) != 0 {
		t.Errorf("posts %+v with alerts.rules: [], want none", posts)
	}
	var rules []ruleRow
	out, _, _ := runCLI(t, "--config", cfg, "alerts", "rules", "--format", "json")
	if err := json.Unmarshal([]byte(out), &rules); err != nil || len(rules) != 0 {
		t.Errorf("alerts rules --format json: %q (%v), want []", out, err)
	}
}

// TestThousandthOfThePriceIsHeld: a row at a thousandth of its price is
// neither stored nor alerted, the run succeeds and says so, the stored
// price stays current, and `pricewatch held` shows it; with the floor off
// the thousandth test alone holds it.
func TestThousandthOfThePriceIsHeld(t *testing.T) {
	for _, tt := range []struct{ name, extra, reason string }{
		{"default guard", "", "below_floor"},
		{"floor off", "guard:\n  floor_per_gpu_hour:\n    USD: 0\n", "fraction_of_price"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(envSlackToken, alertsToken)
			az := newFakeAzure(t)
			slack := newSlackAPI(t)
			cfg := slackOnlyConfig(t, az.URL, slack.URL, tt.extra)
			fetchCLI(t, cfg)
			az.setH100(t, "6.98", "0.00698")
			for run := 1; run <= 2; run++ {
				out := fetchCLI(t, cfg)
				if !strings.Contains(out, "1 held as implausible") || !strings.Contains(out, "0 changed") {
					t.Errorf("run %d summary %q, want 1 held and nothing changed", run, out)
				}
				if got := currentH100(t, cfg); got != "6.98" {
					t.Errorf("run %d: current H100 price %q, want 6.98 to stay current", run, got)
				}
			}
			for _, r := range history(t, cfg, "Standard_NC40ads_H100_v5") {
				if r.HourlyPrice.String() == "0.00698" {
					t.Errorf("held price stored: %+v", r)
				}
			}
			if posts := slack.received(); len(posts) != 0 {
				t.Errorf("posts %+v, want none for a held price", posts)
			}
			out, _, code := runCLI(t, "--config", cfg, "held", "--format", "json")
			var held []map[string]any
			if code != 0 || json.Unmarshal([]byte(out), &held) != nil || len(held) != 1 {
				t.Fatalf("held: %d %s", code, out)
			}
			h := held[0]
			if h["instance_type"] != "Standard_NC40ads_H100_v5" || h["region"] != "westus2" || h["reason"] != tt.reason ||
				h["runs"] != float64(2) || h["accepted_at"] != nil || fmt.Sprint(h["hourly_price"]) != "0.00698" || fmt.Sprint(h["stored_effective_hourly"]) != "6.98" {
				t.Errorf("held row %v", h)
			}
			csvOut, _, _ := runCLI(t, "--config", cfg, "held", "--format", "csv")
			if lines := strings.Split(strings.TrimSpace(csvOut), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "provider,region,zone,instance_type,") ||
				!strings.Contains(lines[1], "Standard_NC40ads_H100_v5") || !strings.Contains(lines[1], ","+tt.reason+",") {
				t.Errorf("held csv:\n%s", csvOut)
			}
			table, _, _ := runCLI(t, "--config", cfg, "held")
			if !strings.Contains(table, "Standard_NC40ads_H100_v5") || !strings.Contains(table, "held") {
				t.Errorf("held table:\n%s", table)
			}
			// The run record keeps the count; `runs` shows it.
			runsOut, _, _ := runCLI(t, "--config", cfg, "runs", "--format", "json")
			var runs []map[string]any
			if json.Unmarshal([]byte(runsOut), &runs) != nil || len(runs) != 1 || runs[0]["offers_held"] != float64(1) {
				t.Errorf("runs: %s, want the last run with offers_held 1", runsOut)
			}
		})
	}
}

// TestLargeMoveAlertsOnceConfirmed: a −60% move is alerted exactly once,
// in the run that confirms it; a move that reverts never.
func TestLargeMoveAlertsOnceConfirmed(t *testing.T) {
	t.Setenv(envSlackToken, alertsToken)
	t.Run("confirmed", func(t *testing.T) {
		az := newFakeAzure(t)
		slack := newSlackAPI(t)
		cfg := slackOnlyConfig(t, az.URL, slack.URL, "")
		fetchCLI(t, cfg)               // run 1: baseline
		az.setH100(t, "6.98", "2.792") // −60%
		out := fetchCLI(t, cfg)        // run 2: stored, waits
		if got := currentH100(t, cfg); got != "2.792" || !strings.Contains(out, "1 large move(s) await confirmation") {
			t.Errorf("run 2: current %q, summary %q; want the move stored and waiting", got, out)
		}
		if n := len(slack.received()); n != 0 {
			t.Fatalf("run 2 posted %d messages, want none before confirmation", n)
		}
		fetchCLI(t, cfg) // run 3: the same price confirms it
		posts := slack.received()
		if len(posts) != 1 || !strings.HasPrefix(posts[0].key, "run/3/") || !strings.Contains(posts[0].text, "6.98 → 2.792 USD/h (−60%)") {
			t.Fatalf("after run 3: posts %+v, want one alert of the −60%% move keyed to run 3", posts)
		}
		fetchCLI(t, cfg) // run 4: nothing new
		if n := len(slack.received()); n != 1 {
			t.Errorf("after run 4: %d posts, want still 1", n)
		}
	})
	t.Run("reverted", func(t *testing.T) {
		az := newFakeAzure(t)
		slack := newSlackAPI(t)
		cfg := slackOnlyConfig(t, az.URL, slack.URL, "")
		fetchCLI(t, cfg)
		az.setH100(t, "6.98", "2.792")
		fetchCLI(t, cfg)
		az.setH100(t, "2.792", "6.98")
		fetchCLI(t, cfg)
		fetchCLI(t, cfg)
		if posts := slack.received(); len(posts) != 0 {
			t.Errorf("posts %+v, want none for a move that reverted", posts)
		}
		if got := currentH100(t, cfg); got != "6.98" {
			t.Errorf("current %q, want 6.98", got)
		}
	})
}

// Issue 20 item 12: in a webhook-only setup the built-in rules post to the
// webhook, and `alerts rules` says so (it named no channel at all).
func TestAlertsRulesShowWebhookOnlyRouting(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig{extra: "webhook:\n  url: http://127.0.0.1:1/hooks/pricewatch\n"}.write(t, dir)
	var rules []ruleRow
	out, errOut, code := runCLI(t, "--config", cfg, "alerts", "rules", "--format", "json")
	if code != 0 {
		t.Fatalf("alerts rules exited %d: %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &rules); err != nil || len(rules) == 0 {
		t.Fatalf("alerts rules --format json: %q (%v)", out, err)
	}
	for _, r := range rules {
		if !r.BuiltIn || !r.Webhook || r.Channel != "" {
			t.Errorf("rule %s: built_in %v, webhook %v, channel %q; want the webhook only", r.Name, r.BuiltIn, r.Webhook, r.Channel)
		}
	}
	table, _, _ := runCLI(t, "--config", cfg, "alerts", "rules")
	if strings.Contains(table, "set slack.channel") || !strings.Contains(table, "webhook") {
		t.Errorf("alerts rules table does not name the webhook as where the rules post:\n%s", table)
	}
}
