package fetchers

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"
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
