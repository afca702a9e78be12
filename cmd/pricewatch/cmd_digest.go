package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/report"
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
			d, err := a.buildDigest(ctx, db, now)
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
				return digest.WriteJSON(a.stdout, d)
			case formatMarkdown:
				return digest.WriteMarkdown(a.stdout, d)
			case formatSlack:
				_, _, preview, err := a.digestMessage(d, "")
				if err != nil {
					return err
				}
				_, err = a.stdout.Write(append(preview, '\n'))
				return err
			}
			return digest.WriteText(a.stdout, d)
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
	if err := digest.RenderChart(d, &buf); err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// buildDigest loads what the digest needs from the database and builds it
// as of now.
func (a *app) buildDigest(ctx context.Context, db *storage.DB, now time.Time) (digest.Digest, error) {
	cfg := a.cfg.Digest
	loc, err := time.LoadLocation(cfg.Timezone)
	if err != nil {
		return digest.Digest{}, fmt.Errorf("digest.timezone %q: %w", cfg.Timezone, err)
	}
	// The digest looks at prices at a handful of moments, only for the
	// models it is about (digest.gpu_models and the chart's).
	in, err := report.WeeklyDigestInput(ctx, db, now, append(append([]string(nil), cfg.GPUModels...), digest.ChartModels...))
	if err != nil {
		return digest.Digest{}, err
	}
	book, err := a.fxBook(ctx, db)
	if err != nil {
		return digest.Digest{}, err
	}
	for i, r := range in.Runs {
		// Run errors were scrubbed when recorded; a digest goes to Slack,
		// so scrub them again with today's secrets.
		in.Runs[i].Error = a.redactor.String(r.Error)
	}
	in.Location, in.Currency, in.Models, in.Expected, in.FX = loc, cfg.Currency, cfg.GPUModels, a.expectedIntervals(now), book
	in.Regions, in.FleetGPUs = cfg.Regions, cfg.FleetGPUs
	return digest.Build(in)
}

// expectedIntervals maps each enabled provider to the longest gap between
// two runs its schedule allows (the daemon runs a provider without a
// schedule hourly).
func (a *app) expectedIntervals(now time.Time) map[string]time.Duration {
	out := map[string]time.Duration{}
	for name, c := range a.cfg.Providers.Commons() {
		if c.Enabled {
			out[name] = scheduleInterval(c.Schedule, now)
		}
	}
	return out
}

// scheduleInterval is the longest gap between consecutive firings of a
// cron spec over the next two weeks (a weekday-only schedule has a longer
// gap over the weekend, and that is what staleness must allow for).
func scheduleInterval(spec string, from time.Time) time.Duration {
	if spec == "" {
		spec = "@hourly"
	}
	sched, err := cron.ParseStandard(spec)
	if err != nil {
		return 0
	}
	var longest time.Duration
	t := sched.Next(from)
	for end := from.Add(14 * 24 * time.Hour); t.Before(end); {
		n := sched.Next(t)
		if n.IsZero() {
			break
		}
		longest = max(longest, n.Sub(t))
		t = n
	}
	return longest
}

// digestChannel is digest.channel, else slack.channel.
func (a *app) digestChannel() string {
	if c := strings.TrimSpace(a.cfg.Digest.Channel); c != "" {
		return c
	}
	return strings.TrimSpace(a.cfg.Slack.Channel)
}

// digestMessage prepares the digest for the outbox: its data as an
// outbox document (the Slack notifier renders it when it sends) under the
// week's delivery key (plus suffix), and the chart PNG when it goes with
// it. It also returns the Block Kit it renders to now, for --format slack.
func (a *app) digestMessage(d digest.Digest, suffix string) (storage.OutboxMessage, []byte, []byte, error) {
	token, err := a.slackToken()
	if err != nil {
		return storage.OutboxMessage{}, nil, nil, err
	}
	channel := a.digestChannel()
	if !token.Empty() && channel == "" {
		return storage.OutboxMessage{}, nil, nil, errors.New("the digest has no channel: set digest.channel or slack.channel (a channel ID such as C0123ABCD)")
	}
	keyChannel := channel
	if keyChannel == "" {
		keyChannel = "default"
	}
	key := "digest/" + d.Week + "/" + keyChannel + suffix
	mode := digest.ChartAttached
	switch {
	case !a.cfg.Digest.Chart:
		mode = digest.ChartOff
	case d.Chart.Empty():
		mode = digest.ChartNoData
	case token.Empty() && !a.cfg.Slack.WebhookURL.Empty():
		mode = digest.ChartWebhook
	}
	preview, err := digest.SlackPayload(d, digest.SlackOptions{DeliveryKey: key, Chart: mode})
	if err != nil {
		return storage.OutboxMessage{}, nil, nil, fmt.Errorf("rendering the digest: %w", err)
	}
	payload, err := digest.Document(d, key, a.cfg.Digest.Chart)
	if err != nil {
		return storage.OutboxMessage{}, nil, nil, err
	}
	var png []byte
	if mode == digest.ChartAttached {
		var buf bytes.Buffer
		if err := digest.RenderChart(d, &buf); err != nil {
			return storage.OutboxMessage{}, nil, nil, fmt.Errorf("rendering the digest chart: %w", err)
		}
		png = buf.Bytes()
	}
	return storage.OutboxMessage{DeliveryKey: key, Channel: channel, Kind: digest.Kind, Payload: payload}, png, preview, nil
}

// enqueueDigest queues the digest unless this week's is already queued; it
// returns the delivery key and whether this call queued it.
func (a *app) enqueueDigest(ctx context.Context, db *storage.DB, d digest.Digest, suffix string) (string, bool, error) {
	msg, png, _, err := a.digestMessage(d, suffix)
	if err != nil {
		return "", false, err
	}
	queued, err := db.Enqueue(ctx, msg, png)
	return msg.DeliveryKey, queued, err
}

// sendDigest is `digest --send`: queue, deliver now, and say what Slack did.
func (a *app) sendDigest(ctx context.Context, db *storage.DB, d digest.Digest, suffix string) error {
	key, queued, err := a.enqueueDigest(ctx, db, d, suffix)
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
	rep, err := a.deliver(ctx, db, a.cfg.Alerts.FetchDeliveryWait, true)
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
		return fmt.Errorf("slack refused the digest of %s: %s", d.Week, e.LastError)
	}
	why := e.LastError
	if why == "" {
		why = "other messages of the channel are queued before it"
	}
	return fmt.Errorf("the digest of %s was not delivered (%s); it stays queued and `pricewatch alerts deliver` or the daemon sends it", d.Week, why)
}
