package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/daemon"

	"github.com/pricewatch/pricewatch/fetchers/alibaba/alibabatest"
	"github.com/pricewatch/pricewatch/web"
)

// Secrets a hostile or careless error answer echoes back. Each case below
// makes one cloud (or Slack) answer with one of them in its error text.
const (
	leakAWSKey    = "AKIAIOSFODNN7EXAMPLE"
	leakBearer    = "eyJhbGciOiJIUzI1NiJ9LeakedBearerCredential"
	leakSTS       = "STS.NUgYrLnoC37mZZCNnAbez2cHT"
	leakWebhook   = "LeakedWebhookPathSecret0123"
	leakSlackTok  = "xoxb-4242-4242-LeakedBotTokenValue"
	leakRunPodKey = "rpa_LeakedRunPodKey0123456789AB"
	// A configured key of no known shape: only its value can catch it.
	leakLambdaKey = "plain-lambda-key-9f8e7d6c5b4a"
	// A Google API key (it travels in X-goog-api-key).
	leakGoogleKey = "AIzaSyLeakedGoogleKey0123456789abcdefg"
)

// providerConfig writes a config with only provider enabled ("none":
// none), its endpoint set; extra is appended.
func providerConfig(t *testing.T, provider, endpoint, extra string) string {
	t.Helper()
	c := cloud{name: provider, endpoint: endpoint}
	switch provider {
	case "aws":
		c.keys = "    regions: [us-east-1]\n    spot: false\n    savings_plans: false\n"
	case "azure":
		c = azureCloud(endpoint, westus2)
	case "alibaba":
		c.keys = "    regions: [cn-shanghai]\n"
	case "tencent":
		c.keys = "    regions: [ap-beijing]\n    currency: CNY\n"
	}
	cfg := testConfig{logLevel: "debug", logJSON: true, extra: extra}
	if provider != "none" {
		cfg.clouds = []cloud{c}
	}
	return cfg.write(t, t.TempDir())
}

