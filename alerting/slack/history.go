package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/pricewatch/pricewatch/alerting"
)

// Looking for an earlier post: how far before the message was queued to
// start (clock skew between this host and Slack), how many messages a page
// asks for (conversations.history allows up to 999; Slack advises 200),
// and how many pages at most, so a busy channel cannot hold a retry up.
const (
	historySkew     = time.Minute
	historyPageSize = 200
	historyPages    = 5
)

// findPosted looks in channel's history, from when the message was queued
// on, for a message whose metadata carries d's delivery key (every alert
// and digest is posted with it, see Renderer and digest.RenderSlack): a
// post whose outcome was unknown (the sender died or timed out mid-post)
// that Slack did take. conversations.history needs channels:history (and
// groups:history for a private channel); without it, or when the channel
// is a name rather than an ID, Slack refuses the lookup and the message is
// posted again: at least once, as without the lookup. Transient failures
// (rate limits, 5xx, network) are returned, so that the message waits
// rather than risks a duplicate.
func (n *Notifier) findPosted(ctx context.Context, channel string, d alerting.Delivery) (Receipt, bool, error) {
	if n.api == nil || !d.OutcomeUnknown || d.Key == "" || n.noHistory.Load() {
		return Receipt{}, false, nil
	}
	params := &slackapi.GetConversationHistoryParameters{ChannelID: channel, Limit: historyPageSize, IncludeAllMetadata: true}
	if !d.QueuedAt.IsZero() {
		params.Oldest = strconv.FormatInt(d.QueuedAt.Add(-historySkew).Unix(), 10) + ".000000"
	}
	for page := 0; page < historyPages; page++ {
		resp, err := n.api.GetConversationHistoryContext(ctx, params)
		if err != nil {
			return Receipt{}, false, n.historyError(ctx, channel, err)
		}
		for _, m := range resp.Messages {
			if key, _ := m.Metadata.EventPayload["delivery_key"].(string); key == d.Key {
				return Receipt{Channel: channel, Timestamp: m.Timestamp}, true, nil
			}
		}
		if !resp.HasMore || resp.ResponseMetaData.NextCursor == "" {
			break
		}
		params.Cursor = resp.ResponseMetaData.NextCursor
	}
	return Receipt{}, false, nil
}

// historyError decides what a failed lookup means: a Slack answer (no
// scope, not a channel ID, not in the channel) ends the lookup, and the
// message is posted; anything that may pass is returned, to retry.
func (n *Notifier) historyError(ctx context.Context, channel string, err error) error {
	var se slackapi.SlackErrorResponse
	if errors.As(err, &se) && se.Err != "ratelimited" && se.Err != "internal_error" && se.Err != "fatal_error" && se.Err != "service_unavailable" {
		if se.Err == "missing_scope" || se.Err == "not_allowed_token_type" {
			// The token cannot read history: do not ask again.
			n.noHistory.Store(true)
		}
		return nil
	}
	var sc slackapi.StatusCodeError
	if errors.As(err, &sc) && sc.Code < 500 && sc.Code != http.StatusTooManyRequests && sc.Code != http.StatusRequestTimeout {
		return nil
	}
	return fmt.Errorf("looking for an earlier post of this message (its last attempt's outcome is unknown): %w", n.classifyCall(ctx, "conversations.history", channel, err))
}
