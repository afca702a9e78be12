// Package fetchers defines the seam between pricewatch and the clouds: one
// Fetcher per cloud, each in its own subpackage, returning normalised offers.
//
// Adding a cloud means adding a folder here with its config section, a
// Provider value (see Provider) and a type that implements Fetcher, plus
// one line in package providers, the registry.
package fetchers

import (
	"context"
	"errors"

	"github.com/pricewatch/pricewatch"
)

// Fetcher pulls one cloud's GPU prices and availability.
//
// Fetch returns the complete set of offers for the configured scope, or an
// error. A throttled, truncated or malformed response is an error, never an
// empty or partial snapshot passed off as complete. Fetch must return
// promptly once ctx is done.
type Fetcher interface {
	Provider() string
	Fetch(ctx context.Context, prev Previous) (*pricewatch.Snapshot, error)
}

// Previous is what storage remembers of the provider's last successful run.
type Previous struct {
	// Versions are the tokens the fetcher returned in Snapshot.Versions last
	// time (per-region price-file versions, ETags).
	Versions map[string]string
	// State is the document the fetcher returned in Snapshot.State last
	// time (nil when none is stored); read it with DecodeState.
	State []byte
}

// Errors a fetcher wraps so that callers can classify a failure without
// reading its text.
var (
	// ErrIncomplete: a response was cut off or malformed.
	ErrIncomplete = errors.New("incomplete or malformed response")
	// ErrThrottled: the cloud kept refusing with a rate limit after retries.
	ErrThrottled = errors.New("throttled by the cloud")
	// ErrAuth: the cloud refused the credentials; retrying cannot help.
	ErrAuth = errors.New("authentication failed")
	// ErrUnreachable: the cloud's API could not be reached at all (its
	// name did not resolve, the connection was refused or dropped): the
	// network's fault or the endpoint's, never the answer's.
	ErrUnreachable = errors.New("cannot reach the server")
	// ErrNoCredentials: the provider needs credentials and none are set;
	// the run is skipped rather than failed.
	ErrNoCredentials = errors.New("no credentials configured")
)
