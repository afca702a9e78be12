package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/alerting/webhook"
)

const webhookKey = "whsec-test-0123456789abcdef"

// webhookSecretFile writes webhookKey into dir's webhook-secret (as
// webhook.secret_file reads it) and returns its path.
func webhookSecretFile(t *testing.T, dir string) string {
	t.Helper()
	file := filepath.Join(dir, "webhook-secret")
	if err := os.WriteFile(file, []byte(webhookKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// webhookReceiver is a local webhook endpoint that checks each request's
// signature the way a receiver should (from docs/alerts.md's description, not
// from pricewatch's code) and answers with the next scripted status.
type webhookReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	script   []int
	attempts int
	accepted []acceptedHook
	badSig   int
}

type acceptedHook struct {
	delivery string
	body     webhook.Body
	raw      []byte
}

func newWebhookReceiver(t *testing.T, script ...int) *webhookReceiver {
	t.Helper()
	rcv := &webhookReceiver{script: script}
	rcv.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(r.Body)
		if err != nil || r.Method != http.MethodPost || r.URL.Path != "/hooks/pricewatch" || r.URL.Query().Get("token") != "t0ps3cret" {
			http.NotFound(w, r)
			return
		}
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		rcv.attempts++
		// HMAC-SHA256 over timestamp + "." + body, hex, "sha256=" prefix.
		m := hmac.New(sha256.New, []byte(webhookKey))
		m.Write([]byte(r.Header.Get("X-Pricewatch-Timestamp") + "." + string(raw)))
		want := "sha256=" + hex.EncodeToString(m.Sum(nil))
		if r.Header.Get("X-Pricewatch-Timestamp") == "" || !hmac.Equal([]byte(r.Header.Get("X-Pricewatch-Signature")), []byte(want)) {
			rcv.badSig++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		status := http.StatusOK
		if len(rcv.script) > 0 {
			status, rcv.script = rcv.script[0], rcv.script[1:]
		}
		if status != http.StatusOK {
			w.WriteHeader(status)
			return
		}
		var b webhook.Body
		if err := json.Unmarshal(raw, &b); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		rcv.accepted = append(rcv.accepted, acceptedHook{delivery: r.Header.Get("X-Pricewatch-Delivery"), body: b, raw: raw})
	}))
	t.Cleanup(rcv.Close)
	return rcv
}

// TestPriceDropReachesWebhookThroughOutage: a price drop on the fake Azure,
// routed by a rule with webhook: true, reaches a local webhook receiver
// once, with a valid signature, although the receiver's first answer is a
// 500: the fetch leaves it pending, `alerts deliver` sends it when the
// receiver is back, and a second deliver sends nothing more.
func TestPriceDropReachesWebhookThroughOutage(t *testing.T) {
	az := newFakeAzure(t)
	rcv := newWebhookReceiver(t, http.StatusInternalServerError)
	dir := t.TempDir()
	secretFile := webhookSecretFile(t, dir)
	urlFile := filepath.Join(dir, "webhook-url")
	hookURL := rcv.URL + "/hooks/pricewatch?token=t0ps3cret"
	if err := os.WriteFile(urlFile, []byte(hookURL+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, dir, az.URL, fmt.Sprintf(`webhook:
  url_file: %s
  secret_file: %s
alerts:
  fetch_delivery_wait: 1s
  rules:
    - name: price-drops
      events: [price_drop]
      gpu_models: [H100]
      min_change_pct: 5
      webhook: true
`, urlFile, secretFile))
	out, errOut := az.fetchH100Drop(t, cfg)
	if !strings.Contains(out, "pending") {
		t.Fatalf("fetch during the outage:\n%s\n%s", out, errOut)
	}
	for _, leak := range []string{"t0ps3cret", webhookKey} {
		if strings.Contains(out+errOut, leak) {
			t.Errorf("a secret (%s) is in the output:\n%s\n%s", leak, out, errOut)
		}
	}
	if out, errOut, code := runCLI(t, "--config", cfg, "alerts", "deliver", "--wait", "0s"); code != 0 || !strings.Contains(out, "sent") {
		t.Fatalf("deliver after the outage: %d %q %s", code, out, errOut)
	}
	if out, _, code := runCLI(t, "--config", cfg, "alerts", "deliver", "--wait", "0s"); code != 0 {
		t.Fatalf("second deliver: %d %q", code, out)
	}

	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if rcv.badSig != 0 {
		t.Errorf("%d requests without a valid signature", rcv.badSig)
	}
	// The Slack half of the rule went to the log (Slack is not configured);
	// the webhook got the drop once, after one failed attempt.
	if len(rcv.accepted) != 1 || rcv.attempts != 2 {
		t.Fatalf("receiver accepted %d messages in %d attempts, want 1 in 2", len(rcv.accepted), rcv.attempts)
	}
	got := rcv.accepted[0]
	if got.body.Version != 1 || got.body.Type != "alert" {
		t.Errorf("body version %d type %q", got.body.Version, got.body.Type)
	}
	if !strings.HasPrefix(got.delivery, "run/2/webhook/price-drops/price_drop") {
		t.Errorf("delivery header %q", got.delivery)
	}
	if !strings.Contains(got.body.Summary, "Standard_NC40ads_H100_v5 westus2 on_demand 6.98 → 6.5 USD/h (-6.88%)") {
		t.Errorf("summary %q", got.body.Summary)
	}
	var alert struct {
		Event    string `json:"event"`
		Rule     string `json:"rule"`
		Provider string `json:"provider"`
		Items    []struct {
			InstanceType string      `json:"instance_type"`
			Old          json.Number `json:"old_effective_hourly"`
			New          json.Number `json:"new_effective_hourly"`
			DeltaPct     json.Number `json:"delta_pct"`
			GPUModel     string      `json:"gpu_model"`
		} `json:"items"`
	}
	if err := json.Unmarshal(got.body.Alert, &alert); err != nil {
		t.Fatal(err)
	}
	if alert.Event != "price_drop" || alert.Rule != "price-drops" || alert.Provider != "azure" || len(alert.Items) != 1 {
		t.Fatalf("alert %+v\n%s", alert, got.raw)
	}
	it := alert.Items[0]
	if it.InstanceType != "Standard_NC40ads_H100_v5" || it.Old != "6.98" || it.New != "6.5" || it.DeltaPct != "-6.88" || it.GPUModel != "H100-NVL" {
		t.Errorf("item %+v", it)
	}
}
