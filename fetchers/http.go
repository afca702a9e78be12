package fetchers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/retry"
	"github.com/pricewatch/pricewatch/secret"
)

// RetryPolicy says how a Client retries. The zero value is not useful; use
// DefaultRetryPolicy and change what you need.
type RetryPolicy struct {
	MaxAttempts    int           // total tries per request, including the first
	BaseDelay      time.Duration // first back-off; doubles per attempt
	MaxDelay       time.Duration // cap on one back-off
	RequestTimeout time.Duration // per attempt, headers only (bodies may stream longer)
	// MaxRetryAfter caps an honoured Retry-After (fetch.max_retry_after);
	// a longer one is cut to it and logged. Zero: one hour.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy is what the fetchers use unless a test needs speed.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 5, BaseDelay: 500 * time.Millisecond, MaxDelay: 60 * time.Second, RequestTimeout: 60 * time.Second, MaxRetryAfter: time.Hour}
}

// Client is an HTTP client that retries 429 and 5xx responses and network
// errors with exponential back-off, honouring Retry-After, and stops as soon
// as the context is done.
type Client struct {
	HTTP   *http.Client
	Policy RetryPolicy
	// UserAgent is sent with every request.
	UserAgent string
	// Log receives capped waits; nil logs nothing.
	Log *zap.Logger
	// sleep is replaceable so tests do not wait for real back-offs.
	sleep func(ctx context.Context, d time.Duration) error
}

// NewClient returns a Client with the given policy.
func NewClient(policy RetryPolicy) *Client {
	return &Client{HTTP: &http.Client{CheckRedirect: SameOriginRedirects}, Policy: policy, UserAgent: "pricewatch (+https://github.com/pricewatch/pricewatch)"}
}

// ErrTimeout: a request got no response headers within the policy's
// RequestTimeout.
var ErrTimeout = errors.New("request timed out")

// errHeaderTimeout is the cause a request's context is cancelled with when
// its header timeout fires.
var errHeaderTimeout = errors.New("response header timeout")

// StatusError is a non-success HTTP status that retries did not cure.
type StatusError struct {
	Method string // GET when empty
	URL    string // redacted: no query string
	Status int
	Body   string // first bytes, for the message
}

func (e *StatusError) Error() string {
	method := e.Method
	if method == "" {
		method = http.MethodGet
	}
	msg := fmt.Sprintf("%s %s: HTTP %d", method, e.URL, e.Status)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Do sends the request built by newReq, retrying as the policy says. newReq
// is called once per attempt because a request body cannot be replayed.
// The caller owns the returned body. A 304 Not Modified is returned as a
// response, not an error.
func (c *Client) Do(ctx context.Context, newReq func(ctx context.Context) (*http.Request, error)) (*http.Response, error) {
	attempts := max(c.Policy.MaxAttempts, 1)
	var lastErr error
	for attempt := 1; ; attempt++ {
		req, err := newReq(ctx)
		if err != nil {
			return nil, fmt.Errorf("building request: %w", err)
		}
		if c.UserAgent != "" && req.Header.Get("User-Agent") == "" {
			req.Header.Set("User-Agent", c.UserAgent)
		}
		resp, wait, err := c.once(req)
		if err == nil {
			return resp, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (after %d attempts)", ctx.Err(), attempt)
		}
		if wait < 0 || attempt >= attempts {
			return nil, lastErr
		}
		if wait == 0 {
			wait = c.backoff(attempt)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			// Waiting would only end in the run's timeout: fail now,
			// saying what the cloud asked.
			return nil, fmt.Errorf("%w (the next try would be in %s, after the run's timeout: %w)", lastErr, wait.Round(time.Second), context.DeadlineExceeded)
		}
		if err := c.doSleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("%w (while waiting to retry: %v)", err, lastErr)
		}
	}
}

