// Package secret is pricewatch's one scrubber for text that may carry a
// credential: cloud error messages, HTTP bodies, URLs, log lines. Every
// fetcher applies it where it builds an error, and the CLI, the logger, run
// records, /readyz, the digest and Slack messages apply it again on the way
// out, so a secret never leaves the process whichever path its text takes.
//
// It masks the configured secret values (in every encoding a line may carry
// them) and, whoever configured them, the shapes of cloud credentials:
// Alibaba AccessKey IDs (LTAI…) and STS tokens (STS.…), Tencent SecretIds
// (AKID…), AWS access key IDs (AKIA…, ASIA…), AWS secret keys and session
// tokens where named, Entra ID (Azure) client secrets (…8Q~…, and any
// client_secret where named), Slack tokens, Lambda Cloud
// API keys (secret_…), RunPod API keys (rpa_…), bearer and basic
// credentials, URL query strings and user info, and Slack webhook paths.
// A fetcher for a new cloud adds its key shape to the patterns here.
package secret

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Mask replaces whatever was redacted.
const Mask = "[REDACTED]"

// Set is the set of secret values the program knows (configured keys,
// tokens, webhook URLs, a run's bearer token) and the one scrubber that
// masks them, and everything the package comment lists, in text. The set
// only grows (Add): a secret once read stays masked, whatever config is
// loaded later. A nil *Set knows no value and still masks the shapes. It
// is safe for concurrent use.
type Set struct {
	mu     sync.Mutex // serialises Add
	values []string   // as added, each once; guarded by mu
	// forms are every encoding of the values, longest first, swapped
	// whole so that String never waits for Add.
	forms atomic.Pointer[[]string]
}

// New returns a Set of the given secret values.
func New(values ...string) *Set {
	s := &Set{}
	s.Add(values...)
	return s
}

// Add adds secret values to the set; empty ones and ones it has are
// ignored. The scrubber's forms are rebuilt only when the set grew, so a
// set whose values were all added up front is never written again.
func (s *Set) Add(values ...string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	grown := false
	for _, v := range values {
		if v != "" && !slices.Contains(s.values, v) {
			s.values = append(s.values, v)
			grown = true
		}
	}
	if grown {
		s.forms.Store(encodings(s.values))
	}
}

// Values are the set's secrets, in the order they were added.
func (s *Set) Values() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.values)
}

// encodings are the forms each value can reach a line in.
func encodings(values []string) *[]string {
	var forms []string
	for _, s := range values {
		// A secret can reach a log line as written, escaped inside a JSON
		// string (the JSON encoder and console fields) or percent-encoded
		// inside a URL.
		forms = append(forms, s, jsonEscaped(s), url.QueryEscape(s), url.PathEscape(s))
	}
	// Longest first, so that a secret containing another is masked whole.
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	forms = slices.Compact(forms)
	return &forms
}

// String returns text with every secret masked.
func (s *Set) String(text string) string {
	var forms []string
	if s != nil {
		if p := s.forms.Load(); p != nil {
			forms = *p
		}
	}
	return redact(text, forms)
}

// Error returns err with its message masked. The result still unwraps to
// err, so errors.Is and errors.As keep classifying it; do not log what
// errors.As digs out of it (a *url.Error holds the full URL).
func (s *Set) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := s.String(msg)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

// Transport is the text of an HTTP client error with the URL left out and
// every secret masked: Go's *url.Error repeats the whole URL, and a webhook
// URL (Slack's, a generic receiver's) is itself a secret. A timeout says so.
func (s *Set) Transport(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
		if ue.Timeout() {
			return s.String("timed out: " + err.Error())
		}
	}
	return s.String(err.Error())
}

// String masks the given secrets, and every credential shape, in s: a
// Set of them for one use.
func String(s string, secrets ...string) string {
	return New(secrets...).String(s)
}

// Error returns err with the given secrets, and every credential shape,
// removed from its message; see Set.Error.
func Error(err error, secrets ...string) error {
	return New(secrets...).Error(err)
}

// Transport is Set.Transport with the given secrets.
func Transport(err error, secrets ...string) string {
	return New(secrets...).Transport(err)
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func jsonEscaped(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // zap does not escape <, > and & either
	if err := enc.Encode(s); err != nil {
		return s
	}
	return strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(b.String(), `"`), "\n"), `"`)
}

