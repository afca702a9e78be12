package storagetest

import (
	"context"
	"testing"

	"github.com/pricewatch/pricewatch"
)

// Runs is what storing a snapshot as one run needs of a database: the
// run's bookkeeping (storage.DB has it; this package cannot name storage,
// whose own tests use it).
type Runs interface {
	StartRun(ctx context.Context, provider string) (int64, error)
	FinishRun(ctx context.Context, runID int64, status, errText string) error
}

// Store saves snap as one run with opts through save (a DB's
// SaveSnapshot), as a fetch does, and returns what the save returned: a
// save that fails finishes the run failed. Only the run's bookkeeping
// failing fails t. It serves storage's own tests and dbtest's alike.
func Store[O, R any](t testing.TB, db Runs, snap *pricewatch.Snapshot, opts O,
	save func(ctx context.Context, runID int64, snap *pricewatch.Snapshot, opts O) (R, error)) (R, error) {
	t.Helper()
	ctx := context.Background()
	id, err := db.StartRun(ctx, snap.Provider)
	if err != nil {
		t.Fatal(err)
	}
	res, err := save(ctx, id, snap, opts)
	if err != nil {
		if ferr := db.FinishRun(ctx, id, pricewatch.RunFailed, err.Error()); ferr != nil {
			t.Fatal(ferr)
		}
	}
	return res, err
}
