package alerting

import (
	"context"
	"errors"

	"go.uber.org/zap"
)

// LogNotifier is the Notifier used when Slack is not configured: each alert
// becomes one Info line in the log (the document's plain summary) and
// counts as delivered. It reads the outbox document, never a rendering.
type LogNotifier struct {
	Log *zap.Logger
}

// Post logs the message.
func (n LogNotifier) Post(_ context.Context, channel string, payload []byte) error {
	fields := []zap.Field{zap.String("channel", channel)}
	doc, err := DecodeDocument(payload)
	switch {
	case err == nil && doc.Alert != nil:
		fields = append(fields, zap.String("text", Summary(*doc.Alert)))
	case err == nil:
		fields = append(fields, zap.String("type", doc.Type))
	case errors.Is(err, ErrNotDocument):
		// Bytes an older pricewatch rendered for Slack: logged as stored.
		fields = append(fields, zap.ByteString("payload", payload))
	default:
		return Permanent(err, ScopeMessage, "this message cannot be read by this pricewatch: see `pricewatch alerts list --failed --format json`")
	}
	n.Log.Info("alert (Slack is not configured: set slack.channel and a bot token, or slack.webhook_url)", fields...)
	return nil
}

// LogsOnly implements LogOnly: every message only reaches the log.
func (LogNotifier) LogsOnly(string) bool { return true }

// LogsOnly implements LogOnly for the notifier channel routes to.
func (r Router) LogsOnly(channel string) bool {
	lo, ok := r.pick(channel).(LogOnly)
	return ok && lo.LogsOnly(channel)
}

// Router sends each message through the notifier of its channel (the
// webhook's channel to the webhook notifier), everything else through
// Default.
type Router struct {
	Default  Notifier
	Channels map[string]Notifier
}

func (r Router) pick(channel string) Notifier {
	if n, ok := r.Channels[channel]; ok && n != nil {
		return n
	}
	return r.Default
}

// Post implements Notifier.
func (r Router) Post(ctx context.Context, channel string, payload []byte) error {
	return r.pick(channel).Post(ctx, channel, payload)
}

// PostWithAttachment implements AttachmentNotifier for the channels whose
// notifier can send files; the others get the message alone.
func (r Router) PostWithAttachment(ctx context.Context, channel string, payload, attachment []byte) error {
	n := r.pick(channel)
	if an, ok := n.(AttachmentNotifier); ok {
		return an.PostWithAttachment(ctx, channel, payload, attachment)
	}
	return n.Post(ctx, channel, payload)
}