// patterns finds what is masked even when nobody said it was secret:
//   - URLs (Go's HTTP errors quote the whole request URL, and a Slack
//     webhook URL or a signed Alibaba request carries its secret in it);
//     a backslash or quote ends one, so a URL inside a JSON string stops at
//     the escaped quote;
//   - Slack tokens (xoxb-, xoxp-, xoxe.xoxp-, xapp-);
//   - Tencent SecretIds (AKID…), Alibaba AccessKey IDs (LTAI…) and STS
//     security tokens (STS.…), Volcengine access keys (AKLT…), AWS access
//     key IDs (AKIA… long-term, ASIA… temporary: 20 upper-case
//     characters);
//   - Entra ID client secrets of the current format: 40 characters, three
//     of the secret alphabet, a version digit, "Q~", then 34 more (31 to
//     34 accepted); the "~" makes the shape rare in ordinary text. Older
//     secrets have no shape of their own and are masked where named
//     (client_secret=, AZURE_CLIENT_SECRET=, "clientSecret":), as in a
//     token request's form body;
//   - Lambda Cloud API keys (secret_<name>_<32 hex>) and RunPod API keys
//     (rpa_…);
//   - the credential after "Bearer", or after "Authorization: Basic" (a
//     bare "basic" is too common a word), and after api_key= / apikey=
//     outside a URL.
var patterns = regexp.MustCompile(
	`(?i:https?)://[^\s"'<>\\` + "`" + `]+` +
		`|\bxox[a-z](?:\.xox[a-z])?-[0-9A-Za-z-]{6,}` +
		`|\bxapp-[0-9A-Za-z-]{6,}` +
		`|\bAKID[0-9A-Za-z]{10,}` +
		`|\bLTAI[0-9A-Za-z]{10,}` +
		`|\bAKLT[0-9A-Za-z_-]{16,}` +
		`|\bSTS\.[0-9A-Za-z._=+/-]{16,}` +
		`|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b` +
		// Entra ID client secrets as the portal generates them (three
		// characters, a digit, "Q~", 31 to 34 more), and any client
		// secret where it is named (a token request's form, an
		// environment dump, a JSON field).
		`|[0-9A-Za-z_~.-]{3}[0-9]Q~[0-9A-Za-z_~.-]{31,34}` +
		`|\b(?i:azure_client_secret|client_?secret)["']?\s*[=:]\s*["']?[^\s"'&,;]{8,}` +
		`|\bsecret_[0-9A-Za-z_-]*[0-9a-fA-F]{32}\b` +
		`|\brpa_[0-9A-Za-z]{16,}` +
		`|\b(?i:bearer|authorization:\s*basic)\s+[0-9A-Za-z._~+/=-]{6,}` +
		`|\b(?i:api_?key)\s*[=:]\s*["']?[0-9A-Za-z._~+/-]{8,}` +
		// An AWS secret access key is 40 characters of base64 with no
		// prefix of its own, so it is masked where it is named (a
		// credentials file or environment dump, a JSON field); the
		// fetchers also mask the resolved value itself.
		`|\b(?i:aws_secret_access_key|secret_?access_?key|aws_session_token|session_?token)["']?\s*[=:]\s*["']?[0-9A-Za-z/+=]{16,}`)

func redact(s string, secrets []string) string {
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, Mask)
	}
	return patterns.ReplaceAllStringFunc(s, func(m string) string {
		lower := strings.ToLower(m)
		switch {
		case strings.HasPrefix(lower, "http"):
			return redactURL(m)
		case strings.HasPrefix(lower, "bearer"), strings.HasPrefix(lower, "authorization"):
			// Keep the scheme, mask the credential after the last space.
			return strings.TrimRight(m[:strings.LastIndexAny(m, " \t")+1], " \t") + " " + Mask
		case strings.HasPrefix(lower, "api"), strings.HasPrefix(lower, "client"), strings.HasPrefix(lower, "azure_client"):
			// Keep the key's name.
			return m[:strings.IndexAny(m, "=:")+1] + Mask
		default:
			return Mask
		}
	})
}

// slackHookHosts serve incoming webhooks and workflow triggers, whose path
// is the credential.
var slackHookHosts = []string{"hooks.slack.com", "hooks.slack-gov.com"}

// redactURL keeps what helps debugging (scheme, host, path) and masks what
// authenticates: user info, the query string, the fragment, and the path of
// a Slack webhook.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		// Unparseable: keep only what precedes anything that might be a
		// credential.
		if i := strings.IndexAny(raw, "?#@"); i >= 0 {
			return raw[:i] + Mask
		}
		return raw
	}
	var b strings.Builder
	b.WriteString(u.Scheme)
	b.WriteString("://")
	if u.User != nil {
		b.WriteString(Mask)
		b.WriteByte('@')
	}
	b.WriteString(u.Host)
	path := u.EscapedPath()
	if slices.Contains(slackHookHosts, strings.ToLower(u.Hostname())) {
		// Keep "/services" (or "/workflows", "/triggers") so the line still
		// says what kind of hook failed.
		if first, _, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/"); ok {
			path = "/" + first + "/" + Mask
		} else if path != "" && path != "/" {
			path = "/" + Mask
		}
	}
	b.WriteString(path)
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteString("?" + Mask)
	}
	if u.Fragment != "" {
		b.WriteString("#" + Mask)
	}
	return b.String()
}
