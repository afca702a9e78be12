package fetcherstest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// Check names one check of Conformance that needs the case's help, and
// that a case may say its API lacks (Case.Lacks).
type Check string

// The checks a case may lack. Every other check (a truncated body, a 429
// with Retry-After, a 5xx then success, a redirect to another origin, a
// cancelled context, no secret shown) runs through the suite's own
// transport and no API can lack it.
const (
	// NoKey: built without credentials, the provider is skipped
	// (fetchers.ErrNoCredentials). A keyless API lacks it.
	NoKey Check = "no key"
	// RefusedKey: a key the cloud refuses fails with fetchers.ErrAuth. A
	// keyless API lacks it.
	RefusedKey Check = "refused key"
	// RepeatedPage: a page token handed out twice fails with
	// fetchers.ErrIncomplete (Case.RepeatPage). An API answering in one
	// document lacks it.
	RepeatedPage Check = "repeated page token"
	// EmptyAnswer: an answer listing nothing, after a run that listed
	// offers (the fetcher is handed that run's Versions and State), fails
	// with fetchers.ErrIncomplete (Case.Empty).
	EmptyAnswer Check = "empty answer"
	// MalformedRow: one malformed row among good ones is left out, the
	// rest stored (or, where the fetcher defers the row's whole scope,
	// that scope left out of the coverage, so that nothing is closed),
	// and the log counts or names it: a line the complete run did not
	// write (Case.Malformed).
	MalformedRow Check = "malformed row"
	// Redirect: a redirect to another origin is refused
	// (fetchers.ErrForeignOrigin). Only a case sending outside HTTP
	// (Case.Protocol) may lack it: gRPC has no redirects.
	Redirect Check = "redirect to another origin"
)

// Case is what a fetcher's test fills in to run Conformance: how to start
// its fake cloud (F is the fake's type), the credential the fake accepts
// and how to build the fetcher against it, plus the fake's hooks for the
// checks only the cloud's own format can express.
type Case[F any] struct {
	// Provider is the registered name (fetchers.Provider.Name); the
	// fetcher must report it and put it on every record.
	Provider string
	// Key is the credential the fake accepts; it must show in no error or
	// log line. A cloud with several credentials derives them all from
	// it (an access key ID and its secret), or uses it as the secret.
	Key string
	// Refused is a credential the fake refuses; empty: Key with "-refused"
	// appended.
	Refused string
	// Secrets are further credentials that must show nowhere (the secret
	// half of a pair whose other half is Key).
	Secrets []string
	// Now is the fetcher's clock (Env.Now); zero: 2026-06-01 UTC.
	Now time.Time
	// Fake starts the fake cloud, answering everything a complete run
	// reads, to Key.
	Fake func(t *testing.T) F
	// New builds the fetcher against fake with h.Key (empty: no
	// credential at all), sending every request through h.Env.Client (a
	// fetcher with an HTTP client of its own sends through h.Transport
	// and waits with h.Sleep). An error is the constructor's: wrapping
	// fetchers.ErrNoCredentials when h.Key is empty is one.
	New func(t *testing.T, fake F, h Harness) (fetchers.Fetcher, error)
	// RepeatPage makes the fake hand out, on a later page, a page token
	// it handed out before (see RepeatedPage).
	RepeatPage func(t *testing.T, fake F)
	// Empty makes the fake answer, where it lists what is sold, a
	// well-formed list of nothing (see EmptyAnswer).
	Empty func(t *testing.T, fake F)
	// Malformed spoils one row among good ones and returns which offers
	// it spoils (InstanceType for one type's): those must be left out,
	// every other offer of the complete run stored (see MalformedRow).
	Malformed func(t *testing.T, fake F) (spoiled func(pricewatch.Offer) bool)
	// Protocol, for a fetcher that does not send through Env.Client (a
	// gRPC client: its HTTP/2 transport is the library's own), names the
	// protocol it speaks. The case's New then puts Harness.Call in front
	// of every call the fetcher sends (a client interceptor) and answers
	// each call as the Fault it returns says, in that protocol; checks
	// the protocol cannot have are said in Lacks.
	Protocol string
	// Lacks says, for each check the API cannot have, why: "answers in
	// one document, no page tokens". A check neither filled in nor
	// explained fails the suite.
	Lacks map[Check]string
}

// Harness is what Case.New builds a fetcher with.
type Harness struct {
	// Env is the program's side: Client sends through the suite's faults
	// and records back-off waits instead of waiting, Log records every
	// line, Now is the case's clock, AddSecrets is set.
	Env fetchers.Env
	// Key is the credential to build with: Case.Key, Case.Refused, or ""
	// for none.
	Key string
	// Transport is Env.Client's transport and Sleep its wait, for a
	// fetcher sending through an HTTP client of its own.
	Transport http.RoundTripper
	Sleep     func(ctx context.Context, d time.Duration) error
	tr        *transport
}

