package slack

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// fakeSlack speaks the part of Slack's Web API pricewatch uses:
// chat.postMessage, form-encoded with the token in the body, answering
// {"ok":true,...} or {"ok":false,"error":...} as Slack does, plus scripted
// HTTP failures. It dedupes nothing, so a duplicate post shows.
type fakeSlack struct {
	t     *testing.T
	srv   *httptest.Server
	token string

	mu       sync.Mutex
	script   []reply // next answers, one per request; then ok
	requests int
	posts    []post // accepted messages, in arrival order
	// hold, when set, keeps chat.postMessage from answering, after it
	// took the message, until it is closed: a sender killed mid-post.
	hold chan struct{}
	// historyErr answers conversations.history with this error code
	// (missing_scope: a token without channels:history).
	historyErr string
	lookups    int // conversations.history calls
}

type reply struct {
	status     int    // HTTP status; 0 means 200
	retryAfter string // Retry-After header
	err        string // Slack error code for an ok:false answer
}

type post struct {
	Channel, Text, Blocks, DeliveryKey string
	// TS and Metadata are what conversations.history returns for it.
	TS       string
	Metadata json.RawMessage
}

func newFakeSlack(t *testing.T, token string) *fakeSlack {
	f := &fakeSlack{t: t, token: token}
	mux := http.NewServeMux()
	// Serve under a path prefix, as a proxy would, so a client that
	// ignored slack.api_url's path would miss.
	mux.HandleFunc("/proxy/api/chat.postMessage", f.postMessage)
	mux.HandleFunc("/proxy/api/conversations.history", f.history)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSlack) apiURL() string { return f.srv.URL + "/proxy/api/" }

func (f *fakeSlack) then(r ...reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = append(f.script, r...)
}

func (f *fakeSlack) accepted() []post {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]post(nil), f.posts...)
}

func (f *fakeSlack) postMessage(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests++
	var rep reply
	if len(f.script) > 0 {
		rep, f.script = f.script[0], f.script[1:]
	}
	f.mu.Unlock()
	if rep.status != 0 && rep.status != http.StatusOK {
		if rep.retryAfter != "" {
			w.Header().Set("Retry-After", rep.retryAfter)
		}
		// Slack sends HTML with its 5xx pages.
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(rep.status)
		_, _ = w.Write([]byte("<html><body>" + strconv.Itoa(rep.status) + "</body></html>"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	answer := func(v any) { _ = json.NewEncoder(w).Encode(v) }
	switch {
	case r.PostFormValue("token") != f.token:
		answer(map[string]any{"ok": false, "error": "invalid_auth"})
		return
	case rep.err != "":
		answer(map[string]any{"ok": false, "error": rep.err, "response_metadata": map[string]any{"messages": []string{"[ERROR] from the fake"}}})
		return
	case r.PostFormValue("channel") == "":
		answer(map[string]any{"ok": false, "error": "channel_not_found"})
		return
	case r.PostFormValue("text") == "" && r.PostFormValue("blocks") == "":
		answer(map[string]any{"ok": false, "error": "no_text"})
		return
	}
	var meta struct {
		EventPayload struct {
			DeliveryKey string `json:"delivery_key"`
		} `json:"event_payload"`
	}
	if m := r.PostFormValue("metadata"); m != "" {
		if err := json.Unmarshal([]byte(m), &meta); err != nil {
			answer(map[string]any{"ok": false, "error": "invalid_metadata_format"})
			return
		}
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal([]byte(r.PostFormValue("blocks")), &blocks); err != nil || len(blocks) > 50 {
		answer(map[string]any{"ok": false, "error": "invalid_blocks"})
		return
	}
	f.mu.Lock()
	ts := "1796030220.0000" + strconv.Itoa(len(f.posts)+1)
	f.posts = append(f.posts, post{Channel: r.PostFormValue("channel"), Text: r.PostFormValue("text"), Blocks: r.PostFormValue("blocks"),
		DeliveryKey: meta.EventPayload.DeliveryKey, TS: ts, Metadata: json.RawMessage(r.PostFormValue("metadata"))})
	hold := f.hold
	f.mu.Unlock()
	if hold != nil {
		<-hold
	}
	answer(map[string]any{"ok": true, "channel": r.PostFormValue("channel"), "ts": ts})
}

// history answers conversations.history in the shape Slack documents
// (testdata/conversations_history.json): the channel's messages newest
// first, each with its metadata only when include_all_metadata is set.
func (f *fakeSlack) history(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	answer := func(v any) { _ = json.NewEncoder(w).Encode(v) }
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups++
	switch {
	case r.PostFormValue("token") != f.token:
		answer(map[string]any{"ok": false, "error": "invalid_auth"})
		return
	case f.historyErr != "":
		answer(map[string]any{"ok": false, "error": f.historyErr, "needed": "channels:history,groups:history,mpim:history,im:history", "provided": "chat:write"})
		return
	}
	msgs := []map[string]any{}
	for i := len(f.posts) - 1; i >= 0; i-- {
		p := f.posts[i]
		if p.Channel != r.PostFormValue("channel") {
			continue
		}
		m := map[string]any{"type": "message", "subtype": "bot_message", "text": p.Text, "ts": p.TS, "bot_id": "B0PRICEWATCH", "app_id": "A0PRICEWATCH"}
		if r.PostFormValue("include_all_metadata") == "1" && len(p.Metadata) > 0 {
			m["metadata"] = p.Metadata
		}
		msgs = append(msgs, m)
	}
	answer(map[string]any{"ok": true, "messages": msgs, "has_more": false, "pin_count": 0, "channel_actions_ts": nil, "channel_actions_count": 0,
		"response_metadata": map[string]any{"next_cursor": ""}})
}
