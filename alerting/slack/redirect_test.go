package slack

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/alerting"
)

// elsewhere is another host a hostile or misconfigured endpoint redirects
// to: it records what arrived, so a test can tell whether the token left.
type elsewhere struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests int
	bodies   []string
}

func newElsewhere(t *testing.T) *elsewhere {
	e := &elsewhere{}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.requests++
		e.bodies = append(e.bodies, string(b))
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true,"channel":"C0GPUALERTS","ts":"1796030220.000100"}`)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *elsewhere) got() (int, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.requests, strings.Join(e.bodies, "\n")
}

// redirector answers every request with a 307 (which re-sends the POST
// and its body) to the same path on to.
func redirector(t *testing.T, to string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, to+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRedirectToAnotherHostRefused: Issue 20 item 20: a Slack API base or
// incoming webhook that 307s to another host got the bot token in the
// re-sent form body there, and the post (so `alerts test`) reported
// success. It must be a failed delivery, permanent, that says redirect,
// and nothing may reach the other host.
func TestRedirectToAnotherHostRefused(t *testing.T) {
	for _, mode := range []string{"token", "webhook"} {
		t.Run(mode, func(t *testing.T) {
			other := newElsewhere(t)
			hop := redirector(t, other.srv.URL)
			cfg := Config{Token: testToken, APIURL: hop.URL + "/api/"}
			if mode == "webhook" {
				cfg = Config{WebhookURL: hop.URL + "/services/T000/B000/XXXXwebhookSECRET"}
			}
			n, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = n.Send(t.Context(), "C0GPUALERTS", priceDropPayload(t))
			if err == nil {
				t.Fatal("a post redirected to another host reported success")
			}
			p, ok := alerting.IsPermanent(err)
			if !ok || p.Scope != alerting.ScopeAll || !strings.Contains(err.Error(), "redirect") {
				t.Errorf("err = %v (permanent %v): want a permanent failure that says redirect", err, ok)
			}
			if requests, bodies := other.got(); requests != 0 {
				t.Errorf("the other host got %d requests (token there: %v)", requests, strings.Contains(bodies, testToken))
			}
			for _, leak := range []string{testToken, "XXXXwebhookSECRET"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("error leaks %q: %v", leak, err)
				}
			}
		})
	}
}

// TestSameOriginRedirectFollowed: a redirect that stays on the configured
// origin (a proxy moving its path) is still followed.
func TestSameOriginRedirectFollowed(t *testing.T) {
	fake := newFakeSlack(t, testToken)
	u, _ := url.Parse(fake.apiURL())
	mux := http.NewServeMux()
	mux.HandleFunc("/old/api/chat.postMessage", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/proxy/api/chat.postMessage", http.StatusTemporaryRedirect)
	})
	mux.Handle("/", fake.srv.Config.Handler)
	fake.srv.Config.Handler = mux
	n, err := New(Config{Token: testToken, APIURL: u.Scheme + "://" + u.Host + "/old/api/"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Send(t.Context(), "C0GPUALERTS", priceDropPayload(t)); err != nil {
		t.Fatal(err)
	}
	if got := fake.accepted(); len(got) != 1 {
		t.Fatalf("Slack got %d messages", len(got))
	}
}
