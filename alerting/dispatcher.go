package alerting

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"
	"golang.org/x/time/rate"

	"github.com/pricewatch/pricewatch/retry"
)

// OutboxEntry is one queued message as the dispatcher needs it.
type OutboxEntry struct {
	ID int64
	// DeliveryKey is the message's unique key (what Slack's message
	// metadata carries, so a retry can find an earlier post).
	DeliveryKey string
	Channel     string
	Kind        string
	Payload     []byte
	Attempts    int
	// NextAttemptAt is when the message may be tried; LeaseUntil, while set,
	// when another sender's claim on it runs out.
	NextAttemptAt time.Time
	LeaseUntil    *time.Time
	// CreatedAt is when the message was queued; LastError what the last
	// failed attempt said (free of secrets).
	CreatedAt time.Time
	LastError string
	// Attachment is a file to send with the message (the digest's chart).
	Attachment []byte
}

// Outbox is what the dispatcher needs of the queue (storage's SQLite
// outbox, through alerting/outboxstore). Every method must be safe for
// concurrent use by several processes: a claim succeeds for one sender only.
type Outbox interface {
	// DueMessages returns each channel's oldest pending message when it may
	// be sent at now (force: regardless of back-off), oldest first.
	DueMessages(ctx context.Context, now time.Time, force bool, limit int) ([]OutboxEntry, error)
	// PendingHeads returns each channel's oldest pending message.
	PendingHeads(ctx context.Context) ([]OutboxEntry, error)
	// Pending counts pending messages.
	Pending(ctx context.Context) (int, error)
	// ClaimMessage leases a due message to this sender and counts an attempt.
	ClaimMessage(ctx context.Context, id int64, now, leaseUntil time.Time, force bool) (bool, error)
	MarkSent(ctx context.Context, id int64) error
	MarkRetry(ctx context.Context, id int64, next time.Time, errText string) error
	MarkFailed(ctx context.Context, id int64, errText string) error
}

// Clock is the time the outbox is judged by (the database's clock, which
// tests move).
type Clock interface {
	Now() time.Time
}

// DispatcherOptions tune delivery. Zero values take the defaults.
type DispatcherOptions struct {
	// InitialBackoff is the wait after the first transient failure of a
	// message (default 5s); it doubles with each attempt up to MaxBackoff
	// (default 5m), so after a long outage alerts flow again within
	// MaxBackoff of Slack's recovery.
	InitialBackoff, MaxBackoff time.Duration
	// PostTimeout bounds one post, every call it makes included (default
	// 30s, the notifiers' HTTP timeout).
	PostTimeout time.Duration
	// Lease is how long a sender holds a message while posting it (default
	// PostTimeout and a few seconds to record the outcome; the daemon
	// passes ha.takeover on PostgreSQL, and PostTimeout then defaults to
	// what fits in it). A message whose sender died (SIGKILL) is tried
	// again after it, as one whose outcome is unknown (see Delivery).
	Lease time.Duration
	// FinishWithin is how long a post already sent may go on once ctx
	// ends (a stop, a step-down) before it is cut short (default 10s, and
	// never past PostTimeout): cancelling it at once left Slack holding a
	// message whose outcome this sender never learnt, and the next
	// sender, looking before Slack had it in its history, posted it again.
	FinishWithin time.Duration
	// IndexWait is how long after a post cut short the message is held
	// back (default 5s), so that the next sender's history lookup comes
	// when Slack could have indexed the post.
	IndexWait time.Duration
	// ChannelInterval spaces posts to one channel (default 1s: Slack allows
	// about one message per second per channel). Negative disables it.
	ChannelInterval time.Duration
	// Idle is how often Run looks at the outbox when nothing nudges it
	// (default 1m).
	Idle time.Duration
	// MaxRetryAfter caps the wait a Retry-After asks for (default 1h,
	// slack.max_retry_after): a hostile or broken value must not park a
	// channel, and everything queued behind its head, for years.
	MaxRetryAfter time.Duration
	// Sleep waits for d or until ctx ends; tests replace it together with
	// the database clock.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (o *DispatcherOptions) defaults() {
	if o.InitialBackoff <= 0 {
		o.InitialBackoff = 5 * time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Minute
	}
	if o.Lease > 0 {
		// The post and the recording of its outcome fit in the claim:
		// a claim that ran out mid-post lets another sender post too.
		margin := min(leaseMargin, o.Lease/6)
		if o.PostTimeout <= 0 || o.PostTimeout > o.Lease-margin {
			o.PostTimeout = o.Lease - margin
		}
	}
	if o.PostTimeout <= 0 {
		o.PostTimeout = 30 * time.Second
	}
	if o.Lease <= 0 {
		o.Lease = o.PostTimeout + leaseMargin
	}
	if o.FinishWithin <= 0 {
		o.FinishWithin = 10 * time.Second
	}
	if o.IndexWait <= 0 {
		o.IndexWait = 5 * time.Second
	}
	if o.ChannelInterval == 0 {
		o.ChannelInterval = time.Second
	}
	if o.Idle <= 0 {
		o.Idle = time.Minute
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = time.Hour
	}
	if o.Sleep == nil {
		o.Sleep = retry.Sleep
	}
}

