package alerting

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch/secret"
)

// Scope says how much a permanent error stops.
type Scope int

const (
	// ScopeMessage: only this message is bad (too long, invalid blocks).
	ScopeMessage Scope = iota
	// ScopeChannel: nothing can be posted to this channel (not found, bot
	// not invited, archived).
	ScopeChannel
	// ScopeAll: nothing can be posted anywhere (bad or revoked token,
	// missing scope, dead webhook).
	ScopeAll
)

// PermanentError is a failure that resending cannot fix. Fix tells the
// operator what to change.
type PermanentError struct {
	Err   error
	Scope Scope
	Fix   string
}

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent marks err as not worth retrying.
func Permanent(err error, scope Scope, fix string) error {
	return &PermanentError{Err: err, Scope: scope, Fix: fix}
}

// RetryAfterError asks for the next attempt no sooner than After (Slack's
// Retry-After on a 429).
type RetryAfterError struct {
	Err   error
	After time.Duration
}

func (e *RetryAfterError) Error() string { return e.Err.Error() }
func (e *RetryAfterError) Unwrap() error { return e.Err }

// RetryAfter wraps err with the wait the service asked for.
func RetryAfter(err error, after time.Duration) error {
	return &RetryAfterError{Err: err, After: after}
}

// retryAfterDefault is the wait for a 429 that does not say how long.
const retryAfterDefault = 30 * time.Second

// maxRetryAfterSeconds is the largest Retry-After a time.Duration holds;
// a larger number overflowed into a negative wait, which the dispatcher
// took for hostile and waited its whole cap.
const maxRetryAfterSeconds = math.MaxInt64 / int64(time.Second)

// RetryAfterHeader is the wait a 429's Retry-After header asks for, in
// whole seconds (the form Slack and webhook receivers send); 30s, as when
// it is missing, when it is unreadable, negative or too large to be a
// wait. The dispatcher caps it (MaxRetryAfter).
func RetryAfterHeader(h http.Header) time.Duration {
	s, err := strconv.ParseInt(strings.TrimSpace(h.Get("Retry-After")), 10, 64)
	if err != nil || s < 0 || s > maxRetryAfterSeconds {
		return retryAfterDefault
	}
	return time.Duration(s) * time.Second
}

// TransportError is the error of a request that got no answer: the
// context's when it ended (shutting down: the dispatcher releases the
// message), else the transport's, worth retrying, with the URL left out
// (a webhook URL is a secret) and secrets masked. what says what was being
// done ("posting to the webhook").
func TransportError(ctx context.Context, what string, err error, secrets *secret.Set) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	return NoAnswer(errors.New(what + ": " + secrets.Transport(err)))
}

// ErrNoAnswer is in the chain of a failure in which the service never
// answered (no connection, a timeout before its headers): a command then
// says it could not reach Slack, not that Slack refused (issue 31).
var ErrNoAnswer = errors.New("no answer")

// NoAnswer marks err as a request that got no answer; its text is err's.
func NoAnswer(err error) error { return noAnswerError{err} }

type noAnswerError struct{ err error }

func (e noAnswerError) Error() string        { return e.err.Error() }
func (e noAnswerError) Unwrap() error        { return e.err }
func (e noAnswerError) Is(target error) bool { return target == ErrNoAnswer }

// IsPermanent returns the permanent error in err's chain, if any.
func IsPermanent(err error) (*PermanentError, bool) {
	var p *PermanentError
	ok := errors.As(err, &p)
	return p, ok
}
