package web

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/report"
)

// currentReads is the store the current-state views read (the offers
// table and its downloads, the GPU index, a GPU page's ranking, the API's
// offers): the store, with its reads of what is in force now answered
// from the current data version's report.CurrentState, read once per
// version and shared by every request of it (issue 30 item 2). Without a
// readable version, or when the snapshot cannot be read, it is the store
// itself: the answers are the same, only slower.
func (s *Server) currentReads(ctx context.Context) report.Store {
	version, err := s.dataVersion(ctx)
	if err != nil {
		return s.Store
	}
	if c := s.current.Load(); c != nil && c.Version == version {
		return c.Source(s.Store)
	}
	v, err, _ := s.currentFlight.Do(version, func() (any, error) {
		if c := s.current.Load(); c != nil && c.Version == version {
			return c, nil
		}
		// One read for every request of the version: the first asker
		// going away must not cancel it for the others.
		start := time.Now()
		c, err := report.ReadCurrentState(context.WithoutCancel(ctx), s.Store, version)
		if err != nil {
			return nil, err
		}
		s.current.Store(c)
		s.log().Debug("http: read the current state", zap.Int("offers", c.Offers()), zap.Duration("took", time.Since(start)))
		return c, nil
	})
	if err != nil {
		s.log().Warn("http: reading the current state; answering from the store", zap.Error(err))
		return s.Store
	}
	return v.(*report.CurrentState).Source(s.Store)
}

// WarmCurrent reads the current state of the data version now (once, as
// any view would), so that a one-shot process's first current-state view
// (pricewatch mcp's first cheapest) finds it read rather than reading
// 45k offers while its client waits.
func (s *Server) WarmCurrent(ctx context.Context) { s.currentReads(ctx) }