// Call, for a case sending outside HTTP (Case.Protocol), counts one call
// the fetcher sends (method and its encoded request tell a retry from a
// first try) and returns the fault to answer it with, and for
// FaultThrottle the wait to ask for; NoFault: send it as it is.
func (h Harness) Call(method string, request []byte) (Fault, time.Duration) {
	return h.tr.decide(method + " " + string(request)), retryAfter
}

// KeyFile writes h.Key into a credential file and returns its path, for
// a case built through its Provider's section (api_key_file); "" when
// h.Key is empty.
func (h Harness) KeyFile(t testing.TB) string {
	t.Helper()
	if h.Key == "" {
		return ""
	}
	return CredentialFiles(t, map[string]string{"key": h.Key}) + "/key"
}

// Conformance runs the checks every fetcher must pass (see the Check
// constants and docs/testing.md) against c's fake. Each check is a
// subtest with a fresh fake and fetcher.
func Conformance[F any](t *testing.T, c Case[F]) {
	t.Helper()
	if c.Refused == "" {
		c.Refused = c.Key + "-refused"
	}
	if c.Now.IsZero() {
		c.Now = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	}
	for check, hook := range map[Check]bool{NoKey: true, RefusedKey: true, RepeatedPage: c.RepeatPage != nil,
		EmptyAnswer: c.Empty != nil, MalformedRow: c.Malformed != nil} {
		why, lacks := c.Lacks[check]
		switch {
		case lacks && strings.TrimSpace(why) == "":
			t.Errorf("Case.Lacks[%q]: say why the API lacks it", check)
		case !hook && !lacks:
			t.Errorf("%s: fill in the case's hook for it, or say in Case.Lacks why the API lacks it", check)
		}
	}
	if why := c.Lacks[Redirect]; why != "" && c.Protocol == "" {
		t.Errorf("Case.Lacks[%q]: only a case sending outside HTTP (Case.Protocol) can lack it", Redirect)
	}
	if c.Key == "" && (c.Lacks[NoKey] == "" || c.Lacks[RefusedKey] == "") {
		t.Errorf("Case.Key is empty: a keyless API lacks %q and %q (say so in Case.Lacks)", NoKey, RefusedKey)
	}

	var base *pricewatch.Snapshot
	baseLogs := map[string]bool{}
	t.Run("complete", func(t *testing.T) {
		r := c.run(t, c.Key, opts[F]{})
		for _, e := range r.logs.All() {
			baseLogs[render(e)] = true
		}
		base = r.ok(t)
		if base != nil && len(base.Offers) == 0 {
			t.Errorf("a complete answer gave no offers")
		}
	})
	if base == nil {
		t.Fatal("the complete run failed; the other checks compare with it")
	}

	fails := []struct {
		name string
		mode mode
		want error
	}{
		// A body cut where the server framed it as whole (a proxy's
		// fault): only the document's own end tells.
		{"truncated body", mode{truncate: true}, fetchers.ErrIncomplete},
		// The connection dropped mid-body.
		{"connection cut mid-body", mode{truncate: true, cut: true}, fetchers.ErrIncomplete},
		{"429 on every try", mode{throttle: true, always: true}, fetchers.ErrThrottled},
		{"redirect to another origin", mode{redirect: true}, fetchers.ErrForeignOrigin},
	}
	for _, tc := range fails {
		if tc.mode.redirect && c.Lacks[Redirect] != "" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			c.run(t, c.Key, opts[F]{mode: tc.mode}).fails(t, tc.want)
		})
	}
	t.Run("429 with Retry-After then success", func(t *testing.T) {
		r := c.run(t, c.Key, opts[F]{mode: mode{throttle: true}})
		r.same(t, base)
		if !slices.ContainsFunc(r.waits, func(d time.Duration) bool { return d >= retryAfter }) {
			t.Errorf("waits %v: none honours the Retry-After of %s", r.waits, retryAfter)
		}
	})
	t.Run("5xx then success", func(t *testing.T) {
		c.run(t, c.Key, opts[F]{mode: mode{serverError: true}}).same(t, base)
	})
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := c.run(t, c.Key, opts[F]{ctx: ctx})
		r.fails(t, context.Canceled)
		if r.requests > 0 {
			t.Errorf("%d requests sent after the context ended", r.requests)
		}
	})
	t.Run("context cancelled during the first request", func(t *testing.T) {
		c.run(t, c.Key, opts[F]{mode: mode{cancel: true}}).fails(t, context.Canceled)
	})
	if c.Lacks[RefusedKey] == "" {
		t.Run(string(RefusedKey), func(t *testing.T) {
			c.run(t, c.Refused, opts[F]{}).fails(t, fetchers.ErrAuth)
		})
	}
	if c.Lacks[NoKey] == "" {
		t.Run(string(NoKey), func(t *testing.T) {
			r := c.run(t, "", opts[F]{})
			if !errors.Is(r.err, fetchers.ErrNoCredentials) {
				t.Errorf("built without credentials: error %v, want one wrapping %v", r.err, fetchers.ErrNoCredentials)
			}
			if r.requests > 0 {
				t.Errorf("%d requests sent without credentials", r.requests)
			}
		})
	}
	if c.RepeatPage != nil {
		t.Run(string(RepeatedPage), func(t *testing.T) {
			c.run(t, c.Key, opts[F]{prepare: c.RepeatPage}).fails(t, fetchers.ErrIncomplete)
		})
	}
	if c.Empty != nil {
		t.Run(string(EmptyAnswer), func(t *testing.T) {
			c.run(t, c.Key, opts[F]{prepare: c.Empty, prev: fetchers.Previous{Versions: base.Versions, State: base.State}}).fails(t, fetchers.ErrIncomplete)
		})
	}
	if c.Malformed != nil {
		t.Run(string(MalformedRow), func(t *testing.T) {
			var spoiled func(pricewatch.Offer) bool
			r := c.run(t, c.Key, opts[F]{prepare: func(t *testing.T, fake F) { spoiled = c.Malformed(t, fake) }})
			snap := r.ok(t)
			if snap == nil {
				return
			}
			for _, o := range snap.Offers {
				if spoiled(o) {
					t.Errorf("offer %v of the malformed row was stored", o.Key())
				}
			}
			// A good offer may be left out only where the snapshot does
			// not claim its scope complete (a fetcher that defers the
			// malformed row's region keeps its stored prices current).
			got, lost := offerKeys(snap), 0
			for _, o := range base.Offers {
				if !spoiled(o) && !got[o.Key()] && covers(snap.Coverage, o) {
					lost++
					t.Errorf("offer %v of a good row is missing, its scope covered: one malformed row closed others", o.Key())
				}
				if lost == 3 {
					t.FailNow()
				}
			}
			if !slices.ContainsFunc(r.logs.All(), func(e observer.LoggedEntry) bool {
				return e.Level >= zapcore.InfoLevel && !baseLogs[render(e)]
			}) {
				t.Errorf("no log line of the run counts or names the malformed row (none differs from the complete run's)")
			}
		})
	}
}

