package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/alerting"
	digestrender "github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/storage"
)

type digestFlags struct {
	send   bool
	again  bool
	format string
	out    string
	now    string
}

const formatMarkdown = "markdown"

// formatSlack prints the Block Kit payload that --send would queue.
const formatSlack = "slack"

func (a *app) digestCommand() *cobra.Command {
	var f digestFlags
	cmd := &cobra.Command{
		Use:   "digest",
		Short: "Preview the weekly FinOps digest, or send it to Slack now",
		Long: `Build the weekly digest the daemon posts (digest.schedule): for each model in
digest.gpu_models the cheapest on-demand, spot and commitment price per GPU-hour
across clouds in digest.currency with its week-over-week move, the biggest
price moves, new availability and sell-outs, the best commitment against
on-demand with its break-even utilisation, stale providers and the exchange
rates used.

Without --send it prints the digest (--format text, markdown, json, or slack
for the Block Kit payload). --out writes the chart of the cheapest H100 and
A100 per GPU-hour over the last 12 weeks as a PNG.

--send queues the digest in the outbox under the key digest/<ISO week>/<channel>
and delivers it now. The daemon uses the same key, so the digest of a week is
posted once whoever sends it first; sending again in the same week says so and
posts nothing. --again adds a suffix to the key and posts another copy.
The chart goes to the message's thread and needs a bot token with files:write;
with an incoming webhook the digest goes without it and says so.`,
		Example: `  pricewatch digest
  pricewatch digest --format markdown > digest.md
  pricewatch digest --out chart.png
  pricewatch digest --send`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(f.format, formatTable, "text", formatMarkdown, formatJSON, formatSlack); err != nil {
				return err
			}
			if f.again && !f.send {
				return errors.New("--again only makes sense with --send")
			}
			now, err := evalTime(f.now)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			open := a.openReader // a preview only reads
			if f.send {
				open = a.openDB
			}
			db, err := open(ctx)
			if err != nil {
				return err
			}
			d, err := a.wiring().Digests().Build(ctx, db, now)
			if err != nil {
				return err
			}
			if f.out != "" {
				if err := writeChartFile(d, f.out); err != nil {
					return err
				}
			}
			if f.send {
				suffix := ""
				if f.again {
					suffix = "/again-" + now.UTC().Format("20060102T150405Z")
				}
				return a.sendDigest(ctx, db, d, suffix)
			}
			switch f.format {
			case formatJSON:
				return digestrender.WriteJSON(a.stdout, d)
			case formatMarkdown:
				return digestrender.WriteMarkdown(a.stdout, d)
			case formatSlack:
				_, _, preview, err := a.wiring().Digests().Message(d, "")
				if err != nil {
					return err
				}
				_, err = a.stdout.Write(append(preview, '\n'))
				return err
			}
			return digestrender.WriteText(a.stdout, d)
		},
	}
	cmd.Flags().BoolVar(&f.send, "send", false, "queue the digest and deliver it to Slack now")
	cmd.Flags().BoolVar(&f.again, "again", false, "with --send: post another copy even if this week's digest was already sent")
	cmd.Flags().StringVar(&f.format, "format", "text", "preview format: text, markdown, json or slack (the Block Kit payload)")
	cmd.Flags().StringVar(&f.out, "out", "", "write the chart to this PNG file")
	addNowFlag(cmd, &f.now)
	return cmd
}

func writeChartFile(d digest.Digest, path string) error {
	var buf bytes.Buffer
	if err := digestrender.RenderChart(d, &buf); err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// sendDigest is `digest --send`: queue, deliver now, and say what Slack did.
func (a *app) sendDigest(ctx context.Context, db *storage.DB, d digest.Digest, suffix string) error {
	key, queued, err := a.wiring().Digests().Enqueue(ctx, db, d, suffix)
	if err != nil {
		return err
	}
	e, err := db.OutboxByKey(ctx, key)
	if err != nil {
		return err
	}
	if !queued {
		switch e.Status {
		case storage.OutboxSent:
			fmt.Fprintf(a.stdout, "The digest of %s was already sent (%s, at %s); nothing posted. --again posts another copy.\n",
				d.Week, key, tableTimeOf(*e.SentAt))
			return nil
		case storage.OutboxFailed:
			// Sending by hand is the operator's retry.
			if _, err := db.RetryFailed(ctx, []int64{e.ID}); err != nil {
				return err
			}
		}
	}
	rep, err := a.wiring().Deliver(ctx, db, a.cfg.Alerts.FetchDeliveryWait, true)
	if err != nil {
		return err
	}
	if e, err = db.OutboxByKey(ctx, key); err != nil {
		return err
	}
	switch e.Status {
	case storage.OutboxSent:
		fmt.Fprintf(a.stdout, "Digest of %s sent (%s).\n", d.Week, key)
		if rep.Incomplete > 0 {
			fmt.Fprintln(a.stdout, "The message went without its chart; the log says why.")
		}
		return nil
	case storage.OutboxFailed:
		// The delivery's error line above gave the fix: said once.
		reason, _ := alerting.SplitFix(e.LastError)
		return fmt.Errorf("slack refused the digest of %s: %s (fix: as logged above)", d.Week, reason)
	}
	why := e.LastError
	if why == "" {
		why = "other messages of the channel are queued before it"
	}
	return fmt.Errorf("the digest of %s was not delivered (%s); it stays queued and `pricewatch alerts deliver` or the daemon sends it", d.Week, why)
}
