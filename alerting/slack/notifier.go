package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/secret"
)

// DefaultAPIURL is Slack's Web API base.
const DefaultAPIURL = "https://slack.com/api/"

// Config says how to reach Slack. With a Token messages go through
// chat.postMessage to any channel the bot is in; without one, through the
// WebhookURL to the webhook's fixed channel.
type Config struct {
	// Token and WebhookURL are secrets: they never appear in errors.
	Token      string
	WebhookURL string
	// APIURL overrides Slack's Web API base (tests, proxies).
	APIURL string
	// HTTPClient defaults to one with a 30 s timeout.
	HTTPClient *http.Client
	// Renderer renders alert documents when they are sent (default
	// Renderer{}).
	Renderer alerting.Renderer
	// Digest renders a digest document's data as Block Kit when it is sent;
	// webhook says the message goes through an incoming webhook (which
	// cannot upload the chart) and chart whether the chart is stored with
	// it. Without it a queued digest document fails as unreadable.
	Digest func(data []byte, webhook, chart bool) ([]byte, error)
}

// Notifier posts messages to Slack. It implements alerting.Notifier.
// Neither the token nor the webhook URL ever appears in its errors.
type Notifier struct {
	api      *slackapi.Client
	webhook  string
	hc       *http.Client
	secrets  *secret.Set // the token or the webhook URL, in its forms
	renderer alerting.Renderer
	digest   func(data []byte, webhook, chart bool) ([]byte, error)
	// noHistory: Slack refused conversations.history for want of a scope;
	// retries of unknown outcome are posted without looking (findPosted).
	noHistory atomic.Bool
}

// New returns a notifier for cfg; it needs a token or a webhook URL.
func New(cfg Config) (*Notifier, error) {
	// A redirect off Slack's origin would re-send the bot token (in a
	// 307's repeated form body) or the message elsewhere: refused, as a
	// failed delivery. Slack's upload URL is a request of its own, so it
	// is its own origin.
	hc := alerting.HTTPClient(cfg.HTTPClient, 30*time.Second)
	n := &Notifier{hc: hc, renderer: cfg.Renderer, digest: cfg.Digest}
	if n.renderer == nil {
		n.renderer = Renderer{}
	}
	switch {
	case cfg.Token != "":
		base := cfg.APIURL
		if base == "" {
			base = DefaultAPIURL
		}
		if u, err := url.Parse(base); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("slack.api_url %q is not an http(s) URL", base)
		}
		if !strings.HasSuffix(base, "/") {
			base += "/"
		}
		n.api = slackapi.New(cfg.Token, slackapi.OptionAPIURL(base), slackapi.OptionHTTPClient(hc))
		n.secrets = secret.New(cfg.Token)
	case cfg.WebhookURL != "":
		u, err := url.Parse(cfg.WebhookURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("slack.webhook_url is not an http(s) URL")
		}
		n.webhook = cfg.WebhookURL
		n.secrets = secret.New(n.webhook)
		if len(u.Path) > 1 {
			n.secrets.Add(u.Path, url.PathEscape(u.Path))
		}
	default:
		return nil, fmt.Errorf("slack: no bot token and no webhook URL configured")
	}
	return n, nil
}

// Mode says which path the notifier uses, for logs and `alerts test`.
func (n *Notifier) Mode() string {
	if n.api != nil {
		return "bot token (chat.postMessage)"
	}
	return "incoming webhook"
}

// Receipt is Slack's answer to an accepted message. A webhook returns
// neither channel nor timestamp.
type Receipt struct {
	Channel   string
	Timestamp string
}

// Post implements alerting.Notifier.
func (n *Notifier) Post(ctx context.Context, channel string, payload []byte) error {
	_, err := n.Send(ctx, channel, payload)
	return err
}

// bugFix is the fix for a stored message this build cannot read.
const bugFix = "this is a pricewatch bug: report it with the output of `pricewatch alerts list --failed --format json`"