// leaseMargin is what a lease allows beyond the post timeout: recording
// the outcome in the database.
const leaseMargin = 5 * time.Second

// Dispatcher delivers outbox messages through a Notifier: oldest first in
// each channel, a channel stopping at its first failure so that nothing
// overtakes a message that is waiting to be retried. Delivery is at least
// once: a message is marked sent only after the Notifier returned, so a
// crash between the two resends it; nothing else can duplicate it, because
// each message is claimed in the database before it is posted. The
// notifier is told (Delivery) when an earlier attempt's outcome is
// unknown, so that one that can look (Slack, by the delivery key in its
// messages' metadata) does not post the message twice.
type Dispatcher struct {
	db       Outbox
	clock    Clock
	notifier Notifier
	log      *zap.Logger
	opts     DispatcherOptions
	nudge    chan struct{}
	// pace holds each channel's limiter (ChannelInterval per post), read
	// on the outbox clock so that tests can move it.
	pace map[string]*rate.Limiter
	// A channel (or everything) that failed permanently is left alone for
	// MaxBackoff: its next messages would fail the same way, and should
	// wait, pending, for the operator's fix rather than fail one by one.
	pausedUntil map[string]time.Time
	allPaused   time.Time
}

// NewDispatcher returns a dispatcher draining outbox through n, on clock's
// time.
func NewDispatcher(outbox Outbox, clock Clock, n Notifier, log *zap.Logger, opts DispatcherOptions) *Dispatcher {
	opts.defaults()
	if log == nil {
		log = zap.NewNop()
	}
	return &Dispatcher{db: outbox, clock: clock, notifier: n, log: log, opts: opts, nudge: make(chan struct{}, 1),
		pace: map[string]*rate.Limiter{}, pausedUntil: map[string]time.Time{}}
}

// AttachmentNotifier is a Notifier that can send the file stored with a
// message (the digest's chart) along with it. The dispatcher uses it for
// messages that have an attachment; other notifiers get the message alone.
type AttachmentNotifier interface {
	PostWithAttachment(ctx context.Context, channel string, payload, attachment []byte) error
}

// IncompleteError says the message itself was delivered but something sent
// with it (its attachment) was not. The dispatcher marks the message sent,
// since posting it again would duplicate it, and logs the error.
type IncompleteError struct{ Err error }

func (e *IncompleteError) Error() string { return e.Err.Error() }
func (e *IncompleteError) Unwrap() error { return e.Err }

// LogOnly is a notifier that, for some channels, only writes messages to
// the log (LogNotifier, when no notifier is configured; a Router for the
// channels it routes to one). The dispatcher counts those messages as
// logged, not sent: nobody was told.
type LogOnly interface {
	LogsOnly(channel string) bool
}

// Report counts what a delivery did.
type Report struct {
	Sent int // delivered
	// Logged counts messages done with that only reached the log (no
	// notifier is configured for their channel); not in Sent.
	Logged   int
	Failed   int // given up on (permanent errors)
	Retrying int // attempts that failed and will be retried
	// Incomplete counts delivered messages (included in Sent) whose
	// attachment did not reach Slack; the log says why.
	Incomplete int
	// Pending is what is still queued when Deliver returned.
	Pending int
	// taken counts heads another sender held (or whose outcome this
	// process has yet to record): no progress, not a failure.
	taken int
}

func (r *Report) add(o Report) {
	r.Sent += o.Sent
	r.Logged += o.Logged
	r.Failed += o.Failed
	r.Retrying += o.Retrying
	r.Incomplete += o.Incomplete
	r.taken += o.taken
}

