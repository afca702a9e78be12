package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/alerting/slack"
	"github.com/pricewatch/pricewatch/alerting/webhook"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

func (a *app) alertsCommand() *cobra.Command {
	return group("alerts", "Deliver, list and retry queued alerts (Slack and the webhook), test Slack, show the rules",
		`Alerts are queued in the database (the outbox) in the same transaction that
stores a run, then posted to Slack in order per channel. A Slack outage only
delays them. These commands look into and act on that queue.`,
		a.alertsDeliverCommand(), a.alertsTestCommand(), a.alertsListCommand(), a.alertsRetryCommand(), a.alertsRulesCommand())
}

func (a *app) alertsDeliverCommand() *cobra.Command {
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "deliver",
		Short: "Try every pending alert now, regardless of back-off",
		Long: `Deliver posts every pending alert now, ignoring the back-off of earlier
failures, then keeps retrying transient failures for up to --wait. It exits
non-zero when anything is left pending or failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("wait") {
				wait = a.cfg.Alerts.FetchDeliveryWait
			}
			db, err := a.openDB(cmd.Context())
			if err != nil {
				return err
			}
			rep, err := a.wiring().Deliver(cmd.Context(), db, wait, true)
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, "alerts: "+reportLine(rep))
			if rep.Failed > 0 || rep.Pending > 0 {
				return exitCode(1)
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&wait, "wait", 0, "how long to keep retrying transient failures (default alerts.fetch_delivery_wait)")
	return cmd
}

func (a *app) alertsTestCommand() *cobra.Command {
	var channel string
	cmd := &cobra.Command{
		Use:   "test",
		Short: "Post a test message to Slack and report what Slack said",
		Long: `Test posts a test message directly (not through the queue) to --channel, or
to slack.channel, and prints Slack's answer. It exits non-zero, with the fix,
when Slack refuses it.`,
		Example: `  PRICEWATCH_SLACK_TOKEN=xoxb-… pricewatch alerts test --channel C0123ABCD`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if channel == alerting.WebhookChannel {
				// The webhook's outbox channel: test the webhook, not a
				// Slack channel named "webhook".
				return a.testWebhook(cmd.Context())
			}
			n, err := a.wiring().Notifier()
			if err != nil {
				return err
			}
			sn, ok := n.(*slack.Notifier)
			if !ok {
				return fmt.Errorf("slack is not configured: set %s (or slack.token_file) and slack.channel, or slack.webhook_url", envSlackToken)
			}
			if channel == "" {
				channel = a.cfg.Slack.Channel
			}
			if channel == "" && sn.Mode() != "incoming webhook" {
				return fmt.Errorf("no channel: pass --channel or set slack.channel")
			}
			payload, err := slack.TestMessage(time.Now().UTC(), buildVersion())
			if err != nil {
				return err
			}
			rcpt, err := sn.Send(cmd.Context(), channel, payload)
			if err != nil {
				verb := "Slack refused the test message" // only when Slack answered
				if errors.Is(err, alerting.ErrNoAnswer) {
					verb = "could not reach Slack"
				}
				fmt.Fprintf(a.stderr, "%s (%s): %v\n", verb, sn.Mode(), err)
				if p, ok := alerting.IsPermanent(err); ok {
					fmt.Fprintf(a.stderr, "fix: %s\n", p.Fix)
				} else {
					fmt.Fprintln(a.stderr, "this looks temporary: try again, alerts queued meanwhile are retried")
				}
				return exitCode(1)
			}
			switch {
			case rcpt.Timestamp != "":
				fmt.Fprintf(a.stdout, "Slack accepted the test message via %s: channel %s, ts %s\n", sn.Mode(), rcpt.Channel, rcpt.Timestamp)
			default:
				fmt.Fprintf(a.stdout, "Slack accepted the test message via %s\n", sn.Mode())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&channel, "channel", "", `channel ID or name (default slack.channel); "webhook" tests the webhook (webhook.url)`)
	return cmd
}

// testWebhook posts a test message to webhook.url and prints what the
// receiver said.
func (a *app) testWebhook(ctx context.Context) error {
	n, err := a.wiring().Webhook()
	if err != nil {
		return err
	}
	wh, ok := n.(*webhook.Notifier)
	if !ok {
		return fmt.Errorf("the webhook is not configured: set webhook.url or webhook.url_file")
	}
	if err := wh.PostTest(ctx, time.Now().UTC(), buildVersion()); err != nil {
		fmt.Fprintf(a.stderr, "the webhook refused the test message: %v\n", err)
		if p, ok := alerting.IsPermanent(err); ok {
			fmt.Fprintf(a.stderr, "fix: %s\n", p.Fix)
		} else {
			fmt.Fprintln(a.stderr, "this looks temporary: try again, alerts queued meanwhile are retried")
		}
		return exitCode(1)
	}
	fmt.Fprintln(a.stdout, "the webhook accepted the test message")
	return nil
}

type alertsListFlags struct {
	pending, failed bool
	channel         string
	limit           int
	format          string
	server          serverFlag
}

func (a *app) alertsListCommand() *cobra.Command {
	var f alertsListFlags
	cmd := readCommand(&f.format, &f.server, &cobra.Command{
		Use:   "list",
		Short: "List queued, sent and failed alerts",
		Example: `  pricewatch alerts list --pending
  pricewatch alerts list --failed --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.pending && f.failed {
				return usagef("--pending and --failed exclude each other")
			}
			q := report.AlertsQuery{Channel: f.channel, Limit: f.limit}
			switch {
			case f.pending:
				q.Status = storage.OutboxPending
			case f.failed:
				q.Status = storage.OutboxFailed
			}
			var rows []report.AlertRow
			if f.server.url != "" {
				v := query{}
				v.set("status", q.Status)
				v.set("channel", q.Channel)
				v.set("limit", strconv.Itoa(q.Limit))
				if printed, err := a.remoteRows(cmd.Context(), f.server.url, "alerts", url.Values(v), f.format == formatJSON, &rows); err != nil || printed {
					return err
				}
			} else {
				db, err := a.openReader(cmd.Context())
				if err != nil {
					return err
				}
				if rows, err = report.Alerts(cmd.Context(), db, q, digest.AlertSummary); err != nil {
					return err
				}
			}
			return writeAlerts(a.stdout, f.format, rows)
		},
	})
	cmd.Flags().BoolVar(&f.pending, "pending", false, "only alerts waiting to be delivered")
	cmd.Flags().BoolVar(&f.failed, "failed", false, "only alerts given up on (retry them with: pricewatch alerts retry --failed)")
	cmd.Flags().StringVar(&f.channel, "channel", "", "only this channel")
	cmd.Flags().IntVar(&f.limit, "limit", 50, "the most recent N alerts (0 for all)")
	return cmd
}