// payload turns a stored message into what Slack is sent. An outbox
// document is rendered now, with this build's templates, so a message
// queued before a template fix goes out fixed; bytes queued by a pricewatch
// older than the document (already Block Kit) are sent as they are.
// attachment says whether a file is stored with the message.
func (n *Notifier) payload(stored []byte, attachment bool) (Payload, error) {
	raw := stored
	doc, err := alerting.DecodeDocument(stored)
	switch {
	case errors.Is(err, alerting.ErrNotDocument):
		// Legacy: rendered when it was queued.
	case err != nil:
		return Payload{}, alerting.Permanent(err, alerting.ScopeMessage, bugFix)
	case doc.Alert != nil:
		if raw, err = n.renderer.Render(*doc.Alert); err != nil {
			return Payload{}, alerting.Permanent(fmt.Errorf("rendering the %s alert of rule %s: %v", doc.Alert.Event, doc.Alert.Rule, err), alerting.ScopeMessage, bugFix)
		}
	case doc.Type == alerting.TypeDigest && n.digest != nil:
		if raw, err = n.digest(doc.Digest, n.api == nil, attachment); err != nil {
			return Payload{}, alerting.Permanent(fmt.Errorf("rendering the digest: %v", err), alerting.ScopeMessage, bugFix)
		}
	default:
		return Payload{}, alerting.Permanent(fmt.Errorf("a %s document: this notifier has no renderer for it", doc.Type), alerting.ScopeMessage, bugFix)
	}
	var p Payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return Payload{}, alerting.Permanent(fmt.Errorf("stored message is not a Slack payload: %v", err), alerting.ScopeMessage, bugFix)
	}
	return p, nil
}

// Send posts a stored message (an outbox document, rendered now, or a
// payload an older build rendered) and returns Slack's receipt. Errors are
// classified for the dispatcher: rate limits carry Retry-After, auth,
// channel and payload errors are permanent, everything else (5xx, network)
// is worth retrying.
func (n *Notifier) Send(ctx context.Context, channel string, payload []byte) (Receipt, error) {
	p, err := n.payload(payload, false)
	if err != nil {
		return Receipt{}, err
	}
	return n.send(ctx, channel, p)
}

func (n *Notifier) send(ctx context.Context, channel string, p Payload) (Receipt, error) {
	if n.api != nil {
		r, err := n.postAPI(ctx, channel, p)
		return r, n.secrets.Error(err)
	}
	return Receipt{}, n.secrets.Error(n.postWebhook(ctx, p))
}

func (n *Notifier) postAPI(ctx context.Context, channel string, p Payload) (Receipt, error) {
	if channel == "" {
		return Receipt{}, alerting.Permanent(errors.New("chat.postMessage: no channel"), alerting.ScopeChannel,
			"set slack.channel, or a channel on the alert rule")
	}
	if d, ok := alerting.DeliveryOf(ctx); ok {
		if rcpt, found, err := n.findPosted(ctx, channel, d); err != nil || found {
			return rcpt, err
		}
	}
	opts := []slackapi.MsgOption{slackapi.MsgOptionText(p.Text, false), slackapi.MsgOptionBlocks(p.Blocks.BlockSet...)}
	if p.Meta != nil {
		opts = append(opts, slackapi.MsgOptionMetadata(*p.Meta))
	}
	ch, ts, err := n.api.PostMessageContext(ctx, channel, opts...)
	if err != nil {
		return Receipt{}, n.classifyAPI(ctx, channel, err)
	}
	return Receipt{Channel: ch, Timestamp: ts}, nil
}