// Deliver sends what is due now and keeps going until the outbox is empty
// or the next retry lies beyond maxWait; what is left stays pending for the
// daemon or a later `pricewatch alerts deliver`. force tries every pending
// message once at the start, regardless of its back-off.
func (d *Dispatcher) Deliver(ctx context.Context, maxWait time.Duration, force bool) (Report, error) {
	var rep Report
	deadline := d.clock.Now().Add(maxWait)
	for first := true; ; first = false {
		r, err := d.pass(ctx, force && first)
		rep.add(r)
		if err != nil {
			return rep, err
		}
		next, ok, err := d.nextWake(ctx)
		if err != nil {
			return rep, err
		}
		if !ok || next.After(deadline) {
			break
		}
		if err := d.opts.Sleep(ctx, next.Sub(d.clock.Now())); err != nil {
			return rep, err
		}
	}
	pending, err := d.db.Pending(ctx)
	if err != nil {
		return rep, err
	}
	rep.Pending = pending
	return rep, nil
}

// Nudge wakes Run early, e.g. after a run queued messages. It never blocks.
func (d *Dispatcher) Nudge() {
	select {
	case d.nudge <- struct{}{}:
	default:
	}
}

// Run delivers continuously until ctx ends: whenever a message is due, when
// nudged, and at least every Idle. It returns nil on cancellation; a
// message being posted at that moment stays pending.
func (d *Dispatcher) Run(ctx context.Context) error {
	for {
		rep, err := d.pass(ctx, false)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			// A database error: say so and try again later rather than
			// ending the daemon's delivery for good.
			d.log.Error("delivering alerts", zap.Error(err))
		}
		wait := d.opts.Idle
		if next, ok, err := d.nextWake(ctx); err == nil && ok {
			if w := next.Sub(d.clock.Now()); w < wait {
				wait = max(w, 0)
			}
		}
		if wait == 0 && rep.taken > 0 && rep.Sent+rep.Logged+rep.Failed == 0 {
			// A head is due but held (its outcome not yet written, the
			// database busy): look again shortly, not in a hot loop.
			wait = takenPause
		}
		if ctx.Err() != nil {
			return nil
		}
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-d.nudge:
				t.Stop()
			case <-t.C:
			}
		}
	}
}

// nextWake is when the next pending message may be tried, taking back-off,
// leases and pauses into account; false when nothing is pending.
func (d *Dispatcher) nextWake(ctx context.Context) (time.Time, bool, error) {
	heads, err := d.db.PendingHeads(ctx)
	if err != nil {
		return time.Time{}, false, err
	}
	var next time.Time
	for i, h := range heads {
		t := h.NextAttemptAt
		for _, u := range []time.Time{d.pausedUntil[h.Channel], d.allPaused} {
			if u.After(t) {
				t = u
			}
		}
		if h.LeaseUntil != nil && h.LeaseUntil.After(t) {
			t = *h.LeaseUntil
		}
		if i == 0 || t.Before(next) {
			next = t
		}
	}
	return next, len(heads) > 0, nil
}

// pass sends, channel by channel, every message that is due until no
// channel can make progress.
func (d *Dispatcher) pass(ctx context.Context, force bool) (Report, error) {
	var rep Report
	blocked := map[string]bool{}
	for {
		now := d.clock.Now()
		if !force && d.allPaused.After(now) {
			return rep, nil
		}
		due, err := d.db.DueMessages(ctx, now, force, 100)
		if err != nil {
			return rep, err
		}
		progressed := false
		for _, m := range due {
			if blocked[m.Channel] || (!force && d.pausedUntil[m.Channel].After(now)) {
				continue
			}
			outcome, err := d.deliver(ctx, m, force)
			if err != nil {
				return rep, err
			}
			switch outcome {
			case sent:
				rep.Sent++
				progressed = true
			case logged:
				rep.Logged++
				progressed = true
			case sentIncomplete:
				rep.Sent++
				rep.Incomplete++
				progressed = true
			case failedMessage:
				rep.Failed++
				progressed = true
			case failedChannel:
				rep.Failed++
				blocked[m.Channel] = true
				d.pausedUntil[m.Channel] = d.clock.Now().Add(d.opts.MaxBackoff)
			case failedAll:
				rep.Failed++
				d.allPaused = d.clock.Now().Add(d.opts.MaxBackoff)
				return rep, nil
			case retrying:
				rep.Retrying++
				blocked[m.Channel] = true
			case taken:
				rep.taken++
				blocked[m.Channel] = true
			}
		}
		if !progressed {
			return rep, nil
		}
	}
}

// takenPause is how long Run waits before looking again at a due head it
// could not claim.
const takenPause = time.Second

type outcome int

const (
	sent outcome = iota
	retrying
	failedMessage
	failedChannel
	failedAll
	taken // another sender holds the message
	sentIncomplete
	logged // done, but only the log has it
)

