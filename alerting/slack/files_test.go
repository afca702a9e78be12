package slack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/alertingtest"
	"github.com/pricewatch/pricewatch/alerting/outboxstore"
	"github.com/pricewatch/pricewatch/storage"
)

// fileSlack fakes the Web API methods a message with a file uses, in the
// shapes Slack documents: files.getUploadURLExternal (form: filename,
// length, alt_txt → upload_url, file_id), a multipart POST of the bytes to
// the upload URL, chat.postMessage, and files.completeUploadExternal (form:
// files as JSON [{id,title}], channel_id, thread_ts). Scripted answers are
// per method: an error code for ok:false, or "500" for an HTTP 500.
type fileSlack struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	script   map[string][]string
	calls    []string // method names in arrival order
	uploads  map[string][]byte
	altText  map[string]string
	posts    []message
	complete []completion
}

type message struct{ Channel, Text, Blocks string }

type completion struct {
	Files    []slackapi.FileSummary
	Channel  string
	ThreadTS string
}

func newFileSlack(t *testing.T) *fileSlack {
	f := &fileSlack{t: t, script: map[string][]string{}, uploads: map[string][]byte{}, altText: map[string]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fileSlack) apiURL() string { return f.srv.URL + "/api/" }

func (f *fileSlack) then(method string, answers ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script[method] = append(f.script[method], answers...)
}

func (f *fileSlack) serve(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	if strings.HasPrefix(r.URL.Path, "/upload/") {
		method = "upload"
	}
	f.mu.Lock()
	f.calls = append(f.calls, method)
	answer := ""
	if s := f.script[method]; len(s) > 0 {
		answer, f.script[method] = s[0], s[1:]
	}
	f.mu.Unlock()
	if answer == "500" {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	reply := func(v map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	if method == "upload" {
		file, _, err := r.FormFile("file")
		if err != nil || r.Header.Get("Authorization") != "Bearer "+testToken {
			http.Error(w, "bad upload", http.StatusBadRequest)
			return
		}
		data, _ := io.ReadAll(file)
		f.mu.Lock()
		f.uploads[strings.TrimPrefix(r.URL.Path, "/upload/")] = data
		f.mu.Unlock()
		_, _ = w.Write([]byte("OK - " + fmt.Sprint(len(data))))
		return
	}
	if err := r.ParseForm(); err != nil || r.PostFormValue("token") != testToken {
		reply(map[string]any{"ok": false, "error": "invalid_auth"})
		return
	}
	if answer != "" {
		reply(map[string]any{"ok": false, "error": answer})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch method {
	case "files.getUploadURLExternal":
		id := fmt.Sprintf("F0CHART%d", len(f.altText)+1)
		f.altText[id] = r.PostFormValue("alt_txt")
		if r.PostFormValue("filename") == "" || r.PostFormValue("length") == "" {
			reply(map[string]any{"ok": false, "error": "invalid_arguments"})
			return
		}
		reply(map[string]any{"ok": true, "upload_url": f.srv.URL + "/upload/" + id, "file_id": id})
	case "chat.postMessage":
		f.posts = append(f.posts, message{r.PostFormValue("channel"), r.PostFormValue("text"), r.PostFormValue("blocks")})
		// Slack answers with the channel's ID even when given a name.
		reply(map[string]any{"ok": true, "channel": "C0DIGEST", "ts": fmt.Sprintf("1796030220.00000%d", len(f.posts))})
	case "files.completeUploadExternal":
		var c completion
		if err := json.Unmarshal([]byte(r.PostFormValue("files")), &c.Files); err != nil {
			reply(map[string]any{"ok": false, "error": "invalid_arguments"})
			return
		}
		c.Channel, c.ThreadTS = r.PostFormValue("channel_id"), r.PostFormValue("thread_ts")
		for _, fs := range c.Files {
			if _, ok := f.uploads[fs.ID]; !ok {
				reply(map[string]any{"ok": false, "error": "file_not_found"})
				return
			}
		}
		f.complete = append(f.complete, c)
		reply(map[string]any{"ok": true, "files": c.Files})
	default:
		http.NotFound(w, r)
	}
}

func (f *fileSlack) state() (calls []string, posts []message, complete []completion) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...), append([]message(nil), f.posts...), append([]completion(nil), f.complete...)
}

var chartBytes = []byte("\x89PNG\r\n\x1a\nnot really a chart, but bytes with \x00 in them")

func digestPayload(t *testing.T) []byte {
	t.Helper()
	b, err := Marshal(Payload{
		Text:   "Weekly GPU price digest 2026-W49",
		Blocks: slackapi.Blocks{BlockSet: []slackapi.Block{Header("📊 Weekly GPU price digest · 2026-W49"), Section("*H100* cheapest on-demand 6.9800 USD")}},
		File:   &FileInfo{Name: "pricewatch-digest-2026-W49.png", Title: "Cheapest H100 and A100 per GPU-hour", AltText: "line chart"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func tokenNotifier(t *testing.T, f *fileSlack) *Notifier {
	t.Helper()
	n, err := New(Config{Token: testToken, APIURL: f.apiURL()})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The bytes go up first, then the message, then the file is shared into
// the message's thread in the channel Slack named.
func TestPostWithAttachmentOrder(t *testing.T) {
	f := newFileSlack(t)
	n := tokenNotifier(t, f)
	if err := n.PostWithAttachment(t.Context(), "#gpu-finops", digestPayload(t), chartBytes); err != nil {
		t.Fatal(err)
	}
	calls, posts, complete := f.state()
	want := []string{"files.getUploadURLExternal", "upload", "chat.postMessage", "files.completeUploadExternal"}
	if strings.Join(calls, " ") != strings.Join(want, " ") {
		t.Fatalf("calls %q, want %q", calls, want)
	}
	if len(posts) != 1 || posts[0].Text != "Weekly GPU price digest 2026-W49" || !strings.Contains(posts[0].Blocks, "cheapest on-demand") {
		t.Errorf("posts %+v", posts)
	}
	if !bytes.Equal(f.uploads["F0CHART1"], chartBytes) || f.altText["F0CHART1"] != "line chart" {
		t.Errorf("uploaded %q alt %q", f.uploads["F0CHART1"], f.altText["F0CHART1"])
	}
	if len(complete) != 1 || complete[0].Channel != "C0DIGEST" || complete[0].ThreadTS != "1796030220.000001" ||
		len(complete[0].Files) != 1 || complete[0].Files[0].ID != "F0CHART1" || complete[0].Files[0].Title != "Cheapest H100 and A100 per GPU-hour" {
		t.Errorf("completion %+v", complete)
	}
}

func TestPostWithAttachmentFailures(t *testing.T) {
	tests := []struct {
		name   string
		script map[string][]string
		// posts is how many messages Slack holds afterwards.
		posts      int
		incomplete bool
		want       expect
		says       string
	}{
		{name: "upload URL 500: retry, nothing posted", script: map[string][]string{"files.getUploadURLExternal": {"500"}},
			posts: 0, want: expect{}, says: "HTTP 500"},
		{name: "upload itself 500: retry, nothing posted", script: map[string][]string{"upload": {"500"}},
			posts: 0, want: expect{}, says: "uploading pricewatch-digest-2026-W49.png"},
		{name: "no files:write: message alone", script: map[string][]string{"files.getUploadURLExternal": {"missing_scope"}},
			posts: 1, incomplete: true, says: "files:write"},
		{name: "bad token: nothing posted", script: map[string][]string{"files.getUploadURLExternal": {"invalid_auth"}},
			posts: 0, want: expect{permanent: true, scope: alerting.ScopeAll, fix: "check the bot token"}, says: "invalid_auth"},
		{name: "message refused: retry later", script: map[string][]string{"chat.postMessage": {"500"}},
			posts: 0, want: expect{}, says: "chat.postMessage"},
		{name: "share refused after the post: delivered, incomplete", script: map[string][]string{"files.completeUploadExternal": {"not_in_channel"}},
			posts: 1, incomplete: true, says: "invite the bot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFileSlack(t)
			for m, s := range tt.script {
				f.then(m, s...)
			}
			n := tokenNotifier(t, f)
			err := n.PostWithAttachment(t.Context(), "C0DIGEST", digestPayload(t), chartBytes)
			if err == nil {
				t.Fatal("no error")
			}
			var inc *alerting.IncompleteError
			if errors.As(err, &inc) != tt.incomplete {
				t.Fatalf("%v: incomplete = %v, want %v", err, !tt.incomplete, tt.incomplete)
			}
			if !tt.incomplete {
				check(t, err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("error %q does not say %q", err, tt.says)
			}
			if strings.Contains(err.Error(), testToken) {
				t.Errorf("error shows the token: %v", err)
			}
			if _, posts, _ := f.state(); len(posts) != tt.posts {
				t.Errorf("Slack holds %d messages, want %d", len(posts), tt.posts)
			}
		})
	}
}

// Through the dispatcher: a failed upload is retried and the digest is
// posted once, with its chart.
func TestDispatcherRetriesUploadWithoutDuplicates(t *testing.T) {
	db, clk := openOutbox(t)
	f := newFileSlack(t)
	f.then("upload", "500")
	n := tokenNotifier(t, f)
	if ok, err := db.Enqueue(t.Context(), outboxDigest(t), chartBytes); err != nil || !ok {
		t.Fatalf("Enqueue = %v, %v", ok, err)
	}
	d := outboxstore.NewDispatcher(db, n, nil, alerting.DispatcherOptions{Sleep: clk.Sleep, ChannelInterval: -1})
	rep, err := d.Deliver(t.Context(), 0, false)
	if err != nil || rep.Retrying != 1 || rep.Sent != 0 {
		t.Fatalf("first delivery: %+v, %v", rep, err)
	}
	rep, err = d.Deliver(t.Context(), 0, true)
	if err != nil || rep.Sent != 1 || rep.Incomplete != 0 {
		t.Fatalf("retry: %+v, %v", rep, err)
	}
	_, posts, complete := f.state()
	if len(posts) != 1 || len(complete) != 1 {
		t.Errorf("posts %d, shared files %d; want 1 and 1", len(posts), len(complete))
	}
}

// A webhook cannot send files: the message goes alone and the dispatcher
// is told so.
func TestPostWithAttachmentWebhook(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, string(b))
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	n, err := New(Config{WebhookURL: srv.URL + "/services/T0/B0/secretpath"})
	if err != nil {
		t.Fatal(err)
	}
	err = n.PostWithAttachment(t.Context(), "", digestPayload(t), chartBytes)
	var inc *alerting.IncompleteError
	if !errors.As(err, &inc) || !strings.Contains(err.Error(), "webhook cannot upload files") {
		t.Fatalf("err = %v, want an IncompleteError about webhooks", err)
	}
	if len(got) != 1 || strings.Contains(got[0], `"file"`) || !strings.Contains(got[0], "2026-W49") {
		t.Errorf("webhook got %q", got)
	}
	if strings.Contains(err.Error(), "secretpath") {
		t.Errorf("error shows the webhook URL: %v", err)
	}
}

func openOutbox(t *testing.T) (*storage.DB, *alertingtest.Clock) {
	t.Helper()
	clk := alertingtest.NewClock(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))
	return alertingtest.OpenDB(t, "", clk), clk
}

func outboxDigest(t *testing.T) storage.OutboxMessage {
	return storage.OutboxMessage{DeliveryKey: "digest/2026-W49/C0DIGEST", Channel: "C0DIGEST", Kind: "digest", Payload: digestPayload(t)}
}
