// Package webhook is the generic webhook notifier: each alert is POSTed as
// JSON — the outbox document (the event data) plus a plain-text summary —
// to one configured URL, optionally signed with HMAC-SHA256, so any
// receiver (an incident tool, a chat bridge, a script) gets pricewatch's
// alerts without speaking Slack. It implements alerting.Notifier; the
// dispatcher gives it the same ordering, retries and back-off as Slack.
//
// The body, the headers and what is signed are documented in README.md
// (Alerts → Webhook).
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/secret"
)

// Headers the notifier sets.
const (
	// SignatureHeader carries "sha256=" and the hex HMAC-SHA256, keyed with
	// the webhook secret, of TimestampHeader's value, a ".", and the body
	// bytes exactly as sent.
	SignatureHeader = "X-Pricewatch-Signature"
	// TimestampHeader is when the request was signed, in Unix seconds; a
	// receiver should refuse one far from its own clock (a replay).
	TimestampHeader = "X-Pricewatch-Timestamp"
	// DeliveryHeader is the message's outbox delivery key: the same on every
	// retry of one message, so a receiver can drop the duplicates that
	// at-least-once delivery can produce.
	DeliveryHeader = "X-Pricewatch-Delivery"
)

// Config says where to post.
type Config struct {
	// URL is a secret: it never appears in errors.
	URL string
	// Secret keys the signature; empty sends unsigned requests.
	Secret []byte
	// HTTPClient defaults to one with a 30 s timeout.
	HTTPClient *http.Client
	// Now is the signing clock (default time.Now).
	Now func() time.Time
}

// Notifier posts outbox documents to the webhook.
type Notifier struct {
	url string
	key []byte
	hc  *http.Client
	now func() time.Time
	// secrets are the URL, its parts and the signing key: none may leak
	// into an error.
	secrets *secret.Set
}

// New returns a notifier for cfg.
func New(cfg Config) (*Notifier, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, errors.New("webhook.url is not an http(s) URL")
	}
	n := &Notifier{url: cfg.URL, key: cfg.Secret, hc: cfg.HTTPClient, now: cfg.Now, secrets: secret.New(cfg.URL, string(cfg.Secret))}
	if len(u.Path) > 1 {
		n.secrets.Add(u.Path)
	}
	if u.RawQuery != "" {
		n.secrets.Add(u.RawQuery)
	}
	// A redirect off the URL's origin would re-send the signed alert
	// elsewhere (a 307 repeats the POST): refused, as a failed delivery.
	n.hc = alerting.HTTPClient(n.hc, 30*time.Second)
	if n.now == nil {
		n.now = time.Now
	}
	return n, nil
}

// Body is what the webhook receives.
type Body struct {
	// Version and Type are the outbox document's (alerting.DocumentVersion).
	Version int    `json:"version"`
	Type    string `json:"type"`
	// Summary is a plain-text line for humans.
	Summary string `json:"summary"`
	// Alert is the document's alert (type "alert"): the rule, the run and
	// each change with its figures, exactly as queued.
	Alert json.RawMessage `json:"alert,omitempty"`
	// Digest is the digest's data (type "digest").
	Digest json.RawMessage `json:"digest,omitempty"`
}

const fix = "this is a pricewatch bug: report it with the output of `pricewatch alerts list --failed --format json`"

// body builds the request body from a stored message.
func body(stored []byte) ([]byte, error) {
	doc, err := alerting.DecodeDocument(stored)
	if err != nil {
		// Bytes rendered for Slack by an older build never routed here
		// (the webhook is newer than the document); refuse them.
		return nil, alerting.Permanent(fmt.Errorf("webhook: %w", err), alerting.ScopeMessage, fix)
	}
	var w struct {
		Alert  json.RawMessage `json:"alert"`
		Digest json.RawMessage `json:"digest"`
	}
	enc, err := doc.MarshalJSON()
	if err == nil {
		err = json.Unmarshal(enc, &w)
	}
	if err != nil {
		return nil, alerting.Permanent(fmt.Errorf("webhook: encoding the message: %v", err), alerting.ScopeMessage, fix)
	}
	b := Body{Version: doc.Version, Type: doc.Type, Alert: w.Alert, Digest: w.Digest}
	switch {
	case doc.Alert != nil:
		b.Summary = alerting.Summary(*doc.Alert)
	case doc.Type == alerting.TypeDigest:
		b.Summary = "pricewatch: weekly digest"
	}
	out, err := alerting.EncodeJSON(b)
	if err != nil {
		return nil, alerting.Permanent(fmt.Errorf("webhook: encoding the body: %v", err), alerting.ScopeMessage, fix)
	}
	return out, nil
}