func (d *Dispatcher) deliver(ctx context.Context, m OutboxEntry, force bool) (outcome, error) {
	turn, err := d.waitTurn(ctx, m.Channel)
	if err != nil {
		return 0, err
	}
	now := d.clock.Now()
	ok, err := d.db.ClaimMessage(ctx, m.ID, now, now.Add(d.opts.Lease), force)
	if err != nil || !ok {
		// Nothing was posted: the turn goes back to the channel.
		if turn != nil {
			turn.CancelAt(d.clock.Now())
		}
		if err != nil {
			return 0, err
		}
		return taken, nil
	}
	attempt := m.Attempts + 1
	log := d.log.With(zap.Int64("message", m.ID), zap.String("channel", m.Channel), zap.String("kind", m.Kind), zap.Int("attempt", attempt))
	unknown := outcomeUnknown(m)
	// A post once begun is finished when ctx ends, for FinishWithin at
	// most: its outcome is then known and recorded, instead of left for
	// the next sender to guess. The claim covers it (PostTimeout fits in
	// the lease), so no other sender posts meanwhile.
	pctx, cancel := context.WithTimeout(WithDelivery(context.WithoutCancel(ctx), Delivery{Key: m.DeliveryKey, QueuedAt: m.CreatedAt, OutcomeUnknown: unknown}),
		d.opts.PostTimeout)
	stopCut := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(d.opts.FinishWithin, cancel)
		context.AfterFunc(pctx, func() { t.Stop() })
	})
	postErr := d.post(pctx, m, log)
	stopCut()
	timedOut := errors.Is(pctx.Err(), context.DeadlineExceeded)
	interrupted := pctx.Err() != nil && !timedOut
	cancel()
	// The outcome is recorded even when ctx has ended (bounded by the
	// lease's margin): an unrecorded post is one the next sender must
	// look for.
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), leaseMargin)
	defer rcancel()
	var incomplete *IncompleteError
	if postErr == nil || errors.As(postErr, &incomplete) {
		if err := d.db.MarkSent(rctx, m.ID); err != nil {
			return 0, err
		}
		if incomplete != nil {
			log.Warn("message delivered without its attachment", zap.Error(postErr))
			return sentIncomplete, nil
		}
		if lo, ok := d.notifier.(LogOnly); ok && lo.LogsOnly(m.Channel) {
			return logged, nil
		}
		log.Debug("alert delivered")
		return sent, nil
	}
	if interrupted {
		// Cut short FinishWithin after a stop: Slack may or may not have
		// the message. Release it before the lease runs out, but not
		// before Slack could have indexed the post, so that the next
		// sender's lookup finds it there; at least once.
		if err := d.db.MarkRetry(rctx, m.ID, d.clock.Now().Add(d.opts.IndexWait), interruptedPrefix+postErr.Error()); err != nil {
			return 0, err
		}
		return 0, ctx.Err()
	}
	if p, ok := IsPermanent(postErr); ok {
		if err := d.db.MarkFailed(rctx, m.ID, fmt.Sprintf("%v"+fixSep+"%s)", postErr, p.Fix)); err != nil {
			return 0, err
		}
		// The fix once, as a field: in the message too, a command's
		// plain log line said it twice (issue 31).
		log.Error("alert not delivered and will not be retried",
			zap.Error(postErr), zap.String("fix", p.Fix), zap.String("then", "pricewatch alerts retry --failed"))
		switch p.Scope {
		case ScopeChannel:
			return failedChannel, nil
		case ScopeAll:
			return failedAll, nil
		}
		return failedMessage, nil
	}
	wait := d.backoff(attempt)
	var ra *RetryAfterError
	if errors.As(postErr, &ra) {
		wait = max(ra.After, time.Second)
		if ra.After < 0 {
			// A negative wait is no wait the service asked for (a garbled
			// header, seconds × 10⁹ overflowed on the way in): as if it
			// had sent none, not the whole cap.
			log.Warn("the service's Retry-After is negative; waiting as if it sent none",
				zap.Duration("retry_after", ra.After), zap.Duration("wait", retryAfterDefault))
			wait = retryAfterDefault
		}
		if wait > d.opts.MaxRetryAfter {
			log.Warn("Slack asked to wait longer than slack.max_retry_after; waiting that instead",
				zap.Duration("retry_after", ra.After), zap.Duration("max_retry_after", d.opts.MaxRetryAfter))
			wait = d.opts.MaxRetryAfter
		}
	}
	next := d.clock.Now().Add(wait)
	errText := postErr.Error()
	// "timed out" is how the notifiers' transport errors say their own
	// HTTP timeout ran out (secret.Transport). A post that ran out of
	// PostTimeout may have reached the service even when ctx had ended
	// meanwhile (a stop or step-down before FinishWithin cut it): pctx
	// does not inherit ctx's end, so timedOut is the post's own timeout.
	if unknown || timedOut || strings.Contains(errText, "timed out") {
		// The service may have the message: the next attempt looks
		// first. Kept until the message is delivered.
		errText = unknownPrefix + strings.TrimPrefix(errText, unknownPrefix)
	}
	if err := d.db.MarkRetry(rctx, m.ID, next, errText); err != nil {
		return 0, err
	}
	log.Warn("alert delivery failed; will retry", zap.Error(postErr), zap.Time("next_attempt", next))
	return retrying, nil
}

