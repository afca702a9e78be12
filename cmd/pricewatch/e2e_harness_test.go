package main

import (
	"regexp"
	"strings"
	"testing"
)

// The per-cloud end-to-end tests all play one script through the CLI: a
// first fetch that is the baseline and alerts nothing, fetches after
// changes to the cloud's fake that each alert as they should, and a run
// the fake fails, which closes nothing, sends nothing and prints no
// secret. cloudE2E is that script, so that each test states only its
// cloud's facts.

const (
	backInStock = "/new-frontier-capacity/back_in_stock"
	priceDrop   = "/price-drops/price_drop"
)

// alertStep is one fetch of a cloudE2E: change moves the fake (nil: no
// change), the fetch prints line, and Slack receives one new message on
// C0GPUALERTS whose key holds rule and whose text holds every string of
// text (nil: the case's type); with rule "" it receives none. check then
// looks at what is stored.
type alertStep struct {
	change func(t *testing.T)
	line   string
	rule   string
	text   []string
	check  func(t *testing.T, cfg string)
}

// cloudE2E is one cloud's end-to-end run through the CLI, its fake
// started: the config has cloud alone, a fake Slack and rules
// (alerts.rules YAML; "" is the built-in rules). The baseline fetch must
// say "first run" and alert nothing; steps follow. With fail set, fail
// makes the next fetch fail: `fetch --provider` must then exit non-zero
// with the cloud's FAILED line, print none of secrets, send nothing and
// leave what afterFail wants (nil: the last step's check).
type cloudE2E struct {
	cloud     cloud
	rules     string
	typ       string
	baseline  alertStep
	steps     []alertStep
	fail      func()
	secrets   []string
	afterFail func(t *testing.T, cfg string)
}

// alertConfig writes a config with only c enabled, a fake Slack on
// C0GPUALERTS and the given alerts.rules YAML ("" for the defaults).
// Flap suppression is off: the runs are seconds apart, and the flap
// window has its own tests.
func alertConfig(t *testing.T, c cloud, slackURL, rules string) string {
	t.Helper()
	return testConfig{
		clouds: []cloud{c},
		slack:  fakeSlackSection(slackURL, "C0GPUALERTS"),
		alerts: "alerts:\n  fetch_delivery_wait: 5s\n  flap_window: 0s\n" + rules,
	}.write(t, t.TempDir())
}

// run plays the script and returns the config's path and the fake Slack,
// for the checks a test adds after it.
func (c cloudE2E) run(t *testing.T) (string, *slackAPI) {
	t.Helper()
	t.Setenv(envSlackToken, alertsToken)
	slack := newSlackAPI(t)
	cfg := alertConfig(t, c.cloud, slack.URL, c.rules)

	out := c.baseline.play(t, cfg, slack, c.typ, 0)
	if !strings.Contains(out, "first run") {
		t.Errorf("first run not a baseline: %s", out)
	}
	last := c.baseline.check
	for _, s := range c.steps {
		s.play(t, cfg, slack, c.typ, len(slack.received()))
		if s.check != nil {
			last = s.check
		}
	}
	if c.fail == nil {
		return cfg, slack
	}

	sent := len(slack.received())
	c.fail()
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", c.cloud.name)
	failed := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c.cloud.name) + ` +FAILED`)
	if code == 0 || !failed.MatchString(out) {
		t.Fatalf("a failed %s run exited %d:\n%s%s", c.cloud.name, code, out, errOut)
	}
	for _, s := range c.secrets {
		if strings.Contains(out+errOut, s) {
			t.Errorf("a secret (%.6s…) is printed:\n%s%s", s, out, errOut)
		}
	}
	if c.afterFail != nil {
		last = c.afterFail
	}
	if last != nil {
		last(t, cfg)
	}
	if got := slack.received(); len(got) != sent {
		t.Errorf("Slack received %d messages after the failed run, want still %d", len(got), sent)
	}
	return cfg, slack
}

// play makes the step's change and fetch, when sent messages were
// received before it, and checks what it alerted and stored; it returns
// the fetch's output.
func (s alertStep) play(t *testing.T, cfg string, slack *slackAPI, typ string, sent int) string {
	t.Helper()
	if s.change != nil {
		s.change(t)
	}
	out := fetchExpect(t, cfg, s.line)
	if s.rule == "" {
		if got := slack.received(); len(got) != sent {
			t.Fatalf("the fetch (%s) alerted: %+v", s.line, got[sent:])
		}
	} else {
		p := alertSent(t, out, slack, sent+1)
		text := s.text
		if text == nil {
			text = []string{typ}
		}
		if p.channel != "C0GPUALERTS" || !strings.Contains(p.key, s.rule) {
			t.Errorf("post %+v, want one from rule %s", p, s.rule)
		}
		for _, w := range text {
			if !strings.Contains(p.text, w) {
				t.Errorf("message does not say %q: %s", w, p.text)
			}
		}
	}
	if s.check != nil {
		s.check(t, cfg)
	}
	return out
}

// alertSent wants the fetch (its output out) to have delivered one
// alert, and Slack to have received n messages in all; it returns the
// last.
func alertSent(t *testing.T, out string, slack *slackAPI, n int) slackPost {
	t.Helper()
	if !strings.Contains(out, "alerts   1 sent") {
		t.Errorf("fetch did not deliver one alert: %s", out)
	}
	got := slack.received()
	if len(got) != n {
		t.Fatalf("Slack received %d messages, want %d: %+v", len(got), n, got)
	}
	return got[n-1]
}

func fetchExpect(t *testing.T, cfg, wantLine string) string {
	t.Helper()
	out, errOut, code := runCLI(t, "--config", cfg, "fetch")
	if code != 0 || !strings.Contains(out, wantLine) {
		t.Fatalf("fetch exited %d, want a line %q:\n%s%s", code, wantLine, out, errOut)
	}
	return out
}
