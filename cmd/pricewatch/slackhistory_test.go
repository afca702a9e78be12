package main

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	slackapi "github.com/slack-go/slack"
)

// The test fake's conversations.history answers slack-go, the client
// pricewatch uses, as Slack does: newest first, the ts window (oldest
// exclusive), pages through next_cursor, metadata only when asked for,
// and a post only once Slack indexed it.
func TestFakeSlackHistory(t *testing.T) {
	s := newSlackAPI(t)
	at := time.Unix(1796030220, 0)
	s.now = func() time.Time { return at }
	s.indexDelay = time.Second
	api := slackapi.New(alertsToken, slackapi.OptionAPIURL(s.URL+"/a/api/"))
	ctx := context.Background()
	post := func(key string) string {
		t.Helper()
		meta := slackapi.SlackMetadata{EventType: "pricewatch_alert", EventPayload: map[string]any{"delivery_key": key, "run_id": 7}}
		_, ts, err := api.PostMessageContext(ctx, "C0ALERTS", slackapi.MsgOptionText("drop "+key, false), slackapi.MsgOptionMetadata(meta))
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	ts1 := post("run/1/C0ALERTS/r/price_drop")
	at = at.Add(time.Second)
	ts2 := post("run/2/C0ALERTS/r/price_drop")
	at = at.Add(time.Second)
	ts3 := post("run/3/C0ALERTS/r/price_drop")
	if got := s.received(); len(got) != 3 || got[0].poster != "a" || got[2].key != "run/3/C0ALERTS/r/price_drop" || got[2].ts != ts3 {
		t.Fatalf("posts %+v", got)
	}

	history := func(p slackapi.GetConversationHistoryParameters) ([]string, string) {
		t.Helper()
		p.ChannelID = "C0ALERTS"
		resp, err := api.GetConversationHistoryContext(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, m := range resp.Messages {
			key, _ := m.Metadata.EventPayload["delivery_key"].(string)
			if p.IncludeAllMetadata && (m.Metadata.EventType != "pricewatch_alert" || m.Metadata.EventPayload["run_id"] != float64(7)) {
				t.Errorf("%s: metadata %+v", m.Timestamp, m.Metadata)
			}
			keys = append(keys, m.Timestamp+" "+key)
		}
		if resp.HasMore != (resp.ResponseMetaData.NextCursor != "") {
			t.Errorf("has_more %v, next_cursor %q", resp.HasMore, resp.ResponseMetaData.NextCursor)
		}
		return keys, resp.ResponseMetaData.NextCursor
	}
	// ts3 was posted this second: Slack has not indexed it yet.
	if keys, _ := history(slackapi.GetConversationHistoryParameters{IncludeAllMetadata: true}); !slices.Equal(keys, []string{ts2 + " run/2/C0ALERTS/r/price_drop", ts1 + " run/1/C0ALERTS/r/price_drop"}) {
		t.Errorf("history before ts3 is indexed: %q", keys)
	}
	at = at.Add(2 * time.Second)
	if keys, _ := history(slackapi.GetConversationHistoryParameters{}); !slices.Equal(keys, []string{ts3 + " ", ts2 + " ", ts1 + " "}) {
		t.Errorf("history without include_all_metadata: %q, want no metadata", keys)
	}
	// oldest is exclusive, as in Slack.
	if keys, _ := history(slackapi.GetConversationHistoryParameters{Oldest: ts1, IncludeAllMetadata: true}); len(keys) != 2 {
		t.Errorf("history after ts1: %q", keys)
	}
	if keys, _ := history(slackapi.GetConversationHistoryParameters{Oldest: strconv.FormatInt(at.Unix()+60, 10) + ".000000"}); len(keys) != 0 {
		t.Errorf("history from a minute on: %q", keys)
	}
	var pages []string
	p := slackapi.GetConversationHistoryParameters{Limit: 2, IncludeAllMetadata: true}
	for range 3 {
		keys, next := history(p)
		pages = append(pages, keys...)
		if next == "" {
			break
		}
		p.Cursor = next
	}
	if len(pages) != 3 || pages[2] != ts1+" run/1/C0ALERTS/r/price_drop" {
		t.Errorf("paged history: %q", pages)
	}
	s.mu.Lock()
	lookups := s.lookups
	s.mu.Unlock()
	if lookups != 6 {
		t.Errorf("%d lookups counted, want 6", lookups)
	}
	other := slackapi.New("xoxb-wrong", slackapi.OptionAPIURL(s.URL+"/api/"))
	if _, err := other.GetConversationHistoryContext(ctx, &slackapi.GetConversationHistoryParameters{ChannelID: "C0ALERTS"}); err == nil || err.Error() != "invalid_auth" {
		t.Errorf("wrong token: %v", err)
	}
}
