package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBuiltInRulesReachWebhookOnlySetup: Issue 20 item 12: with
// webhook.url and no Slack, the built-in rules posted nowhere while the
// fetch said "1 sent". The built-in price-drops rule now reaches the
// webhook (once), and the fetch says sent only for that.
func TestBuiltInRulesReachWebhookOnlySetup(t *testing.T) {
	az := newFakeAzure(t)
	rcv := newWebhookReceiver(t)
	dir := t.TempDir()
	secretFile := webhookSecretFile(t, dir)
	cfg := writeConfig(t, dir, az.URL, fmt.Sprintf(`webhook:
  url: %s/hooks/pricewatch?token=t0ps3cret
  secret_file: %s
alerts:
  fetch_delivery_wait: 1s
`, rcv.URL, secretFile))
	if out, errOut := az.fetchH100Drop(t, cfg); !strings.Contains(out, "alerts   1 sent\n") || strings.Contains(out, "logged") {
		t.Fatalf("fetch:\n%s\n%s", out, errOut)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.accepted) != 1 || rcv.badSig != 0 {
		t.Fatalf("the webhook got %d alerts (%d badly signed), want the price drop once", len(rcv.accepted), rcv.badSig)
	}
	if got := rcv.accepted[0]; got.body.Type != "alert" || !strings.HasPrefix(got.delivery, "run/2/webhook/price-drops/price_drop") {
		t.Errorf("webhook got %q %q", got.body.Type, got.delivery)
	}
}

// TestLogOnlyAlertsSayLogged: Issue 20 item 12: with no notifier at all,
// an alert that only reached the log was reported as "1 sent".
func TestLogOnlyAlertsSayLogged(t *testing.T) {
	az := newFakeAzure(t)
	dir := t.TempDir()
	cfg := writeConfig(t, dir, az.URL, "alerts:\n  fetch_delivery_wait: 1s\n")
	if out, errOut := az.fetchH100Drop(t, cfg); !strings.Contains(out, "alerts   1 logged (no Slack or webhook is configured") || strings.Contains(out, "sent") {
		t.Fatalf("fetch:\n%s\n%s", out, errOut)
	}
}

// TestAlertsTestWebhook: Issue 20 item 12: `alerts test --channel
// webhook` posted to a Slack channel named "webhook". It tests the
// webhook: a signed test body reaches the receiver, and a receiver that
// refuses it makes the command fail with the fix.
func TestAlertsTestWebhook(t *testing.T) {
	az := newFakeAzure(t)
	rcv := newWebhookReceiver(t)
	dir := t.TempDir()
	secretFile := webhookSecretFile(t, dir)
	slack := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("Slack was called: %s", r.URL.Path)
	}))
	defer slack.Close()
	t.Setenv(envSlackToken, alertsToken)
	cfg := writeConfig(t, dir, az.URL, fmt.Sprintf(`slack:
  channel: C0GPUALERTS
  api_url: %s/api/
webhook:
  url: %s/hooks/pricewatch?token=t0ps3cret
  secret_file: %s
`, slack.URL, rcv.URL, secretFile))
	out, errOut, code := runCLI(t, "--config", cfg, "alerts", "test", "--channel", "webhook")
	if code != 0 || !strings.Contains(out, "the webhook accepted the test message") {
		t.Fatalf("alerts test: %d %q %q", code, out, errOut)
	}
	rcv.mu.Lock()
	if len(rcv.accepted) != 1 || rcv.accepted[0].body.Type != "test" || !strings.Contains(rcv.accepted[0].body.Summary, "pricewatch test message") || rcv.badSig != 0 {
		t.Errorf("receiver got %+v (bad signatures %d)", rcv.accepted, rcv.badSig)
	}
	rcv.script = []int{http.StatusNotFound}
	rcv.mu.Unlock()
	out, errOut, code = runCLI(t, "--config", cfg, "alerts", "test", "--channel", "webhook")
	if code != 1 || !strings.Contains(errOut, "webhook answered HTTP 404") || !strings.Contains(errOut, "fix: check webhook.url") {
		t.Errorf("refused test: %d %q %q", code, out, errOut)
	}
	if strings.Contains(out+errOut, "t0ps3cret") {
		t.Errorf("the URL's token is in the output: %s %s", out, errOut)
	}
}
