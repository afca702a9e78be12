package leader

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/retry"
)

// Postgres elects a leader among the replicas on one PostgreSQL database
// (one schema: each schema has an election of its own).
//
// Leadership is a session-level advisory lock held on a connection of the
// elector's own, never one of the pool's: the lock lives exactly as long
// as that session, and the pool's connections come and go. When the
// leader's process dies its connection closes and PostgreSQL frees the
// lock at once. A leader cut off from the database by a network that
// stops forwarding but keeps the sockets open is another matter: the
// server never notices its session is gone, so the lock never frees by
// itself. Two things cover that case:
//
//   - the leader proves itself every Beat by updating its heartbeat row on
//     the lock's connection, and steps down (cancels everything it leads)
//     as soon as a renewal fails or none has succeeded for StepDown since
//     it was sent, by its own clock and whatever the call is doing;
//   - a follower that finds the lock held but the holder's heartbeat older
//     than Stale (in the database's clock, so the hosts' clocks do not
//     matter) terminates the holder's sessions (pg_terminate_backend: the
//     lock's and every pool connection of that replica, which may hold row
//     locks) and takes the lock.
//
// And a lock that is free does not mean the previous leader has stopped:
// its session may have ended while its process lives on (a restarted
// server, a terminated session), and that process notices only at its next
// heartbeat. So a replica that takes the lock waits until the previous
// holder's heartbeat is Stale old before it leads (waitOutPrevious); only a
// leader that stopped cleanly, and deleted its heartbeat, is followed at
// once.
//
// Stale − StepDown (Takeover/3) separates the old leader's stepping down
// from the new leader's start, so the two never lead at the same time as
// long as the database's and the leader's clocks run at the same rate.
// The outbox's claims (row lease and unique delivery key) are the second
// fence for what is already in flight.
type Postgres struct {
	dsn     string
	replica string
	t       Timings
	log     *zap.Logger
	leading atomic.Bool
}

// Options are what NewPostgres needs.
type Options struct {
	// DSN is the database's connection string (database.url); it is a
	// secret and never logged.
	DSN string
	// Config is the ha: section.
	Config Config
	Log    *zap.Logger
}

// NewPostgres prepares an elector; Run campaigns.
func NewPostgres(opts Options) (*Postgres, error) {
	if _, err := pgx.ParseConfig(opts.DSN); err != nil {
		// pgx's parse errors may quote the string; say only what failed.
		return nil, errors.New("leader election: database.url is not a PostgreSQL connection string")
	}
	log := opts.Log
	if log == nil {
		log = zap.NewNop()
	}
	replica := opts.Config.ReplicaName()
	return &Postgres{dsn: opts.DSN, replica: replica, t: TimingsOf(opts.Config.Takeover), log: log.With(zap.String("replica", replica))}, nil
}

// Replica is this replica's name.
func (e *Postgres) Replica() string { return e.replica }

// Leading reports whether this replica leads now.
func (e *Postgres) Leading() bool { return e.leading.Load() }

// ApplicationName is what every connection of a replica tells PostgreSQL
// (pg_stat_activity.application_name): a follower taking over terminates
// the stale leader's connections by it.
func ApplicationName(replica string) string { return "pricewatch " + replica }

// Run campaigns until ctx ends. Each time this replica wins, lead runs
// with a context that ends when leadership does (the heartbeat failed or
// ctx ended); Run waits for lead to return before it campaigns again or
// returns, so one replica never leads twice at once, and a replica that
// stops leading has stopped its work before it lets go of the lock.
func (e *Postgres) Run(ctx context.Context, lead func(ctx context.Context)) error {
	var lastErr string
	for ctx.Err() == nil {
		err := e.session(ctx, lead)
		if ctx.Err() != nil {
			break
		}
		// The database is unreachable or the session broke: say so once
		// per distinct cause, not every Poll.
		if msg := fmt.Sprint(err); err != nil && msg != lastErr {
			e.log.Warn("leader election: no session with the database; following until it is back", zap.Error(err))
			lastErr = msg
		}
		if err == nil {
			lastErr = ""
		}
		if retry.Sleep(ctx, e.t.Poll) != nil {
			break
		}
	}
	return nil
}