// Sign returns the SignatureHeader value for a body sent at timestamp
// (Unix seconds, as in TimestampHeader). Receivers compute the same and
// compare in constant time (hmac.Equal).
func Sign(secret []byte, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(timestamp))
	m.Write([]byte("."))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Post implements alerting.Notifier. 2xx is delivered; 429 waits for
// Retry-After; 408, 5xx and network errors are retried with back-off (an
// outage delays, never drops); other 4xx are permanent: 400, 413 and 422
// for this message, 401, 403, 404 and 410 for the webhook as a whole.
func (n *Notifier) Post(ctx context.Context, channel string, payload []byte) error {
	b, err := body(payload)
	if err != nil {
		return err
	}
	delivery := ""
	if doc, err := alerting.DecodeDocument(payload); err == nil && doc.Alert != nil {
		delivery = doc.Alert.Key
	}
	return n.send(ctx, b, delivery)
}

// TypeTest is the body type of `pricewatch alerts test --channel webhook`:
// a Body with a summary and neither alert nor digest.
const TypeTest = "test"

// PostTest posts a test message (TypeTest), signed and classified as
// alerts are, so that `alerts test` shows what the receiver says.
func (n *Notifier) PostTest(ctx context.Context, at time.Time, version string) error {
	b, err := alerting.EncodeJSON(Body{Version: alerting.DocumentVersion, Type: TypeTest,
		Summary: fmt.Sprintf("pricewatch test message (pricewatch %s, sent %s): alerts reach this webhook.", version, at.UTC().Format(time.RFC3339))})
	if err != nil {
		return fmt.Errorf("webhook: encoding the test message: %w", err)
	}
	return n.send(ctx, b, "test/"+strconv.FormatInt(at.Unix(), 10))
}

// send posts one body with its delivery key and classifies the answer.
func (n *Notifier) send(ctx context.Context, b []byte, delivery string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.url, bytes.NewReader(b))
	if err != nil {
		return alerting.Permanent(errors.New("webhook: building the request: "+n.describe(err)), alerting.ScopeAll, "check webhook.url")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "pricewatch-webhook/1")
	if delivery != "" {
		req.Header.Set(DeliveryHeader, delivery)
	}
	if len(n.key) > 0 {
		ts := strconv.FormatInt(n.now().Unix(), 10)
		req.Header.Set(TimestampHeader, ts)
		req.Header.Set(SignatureHeader, Sign(n.key, ts, b))
	}
	resp, err := n.hc.Do(req)
	if err != nil {
		if rerr, ok := alerting.RedirectFailure(err, "posting to the webhook", "webhook.url"); ok {
			return n.secrets.Error(rerr)
		}
		return alerting.TransportError(ctx, "posting to the webhook", err, n.secrets)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	code := resp.StatusCode
	e := fmt.Errorf("webhook answered HTTP %d", code)
	switch {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusTooManyRequests:
		wait := alerting.RetryAfterHeader(resp.Header)
		return alerting.RetryAfter(fmt.Errorf("webhook: rate limit (HTTP 429), retry after %s", wait), wait)
	case code >= 500 || code == http.StatusRequestTimeout:
		return e
	case code == http.StatusBadRequest || code == http.StatusRequestEntityTooLarge || code == http.StatusUnprocessableEntity:
		return alerting.Permanent(e, alerting.ScopeMessage, "the webhook receiver refused this message's body: check what it accepts (README: Webhook)")
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return alerting.Permanent(e, alerting.ScopeAll, "the webhook receiver refused pricewatch: check webhook.url and webhook.secret_file (the signature it checks)")
	}
	return alerting.Permanent(e, alerting.ScopeAll, "check webhook.url: the receiver is not there")
}

// describe turns a transport error into text without the URL, which is a
// secret.
func (n *Notifier) describe(err error) string { return n.secrets.Transport(err) }

// String keeps the URL out of any %v of a Notifier.
func (n *Notifier) String() string { return "webhook.Notifier" }

// GoString does the same for %#v.
func (n *Notifier) GoString() string { return n.String() }

// String keeps the URL and the secret out of any %v of a Config.
func (c Config) String() string {
	return fmt.Sprintf("webhook.Config{url set: %t, signed: %t}", c.URL != "", len(c.Secret) > 0)
}

// GoString does the same for %#v.
func (c Config) GoString() string { return c.String() }