func writeAlerts(w io.Writer, format string, rows []report.AlertRow) error {
	if format != formatTable {
		return writeRows(w, format, rows)
	}
	t := table.New(">ID", "STATUS", "CHANNEL", "EVENT", "QUEUED", ">TRIES", "NEXT TRY / SENT", "SUMMARY / ERROR")
	for _, r := range rows {
		when := tableTime(r.NextAttemptAt)
		if r.SentAt != nil {
			when = tableTime(r.SentAt)
		}
		detail := r.Summary
		if r.LastError != "" && r.Status != storage.OutboxSent {
			detail = r.LastError
		}
		t.Add(strconv.FormatInt(r.ID, 10), r.Status, dash(r.Channel), r.Kind, tableTime(r.CreatedAt), strconv.Itoa(r.Attempts), dash(when), clitext.Clip(detail, 100))
	}
	return writeTable(w, t)
}

func (a *app) alertsRetryCommand() *cobra.Command {
	var failed bool
	cmd := &cobra.Command{
		Use:   "retry ID... | --failed",
		Short: "Queue failed alerts again (after fixing what made Slack refuse them)",
		Long: `Retry puts the named alerts, or with --failed every failed one, back in the
queue, due now; a pending alert loses its back-off. The daemon sends them
on its own; ` + "`pricewatch alerts deliver`" + ` sends them at once. An alert already
delivered is refused: sending it again would post it twice.`,
		Example: `  pricewatch alerts retry --failed
  pricewatch alerts retry 17 18`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if failed == (len(args) > 0) {
				return usagef("name alert IDs or pass --failed (not both)")
			}
			var ids []int64
			for _, s := range args {
				id, err := strconv.ParseInt(s, 10, 64)
				if err != nil || id <= 0 {
					return usagef("%q is not an alert ID (see `pricewatch alerts list`)", s)
				}
				ids = append(ids, id)
			}
			return onDB(cmd.Context(), a.openDB, func(ctx context.Context, db *storage.DB) error {
				n, err := db.RetryFailed(ctx, ids)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "requeued %d alerts; the daemon sends them, or run `pricewatch alerts deliver` now\n", n)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&failed, "failed", false, "requeue every failed alert")
	return cmd
}