// covers reports whether a scope of coverage claims o's place complete.
func covers(coverage []pricewatch.Scope, o pricewatch.Offer) bool {
	return slices.ContainsFunc(coverage, func(sc pricewatch.Scope) bool { return sc.CoversOffer(o.Region, o.PriceType) })
}

// InstanceType is a Case.Malformed answer: the offers of these instance
// types.
func InstanceType(names ...string) func(pricewatch.Offer) bool {
	return func(o pricewatch.Offer) bool { return slices.Contains(names, o.InstanceType) }
}

// render is a log entry as compared between runs, without its
// durations (how long a run took says nothing of its rows).
func render(e observer.LoggedEntry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", e.Level, e.Message)
	for _, f := range e.Context {
		if f.Type != zapcore.DurationType {
			fmt.Fprintf(&b, " %s=%v", f.Key, observer.LoggedEntry{Context: []zapcore.Field{f}}.ContextMap()[f.Key])
		}
	}
	return b.String()
}

// retryAfter is what the throttling answers ask to wait.
const retryAfter = 7 * time.Second

// result is one run of the fetcher.
type result struct {
	snap     *pricewatch.Snapshot
	err      error
	requests int
	waits    []time.Duration
	logs     *observer.ObservedLogs
}

// opts are how one check runs the fetcher.
type opts[F any] struct {
	mode mode
	// ctx is the run's context; nil: a fresh one, which mode.cancel ends.
	ctx context.Context
	// prev is what the fetcher is handed of the last run.
	prev fetchers.Previous
	// prepare sets the fake up before the fetcher is built.
	prepare func(*testing.T, F)
}

