package web

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// CurrentReads is the store the current-state views read (the offers
// table and its downloads, the GPU index, a GPU page's ranking, the API's
// offers, the overview's prices now, and the daemon's /metrics price
// series): the store, with its reads of what is in force now answered
// from the current data version's report.CurrentState, read once per
// version and shared by every request of it (issue 30 item 2). Without a
// readable version, or when the snapshot cannot be read, it is the store
// itself: the answers are the same, only slower.
func (s *Server) CurrentReads(ctx context.Context) report.Store {
	version, err := s.dataVersion(ctx)
	if err != nil {
		return s.Store
	}
	if c := s.current.Load(); c != nil && sameContent(c.Version, version) {
		return c.Source(s.Store)
	}
	// One read for every request of the version: the first asker going
	// away must not cancel it for the others (and stops waiting for it).
	read := context.WithoutCancel(ctx)
	ch := s.currentFlight.DoChan(version, func() (any, error) {
		if c := s.current.Load(); c != nil && sameContent(c.Version, version) {
			return c, nil
		}
		start := time.Now()
		var c *report.CurrentState
		var err error
		if prev := s.current.Load(); prev != nil {
			// What the runs since changed, not the whole state again.
			c, err = prev.Update(read, s.Store, version)
		} else {
			c, err = report.ReadCurrentState(read, s.Store, version)
		}
		if err != nil {
			s.log().Warn("http: reading the current state; answering from the store", zap.Error(err))
			return nil, err
		}
		s.current.Store(c)
		s.log().Debug("http: read the current state", zap.Int("offers", c.Offers()), zap.Duration("took", time.Since(start)))
		return c, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return s.Store
		}
		return r.Val.(*report.CurrentState).Source(s.Store)
	case <-ctx.Done():
		// The caller's own read fails on its cancelled context.
		return s.Store
	}
}

// narrowReads is CurrentReads for a question the store can narrow in SQL
// (one GPU model's offers): it neither waits for nor starts the read of
// the version's whole current state. Until a wider view has read it (a
// process that has just started, a new data version) the store answers
// directly, reading only the offers asked for: `pricewatch mcp`'s first
// `cheapest` for H100 so costs tens of milliseconds, not the read of every
// current offer nor a core shared with it (issue 35).
func (s *Server) narrowReads(ctx context.Context) report.Store {
	if version, err := s.dataVersion(ctx); err == nil {
		if c := s.current.Load(); c != nil && sameContent(c.Version, version) {
			return c.Source(s.Store)
		}
	}
	return s.Store
}

// sameContent reports whether what was read or computed at version a
// (the current state, a kept answer that shows no runs) is that of
// version b: the same version, or one that runs' starts alone tell from
// it (storage.ContentVersion), which store no prices, availability,
// signals, alerts or rates. A run's start then reads nothing again.
func sameContent(a, b string) bool {
	return a == b || storage.ContentVersion(a) == storage.ContentVersion(b)
}
