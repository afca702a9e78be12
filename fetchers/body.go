package fetchers

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/pricewatch/pricewatch/section"
)

// ReadBody reads a whole response body of at most limit bytes within
// timeout. The body must be read under a context of ctx that cancel ends:
// the timer cancels it, so a server that stalls mid-body cannot hold the
// run. The timer starts only now, so back-off waits before the response
// do not count against reading it. where names the request in errors
// ("azure eastus page 3"); a body cut off, too slow or too large fails
// with ErrIncomplete, ctx ending with ctx's error.
func ReadBody(ctx context.Context, cancel context.CancelFunc, r io.Reader, limit int64, timeout time.Duration, where string) ([]byte, error) {
	var timedOut atomic.Bool
	timer := time.AfterFunc(timeout, func() { timedOut.Store(true); cancel() })
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	timer.Stop()
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", where, ctx.Err())
	case err != nil && timedOut.Load():
		return nil, fmt.Errorf("%w: %s: body not complete after %s", ErrIncomplete, where, timeout)
	case err != nil:
		return nil, fmt.Errorf("%w: %s: reading body: %v", ErrIncomplete, where, err)
	case int64(len(body)) > limit:
		return nil, fmt.Errorf("%w: %s: larger than %d bytes", ErrIncomplete, where, limit)
	}
	return body, nil
}

// The bounds of reading the body of an answer that a Request or a
// KeyedSpec leaves at zero: a JSON answer of the clouds' APIs takes a few
// MB at most, and a minute once its headers arrived is ample for it.
const (
	DefaultMaxBody     = 16 << 20
	DefaultBodyTimeout = time.Minute
)

// Request is one request whose 200 answer is read whole (see Client.Read).
type Request struct {
	Method, URL string
	// Body is a JSON document sent with Content-Type application/json, or
	// nil.
	Body []byte
	// Bearer, when set, is sent as the Authorization bearer token.
	Bearer section.Secret
	// KeyHeader and Key, when both set, send Key in the header KeyHeader
	// (Google's X-goog-api-key): a key in a header stays out of every URL
	// an error or log line prints.
	KeyHeader string
	Key       section.Secret
	// Where names the request in errors ("azure eastus page 3").
	Where string
	// Answer names what a 200 holds, for the error another status gives
	// ("a price page").
	Answer string
	// Refused, when set, is what a 401 or 403 means ("the API key was
	// refused (check …)"); the error then wraps ErrAuth.
	Refused string
	// Limit and Timeout bound reading the body (see ReadBody); zero:
	// DefaultMaxBody and DefaultBodyTimeout.
	Limit   int64
	Timeout time.Duration
}

// Read sends r, accepting JSON, and returns the whole body of a 200
// answer. The client retries 429 and 5xx with back-off; what is left is an
// error naming r.Where, wrapping ErrIncomplete for any other status or a
// body cut off.
func (c *Client) Read(ctx context.Context, r Request) ([]byte, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := c.Do(rctx, func(ctx context.Context) (*http.Request, error) {
		var body io.Reader
		if r.Body != nil {
			body = bytes.NewReader(r.Body)
		}
		req, err := http.NewRequestWithContext(ctx, r.Method, r.URL, body)
		if err != nil {
			return nil, err
		}
		if r.Body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Accept", "application/json")
		if !r.Bearer.Empty() {
			req.Header.Set("Authorization", "Bearer "+r.Bearer.Value())
		}
		if r.KeyHeader != "" && !r.Key.Empty() {
			req.Header.Set(r.KeyHeader, r.Key.Value())
		}
		return req, nil
	})
	if err != nil {
		var se *StatusError
		if r.Refused != "" && errors.As(err, &se) && (se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden) {
			return nil, fmt.Errorf("%s: %w: %s: %w", r.Where, ErrAuth, r.Refused, err)
		}
		return nil, fmt.Errorf("%s: %w", r.Where, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s: HTTP %d instead of %s", ErrIncomplete, r.Where, resp.StatusCode, r.Answer)
	}
	return ReadBody(ctx, cancel, resp.Body, cmp.Or(r.Limit, DefaultMaxBody), cmp.Or(r.Timeout, DefaultBodyTimeout), r.Where)
}

// ReadJSON is Read, then DecodeWhole of the body into v (a pointer): the
// answer must be one whole JSON document, r.Answer, and an error in it is
// named by r.Where, as Read's own are.
func (c *Client) ReadJSON(ctx context.Context, r Request, v any) error {
	body, err := c.Read(ctx, r)
	if err != nil {
		return err
	}
	if err := DecodeWhole(body, r.Answer, v); err != nil {
		return fmt.Errorf("%s: %w", r.Where, err)
	}
	return nil
}
