package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/outboxstore"
	"github.com/pricewatch/pricewatch/storage"
)

const testToken = "xoxb-1111-2222-SeCrEtToKeN"

func priceDropPayload(t *testing.T) []byte {
	t.Helper()
	msgs := render(t, alerting.RuleSpec{Name: "price-drops", Events: []string{"price_drop"}, MinChangePct: 5}, pricewatch.Azure,
		priceChange(pricewatch.PriceChanged, azureH100(pricewatch.OnDemand), "98.32", "88.488"))
	return msgs[0].Payload
}

func TestSendThroughChatPostMessage(t *testing.T) {
	fake := newFakeSlack(t, testToken)
	n, err := New(Config{Token: testToken, APIURL: fake.apiURL()})
	if err != nil {
		t.Fatal(err)
	}
	payload := priceDropPayload(t)
	rcpt, err := n.Send(t.Context(), "C0GPUALERTS", payload)
	if err != nil {
		t.Fatal(err)
	}
	if rcpt.Channel != "C0GPUALERTS" || rcpt.Timestamp == "" {
		t.Errorf("receipt = %+v", rcpt)
	}
	got := fake.accepted()
	if len(got) != 1 {
		t.Fatalf("Slack got %d messages", len(got))
	}
	var stored Payload
	if err := json.Unmarshal(payload, &stored); err != nil {
		t.Fatal(err)
	}
	if got[0].Text != stored.Text || got[0].DeliveryKey != "run/4711/C0GPUALERTS/price-drops/price_drop" {
		t.Errorf("posted text %q key %q", got[0].Text, got[0].DeliveryKey)
	}
	// The blocks Slack received are the stored ones, value for value.
	var sent, want any
	if err := json.Unmarshal([]byte(got[0].Blocks), &sent); err != nil {
		t.Fatal(err)
	}
	rawWant, _ := json.Marshal(stored.Blocks)
	if err := json.Unmarshal(rawWant, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sent, want) {
		t.Errorf("blocks changed on the way:\n sent %s\nstored %s", got[0].Blocks, rawWant)
	}
	if n.Mode() != "bot token (chat.postMessage)" {
		t.Errorf("mode %q", n.Mode())
	}
}

// expect says how the dispatcher must treat an error.
type expect struct {
	retryAfter time.Duration // > 0: a RetryAfterError
	permanent  bool
	scope      alerting.Scope
	fix        string // substring of the fix
}

func check(t *testing.T, err error, want expect) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	var ra *alerting.RetryAfterError
	if got := errors.As(err, &ra); got != (want.retryAfter > 0) || (got && ra.After != want.retryAfter) {
		t.Errorf("%v: retry after = %v, want %v", err, ra, want.retryAfter)
	}
	p, perm := alerting.IsPermanent(err)
	if perm != want.permanent {
		t.Fatalf("%v: permanent = %v, want %v", err, perm, want.permanent)
	}
	if perm && (p.Scope != want.scope || !strings.Contains(p.Fix, want.fix)) {
		t.Errorf("%v: scope %d fix %q; want scope %d and a fix mentioning %q", err, p.Scope, p.Fix, want.scope, want.fix)
	}
}