// run builds the fetcher against a new fake (after o.prepare) with key and
// fetches once through a transport with the faults of o.mode. Every error
// and log line is checked for the credentials.
func (c Case[F]) run(t *testing.T, key string, o opts[F]) result {
	t.Helper()
	m, ctx := o.mode, o.ctx
	foreign := Start(t, func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "not this host", http.StatusNotFound) })
	fake := c.Fake(t)
	if o.prepare != nil {
		o.prepare(t, fake)
	}
	if ctx == nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if m.cancel {
			m.onFirst = cancel
		}
	}
	foreignURL, err := url.Parse(foreign.URL)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTransport(m, foreignURL)
	if e, ok := edits.LoadAndDelete(t); ok {
		tr.edit = e.(Editor)
	}
	var sleeps Sleeps
	client := fetchers.NewClient(fetchers.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond,
		RequestTimeout: 30 * time.Second, MaxRetryAfter: time.Hour})
	client.HTTP.Transport = tr
	client.SetSleep(sleeps.Sleep)
	core, logs := observer.New(zapcore.DebugLevel)
	var added []section.Secret
	env := fetchers.Env{Client: client, Log: zap.New(core), Now: func() time.Time { return c.Now },
		AddSecrets: func(s ...section.Secret) { added = append(added, s...) }}
	r := result{logs: logs}
	f, err := c.New(t, fake, Harness{Env: env, Key: key, Transport: tr, Sleep: sleeps.Sleep, tr: tr})
	if err == nil {
		if f.Provider() != c.Provider {
			t.Errorf("Provider() = %q, want %q", f.Provider(), c.Provider)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.snap, r.err = f.Fetch(ctx, o.prev)
		}()
		select {
		case <-done:
		case <-time.After(3 * time.Minute):
			t.Fatal("Fetch did not return within three minutes") // a hang guard, not a timing
		}
	} else {
		r.err = err
	}
	r.requests, r.waits = tr.count(), sleeps.Waits()
	shown := Shown(r.err, logs)
	for _, s := range append([]string{c.Key, c.Refused}, c.Secrets...) {
		if s != "" && strings.Contains(shown, s) {
			t.Errorf("a credential shows in the error or a log line:\n%s", shown)
		}
	}
	if foreign := tr.foreignRequests(); foreign > 0 {
		t.Errorf("%d requests followed a redirect to another origin", foreign)
	}
	return r
}

// ok checks that the run gave a valid snapshot of the provider and
// returns it (nil after an error).
func (r result) ok(t *testing.T) *pricewatch.Snapshot {
	t.Helper()
	if r.err != nil {
		t.Errorf("Fetch: %v", r.err)
		return nil
	}
	if err := r.snap.Validate(); err != nil {
		t.Errorf("snapshot: %v", err)
	}
	return r.snap
}

// fails checks that the run gave no snapshot but an error wrapping want.
func (r result) fails(t *testing.T, want error) {
	t.Helper()
	if r.err == nil {
		t.Errorf("a snapshot with %d offers, want an error wrapping %v", len(r.snap.Offers), want)
		return
	}
	if r.snap != nil {
		t.Errorf("a snapshot beside the error %v", r.err)
	}
	if !errors.Is(r.err, want) {
		t.Errorf("error %v, want one wrapping %v", r.err, want)
	}
}

// same checks that the run gave base's offers (with their prices) and
// availability.
func (r result) same(t *testing.T, base *pricewatch.Snapshot) {
	t.Helper()
	snap := r.ok(t)
	if snap == nil {
		return
	}
	got, want := describe(snap), describe(base)
	for _, d := range []struct {
		what       string
		have, lack map[string]bool
	}{{"more than", got, want}, {"missing from", want, got}} {
		var diff []string
		for line := range d.have {
			if !d.lack[line] {
				diff = append(diff, line)
			}
		}
		if len(diff) > 0 {
			slices.Sort(diff)
			t.Errorf("%d records %s the complete run's, such as %s", len(diff), d.what, strings.Join(diff[:min(len(diff), 3)], "; "))
		}
	}
}

func offerKeys(s *pricewatch.Snapshot) map[pricewatch.OfferKey]bool {
	out := make(map[pricewatch.OfferKey]bool, len(s.Offers))
	for _, o := range s.Offers {
		out[o.Key()] = true
	}
	return out
}

// describe is a snapshot's offers (with their prices) and availability
// records, each as a line, for comparing two runs.
func describe(s *pricewatch.Snapshot) map[string]bool {
	out := map[string]bool{}
	for _, o := range s.Offers {
		out[fmt.Sprintf("offer %v = %s", o.Key(), o.Hourly)] = true
	}
	for _, a := range s.Availability {
		out[fmt.Sprintf("availability %v: %s", a.Key(), a.State)] = true
	}
	return out
}
