package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"
)

// Outbox message statuses.
const (
	OutboxPending = "pending"
	OutboxSent    = "sent"
	OutboxFailed  = "failed"
)

// ErrOutboxNotFound is returned when a message id is not in the outbox.
var ErrOutboxNotFound = errors.New("no such outbox message")

// OutboxEntry is one stored message with its delivery state.
type OutboxEntry struct {
	ID            int64
	DeliveryKey   string
	Channel       string
	Kind          string
	Payload       []byte
	CreatedAt     time.Time
	NextAttemptAt time.Time
	Attempts      int
	Status        string
	LastError     string
	SentAt        *time.Time
	LeaseUntil    *time.Time
	// Attachment is a file to send with the message (the digest's chart);
	// nil for none.
	Attachment []byte
}

const outboxColumns = `id, delivery_key, channel, kind, payload, created_at, next_attempt_at, attempts, status, last_error, sent_at, lease_until, attachment`

// readOutbox reads the messages q selects (outboxColumns); its errors
// read "reading <what>: …".
func (db *DB) readOutbox(ctx context.Context, what, q string, args ...any) ([]OutboxEntry, error) {
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	out, err := scanOutbox(rows)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	return out, nil
}

func scanOutbox(rows *sql.Rows) ([]OutboxEntry, error) {
	defer rows.Close()
	var out []OutboxEntry
	for rows.Next() {
		var e OutboxEntry
		var payload, created, next string
		var sent, lease sql.NullString
		if err := rows.Scan(&e.ID, &e.DeliveryKey, &e.Channel, &e.Kind, &payload, &created, &next, &e.Attempts, &e.Status, &e.LastError, &sent, &lease, &e.Attachment); err != nil {
			return nil, err
		}
		e.Payload = []byte(payload)
		if err := parseTimes(timeAt(created, &e.CreatedAt), timeAt(next, &e.NextAttemptAt), nullTimeAt(sent, &e.SentAt), nullTimeAt(lease, &e.LeaseUntil)); err != nil {
			return nil, fmt.Errorf("outbox message %d: %w", e.ID, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Enqueue queues one message that no fetch run produced (the weekly
// digest), with an optional attachment. A message whose delivery key is
// already stored, whatever its status, is left as it is: Enqueue reports
// whether this call queued anything, so a second trigger in the same week
// cannot post the digest twice.
func (db *DB) Enqueue(ctx context.Context, m OutboxMessage, attachment []byte) (bool, error) {
	if m.DeliveryKey == "" {
		return false, fmt.Errorf("queueing a %s message: no delivery key", m.Kind)
	}
	ts := formatTime(db.Now())
	res, err := db.write.ExecContext(ctx, `INSERT INTO outbox (delivery_key, channel, kind, payload, created_at, next_attempt_at, attachment)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (delivery_key) DO NOTHING`, m.DeliveryKey, m.Channel, m.Kind, string(m.Payload), ts, ts, attachment)
	if err != nil {
		return false, fmt.Errorf("queueing message %s: %w", m.DeliveryKey, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("queueing message %s: %w", m.DeliveryKey, err)
	}
	return n == 1, nil
}

// OutboxByKey returns the message stored under a delivery key, or an error
// wrapping ErrOutboxNotFound.
func (db *DB) OutboxByKey(ctx context.Context, key string) (OutboxEntry, error) {
	out, err := db.readOutbox(ctx, "outbox message "+key, `SELECT `+outboxColumns+` FROM outbox WHERE delivery_key = ?`, key)
	if err != nil {
		return OutboxEntry{}, err
	}
	if len(out) == 0 {
		return OutboxEntry{}, fmt.Errorf("outbox message %s: %w", key, ErrOutboxNotFound)
	}
	return out[0], nil
}

// headsQuery selects, per channel, the oldest pending message: the only one
// that may be sent next if messages are to arrive in order.
const headsQuery = `SELECT ` + outboxColumns + ` FROM outbox WHERE id IN (
	SELECT MIN(id) FROM outbox WHERE status = 'pending' GROUP BY channel)`

// DueMessages returns, for each channel, its oldest pending message when
// that message may be sent at now: its back-off has passed (or force is
// set) and no sender holds a lease on it. Later messages of a channel are
// never returned while an earlier one is pending, which keeps each channel
// in order. The result is ordered by id and holds at most limit entries.
func (db *DB) DueMessages(ctx context.Context, now time.Time, force bool, limit int) ([]OutboxEntry, error) {
	ts := formatTime(now)
	return db.readOutbox(ctx, "due outbox messages", headsQuery+`
		AND (? OR next_attempt_at <= ?) AND (lease_until IS NULL OR lease_until <= ?) ORDER BY id LIMIT ?`, force, ts, ts, limit)
}

// PendingHeads returns the oldest pending message of each channel, in id
// order: what a sender must deliver next, with when each may be tried
// (NextAttemptAt, and LeaseUntil while another sender holds it).
func (db *DB) PendingHeads(ctx context.Context) ([]OutboxEntry, error) {
	return db.readOutbox(ctx, "pending outbox messages", headsQuery+` ORDER BY id`)
}

// ClaimMessage leases message id to the caller until leaseUntil and counts
// an attempt. It succeeds only while the message is pending, due at now (or
// force), not leased by another sender and the oldest pending message of
// its channel; the check and the claim are one statement on the single
// writer, so two processes can never both claim a message. It reports
// whether the claim succeeded.
//
// A message whose outcome this DB holds but has not written yet (see
// MarkSent) is never claimed again: it was posted already.
func (db *DB) ClaimMessage(ctx context.Context, id int64, now, leaseUntil time.Time, force bool) (bool, error) {
	db.flushMarks(ctx)
	if db.marks.has(id) {
		return false, nil
	}
	ts := formatTime(now)
	q := `UPDATE outbox SET lease_until = ?, attempts = attempts + 1
		WHERE id = ? AND status = 'pending'
		AND (? OR next_attempt_at <= ?)
		AND (lease_until IS NULL OR lease_until <= ?)
		AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.channel = outbox.channel AND o.status = 'pending' AND o.id < outbox.id)`
	if db.pg {
		// Writers run at once here: the row is locked as it is chosen, and
		// one another sender is claiming right now is skipped, not waited
		// for (it will be leased when that claim commits). A row locked
		// meanwhile is re-checked against its newest version before the
		// update, so two replicas never both lease it.
		q = `UPDATE outbox SET lease_until = ?, attempts = attempts + 1
		WHERE id = (SELECT m.id FROM outbox m WHERE m.id = ? AND m.status = 'pending'
			AND (? OR m.next_attempt_at <= ?)
			AND (m.lease_until IS NULL OR m.lease_until <= ?)
			AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.channel = m.channel AND o.status = 'pending' AND o.id < m.id)
			FOR UPDATE SKIP LOCKED)`
	}
	res, err := db.write.ExecContext(ctx, q, formatTime(leaseUntil), id, force, ts, ts)
	if err != nil {
		return false, fmt.Errorf("claiming outbox message %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("claiming outbox message %d: %w", id, err)
	}
	return n == 1, nil
}

// MarkSent records that message id was delivered.
//
// Marking is a local write after a remote side effect, so MarkSent,
// MarkRetry and MarkFailed retry until the write succeeds or ctx is done;
// a database locked by another process delays the record, it does not lose
// it. Until it is written the outcome is remembered by this DB: the message
// cannot be claimed again through it (so this process never posts it
// twice), and every later claim and Close try the write again. The lease
// is the last resort, for a process that stopped before writing.
func (db *DB) MarkSent(ctx context.Context, id int64) error {
	return db.recordOutcome(ctx, id, `UPDATE outbox SET status = 'sent', sent_at = ?, last_error = '', lease_until = NULL
		WHERE id = ? AND status = 'pending'`, formatTime(db.Now()), id)
}

// MarkRetry leaves message id pending, to be tried again at next. errText
// must already be free of secrets.
func (db *DB) MarkRetry(ctx context.Context, id int64, next time.Time, errText string) error {
	return db.recordOutcome(ctx, id, `UPDATE outbox SET next_attempt_at = ?, last_error = ?, lease_until = NULL
		WHERE id = ? AND status = 'pending'`, formatTime(next), errText, id)
}

// MarkFailed gives up on message id. errText must already be free of
// secrets. RetryFailed puts it back in the queue.
func (db *DB) MarkFailed(ctx context.Context, id int64, errText string) error {
	return db.recordOutcome(ctx, id, `UPDATE outbox SET status = 'failed', last_error = ?, lease_until = NULL
		WHERE id = ? AND status = 'pending'`, errText, id)
}

// errNotPending: the message was not pending any more when its outcome
// was written (another sender or an operator changed it); retrying the
// write cannot help.
var errNotPending = errors.New("it is no longer pending")

// outboxMarks holds outcomes whose write has not succeeded yet, by message.
type outboxMarks struct {
	mu      sync.Mutex
	pending map[int64]outboxMark
	// writing serialises outcome writes, so that the caller retrying a
	// mark and a claim flushing it never both write it.
	writing sync.Mutex
}

type outboxMark struct {
	query string
	args  []any
}

func (m *outboxMarks) put(id int64, mark outboxMark) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pending == nil {
		m.pending = map[int64]outboxMark{}
	}
	m.pending[id] = mark
}

func (m *outboxMarks) done(id int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.pending, id)
}

func (m *outboxMarks) has(id int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.pending[id]
	return ok
}

func (m *outboxMarks) all() map[int64]outboxMark {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.pending)
}

// markRetryWait bounds the pause between attempts to write an outcome.
const markRetryWait = 2 * time.Second

func (db *DB) recordOutcome(ctx context.Context, id int64, q string, args ...any) error {
	db.marks.put(id, outboxMark{query: q, args: args})
	wait := 20 * time.Millisecond
	for {
		db.marks.writing.Lock()
		if !db.marks.has(id) {
			// A claim's flush wrote it meanwhile.
			db.marks.writing.Unlock()
			return nil
		}
		err := db.writeOutcome(id, q, args...)
		if err == nil || errors.Is(err, errNotPending) {
			db.marks.done(id)
		}
		db.marks.writing.Unlock()
		if err == nil || errors.Is(err, errNotPending) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (the outcome is kept and written once the database allows)", err)
		case <-t.C:
		}
		wait = min(wait*2, markRetryWait)
	}
}

// writeOutcome makes one attempt. It ignores cancellation: the outcome of
// a post must be recorded even while the caller is being stopped.
func (db *DB) writeOutcome(id int64, q string, args ...any) error {
	res, err := db.write.ExecContext(context.Background(), q, args...)
	if err != nil {
		return fmt.Errorf("updating outbox message %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("updating outbox message %d: %w", id, err)
	} else if n != 1 {
		return fmt.Errorf("updating outbox message %d: %w", id, errNotPending)
	}
	return nil
}

// flushMarks tries once to write every outcome still held.
func (db *DB) flushMarks(ctx context.Context) {
	for id, m := range db.marks.all() {
		if ctx.Err() != nil {
			return
		}
		db.marks.writing.Lock()
		if db.marks.has(id) {
			if err := db.writeOutcome(id, m.query, m.args...); err == nil || errors.Is(err, errNotPending) {
				db.marks.done(id)
			}
		}
		db.marks.writing.Unlock()
	}
}

// UnrecordedOutcomes is how many posted messages' outcomes this DB still
// holds, not yet written.
func (db *DB) UnrecordedOutcomes() int { return len(db.marks.all()) }

// OutboxFilter selects messages for ListOutbox.
type OutboxFilter struct {
	Status  string // "" for every status
	Channel string // "" for every channel
	Limit   int    // the most recent Limit messages; 0 for all
}

// ListOutbox returns messages in delivery (id) order.
func (db *DB) ListOutbox(ctx context.Context, f OutboxFilter) ([]OutboxEntry, error) {
	var where []string
	var args []any
	if f.Status != "" {
		where = append(where, "status = ?")
		args = append(args, f.Status)
	}
	if f.Channel != "" {
		where = append(where, "channel = ?")
		args = append(args, f.Channel)
	}
	q := `SELECT ` + outboxColumns + ` FROM outbox`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY id DESC"
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	out, err := db.readOutbox(ctx, "outbox", q, args...)
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// RetryFailed makes messages due now: every failed message when ids is
// empty, else the named ones, which must be failed or pending (a pending
// message loses its back-off). A sent message is refused: posting it again
// would duplicate it. It returns how many messages were requeued.
func (db *DB) RetryFailed(ctx context.Context, ids []int64) (int, error) {
	ts := formatTime(db.Now())
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("requeueing outbox messages: %w", err)
	}
	defer tx.Rollback()
	if len(ids) == 0 {
		res, err := tx.ExecContext(ctx, `UPDATE outbox SET status = 'pending', next_attempt_at = ?, attempts = 0, lease_until = NULL
			WHERE status = 'failed'`, ts)
		if err != nil {
			return 0, fmt.Errorf("requeueing failed outbox messages: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, fmt.Errorf("requeueing failed outbox messages: %w", err)
		}
		return int(n), tx.Commit()
	}
	for _, id := range ids {
		var status string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM outbox WHERE id = ?`, id).Scan(&status); errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("outbox message %d: %w", id, ErrOutboxNotFound)
		} else if err != nil {
			return 0, fmt.Errorf("requeueing outbox message %d: %w", id, err)
		}
		if status == OutboxSent {
			return 0, fmt.Errorf("outbox message %d was already delivered; sending it again would post it twice", id)
		}
		// A pending message keeps its lease: a sender may be posting it now.
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET status = 'pending', next_attempt_at = ?,
			attempts = CASE WHEN status = 'failed' THEN 0 ELSE attempts END WHERE id = ?`, ts, id); err != nil {
			return 0, fmt.Errorf("requeueing outbox message %d: %w", id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("requeueing outbox messages: %w", err)
	}
	return len(ids), nil
}

// OutboxStats counts messages by status, for metrics and `alerts list`.
type OutboxStats struct {
	Pending, Sent, Failed int
	// OldestPending is when the oldest pending message was queued.
	OldestPending *time.Time
}

// OutboxCounts returns the outbox's message counts.
func (db *DB) OutboxCounts(ctx context.Context) (OutboxStats, error) {
	var s OutboxStats
	var oldest sql.NullString
	err := db.read.QueryRowContext(ctx, `SELECT
		COUNT(CASE WHEN status = 'pending' THEN 1 END), COUNT(CASE WHEN status = 'sent' THEN 1 END), COUNT(CASE WHEN status = 'failed' THEN 1 END),
		MIN(CASE WHEN status = 'pending' THEN created_at END) FROM outbox`).Scan(&s.Pending, &s.Sent, &s.Failed, &oldest)
	if err != nil {
		return s, fmt.Errorf("counting outbox messages: %w", err)
	}
	if s.OldestPending, err = parseNullTime(oldest); err != nil {
		return s, fmt.Errorf("counting outbox messages: %w", err)
	}
	return s, nil
}