// TestSecretsStayInOnEveryErrorPath: for each cloud and for Slack, an
// error answer carrying a secret (a configured credential, or a key of a
// known shape) fails the run or the post. The secret must appear nowhere
// it could travel: stdout, stderr and the log, the database file (runs,
// outbox), /readyz, and every digest format (which goes to Slack).
func TestSecretsStayInOnEveryErrorPath(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		// setup starts the fakes and returns the config and the commands
		// that meet the error.
		setup func(t *testing.T) (cfg string, cmds [][]string)
	}{
		{"azure", []string{leakAWSKey, leakBearer}, func(t *testing.T) (string, [][]string) {
			srv := fixedAnswer(t, http.StatusForbidden, "", fmt.Sprintf(`{"error":{"code":"Forbidden","message":"proxy refused key %s (Authorization: Bearer %s)"}}`, leakAWSKey, leakBearer))
			return providerConfig(t, "azure", srv.URL, ""), [][]string{{"fetch"}}
		}},
		{"aws", []string{leakAWSKey, leakRunPodKey}, func(t *testing.T) (string, [][]string) {
			srv := fixedAnswer(t, http.StatusForbidden, "application/xml", fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Request signed with %s denied; api_key=%s</Message></Error>`, leakAWSKey, leakRunPodKey))
			return providerConfig(t, "aws", srv.URL, ""), [][]string{{"fetch"}}
		}},
		{"alibaba", []string{e2eAlibabaKeyID, e2eAlibabaSecret, leakSTS}, func(t *testing.T) (string, [][]string) {
			world := alibabatest.LoadScenario(t, "testdata/alibaba/china")
			// Alibaba's InvalidParameter / Forbidden.NotAuthorized messages
			// name the AccessKey ID the request was signed with.
			world.FailAlways = map[string]alibabatest.APIError{"DescribeInstanceTypes": {
				Code:    "Forbidden.NotAuthorized",
				Message: fmt.Sprintf("User not authorized to operate on the specified resource. AccessKeyId: %s, SecurityToken: %s, secret %s", e2eAlibabaKeyID, leakSTS, e2eAlibabaSecret),
			}}
			fake := alibabatest.NewServer(t, e2eAlibabaKeyID, e2eAlibabaSecret, world)
			alibabaCredentials(t, e2eAlibabaKeyID, e2eAlibabaSecret)
			return providerConfig(t, "alibaba", fake.URL(), ""), [][]string{{"fetch"}}
		}},
		{"tencent", []string{e2eTencentID, e2eTencentKey}, func(t *testing.T) (string, [][]string) {
			// The error shape of CVM, its message naming the SecretId and
			// (carelessly) the key.
			srv := fixedAnswer(t, http.StatusOK, "application/json", fmt.Sprintf(`{"Response":{"Error":{"Code":"InvalidParameter","Message":"request of SecretId %s signed with %s is invalid"},"RequestId":"9a7f1d2c-0000-4000-8000-000000000001"}}`, e2eTencentID, e2eTencentKey))
			tencentCredentials(t, e2eTencentID, e2eTencentKey)
			return providerConfig(t, "tencent", srv.URL, ""), [][]string{{"fetch"}}
		}},
		{"lambda", []string{leakLambdaKey}, func(t *testing.T) (string, [][]string) {
			// A refused key, echoed back in the error body.
			srv := fixedAnswer(t, http.StatusUnauthorized, "application/json", fmt.Sprintf(`{"error":{"code":"global/invalid-api-key","message":"API key %s was invalid, expired, or deleted."}}`, leakLambdaKey))
			t.Setenv("LAMBDA_API_KEY", leakLambdaKey)
			return providerConfig(t, "lambda", srv.URL, ""), [][]string{{"fetch"}}
		}},
		{"gcp", []string{leakGoogleKey}, func(t *testing.T) (string, [][]string) {
			// Google's 403 for a key that may not call the API, the key
			// echoed back in its message (Google's does not; a proxy may).
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprintf(w, `{"error":{"code":403,"message":"Requests with key %s are blocked.","status":"PERMISSION_DENIED","details":[{"reason":"API_KEY_SERVICE_BLOCKED"}]}}`, r.Header.Get("X-goog-api-key"))
			}))
			t.Cleanup(srv.Close)
			t.Setenv("GOOGLE_API_KEY", leakGoogleKey)
			return providerConfig(t, "gcp", srv.URL, ""), [][]string{{"fetch"}}
		}},
		{"runpod", []string{leakRunPodKey}, func(t *testing.T) (string, [][]string) {
			srv := fixedAnswer(t, http.StatusForbidden, "application/json", fmt.Sprintf(`{"errors":[{"message":"Authorization: Bearer %s is not allowed"}]}`, leakRunPodKey))
			t.Setenv("RUNPOD_API_KEY", leakRunPodKey)
			return providerConfig(t, "runpod", srv.URL, ""), [][]string{{"fetch"}}
		}},
		{"slack webhook", []string{leakWebhook}, func(t *testing.T) (string, [][]string) {
			// A webhook that cannot be reached: Go's error quotes the URL,
			// whose path is the credential.
			extra := fmt.Sprintf("slack:\n  webhook_url: http://127.0.0.1:1/services/T0000/B0000/%s\n", leakWebhook)
			return providerConfig(t, "none", "", extra), [][]string{{"alerts", "test"}}
		}},
		{"slack token", []string{leakSlackTok}, func(t *testing.T) (string, [][]string) {
			srv := fixedAnswer(t, http.StatusBadGateway, "", fmt.Sprintf("upstream refused token %s", leakSlackTok))
			t.Setenv("PRICEWATCH_SLACK_TOKEN", leakSlackTok)
			extra := fmt.Sprintf("slack:\n  channel: C0ALERTS\n  api_url: %s/api/\n", srv.URL)
			return providerConfig(t, "none", "", extra), [][]string{{"alerts", "test"}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CREDENTIALS_DIRECTORY", "")
			cfg, cmds := tt.setup(t)
			var seen []string // every text that left the process
			failed := false
			for _, c := range cmds {
				out, errOut, code := runCLI(t, append([]string{"--config", cfg}, c...)...)
				failed = failed || code != 0
				seen = append(seen, "stdout of "+strings.Join(c, " ")+": "+out, "stderr and log of "+strings.Join(c, " ")+": "+errOut)
			}
			if !failed {
				t.Fatalf("the error path was not taken: %q", seen)
			}
			for _, format := range []string{"text", "markdown", "json", "slack"} {
				out, errOut, _ := runCLI(t, "--config", cfg, "digest", "--format", format)
				seen = append(seen, "digest "+format+": "+out+errOut)
			}
			out, errOut, _ := runCLI(t, "--config", cfg, "alerts", "list", "--format", "json")
			seen = append(seen, "alerts list: "+out+errOut)

			_, db := loadApp(t, cfg)
			// /readyz is open to probes (issue 20 item 18): it shows that the
			// run failed, and no error text.
			rec := httptest.NewRecorder()
			ready := func(ctx context.Context) (web.Readiness, error) { return daemon.ProviderRuns(ctx, db) }
			web.ReadyHandler(ready, nil).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
			js := rec.Body.String()
			seen = append(seen, "/readyz: "+js)
			if !strings.HasPrefix(tt.name, "slack") && (rec.Code != 200 || !strings.Contains(js, `"status":"failed"`) || strings.Contains(js, `"error"`)) {
				t.Errorf("/readyz: %d %s, want the failed run's status and no error text", rec.Code, js)
			}
			dbPath := filepath.Join(filepath.Dir(cfg), "pw.db")
			for _, f := range []string{dbPath, dbPath + "-wal"} {
				if b, err := os.ReadFile(f); err == nil {
					seen = append(seen, "database file "+filepath.Base(f)+": "+string(b))
				}
			}
			for _, s := range tt.secrets {
				for _, text := range seen {
					if strings.Contains(text, s) {
						where, _, _ := strings.Cut(text, ":")
						t.Errorf("secret %q leaks into %s", s, where)
					}
				}
			}
		})
	}
}

// fixedAnswer is a server that answers every request with status and
// body, as contentType ("" sets none), until the test ends.
func fixedAnswer(t *testing.T, status int, contentType, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}
