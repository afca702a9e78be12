package digest

import (
	"encoding/json"
	"strings"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/slack"
)

var unescapeMrkdwn = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

// AlertSummary is an alert's plain one-line text: the notification line
// Slack shows for it. An outbox document is rendered for that now, as the
// Slack notifier renders it when it sends; a payload queued by an older
// pricewatch already holds the line.
func AlertSummary(payload []byte) string {
	if doc, err := alerting.DecodeDocument(payload); err == nil {
		if doc.Type == alerting.TypeDigest {
			return unescapeMrkdwn.Replace(strings.TrimPrefix(Summary(doc.Digest), "pricewatch: "))
		}
		if doc.Alert == nil {
			return ""
		}
		rendered, err := slack.Renderer{}.Render(*doc.Alert)
		if err != nil {
			return ""
		}
		payload = rendered
	}
	var p struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return ""
	}
	return unescapeMrkdwn.Replace(strings.TrimPrefix(p.Text, "pricewatch: "))
}
