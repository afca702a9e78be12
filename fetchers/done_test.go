package fetchers

import (
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
)

// Done refuses a snapshot that does not validate, naming the provider,
// and logs one that does with the fields given.
func TestDone(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	if _, err := Done(zap.New(core), "nimbus", &pricewatch.Snapshot{}, "nimbus fetched"); err == nil ||
		!strings.HasPrefix(err.Error(), "nimbus: built an invalid snapshot: ") || logs.Len() != 0 {
		t.Errorf("invalid snapshot: %v, %d log lines", err, logs.Len())
	}
	snap := &pricewatch.Snapshot{Provider: "nimbus", Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
	got, err := Done(zap.New(core), "nimbus", snap, "nimbus fetched", zap.Int("pages", 2))
	if err != nil || got != snap {
		t.Fatalf("valid snapshot: %v", err)
	}
	if l := logs.All(); len(l) != 1 || l[0].Message != "nimbus fetched" || l[0].ContextMap()["pages"] != int64(2) {
		t.Errorf("logged %+v", l)
	}
}
