package fetchers

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// Bounded runs jobs with at most limit at a time (at least one) and returns
// the first error, cancelling the others' context as soon as one fails; no
// job starts after a failure or once ctx is done.
func Bounded(ctx context.Context, limit int, jobs []func(context.Context) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(limit, 1))
	for _, job := range jobs {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			// g.Go waited for a slot: a job that failed meanwhile
			// cancelled gctx, and this one must not start.
			if err := gctx.Err(); err != nil {
				return err
			}
			return job(gctx)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}