// fixes for Slack's error codes that resending cannot cure (the codes are
// chat.postMessage's, docs.slack.dev/reference/methods/chat.postMessage).
var (
	authFix    = "check the bot token (PRICEWATCH_SLACK_TOKEN, slack.token or slack.token_file): it must be the Bot User OAuth Token (xoxb-…) of an app installed in the workspace"
	revokedFix = "the token was revoked or the app uninstalled: reinstall the Slack app and update the token"
	scopeFix   = "give the Slack app the chat:write scope (OAuth & Permissions), reinstall it and update the token"
	// filesScopeFix replaces scopeFix for the file upload methods.
	filesScopeFix = "give the Slack app the files:write scope (OAuth & Permissions), reinstall it and update the token"
	payloadFix    = "Slack rejected this message's content; this is a pricewatch bug: report it with the output of `pricewatch alerts list --failed --format json`"
	// permanentOf is the scope and fix (%s is the channel) of each error
	// code, each fix said once with the codes it answers.
	permanentOf = codesOf([]permanentCodes{
		{alerting.ScopeAll, authFix, []string{"invalid_auth", "not_authed", "not_allowed_token_type"}},
		{alerting.ScopeAll, revokedFix, []string{"token_revoked", "token_expired", "account_inactive"}},
		{alerting.ScopeAll, "the token's app has no access to this workspace: install the app there", []string{"team_access_not_granted"}},
		{alerting.ScopeAll, scopeFix, []string{"no_permission", "missing_scope"}},
		{alerting.ScopeAll, "the workspace's Enterprise Key Management blocks the app: ask a Slack admin", []string{"ekm_access_denied"}},
		{alerting.ScopeAll, "Slack denied the app access: ask a Slack admin", []string{"access_denied"}},
		{alerting.ScopeChannel, "channel %s was not found: use the channel ID (C0123…, from the channel's details) or an exact public channel name; for a private channel invite the bot first", []string{"channel_not_found"}},
		{alerting.ScopeChannel, "invite the bot to %s (type /invite @your-bot in the channel), or give the app the chat:write.public scope", []string{"not_in_channel"}},
		{alerting.ScopeChannel, "channel %s is archived: unarchive it or route the rule to another channel", []string{"is_archived"}},
		{alerting.ScopeChannel, "the workspace does not let the bot post in %s: ask a Slack admin or pick another channel", []string{"restricted_action"}},
		{alerting.ScopeChannel, "channel %s is read-only: pick another channel", []string{"restricted_action_read_only_channel"}},
		{alerting.ScopeChannel, "channel %s only takes thread replies: pick another channel", []string{"restricted_action_thread_only_channel"}},
		{alerting.ScopeChannel, "the workspace does not let the bot post in %s: pick another channel", []string{"restricted_action_non_threadable_channel"}},
		{alerting.ScopeMessage, payloadFix, []string{"invalid_blocks", "invalid_blocks_format", "msg_too_long", "msg_blocks_too_long", "no_text", "too_many_attachments", "invalid_metadata_format", "invalid_metadata_schema", "metadata_too_large", "invalid_arguments"}},
	})
)

// permanentCodes are the Web API error codes that one fix answers.
type permanentCodes struct {
	scope alerting.Scope
	fix   string
	codes []string
}

type permanent struct {
	scope alerting.Scope
	fix   string
}

func codesOf(groups []permanentCodes) map[string]permanent {
	out := map[string]permanent{}
	for _, g := range groups {
		for _, c := range g.codes {
			out[c] = permanent{g.scope, g.fix}
		}
	}
	return out
}

func (n *Notifier) classifyAPI(ctx context.Context, channel string, err error) error {
	return n.classifyCall(ctx, "chat.postMessage", channel, err)
}

// classifyCall classifies the error of one Web API method call.
func (n *Notifier) classifyCall(ctx context.Context, method, channel string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s to %s: %w", method, channel, ctx.Err())
	}
	if rerr, ok := alerting.RedirectFailure(err, method+" to "+channel, "slack.api_url (and any proxy)"); ok {
		return rerr
	}
	var rl *slackapi.RateLimitedError
	if errors.As(err, &rl) {
		return alerting.RetryAfter(fmt.Errorf("%s to %s: Slack rate limit (HTTP 429), retry after %s", method, channel, rl.RetryAfter), rl.RetryAfter)
	}
	var sc slackapi.StatusCodeError
	if errors.As(err, &sc) {
		e := fmt.Errorf("%s to %s: Slack answered HTTP %d", method, channel, sc.Code)
		if sc.Code >= 500 || sc.Code == http.StatusTooManyRequests || sc.Code == http.StatusRequestTimeout {
			return e
		}
		return alerting.Permanent(e, alerting.ScopeAll, "check slack.api_url (and any proxy): it must be Slack's Web API base, https://slack.com/api/")
	}
	var se slackapi.SlackErrorResponse
	if errors.As(err, &se) {
		code := se.Err
		msg := fmt.Sprintf("%s to %s: Slack said %s", method, channel, code)
		if len(se.ResponseMetadata.Messages) > 0 {
			msg += " (" + strings.Join(se.ResponseMetadata.Messages, "; ") + ")"
		}
		if se.Needed != "" {
			msg += fmt.Sprintf(" (needed scope %s)", se.Needed)
		}
		e := errors.New(n.scrub(msg))
		if code == "ratelimited" {
			return alerting.RetryAfter(e, 30*time.Second)
		}
		if p, ok := permanentOf[code]; ok {
			fix := p.fix
			if strings.HasPrefix(method, "files.") && fix == scopeFix {
				fix = filesScopeFix
			}
			if strings.Contains(fix, "%s") {
				fix = fmt.Sprintf(fix, channel)
			}
			return alerting.Permanent(e, p.scope, fix)
		}
		// internal_error, fatal_error, service_unavailable and codes this
		// version does not know: retry with back-off, never drop.
		return e
	}
	e := fmt.Errorf("%s to %s: %s", method, channel, n.describe(err))
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		// The HTTP client's own error: Slack never answered.
		return alerting.NoAnswer(e)
	}
	return e
}

