package alerting

import (
	"context"
	"encoding/json"
	"strings"

	"go.uber.org/zap"
)

var unescape = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

// LogNotifier is the Notifier used when Slack is not configured: each alert
// becomes one Info line in the log (the payload's "text" summary) and
// counts as delivered.
type LogNotifier struct {
	Log *zap.Logger
}

// Post logs the message.
func (n LogNotifier) Post(_ context.Context, channel string, payload []byte) error {
	var p struct {
		Text string `json:"text"`
	}
	fields := []zap.Field{zap.String("channel", channel)}
	if err := json.Unmarshal(payload, &p); err == nil && p.Text != "" {
		// The summary is escaped for Slack's mrkdwn; a log wants it plain.
		fields = append(fields, zap.String("text", unescape.Replace(p.Text)))
	} else {
		fields = append(fields, zap.ByteString("payload", payload))
	}
	n.Log.Info("alert (Slack is not configured: set slack.channel and a bot token, or slack.webhook_url)", fields...)
	return nil
}
