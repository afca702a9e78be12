package secret

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// azureSecret is a made-up Entra ID client secret of the current format.
const azureSecret = "Xy78Q~EXAMPLEfakeSecretValue0123456789ab"

func TestSetMasksCloudKeyShapes(t *testing.T) {
	tests := []struct {
		name, text, secret string
	}{
		{"alibaba access key id", "Forbidden.NotAuthorized: the AccessKeyId LTAI5tQ9xExampleKeyId7 is not authorized", "LTAI5tQ9xExampleKeyId7"},
		{"alibaba sts token", "InvalidSecurityToken.Expired: STS.NUgYrLnoC37mZZCNnAbez2cHT is expired", "STS.NUgYrLnoC37mZZCNnAbez2cHT"},
		{"tencent secret id", "AuthFailure.SecretIdNotFound: AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE not found", "AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE"},
		{"volcengine access key", "InvalidAccessKey: AKLTYmE0ZDExampleVolcKey9 is not valid", "AKLTYmE0ZDExampleVolcKey9"},
		{"aws access key id", "proxy said: bad key AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"},
		{"aws temporary key id", "key ASIAY34FZKBOKMUTVV7A expired", "ASIAY34FZKBOKMUTVV7A"},
		{"lambda api key", "401 for secret_pricewatch_1f2e3d4c5b6a79880f1e2d3c4b5a6978", "secret_pricewatch_1f2e3d4c5b6a79880f1e2d3c4b5a6978"},
		{"runpod api key", "invalid key rpa_AB12CD34EF56GH78IJ90KL12MN34", "rpa_AB12CD34EF56GH78IJ90KL12MN34"},
		{"bearer header echoed", `{"error":"Authorization: Bearer sk-live-0123456789abcdef rejected"}`, "sk-live-0123456789abcdef"},
		{"api_key parameter outside a URL", `request api_key=9f8e7d6c5b4a3210 refused`, "9f8e7d6c5b4a3210"},
		{"query string", "GET https://api.runpod.io/graphql?api_key=XYZ123SECRET: 401", "XYZ123SECRET"},
		{"slack bot token", "invalid_auth for xoxb-1234-5678-abcdefABCDEF", "xoxb-1234-5678-abcdefABCDEF"},
		{"aws secret key in a credentials file", "parse error near aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
		{"aws secret key in an environment dump", "env: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
		{"aws secret key as a JSON field", `{"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}`, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
		{"aws session token", "AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjEXAMPLETOKENzdWJzdHJpbmc=", "IQoJb3JpZ2luX2VjEXAMPLETOKENzdWJzdHJpbmc="},
		{"azure client secret shape", "AADSTS7000215: Invalid client secret provided: Abc8Q~xYz0123456789abcdefghijklmnopqrstu", "Abc8Q~xYz0123456789abcdefghijklmnopqrstu"},
		{"azure client secret in a token request form", "body: client_id=abc&client_secret=not-the-usual-shape-123&grant_type=client_credentials", "not-the-usual-shape-123"},
		{"azure client secret in an environment dump", "env: AZURE_CLIENT_SECRET=plainSecretValue99", "plainSecretValue99"},
		{"slack webhook path", "Post https://hooks.slack.com/services/T000/B000/XXXXSECRET: EOF", "XXXXSECRET"},
		// Entra ID (Azure) client secrets: made-up values of the real
		// format (40 characters, a version digit and "Q~" after three).
		{"azure client secret by its shape", "retrying with Xy78Q~EXAMPLEfakeSecretValue0123456789ab after 401", azureSecret},
		{"azure client secret with ~ . - inside", `credential "ab.8Q~Ex-mpl.fake~Secret_Value0123456-89a" refused`, "ab.8Q~Ex-mpl.fake~Secret_Value0123456-89a"},
		{"azure client secret in a token request body", "POST body grant_type=client_credentials&client_id=00000000-0000-0000-0000-000000000000&client_secret=" +
			azureSecret + "&scope=https%3A%2F%2Fmanagement.azure.com%2F.default", azureSecret},
		{"azure secret of the old format where named", "client_secret=J.v[7Ex4mple-Old_Format:Secret]", "J.v[7Ex4mple-Old_Format"},
		{"azure client secret in an environment dump", "env: AZURE_CLIENT_SECRET=OldFormatExampleSecret.123-456", "OldFormatExampleSecret.123-456"},
		{"azure client secret as a JSON field", `{"clientSecret": "OldFormatExampleSecret.123-456"}`, "OldFormatExampleSecret.123-456"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := String(tt.text)
			if strings.Contains(got, tt.secret) {
				t.Errorf("%q still holds %q", got, tt.secret)
			}
			if !strings.Contains(got, Mask) {
				t.Errorf("%q: nothing masked", got)
			}
		})
	}
}

// Words that merely look like keys stay: the scrubber must not eat the
// advice an error gives (config key names, codes).
func TestSetKeepsOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"check providers.tencent.secret_key_file and secret_id_file",
		"InvalidAccessKeyId.NotFound: the AccessKey ID is not known",
		"STS.Expired",
		"AKIA is the prefix of an AWS key",
		"check providers.azure.client_secret_file and AZURE_CLIENT_ID",
		"AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID",
		"~/.azure/credentials and 8Q~ alone",
		"check AZURE_CLIENT_SECRET or providers.azure.client_secret_file",
	} {
		if got := String(s); got != s {
			t.Errorf("%q became %q", s, got)
		}
	}
}