// post sends m, with its attachment when it has one and the notifier can
// send files.
func (d *Dispatcher) post(ctx context.Context, m OutboxEntry, log *zap.Logger) error {
	if len(m.Attachment) > 0 {
		if an, ok := d.notifier.(AttachmentNotifier); ok {
			return an.PostWithAttachment(ctx, m.Channel, m.Payload, m.Attachment)
		}
		log.Info("this notifier cannot send files: the message goes without its attachment")
	}
	return d.notifier.Post(ctx, m.Channel, m.Payload)
}

// waitTurn waits until channel may be posted to again (one post per
// ChannelInterval) and returns the turn it took, nil when pacing is off.
func (d *Dispatcher) waitTurn(ctx context.Context, channel string) (*rate.Reservation, error) {
	if d.opts.ChannelInterval <= 0 {
		return nil, nil
	}
	lim, ok := d.pace[channel]
	if !ok {
		lim = rate.NewLimiter(rate.Every(d.opts.ChannelInterval), 1)
		d.pace[channel] = lim
	}
	now := d.clock.Now()
	turn := lim.ReserveN(now, 1)
	if err := d.opts.Sleep(ctx, turn.DelayFrom(now)); err != nil {
		turn.CancelAt(d.clock.Now())
		return nil, err
	}
	return turn, nil
}

// backoff is the wait after a message's attempt failed. It has no jitter,
// unlike the fetchers' retries: one sender holds a message at a time (the
// claim), each channel waits for its own head, and the schedule is stored
// and shown by `pricewatch alerts`, so it should read as configured.
func (d *Dispatcher) backoff(attempt int) time.Duration {
	return retry.Delay(d.opts.InitialBackoff, d.opts.MaxBackoff, attempt)
}

// Delivery is what the dispatcher tells a notifier about the message it
// posts, through the context (WithDelivery).
type Delivery struct {
	// Key is the message's delivery key; QueuedAt when it was queued (no
	// earlier post of it can be older).
	Key      string
	QueuedAt time.Time
	// OutcomeUnknown: an earlier attempt may have reached the service (its
	// sender died, timed out or was stopped mid-post). A notifier that can
	// tell whether the message arrived looks before posting it again.
	OutcomeUnknown bool
}

type deliveryContextKey struct{}

// WithDelivery returns ctx carrying d.
func WithDelivery(ctx context.Context, d Delivery) context.Context {
	return context.WithValue(ctx, deliveryContextKey{}, d)
}

// DeliveryOf returns the Delivery ctx carries, if any.
func DeliveryOf(ctx context.Context) (Delivery, bool) {
	d, ok := ctx.Value(deliveryContextKey{}).(Delivery)
	return d, ok
}

// unknownPrefix marks the stored error of an attempt whose outcome is not
// known; interruptedPrefix that of a post cut short by shutdown.
const (
	unknownPrefix     = "outcome unknown: "
	interruptedPrefix = "interrupted: "
)

// outcomeUnknown reports whether an earlier attempt at m may have reached
// the service: its claim ran out without an outcome (the sender died
// mid-post), or the attempt was interrupted or timed out.
func outcomeUnknown(m OutboxEntry) bool {
	return m.LeaseUntil != nil || strings.HasPrefix(m.LastError, unknownPrefix) || strings.HasPrefix(m.LastError, interruptedPrefix)
}

// fixSep joins a permanent failure's error and its fix in the outbox's
// last error: "<error> (fix: <fix>)".
const fixSep = " (fix: "

// SplitFix splits an outbox last error into the error and the fix a
// permanent failure stored with it ("" when it has none).
func SplitFix(lastError string) (reason, fix string) {
	reason, fix, ok := strings.Cut(lastError, fixSep)
	if !ok {
		return lastError, ""
	}
	return reason, strings.TrimSuffix(fix, ")")
}
