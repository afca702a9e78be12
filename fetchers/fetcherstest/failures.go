package fetcherstest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
)

// Failure is one bad answer a fetcher must fail the run on: a row of a
// fetcher's table test.
type Failure struct {
	Name string
	// Fail are the failure modes queued (Faults.FailNext).
	Fail []string
	// Body, when set, is served instead of the good answer.
	Body string
	// Want is what the error wraps; nil accepts any error.
	Want error
	// Requests is how many requests the run makes before it gives up.
	Requests int
}

// TransportFailures are the rows every fake answers alike (see Write),
// for a fetcher whose client makes three attempts.
func TransportFailures() []Failure {
	return []Failure{
		{Name: "throttled after retries", Fail: []string{Throttled, Throttled, Throttled}, Want: fetchers.ErrThrottled, Requests: 3},
		{Name: "server errors after retries", Fail: []string{ServerErr, ServerErr, ServerErr}, Requests: 3},
		{Name: "truncated", Fail: []string{Truncated}, Want: fetchers.ErrIncomplete, Requests: 1},
		{Name: "malformed", Fail: []string{Malformed}, Want: fetchers.ErrIncomplete, Requests: 1},
	}
}

// Check checks the run of f: no snapshot but an error wrapping f.Want,
// after f.Requests requests, that does not show secret.
func (f Failure) Check(t testing.TB, snap *pricewatch.Snapshot, err error, requests int, secret string) {
	t.Helper()
	if err == nil {
		t.Fatalf("snapshot with %d offers, want an error", len(snap.Offers))
	}
	if f.Want != nil && !errors.Is(err, f.Want) {
		t.Errorf("error %v, want %v", err, f.Want)
	}
	if requests != f.Requests {
		t.Errorf("%d requests, want %d", requests, f.Requests)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error shows the secret: %v", err)
	}
}

// Shown is everything a run showed: the error's text and every log
// line's message and fields, to check that a secret is in none of them.
func Shown(err error, logs *observer.ObservedLogs) string {
	var b strings.Builder
	if err != nil {
		b.WriteString(err.Error())
	}
	for _, e := range logs.All() {
		fmt.Fprintf(&b, "\n%s %v", e.Message, e.ContextMap())
	}
	return b.String()
}

// QuickClient is the shared HTTP client as the fetchers' tests use it:
// three attempts and back-offs that do not wait (only a context ending
// stops them), so retries are exercised without slowing the tests.
func QuickClient() *fetchers.Client {
	c := fetchers.NewClient(fetchers.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, RequestTimeout: 5 * time.Second})
	c.SetSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() })
	return c
}

// EachWanted checks got against want one to one: got must hold as many
// entries as want lists, one under each wanted key (key names it; what
// names the entries in errors), and check is called with each wanted
// entry and what got holds for it.
func EachWanted[W, G any](t testing.TB, what string, got map[string]G, want []W, key func(W) string, check func(W, G)) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d %s, want %d", len(got), what, len(want))
	}
	for _, w := range want {
		g, ok := got[key(w)]
		if !ok {
			t.Errorf("%s: no %s", key(w), what)
			continue
		}
		check(w, g)
	}
}