func TestSetMasksConfiguredValuesAndKeepsErrorChain(t *testing.T) {
	base := errors.New("sentinel")
	err := Error(errors.Join(base, errors.New("signed with hunter2-the-secret")), "hunter2-the-secret")
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("configured secret kept: %v", err)
	}
	if !errors.Is(err, base) {
		t.Error("scrubbed error no longer unwraps to its cause")
	}
	if Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
}

// timeoutErr is a net.Error that timed out, as an HTTP client returns it.
type timeoutErr struct{}

func (timeoutErr) Error() string {
	return "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
}
func (timeoutErr) Timeout() bool { return true }

func TestTransportLeavesOutTheURL(t *testing.T) {
	const hook = "https://hooks.example.com/services/T000/B000/very-secret-path"
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"refused", &url.Error{Op: "Post", URL: hook, Err: errors.New("dial tcp 127.0.0.1:9: connect: connection refused")},
			"dial tcp 127.0.0.1:9: connect: connection refused"},
		{"timeout", &url.Error{Op: "Post", URL: hook, Err: timeoutErr{}},
			"timed out: context deadline exceeded (Client.Timeout exceeded while awaiting headers)"},
		{"not a url.Error", errors.New("proxy said no to " + hook), "proxy said no to " + Mask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Transport(tt.err, hook); got != tt.want {
				t.Errorf("Transport = %q, want %q", got, tt.want)
			}
		})
	}
}

// A configured secret is masked in every form a line may carry it, the
// Azure client secret's "~" and "." included: as written, escaped in JSON,
// percent-encoded in a query or a path. An old-format secret (no shape of
// its own) is masked because it is configured.
func TestSetMasksConfiguredAzureSecret(t *testing.T) {
	const old = "a1b2~c3d4.e5f6-g7h8_i9j0+k/l=m\\n\"o"
	for _, v := range []string{azureSecret, old} {
		r := New(v)
		for _, form := range []string{v, jsonEscaped(v), url.QueryEscape(v), url.PathEscape(v)} {
			line := `{"msg":"token request failed","body":"client_id=x&cs=` + form + `&scope=y"}`
			if got := r.String(line); strings.Contains(got, form) || !strings.Contains(got, Mask) {
				t.Errorf("%q: configured secret in form %q kept: %q", v, form, got)
			}
		}
	}
}

// A Set only grows: each Add keeps what it had, ignores empty values and
// ones it has, and masks every value added, in the order added.
func TestSetAdd(t *testing.T) {
	tests := []struct {
		name   string
		start  []string
		adds   [][]string
		values []string
		line   string
		want   string
	}{
		{"empty", nil, nil, nil, "key first-secret-1", "key first-secret-1"},
		{"up front", []string{"first-secret-1"}, nil, []string{"first-secret-1"}, "key first-secret-1", "key " + Mask},
		{"added later", nil, [][]string{{"first-secret-1"}, {"second-secret-2"}}, []string{"first-secret-1", "second-secret-2"},
			"first-secret-1 then second-secret-2", Mask + " then " + Mask},
		{"old values stay", []string{"first-secret-1"}, [][]string{{"second-secret-2"}}, []string{"first-secret-1", "second-secret-2"},
			"first-secret-1 second-secret-2", Mask + " " + Mask},
		{"empty and repeated ignored", []string{"", "first-secret-1"}, [][]string{{"first-secret-1", ""}, {}},
			[]string{"first-secret-1"}, "first-secret-1", Mask},
		{"longest first", []string{"Gu5t9x"}, [][]string{{"Gu5t9xGARNpq86cd"}}, []string{"Gu5t9x", "Gu5t9xGARNpq86cd"},
			"Gu5t9xGARNpq86cd and Gu5t9x", Mask + " and " + Mask},
		{"percent-encoded", nil, [][]string{{"a/b+c-secret"}}, []string{"a/b+c-secret"}, "GET /v1/keys/a%2Fb%2Bc-secret", "GET /v1/keys/" + Mask},
		{"shapes without values", nil, nil, nil, "token xoxb-1234-5678-abcdefABCDEF", "token " + Mask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.start...)
			for _, a := range tt.adds {
				s.Add(a...)
			}
			if got := s.Values(); !slices.Equal(got, tt.values) {
				t.Errorf("Values = %q, want %q", got, tt.values)
			}
			if got := s.String(tt.line); got != tt.want {
				t.Errorf("String = %q, want %q", got, tt.want)
			}
		})
	}
}

// A nil Set knows no value, takes none, and still masks the shapes.
func TestNilSet(t *testing.T) {
	var s *Set
	s.Add("first-secret-1")
	if v := s.Values(); v != nil {
		t.Errorf("Values = %q", v)
	}
	if got := s.String("first-secret-1 at https://x.example/?k=v"); got != "first-secret-1 at https://x.example/?"+Mask {
		t.Errorf("String = %q", got)
	}
	if err := s.Error(errors.New("Bearer abcdefgh refused")); err.Error() != "Bearer "+Mask+" refused" {
		t.Errorf("Error = %q", err)
	}
}

// Lines are masked while secrets are added (a reload reads new ones as
// the log is written): no race, and a value is masked once Add returns.
func TestSetConcurrent(t *testing.T) {
	s := New()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				v := fmt.Sprintf("secret-%d-%d", i, j)
				s.Add(v)
				if got := s.String("is " + v); got != "is "+Mask {
					t.Errorf("%s not masked after Add: %q", v, got)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := len(s.Values()); n != 200 {
		t.Errorf("%d values, want 200", n)
	}
}
