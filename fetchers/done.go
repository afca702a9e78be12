package fetchers

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
)

// Done is how a Fetch ends: snap must validate (an invalid one is the
// fetcher's own fault, named by provider, and never stored), then the run
// is logged as msg with fields and snap returned.
func Done(log *zap.Logger, provider string, snap *pricewatch.Snapshot, msg string, fields ...zap.Field) (*pricewatch.Snapshot, error) {
	if err := snap.Validate(); err != nil {
		return nil, fmt.Errorf("%s: built an invalid snapshot: %w", provider, err)
	}
	log.Info(msg, fields...)
	return snap, nil
}