// webhookBody is what an incoming webhook accepts.
type webhookBody struct {
	Text   string          `json:"text"`
	Blocks slackapi.Blocks `json:"blocks"`
}

func (n *Notifier) postWebhook(ctx context.Context, p Payload) error {
	body, err := json.Marshal(webhookBody{Text: p.Text, Blocks: p.Blocks})
	if err != nil {
		return alerting.Permanent(fmt.Errorf("encoding webhook message: %v", err), alerting.ScopeMessage, payloadFix)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.webhook, bytes.NewReader(body))
	if err != nil {
		return alerting.Permanent(errors.New("building webhook request: "+n.describe(err)), alerting.ScopeAll, "check slack.webhook_url")
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := n.hc.Do(req)
	if err != nil {
		if rerr, ok := alerting.RedirectFailure(err, "posting to the Slack webhook", "slack.webhook_url"); ok {
			return rerr
		}
		return alerting.TransportError(ctx, "posting to the Slack webhook", err, n.secrets)
	}
	defer resp.Body.Close()
	// Slack answers a webhook in plain text: "ok", or an error code such as
	// invalid_blocks or no_service.
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	code := errorCode(string(raw))
	said := ""
	if code != "" {
		said = " (" + code + ")"
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests:
		wait := alerting.RetryAfterHeader(resp.Header)
		return alerting.RetryAfter(fmt.Errorf("slack webhook: rate limit (HTTP 429), retry after %s", wait), wait)
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusRequestTimeout:
		return fmt.Errorf("slack webhook answered HTTP %d%s", resp.StatusCode, said)
	}
	e := fmt.Errorf("slack webhook answered HTTP %d%s", resp.StatusCode, said)
	switch {
	case resp.StatusCode == http.StatusBadRequest:
		return alerting.Permanent(e, alerting.ScopeMessage, payloadFix)
	case code == "channel_is_archived":
		return alerting.Permanent(e, alerting.ScopeAll, "the webhook's channel is archived: unarchive it, or create a webhook for another channel and update slack.webhook_url")
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusGone:
		return alerting.Permanent(e, alerting.ScopeAll, "the incoming webhook was revoked or its app removed: create a new webhook and update slack.webhook_url")
	}
	return alerting.Permanent(e, alerting.ScopeAll, "check slack.webhook_url")
}

// errorCode keeps a webhook's plain-text answer only when it looks like a
// Slack error code, so nothing unexpected (an HTML page) lands in the log.
func errorCode(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return ""
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '_' {
			return ""
		}
	}
	return s
}

// describe turns a transport error into text without the URL (which may
// be the secret webhook URL).
func (n *Notifier) describe(err error) string { return n.secrets.Transport(err) }

// scrub removes every configured secret, and every credential shape, from
// s.
func (n *Notifier) scrub(s string) string { return n.secrets.String(s) }

// String keeps the token and webhook URL out of any %v of a Notifier.
func (n *Notifier) String() string { return "slack.Notifier(" + n.Mode() + ")" }

// GoString does the same for %#v.
func (n *Notifier) GoString() string { return n.String() }

// String keeps the token and webhook URL out of any %v of a Config.
func (c Config) String() string {
	return fmt.Sprintf("slack.Config{token set: %t, webhook set: %t, api_url: %q}", c.Token != "", c.WebhookURL != "", c.APIURL)
}

// GoString does the same for %#v.
func (c Config) GoString() string { return c.String() }