// session is one connection's campaign: it returns when the connection
// failed or a leadership on it ended (the connection is then closed, so
// that the lock is surely given up).
func (e *Postgres) session(ctx context.Context, lead func(context.Context)) error {
	conn, err := e.connect(ctx)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		conn.Close(cctx)
	}()
	key, err := e.prepare(ctx, conn)
	if err != nil {
		return err
	}
	var seen holderSeen
	for {
		got, sent, err := e.tryLock(ctx, conn, key)
		if err != nil {
			return err
		}
		if got {
			return e.leadOn(ctx, conn, key, sent, lead)
		}
		stale, err := e.checkHolder(ctx, conn, key, &seen)
		if err != nil {
			return err
		}
		if stale {
			continue // try the lock again at once
		}
		if err := retry.Sleep(ctx, e.t.Poll); err != nil {
			return err
		}
	}
}

func (e *Postgres) connect(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(e.dsn)
	if err != nil {
		return nil, errors.New("database.url is not a PostgreSQL connection string")
	}
	cfg.RuntimeParams["application_name"] = ApplicationName(e.replica)
	cctx, cancel := context.WithTimeout(ctx, max(e.t.Poll, time.Second))
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting for the leader election: %w", err)
	}
	return conn, nil
}

// heartbeatTable holds the leader's heartbeat, one row per lock key (the
// schema's election). It is created here rather than by the storage
// migrations so that the election works on any schema the replicas share.
const heartbeatTable = `CREATE TABLE IF NOT EXISTS leader_heartbeat (
	lock_key    bigint PRIMARY KEY,
	replica     text NOT NULL,
	backend_pid integer NOT NULL,
	acquired_at timestamptz NOT NULL,
	beat_at     timestamptz NOT NULL
)`

// prepare derives the lock key of the connection's database and schema
// and creates the heartbeat table if it is missing.
func (e *Postgres) prepare(ctx context.Context, conn *pgx.Conn) (int64, error) {
	qctx, cancel := context.WithTimeout(ctx, e.t.StepDown)
	defer cancel()
	var db, schema string
	if err := conn.QueryRow(qctx, `SELECT current_database(), coalesce(current_schema(), '')`).Scan(&db, &schema); err != nil {
		return 0, fmt.Errorf("reading the election's schema: %w", err)
	}
	if schema == "" {
		return 0, errors.New("leader election: the connection has no current schema (check search_path)")
	}
	key := lockKey(db, schema)
	// Two replicas starting together would race CREATE TABLE IF NOT
	// EXISTS (it is not atomic in the catalog): one at a time.
	tx, err := conn.Begin(qctx)
	if err != nil {
		return 0, fmt.Errorf("creating the heartbeat table: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(qctx))
	if _, err := tx.Exec(qctx, `SELECT pg_advisory_xact_lock($1)`, key^1); err != nil {
		return 0, fmt.Errorf("creating the heartbeat table: %w", err)
	}
	if _, err := tx.Exec(qctx, heartbeatTable); err != nil {
		return 0, fmt.Errorf("creating the heartbeat table: %w", err)
	}
	if err := tx.Commit(qctx); err != nil {
		return 0, fmt.Errorf("creating the heartbeat table: %w", err)
	}
	return key, nil
}

// lockKey is the advisory lock of one schema's election.
func lockKey(db, schema string) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "pricewatch leader\x00%s\x00%s", db, schema)
	return int64(h.Sum64())
}

// tryLock takes the lock if it is free and, when it did, writes this
// replica's first heartbeat and returns when that was sent (a lock whose
// heartbeat cannot be written is given up with the connection).
func (e *Postgres) tryLock(ctx context.Context, conn *pgx.Conn, key int64) (bool, time.Time, error) {
	qctx, cancel := context.WithTimeout(ctx, e.t.StepDown)
	defer cancel()
	var got bool
	if err := conn.QueryRow(qctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&got); err != nil {
		return false, time.Time{}, fmt.Errorf("trying the leader lock: %w", err)
	}
	if !got {
		return false, time.Time{}, nil
	}
	if err := e.waitOutPrevious(ctx, conn, key); err != nil {
		return false, time.Time{}, err
	}
	qctx, cancel = context.WithTimeout(ctx, e.t.StepDown)
	defer cancel()
	sent := time.Now()
	_, err := conn.Exec(qctx, `INSERT INTO leader_heartbeat (lock_key, replica, backend_pid, acquired_at, beat_at)
		VALUES ($1, $2, pg_backend_pid(), now(), now())
		ON CONFLICT (lock_key) DO UPDATE SET replica = EXCLUDED.replica, backend_pid = EXCLUDED.backend_pid,
			acquired_at = EXCLUDED.acquired_at, beat_at = EXCLUDED.beat_at`, key, e.replica)
	if err != nil {
		return false, time.Time{}, fmt.Errorf("writing the leader's first heartbeat: %w", err)
	}
	return true, sent, nil
}

