// Package outboxstore joins alerting to storage: it is the alerting
// outbox kept in storage's SQLite database (alerting.Outbox and
// alerting.Clock over *storage.DB), and the rules as the function storage
// calls inside a run's transaction (storage.SaveOptions.Outbox). alerting
// itself imports neither storage nor the configuration; this package is
// the one place the two meet.
package outboxstore

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/storage"
)

// Outbox adapts a database to alerting.Outbox and alerting.Clock.
type Outbox struct{ DB *storage.DB }

var (
	_ alerting.Outbox = Outbox{}
	_ alerting.Clock  = Outbox{}
)

// Now is the database's clock.
func (o Outbox) Now() time.Time { return o.DB.Now() }

func entries(in []storage.OutboxEntry) []alerting.OutboxEntry {
	out := make([]alerting.OutboxEntry, 0, len(in))
	for _, e := range in {
		out = append(out, alerting.OutboxEntry{ID: e.ID, DeliveryKey: e.DeliveryKey, Channel: e.Channel, Kind: e.Kind, Payload: e.Payload, Attempts: e.Attempts,
			NextAttemptAt: e.NextAttemptAt, LeaseUntil: e.LeaseUntil, CreatedAt: e.CreatedAt, LastError: e.LastError, Attachment: e.Attachment})
	}
	return out
}

// DueMessages implements alerting.Outbox.
func (o Outbox) DueMessages(ctx context.Context, now time.Time, force bool, limit int) ([]alerting.OutboxEntry, error) {
	es, err := o.DB.DueMessages(ctx, now, force, limit)
	return entries(es), err
}

// PendingHeads implements alerting.Outbox.
func (o Outbox) PendingHeads(ctx context.Context) ([]alerting.OutboxEntry, error) {
	es, err := o.DB.PendingHeads(ctx)
	return entries(es), err
}

// Pending implements alerting.Outbox.
func (o Outbox) Pending(ctx context.Context) (int, error) {
	st, err := o.DB.OutboxCounts(ctx)
	return st.Pending, err
}

// ClaimMessage implements alerting.Outbox.
func (o Outbox) ClaimMessage(ctx context.Context, id int64, now, leaseUntil time.Time, force bool) (bool, error) {
	return o.DB.ClaimMessage(ctx, id, now, leaseUntil, force)
}

// MarkSent implements alerting.Outbox.
func (o Outbox) MarkSent(ctx context.Context, id int64) error { return o.DB.MarkSent(ctx, id) }

// MarkRetry implements alerting.Outbox.
func (o Outbox) MarkRetry(ctx context.Context, id int64, next time.Time, errText string) error {
	return o.DB.MarkRetry(ctx, id, next, errText)
}

// MarkFailed implements alerting.Outbox.
func (o Outbox) MarkFailed(ctx context.Context, id int64, errText string) error {
	return o.DB.MarkFailed(ctx, id, errText)
}

// NewDispatcher returns a dispatcher draining db's outbox through n, on
// the database's clock.
func NewDispatcher(db *storage.DB, n alerting.Notifier, log *zap.Logger, opts alerting.DispatcherOptions) *alerting.Dispatcher {
	return alerting.NewDispatcher(Outbox{db}, Outbox{db}, n, log, opts)
}

// Run is the run storage stored, as the rules judge it.
func Run(res *storage.Result) alerting.Run {
	return alerting.Run{ID: res.RunID, Provider: res.Provider, At: res.At, FirstRun: res.FirstRun, Changes: res.AlertChanges()}
}

// SaveFunc returns rules as storage.SaveOptions.Outbox: the run's alerts
// as outbox documents, queued in the run's transaction.
func SaveFunc(rules *alerting.Rules) func(*storage.Result) ([]storage.OutboxMessage, error) {
	return func(res *storage.Result) ([]storage.OutboxMessage, error) {
		if res == nil {
			return nil, nil
		}
		msgs, err := rules.Messages(Run(res))
		if err != nil {
			return nil, err
		}
		out := make([]storage.OutboxMessage, 0, len(msgs))
		for _, m := range msgs {
			out = append(out, storage.OutboxMessage{DeliveryKey: m.DeliveryKey, Channel: m.Channel, Kind: m.Kind, Payload: m.Payload})
		}
		return out, nil
	}
}