func TestChatPostMessageErrors(t *testing.T) {
	tests := []struct {
		name  string
		reply reply
		want  expect
	}{
		{"429 with Retry-After", reply{status: 429, retryAfter: "7"}, expect{retryAfter: 7 * time.Second}},
		{"500", reply{status: 500}, expect{}},
		{"503", reply{status: 503}, expect{}},
		{"404 from a wrong api_url", reply{status: 404}, expect{permanent: true, scope: alerting.ScopeAll, fix: "slack.api_url"}},
		{"ok:false ratelimited", reply{err: "ratelimited"}, expect{retryAfter: 30 * time.Second}},
		{"internal_error", reply{err: "internal_error"}, expect{}},
		{"an error code this version does not know", reply{err: "brand_new_error"}, expect{}},
		{"invalid_auth", reply{err: "invalid_auth"}, expect{permanent: true, scope: alerting.ScopeAll, fix: "check the bot token"}},
		{"token_revoked", reply{err: "token_revoked"}, expect{permanent: true, scope: alerting.ScopeAll, fix: "reinstall"}},
		{"missing_scope", reply{err: "missing_scope"}, expect{permanent: true, scope: alerting.ScopeAll, fix: "chat:write"}},
		{"channel_not_found", reply{err: "channel_not_found"}, expect{permanent: true, scope: alerting.ScopeChannel, fix: "channel C0GPUALERTS was not found"}},
		{"not_in_channel", reply{err: "not_in_channel"}, expect{permanent: true, scope: alerting.ScopeChannel, fix: "invite the bot to C0GPUALERTS"}},
		{"is_archived", reply{err: "is_archived"}, expect{permanent: true, scope: alerting.ScopeChannel, fix: "archived"}},
		{"invalid_blocks", reply{err: "invalid_blocks"}, expect{permanent: true, scope: alerting.ScopeMessage, fix: "pricewatch bug"}},
		{"msg_blocks_too_long", reply{err: "msg_blocks_too_long"}, expect{permanent: true, scope: alerting.ScopeMessage, fix: "pricewatch bug"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeSlack(t, testToken)
			fake.then(tt.reply)
			n, err := New(Config{Token: testToken, APIURL: fake.apiURL()})
			if err != nil {
				t.Fatal(err)
			}
			err = n.Post(t.Context(), "C0GPUALERTS", priceDropPayload(t))
			check(t, err, tt.want)
			if strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), fake.srv.URL) {
				t.Errorf("error shows the token or URL: %v", err)
			}
			if len(fake.accepted()) != 0 {
				t.Error("the refused message was recorded as accepted")
			}
		})
	}
	t.Run("wrong token", func(t *testing.T) {
		fake := newFakeSlack(t, testToken)
		n, _ := New(Config{Token: "xoxb-wrong", APIURL: fake.apiURL()})
		check(t, n.Post(t.Context(), "C0GPUALERTS", priceDropPayload(t)), expect{permanent: true, scope: alerting.ScopeAll, fix: "PRICEWATCH_SLACK_TOKEN"})
	})
	t.Run("no channel", func(t *testing.T) {
		fake := newFakeSlack(t, testToken)
		n, _ := New(Config{Token: testToken, APIURL: fake.apiURL()})
		check(t, n.Post(t.Context(), "", priceDropPayload(t)), expect{permanent: true, scope: alerting.ScopeChannel, fix: "slack.channel"})
	})
	t.Run("Slack unreachable", func(t *testing.T) {
		fake := newFakeSlack(t, testToken)
		n, _ := New(Config{Token: testToken, APIURL: fake.apiURL()})
		fake.srv.Close()
		err := n.Post(t.Context(), "C0GPUALERTS", priceDropPayload(t))
		check(t, err, expect{})
		if strings.Contains(err.Error(), "/proxy/api") {
			t.Errorf("network error shows the URL: %v", err)
		}
	})
}

// fakeWebhook answers an incoming-webhook post with status and body.
func fakeWebhook(t *testing.T, status int, body string, got *[]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		_, _ = b.ReadFrom(r.Body)
		if got != nil {
			*got = append(*got, b.String())
		}
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "12")
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

const webhookPath = "/services/T00000000/B00000000/XXXXwebhookSECRETXXXX"

func TestWebhook(t *testing.T) {
	var got []string
	srv := fakeWebhook(t, 200, "ok", &got)
	n, err := New(Config{WebhookURL: srv.URL + webhookPath})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Post(t.Context(), "ignored-by-webhooks", priceDropPayload(t)); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Text   string            `json:"text"`
		Blocks []json.RawMessage `json:"blocks"`
	}
	if len(got) != 1 || json.Unmarshal([]byte(got[0]), &body) != nil || body.Text == "" || len(body.Blocks) != 4 {
		t.Fatalf("webhook got %v", got)
	}
	if n.Mode() != "incoming webhook" {
		t.Errorf("mode %q", n.Mode())
	}

	tests := []struct {
		status int
		body   string
		want   expect
	}{
		{429, "", expect{retryAfter: 12 * time.Second}},
		{500, "<html>oops</html>", expect{}},
		{400, "invalid_blocks", expect{permanent: true, scope: alerting.ScopeMessage, fix: "pricewatch bug"}},
		{403, "action_prohibited", expect{permanent: true, scope: alerting.ScopeAll, fix: "create a new webhook"}},
		{404, "no_service", expect{permanent: true, scope: alerting.ScopeAll, fix: "create a new webhook"}},
		{410, "channel_is_archived", expect{permanent: true, scope: alerting.ScopeAll, fix: "archived"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status, tt.body), func(t *testing.T) {
			srv := fakeWebhook(t, tt.status, tt.body, nil)
			n, _ := New(Config{WebhookURL: srv.URL + webhookPath})
			err := n.Post(t.Context(), "", priceDropPayload(t))
			check(t, err, tt.want)
			if strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "<html>") {
				t.Errorf("error shows the webhook URL or the HTML body: %v", err)
			}
		})
	}
}

