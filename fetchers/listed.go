package fetchers

import (
	"fmt"
	"maps"
	"slices"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
)

// Listed is what a fetcher made of one list its API answered (instance
// types, sizes, plans): how many entries it read and which it left out.
// Finish checks the snapshot built from the rest and logs the run the same
// way for every such cloud.
type Listed struct {
	// Provider and Where ("lambda", "/api/v1/instance-types") name the
	// answer in errors; Where may be empty.
	Provider, Where string
	// Entries names the list's entries, plural ("instance types"), in log
	// lines and errors; Key is the log field of their names and count
	// ("types").
	Entries, Key string
	// Read is how many entries the list held.
	Read int
	// Malformed are the entries that could not be read (name → why): one
	// odd entry never fails the run, the others are stored.
	Malformed map[string]string
	// Skipped are the entries left out by rule, SkipWhy says which rule
	// ("without GPUs or price").
	Skipped []string
	SkipWhy string
	// Want is what the list must yield to be believed ("one GPU type with
	// a price"): a snapshot without an offer is refused with ErrIncomplete.
	Want string
	// AvailabilityOnly believes a snapshot that has availability records
	// but no offer (every GPU type sold out, so none is priced).
	AvailabilityOnly bool
	// Fields are logged beside the counts when the run succeeds.
	Fields []zap.Field
}

// Finish logs what was left out, refuses a snapshot that holds nothing
// (see Want) or does not validate, and logs the run.
func (l Listed) Finish(log *zap.Logger, snap *pricewatch.Snapshot) (*pricewatch.Snapshot, error) {
	if len(l.Malformed) > 0 {
		names := slices.Sorted(maps.Keys(l.Malformed))
		log.Warn(l.Provider+" "+l.Entries+" malformed; left out, the others are stored", zap.Int("malformed", len(names)),
			zap.Strings(l.Key, names), zap.String("first_error", l.Malformed[names[0]]))
	}
	if len(l.Skipped) > 0 {
		log.Info(l.Provider+" "+l.Entries+" "+l.SkipWhy+" left out", zap.Strings(l.Key, l.Skipped))
	}
	if len(snap.Offers) == 0 && (!l.AvailabilityOnly || len(snap.Availability) == 0) {
		where := l.Provider
		if l.Where != "" {
			where += " " + l.Where
		}
		return nil, fmt.Errorf("%w: %s: %d %s but not %s: not believed", ErrIncomplete, where, l.Read, l.Entries, l.Want)
	}
	fields := append([]zap.Field{zap.Int(l.Key, l.Read)}, l.Fields...)
	return Done(log, l.Provider, snap, l.Provider+" "+l.Entries+" fetched", append(fields, zap.Int("offers", len(snap.Offers)),
		zap.Int("availability", len(snap.Availability)))...)
}
