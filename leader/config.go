// Package leader elects the one replica of `pricewatch run` that runs the
// schedules, alert delivery and the digest when several share one
// PostgreSQL database: the holder of a session-level advisory lock on a
// connection of its own, proven alive by a heartbeat row. It owns the
// ha: section of the config file (Config).
package leader

import (
	"fmt"
	"os"
	"time"
	"unicode"

	"github.com/pricewatch/pricewatch/section"
)

// Config is the ha: section: how fast a follower takes over from a leader
// that died or was cut off, and what this replica is called.
type Config struct {
	// Takeover bounds how long the replicas go without a leader when the
	// leader dies or loses the database: a leader that cannot renew its
	// heartbeat steps down after Takeover/3, and a follower takes over once
	// the heartbeat is 2/3 of Takeover old (see Timings).
	Takeover time.Duration `yaml:"takeover"`
	// Replica names this replica in the runs it records, the log and
	// PostgreSQL's pg_stat_activity; empty: the host name and process id
	// (DefaultReplica). Two replicas must not share a name.
	Replica string `yaml:"replica"`
}

// DefaultTakeover is ha.takeover when the file does not set it.
const DefaultTakeover = 30 * time.Second

// MinTakeover is the shortest ha.takeover accepted: below it a heartbeat
// every Takeover/6 leaves a database no room for a slow moment.
const MinTakeover = 2 * time.Second

// maxReplicaLen keeps "pricewatch <replica>" within PostgreSQL's 63-byte
// application_name.
const maxReplicaLen = 48

// Default is the section's built-in value.
func Default() Config { return Config{Takeover: DefaultTakeover} }

// Validate checks the section's keys; k names them from the top of the
// file.
func (c Config) Validate(k section.Checker) error {
	if c.Takeover < MinTakeover {
		return k.Errorf("ha.takeover", "%s: want at least %s (the default is %s)", c.Takeover, MinTakeover, DefaultTakeover)
	}
	if len(c.Replica) > maxReplicaLen {
		return k.Errorf("ha.replica", "%q is %d bytes long: want at most %d", c.Replica, len(c.Replica), maxReplicaLen)
	}
	for _, r := range c.Replica {
		// The name lands in logs, the runs table and application_name:
		// printable and without spaces, so that it reads as one word.
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return k.Errorf("ha.replica", "%q: want letters, digits and punctuation, no spaces or control characters", c.Replica)
		}
	}
	return nil
}

// ReplicaName is ha.replica, or DefaultReplica when it is empty.
func (c Config) ReplicaName() string {
	if c.Replica != "" {
		return c.Replica
	}
	return DefaultReplica()
}

// DefaultReplica is the host name and the process id ("db1-4242"): unique
// among replicas on one host and across hosts, and it names the process
// to look for.
func DefaultReplica() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	name := fmt.Sprintf("%s-%d", host, os.Getpid())
	if len(name) > maxReplicaLen {
		name = name[len(name)-maxReplicaLen:]
	}
	return name
}

// Timings are the election's intervals, all derived from ha.takeover so
// that one number tunes them and their order always holds:
//
//	Beat < StepDown < Stale, and Stale + Poll < Takeover.
//
// The leader renews its heartbeat every Beat and steps down when no renewal
// has succeeded for StepDown since it was sent; a follower looks every Poll
// and takes over from a holder whose heartbeat (in the database's clock) is
// older than Stale. The old leader has therefore stopped, by its own
// clock, at least Stale − StepDown before any follower can lead.
type Timings struct {
	Beat, StepDown, Stale, Poll time.Duration
}

// TimingsOf derives the timings from ha.takeover.
func TimingsOf(takeover time.Duration) Timings {
	return Timings{Beat: takeover / 6, StepDown: takeover / 3, Stale: takeover * 2 / 3, Poll: takeover / 6}
}
