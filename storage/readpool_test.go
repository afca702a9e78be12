package storage

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
)

// Issue 20 item 19: four parallel trends requests froze the API for 30 s.
// A ByOffer read (what trends streams) opened its second cursor on another
// pooled connection while the first was open: readPoolSize such reads at
// once each held one connection and waited for a second that never came
// free. Every kind of streamed read is run readPoolSize times at once here,
// each stopping inside its callback (its cursors open) until all have got
// there: a read that needs two connections at once can never reach it.
func TestConcurrentStreamsHoldOneReadConnectionEach(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, clk := openTestDB(t)
		for i := range 3 {
			var offers []pricewatch.Offer
			for j := range 4 {
				o := offer(fmt.Sprintf("type-%d", j), "eastus", pricewatch.OnDemand, fmt.Sprintf("%d.5", 10+i+j))
				offers = append(offers, o)
			}
			id, err := db.StartRun(ctx, "azure")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.SaveSnapshot(ctx, id, snapshot(offers...), SaveOptions{}); err != nil {
				t.Fatal(err)
			}
			clk.tick()
		}
		since := clk.t.Add(-30 * 24 * time.Hour)
		for _, c := range []struct {
			name string
			f    PriceFilter
		}{
			{"by offer (trends)", PriceFilter{Since: since, ByOffer: true, EffectiveOnly: true}},
			{"by offer on a grid", PriceFilter{Since: since, ByOffer: true, Samples: &SampleGrid{From: since, To: clk.t, Step: 24 * time.Hour}}},
			{"since (history)", PriceFilter{Since: since}},
			{"at moments (digest)", PriceFilter{At: []time.Time{since, clk.t}, Unordered: true}},
			{"current (compare)", PriceFilter{CurrentOnly: true}},
		} {
			t.Run(c.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				var arrived sync.WaitGroup
				arrived.Add(readPoolSize)
				all := make(chan struct{})
				go func() { arrived.Wait(); close(all) }()
				errs := make(chan error, readPoolSize)
				for range readPoolSize {
					go func() {
						first := true
						errs <- db.EachPrice(ctx, c.f, func(*PriceInterval) error {
							if first {
								first = false
								arrived.Done()
								select {
								case <-all:
								case <-ctx.Done():
									return ctx.Err()
								}
							}
							return nil
						})
					}()
				}
				for range readPoolSize {
					if err := <-errs; err != nil {
						t.Errorf("%d reads streaming at once (the read pool's size) did not all get their rows: %v", readPoolSize, err)
					}
				}
			})
		}
	})
}
