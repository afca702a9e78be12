package report

import (
	"context"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/storage"
)

// AlertsQuery is `alerts list` and GET /api/v1/alerts.
type AlertsQuery struct {
	Status  string // "", pending, sent or failed
	Channel string
	Limit   int // the most recent N; 0 all
}

// CheckAlertStatus accepts "", pending, sent or failed.
func CheckAlertStatus(name, s string) error {
	switch s {
	case "", storage.OutboxPending, storage.OutboxSent, storage.OutboxFailed:
		return nil
	}
	return paramErr("%s %q: want pending, sent or failed", name, s)
}

// AlertRow is the JSON shape scripts rely on; keep the names.
type AlertRow struct {
	ID            int64  `json:"id"`
	DeliveryKey   string `json:"delivery_key"`
	Channel       string `json:"channel"`
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Attempts      int    `json:"attempts"`
	CreatedAt     any    `json:"created_at"`
	NextAttemptAt any    `json:"next_attempt_at"`
	SentAt        any    `json:"sent_at"`
	LastError     string `json:"last_error"`
	Summary       string `json:"summary"`
}

// Alerts lists queued, sent and failed alerts in delivery order; summary
// is each one's plain one-line text (digest.AlertSummary; nil: none),
// handed in so that the reports, and the web server over them, link
// neither the Slack renderer nor the chart library.
func Alerts(ctx context.Context, st Store, q AlertsQuery, summary func(payload []byte) string) ([]AlertRow, error) {
	entries, err := st.ListOutbox(ctx, storage.OutboxFilter{Status: q.Status, Channel: q.Channel, Limit: q.Limit})
	if err != nil {
		return nil, err
	}
	return AlertRows(entries, summary), nil
}

// AlertRows turns outbox entries into rows, each with its summary (nil:
// none); none is an empty list.
func AlertRows(entries []storage.OutboxEntry, summary func(payload []byte) string) []AlertRow {
	if summary == nil {
		summary = func([]byte) string { return "" }
	}
	rows := make([]AlertRow, 0, len(entries))
	for _, e := range entries {
		r := AlertRow{ID: e.ID, DeliveryKey: e.DeliveryKey, Channel: e.Channel, Kind: e.Kind, Status: e.Status, Attempts: e.Attempts,
			CreatedAt: Time(&e.CreatedAt), SentAt: Time(e.SentAt), LastError: e.LastError, Summary: summary(e.Payload)}
		if e.Status == storage.OutboxPending {
			r.NextAttemptAt = Time(&e.NextAttemptAt)
		}
		rows = append(rows, r)
	}
	return rows
}

// RunRow is one provider's latest fetch run; keep the names.
type RunRow struct {
	Provider       string `json:"provider"`
	ID             int64  `json:"id"`
	Status         string `json:"status"`
	StartedAt      any    `json:"started_at"`
	FinishedAt     any    `json:"finished_at"`
	DurationSecs   any    `json:"duration_seconds"`
	OffersSeen     int    `json:"offers_seen"`
	OffersNew      int    `json:"offers_new"`
	OffersChanged  int    `json:"offers_changed"`
	OffersSame     int    `json:"offers_unchanged"`
	OffersClosed   int    `json:"offers_closed"`
	RegionsSkipped int    `json:"regions_skipped"`
	OffersHeld     int    `json:"offers_held"`
	Changes        int    `json:"changes"`
	SourceVersion  string `json:"source_version"`
	Error          string `json:"error"`
	LastSuccessAt  any    `json:"last_success_at"`
	// Replica is the replica that ran it (ha.replica) when several share
	// a PostgreSQL database; "" on SQLite.
	Replica string `json:"replica"`
}

// Runs is the latest run of each provider with its counts and error, and
// when it last succeeded.
func Runs(ctx context.Context, st Store) ([]RunRow, error) {
	runs, err := st.LastRuns(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]RunRow, 0, len(runs))
	for _, r := range runs {
		row := RunRow{Provider: r.Provider, ID: r.ID, Status: r.Shown(), StartedAt: Time(&r.StartedAt), FinishedAt: Time(r.FinishedAt),
			OffersSeen: r.Seen, OffersNew: r.New, OffersChanged: r.Changed, OffersSame: r.Unchanged, OffersClosed: r.Closed,
			RegionsSkipped: r.RegionsSkipped, OffersHeld: r.Held, Changes: r.Changes, SourceVersion: r.SourceVersion, Error: r.Error, Replica: r.Replica}
		if r.FinishedAt != nil {
			row.DurationSecs = r.FinishedAt.Sub(r.StartedAt).Round(time.Millisecond).Seconds()
		}
		if r.Status == pricewatch.RunOK {
			row.LastSuccessAt = row.FinishedAt
		} else {
			s, err := st.LastSuccess(ctx, r.Provider)
			if err != nil {
				return nil, err
			}
			if s != nil {
				row.LastSuccessAt = Time(s.FinishedAt)
			}
		}
		out = append(out, row)
	}
	return out, nil
}