// waitOutPrevious holds a lock just taken until the previous leader has
// surely stepped down. A free lock does not mean a stopped leader: when
// the previous leader's session ends while its process lives on (the
// server restarted, an operator or a follower terminated the session), the
// lock is free at once but that process only notices at its next
// heartbeat. It steps down at most StepDown after sending its last
// successful one, so waiting until that heartbeat is Stale old (in the
// database's clock) is enough. A leader that stopped cleanly deleted its
// row: no wait.
func (e *Postgres) waitOutPrevious(ctx context.Context, conn *pgx.Conn, key int64) error {
	for {
		qctx, cancel := context.WithTimeout(ctx, e.t.StepDown)
		var age float64
		var replica string
		err := conn.QueryRow(qctx, `SELECT extract(epoch FROM now() - beat_at)::float8, replica FROM leader_heartbeat
			WHERE lock_key = $1 AND backend_pid <> pg_backend_pid()`, key).Scan(&age, &replica)
		cancel()
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the previous leader's heartbeat: %w", err)
		}
		quiet := time.Duration(age * float64(time.Second))
		if quiet > e.t.Stale {
			return nil
		}
		wait := e.t.Stale - quiet + 10*time.Millisecond
		e.log.Info("leader election: took the lock from a leader whose session ended; waiting until it has surely stepped down",
			zap.String("previous", replica), zap.Duration("wait", wait.Round(time.Millisecond)))
		if err := retry.Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// holderSeen is the lock holder a follower last saw without a heartbeat of
// its own (it had just taken the lock, or it was cut off before writing
// one), and since when, by the follower's clock.
type holderSeen struct {
	pid   int32
	since time.Time
}

// checkHolder looks at who holds the lock and, when the holder's
// heartbeat is older than Stale, terminates its sessions; it reports
// whether it did (the lock is then free to try).
func (e *Postgres) checkHolder(ctx context.Context, conn *pgx.Conn, key int64, seen *holderSeen) (bool, error) {
	qctx, cancel := context.WithTimeout(ctx, e.t.StepDown)
	defer cancel()
	var (
		pid, beatPID *int32
		replica, app *string
		age          *float64
	)
	// The bigint form of an advisory lock shows in pg_locks as its high
	// and low 32 bits (classid, objid) with objsubid 1.
	err := conn.QueryRow(qctx, `SELECT l.pid, h.backend_pid, h.replica, a.application_name,
			extract(epoch FROM now() - h.beat_at)::float8
		FROM pg_locks l
		LEFT JOIN leader_heartbeat h ON h.lock_key = $1
		LEFT JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
			AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND l.classid = (($1::bigint >> 32) & 4294967295)::oid AND l.objid = ($1::bigint & 4294967295)::oid`, key).
		Scan(&pid, &beatPID, &replica, &app, &age)
	if errors.Is(err, pgx.ErrNoRows) {
		return true, nil // freed since we tried: try again
	}
	if err != nil {
		return false, fmt.Errorf("looking at the leader lock's holder: %w", err)
	}
	var quiet time.Duration
	if beatPID != nil && pid != nil && *beatPID == *pid && age != nil {
		quiet = time.Duration(*age * float64(time.Second))
	} else {
		// No heartbeat of this holder's: count from when we first saw it.
		if seen.pid != *pid {
			*seen = holderSeen{pid: *pid, since: time.Now()}
		}
		quiet = time.Since(seen.since)
	}
	if quiet <= e.t.Stale {
		return false, nil
	}
	holder := "(unknown)"
	if replica != nil && beatPID != nil && *beatPID == *pid {
		holder = *replica
	}
	appName := ""
	if app != nil {
		appName = *app
	}
	e.log.Warn("leader election: the leader's heartbeat is stale; terminating its database sessions and taking over",
		zap.String("leader", holder), zap.Int32("leader_backend_pid", *pid), zap.Duration("heartbeat_age", quiet.Round(time.Millisecond)))
	// Every session of the stale replica: the lock's, and the pool's,
	// whose row locks and transactions would otherwise stay too. Waits up
	// to a second for each to end.
	rows, err := conn.Query(qctx, `SELECT pid, pg_terminate_backend(pid, 1000) FROM pg_stat_activity
		WHERE pid <> pg_backend_pid() AND datname = current_database()
			AND (pid = $1 OR ($2 <> '' AND application_name = $2))`, *pid, appName)
	if err != nil {
		return false, fmt.Errorf("terminating the stale leader's sessions: %w", err)
	}
	n := 0
	for rows.Next() {
		var pid int32
		var ended bool
		if err := rows.Scan(&pid, &ended); err != nil {
			rows.Close()
			return false, fmt.Errorf("terminating the stale leader's sessions: %w", err)
		}
		if ended {
			n++
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("terminating the stale leader's sessions: %w", err)
	}
	e.log.Info("leader election: terminated the stale leader's sessions", zap.Int("sessions", n))
	*seen = holderSeen{}
	return true, nil
}

// leadOn leads on conn, which holds the lock since sent, until the
// heartbeat fails, ctx ends or lead returns by itself.
func (e *Postgres) leadOn(ctx context.Context, conn *pgx.Conn, key int64, sent time.Time, lead func(context.Context)) error {
	lctx, cancelCause := context.WithCancelCause(ctx)
	cancel := func() { cancelCause(nil) }
	defer cancel()
	done := make(chan struct{})
	e.leading.Store(true)
	e.log.Info("leader election: became leader")
	go func() {
		defer close(done)
		lead(lctx)
	}()

	type beat struct {
		sent time.Time
		err  error
	}
	results := make(chan beat, 1)
	inflight := false
	deadline := sent.Add(e.t.StepDown)
	expiry := time.NewTimer(time.Until(deadline))
	defer expiry.Stop()
	ticker := time.NewTicker(e.t.Beat)
	defer ticker.Stop()
	var why error
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-done:
			break loop
		case <-expiry.C:
			why = fmt.Errorf("no heartbeat got through for %s", e.t.StepDown)
			break loop
		case <-ticker.C:
			if inflight {
				continue
			}
			inflight = true
			s := time.Now()
			// The call may hang (a network that swallows packets): it is
			// bounded by the step-down deadline, and the timer above does
			// not wait for it. A clean stop does not cut it short: pgx
			// closes a connection whose query's context is cancelled, and
			// the lock's connection must stay open to hand the lock over
			// (a beat cancelled by a stop under load left the heartbeat
			// row behind, so the follower waited it out as stale).
			bctx, bcancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
			go func() {
				defer bcancel()
				results <- beat{s, e.heartbeat(bctx, conn, key)}
			}()
		case b := <-results:
			inflight = false
			if b.err != nil {
				why = b.err
				break loop
			}
			deadline = b.sent.Add(e.t.StepDown)
			expiry.Reset(time.Until(deadline))
		}
	}
	// Step down first, then wait: lead's context ends now, and the lock is
	// given up only once lead has stopped its work. Its cause says why, so
	// that work cut short reads "this replica lost leadership", not
	// "context canceled".
	if why != nil {
		cancelCause(fmt.Errorf("%w: %w", ErrLost, why))
	}
	cancel()
	e.leading.Store(false)
	if why != nil {
		e.log.Warn("leader election: stepped down; runs, deliveries and the digest are cancelled", zap.Error(why))
	} else {
		e.log.Info("leader election: stepped down")
	}
	<-done
	if inflight {
		<-results // the call ends by its deadline; the connection is then free to close
	}
	if why == nil {
		// A clean stop: give the lock back now rather than when the
		// connection closes, so a follower takes over at its next look.
		uctx, ucancel := context.WithTimeout(context.WithoutCancel(ctx), max(time.Second, e.t.StepDown))
		_, _ = conn.Exec(uctx, `DELETE FROM leader_heartbeat WHERE lock_key = $1 AND backend_pid = pg_backend_pid()`, key)
		_, _ = conn.Exec(uctx, `SELECT pg_advisory_unlock($1)`, key)
		ucancel()
	}
	return why
}

// ErrLost is the cause of lead's context when this replica steps down
// because its leadership could not be kept (a heartbeat failed or did not
// get through in time); work cut short by it says so.
var ErrLost = errors.New("this replica lost leadership")

// errNotHolder: the heartbeat row names another session, so this one no
// longer holds the lock (it was terminated and the row rewritten).
var errNotHolder = errors.New("the heartbeat row names another session: this replica no longer holds the leader lock")

// heartbeat renews the leader's heartbeat on the lock's connection.
func (e *Postgres) heartbeat(ctx context.Context, conn *pgx.Conn, key int64) error {
	tag, err := conn.Exec(ctx, `UPDATE leader_heartbeat SET beat_at = now() WHERE lock_key = $1 AND backend_pid = pg_backend_pid()`, key)
	if err != nil {
		return fmt.Errorf("renewing the leader heartbeat: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return errNotHolder
	}
	return nil
}
