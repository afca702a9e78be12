package pricewatch

import "time"

// Run statuses, as a stored run records them.
const (
	RunRunning   = "running"
	RunOK        = "ok"
	RunFailed    = "failed"
	RunSkipped   = "skipped"
	RunAbandoned = "abandoned"
)

// RunPartial is how a stored run that could not read every part of its
// provider reads (Run.Shown): its record's status is ok, as it stored and
// counts as a success wherever one is asked for, and its error says what
// was not read and why (storage.NotReadText).
const RunPartial = "partial"

// Run is one provider fetch as recorded. Storage reads it and the digest
// and the reports judge it; it is defined here, once, so that none of
// them converts another's copy.
type Run struct {
	ID             int64
	Provider       string
	StartedAt      time.Time
	FinishedAt     *time.Time
	Status         string
	Seen           int
	New            int
	Changed        int
	Unchanged      int
	Closed         int
	RegionsSkipped int
	// Held counts prices the guard held as implausible in this run.
	Held          int
	Changes       int
	SourceVersion string
	Error         string
	// Deadline is when a running run must have finished by its timeout;
	// nil when it has none.
	Deadline *time.Time
	// Replica is the replica that ran it (storage's DB.Replica); "" for a
	// single process.
	Replica string
}

// Shown is the run's status as people read it: RunPartial for a run
// that stored (ok) but recorded parts it could not read, else Status.
func (r Run) Shown() string {
	if r.Status == RunOK && r.Error != "" {
		return RunPartial
	}
	return r.Status
}

// AvailabilityInterval is one stored availability state of a type in a
// region or zone: what storage reads and the digest computes over.
type AvailabilityInterval struct {
	ID int64
	AvailabilityKey
	GPUModel    string
	GPUCount    float64
	State       AvailabilityState
	StockDetail string
	Since       time.Time
	Until       *time.Time
	LastSeen    time.Time
}
