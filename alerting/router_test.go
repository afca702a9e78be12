package alerting

import (
	"context"
	"testing"
)

type recorder struct {
	name  string
	calls *[]string
}

func (r recorder) Post(_ context.Context, channel string, _ []byte) error {
	*r.calls = append(*r.calls, r.name+" post "+channel)
	return nil
}

type fileRecorder struct{ recorder }

func (r fileRecorder) PostWithAttachment(_ context.Context, channel string, _, _ []byte) error {
	*r.calls = append(*r.calls, r.name+" post+file "+channel)
	return nil
}

// TestRouterSendsEachChannelToItsNotifier: the webhook's outbox channel
// goes to the webhook notifier, every other channel to Slack; a file goes
// only to a notifier that can send one.
func TestRouterSendsEachChannelToItsNotifier(t *testing.T) {
	var calls []string
	r := Router{Default: fileRecorder{recorder{"slack", &calls}}, Channels: map[string]Notifier{WebhookChannel: recorder{"webhook", &calls}}}
	ctx := t.Context()
	for _, step := range []func() error{
		func() error { return r.Post(ctx, "C0PRICES", nil) },
		func() error { return r.Post(ctx, WebhookChannel, nil) },
		func() error { return r.PostWithAttachment(ctx, "C0DIGEST", nil, []byte("png")) },
		func() error { return r.PostWithAttachment(ctx, WebhookChannel, nil, []byte("png")) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"slack post C0PRICES", "webhook post webhook", "slack post+file C0DIGEST", "webhook post webhook"}
	if len(calls) != len(want) {
		t.Fatalf("calls %q, want %q", calls, want)
	}
	for i := range want {
		if calls[i] != want[i] {
			t.Errorf("call %d: %q, want %q", i, calls[i], want[i])
		}
	}
}