// once sends one attempt. wait < 0 means do not retry; wait > 0 is a delay
// the server asked for.
func (c *Client) once(req *http.Request) (*http.Response, time.Duration, error) {
	ctx := req.Context()
	var cancel context.CancelFunc = func() {}
	tctx := ctx
	if c.Policy.RequestTimeout > 0 {
		// The timeout covers connecting and the response headers; the body
		// is the caller's to read, so the timer stops once headers arrive.
		// It cancels with a cause, so that the error says "timeout" and
		// not "context canceled".
		var cancelCause context.CancelCauseFunc
		tctx, cancelCause = context.WithCancelCause(ctx)
		cancel = func() { cancelCause(nil) }
		timer := time.AfterFunc(c.Policy.RequestTimeout, func() { cancelCause(errHeaderTimeout) })
		defer timer.Stop()
		req = req.WithContext(tctx)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		timedOut := errors.Is(context.Cause(tctx), errHeaderTimeout)
		cancel()
		wait := time.Duration(0)
		if errors.Is(err, ErrForeignOrigin) {
			wait = -1 // the same redirect would come back
		}
		err = UnwrapURLError(err)
		var dnsErr *net.DNSError
		switch {
		case timedOut && ctx.Err() == nil:
			err = fmt.Errorf("%w: no response headers within %s", ErrTimeout, c.Policy.RequestTimeout)
		case errors.As(err, &dnsErr) && !dnsErr.IsTimeout:
			// A name that does not resolve (or a resolver that cannot be
			// reached: an offline machine) stays so for the seconds a
			// back-off waits: fail at once rather than after ~30 s of
			// retries. A DNS timeout may pass, and is retried.
			wait = -1
			err = fmt.Errorf("%w: DNS lookup of %s failed (%w): is this machine offline, or the endpoint misspelt?", ErrUnreachable, dnsErr.Name, err)
		case ctx.Err() == nil && !errors.Is(err, ErrForeignOrigin) && (dnsErr != nil || isNetworkError(err)):
			err = fmt.Errorf("%w: %w", ErrUnreachable, err)
		}
		return nil, wait, fmt.Errorf("%s %s: %w", req.Method, RedactURL(req.URL), err)
	}
	if resp.StatusCode < 300 || resp.StatusCode == http.StatusNotModified {
		resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
		return resp, 0, nil
	}
	defer cancel()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	serr := &StatusError{Method: req.Method, URL: RedactURL(req.URL), Status: resp.StatusCode, Body: secret.String(strings.Join(strings.Fields(string(snippet)), " "))}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, c.retryAfter(resp), fmt.Errorf("%w: %w", ErrThrottled, serr)
	case resp.StatusCode >= 500:
		return nil, c.retryAfter(resp), serr
	default:
		return nil, -1, serr
	}
}

func (c *Client) retryAfter(resp *http.Response) time.Duration {
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.Atoi(v); err == nil {
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = time.Until(t)
	}
	if d <= 0 {
		return 0
	}
	limit := c.Policy.MaxRetryAfter
	if limit <= 0 {
		limit = time.Hour
	}
	if d > limit {
		if c.Log != nil {
			c.Log.Warn("the cloud asked to wait longer than fetch.max_retry_after; waiting that instead",
				zap.String("url", RedactURL(resp.Request.URL)), zap.String("retry_after", v), zap.Duration("max_retry_after", limit))
		}
		d = limit
	}
	return d
}

func (c *Client) backoff(attempt int) time.Duration {
	return retry.Backoff(c.Policy.BaseDelay, c.Policy.MaxDelay, attempt)
}

func (c *Client) doSleep(ctx context.Context, d time.Duration) error {
	if c.sleep != nil {
		return c.sleep(ctx, d)
	}
	return retry.Sleep(ctx, d)
}

// Wait sleeps the policy's back-off before retry number attempt (1 is the
// first retry), through the replaceable sleep: for a caller that retries
// an answer the client cannot classify (a throttle sent with a 4xx).
func (c *Client) Wait(ctx context.Context, attempt int) error {
	return c.doSleep(ctx, c.backoff(attempt))
}

// Sleep waits d through the replaceable sleep: for a caller retrying
// calls the client does not send (a gRPC call), with the delay the
// server asked for.
func (c *Client) Sleep(ctx context.Context, d time.Duration) error { return c.doSleep(ctx, d) }

// SetSleep replaces the back-off sleep (tests record delays instead of waiting).
func (c *Client) SetSleep(f func(ctx context.Context, d time.Duration) error) { c.sleep = f }

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// RedactURL prints a URL without its query string and user info, which may
// carry signatures or tokens.
func RedactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	r := *u
	r.User = nil
	r.RawQuery = ""
	r.Fragment = ""
	return r.String()
}

// isNetworkError tells a failure to connect or a dropped connection (the
// request never got an answer) from the client's own errors.
func isNetworkError(err error) bool {
	var opErr *net.OpError
	return errors.As(err, &opErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// UnwrapURLError drops *url.Error's own copy of the full URL (with
// query, which may carry a signature) so that only a redacted one is
// printed.
func UnwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