// TestSecretNeverPrinted drives every failure a token or webhook URL could
// leak through (Go's *url.Error embeds the URL, a webhook URL is the
// credential) and checks errors, logs, the stored last_error and the
// notifier's own formatting.
func TestSecretNeverPrinted(t *testing.T) {
	fake := newFakeSlack(t, testToken)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(300 * time.Millisecond):
		}
	}))
	defer slow.Close()
	webhook := fakeWebhook(t, 404, "no_service", nil)

	secrets := []string{testToken, "XXXXwebhookSECRETXXXX"}
	cases := []struct {
		name string
		cfg  Config
	}{
		{"token, Slack refuses", Config{Token: testToken, APIURL: fake.apiURL()}},
		{"token, Slack down", Config{Token: testToken, APIURL: closedURL + "/api/"}},
		{"webhook refused", Config{WebhookURL: webhook.URL + webhookPath}},
		{"webhook down", Config{WebhookURL: closedURL + webhookPath}},
		{"webhook times out", Config{WebhookURL: slow.URL + webhookPath, HTTPClient: &http.Client{Timeout: 50 * time.Millisecond}}},
		{"webhook with the secret in the query", Config{WebhookURL: closedURL + "/hook?token=XXXXwebhookSECRETXXXX"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake.then(reply{err: "invalid_auth"})
			n, err := New(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			// Through the dispatcher, which logs and stores the error.
			db, err := storage.Open(t.Context(), t.TempDir()+"/pw.db", storage.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			snap := &pricewatch.Snapshot{Provider: pricewatch.Azure, Offers: []pricewatch.Offer{azureOffer("98.32")}, Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
			id, _ := db.StartRun(t.Context(), "azure")
			if _, err := db.SaveSnapshot(t.Context(), id, snap, storage.SaveOptions{Outbox: func(*storage.Result) ([]storage.OutboxMessage, error) {
				return []storage.OutboxMessage{{DeliveryKey: "k", Channel: "C0GPUALERTS", Kind: "price_drop", Payload: priceDropPayload(t)}}, nil
			}}); err != nil {
				t.Fatal(err)
			}
			core, logs := observer.New(zapcore.DebugLevel)
			d := outboxstore.NewDispatcher(db, n, zap.New(core), alerting.DispatcherOptions{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
			if _, err := d.Deliver(t.Context(), 0, false); err != nil {
				t.Fatal(err)
			}
			all, _ := db.ListOutbox(t.Context(), storage.OutboxFilter{})
			if len(all) != 1 || all[0].LastError == "" {
				t.Fatalf("want a failed attempt recorded: %+v", all)
			}
			var printed []string
			printed = append(printed, all[0].LastError, fmt.Sprintf("%v %+v %#v %s", n, n, n, n), fmt.Sprintf("%v %+v", c.cfg, c.cfg))
			for _, e := range logs.All() {
				printed = append(printed, e.Message)
				for k, v := range e.ContextMap() {
					printed = append(printed, fmt.Sprintf("%s=%v", k, v))
				}
			}
			for _, p := range printed {
				for _, s := range secrets {
					if strings.Contains(p, s) {
						t.Errorf("secret printed: %s", p)
					}
				}
			}
			t.Logf("recorded error: %s", all[0].LastError)
		})
	}
}

func TestNewNeedsACredential(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Error("New without token or webhook must fail")
	}
	if _, err := New(Config{Token: testToken, APIURL: "ftp://x"}); err == nil {
		t.Error("a non-http api_url must be refused")
	}
	_, err := New(Config{WebhookURL: "not a url " + webhookPath})
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("bad webhook URL: err = %v (must fail without echoing it)", err)
	}
}
