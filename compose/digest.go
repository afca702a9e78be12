package compose

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	digestrender "github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// BuildDigest loads what the digest needs from the database and builds it
// as of now.
func (w *Wiring) BuildDigest(ctx context.Context, db *storage.DB, now time.Time) (digest.Digest, error) {
	cfg := w.Config.Digest
	loc, err := time.LoadLocation(cfg.Timezone)
	if err != nil {
		return digest.Digest{}, fmt.Errorf("digest.timezone %q: %w", cfg.Timezone, err)
	}
	// The digest looks at prices at a handful of moments, only for the
	// models it is about (digest.gpu_models and the chart's), read one part
	// of them at a time (report.WeeklyDigest).
	in, err := report.WeeklyDigestInput(ctx, db, now, append(append([]string(nil), cfg.GPUModels...), digest.ChartModels...))
	if err != nil {
		return digest.Digest{}, err
	}
	book, err := report.FXBook(ctx, db, ReportFX(w.Config.FX))
	if err != nil {
		return digest.Digest{}, err
	}
	for i, r := range in.Runs {
		// Run errors were scrubbed when recorded; a digest goes to Slack,
		// so scrub them again with today's secrets.
		in.Runs[i].Error = w.Secrets.Scrubber().String(r.Error)
	}
	in.Location, in.Currency, in.Models, in.Expected, in.FX = loc, cfg.Currency, cfg.GPUModels, w.ExpectedIntervals(now), book
	in.Regions, in.FleetGPUs, in.Providers = cfg.Regions, cfg.FleetGPUs, cfg.Providers
	in.Seller = digestSeller(cfg.Sellers)
	return report.WeeklyDigest(ctx, db, in)
}

// digestSeller is digest.sellers as one choice: one of cloud and
// marketplace, or both (also none) for every seller.
func digestSeller(sellers []string) analysis.Seller {
	var cloud, market bool
	for _, s := range sellers {
		cloud = cloud || s == string(analysis.SellerCloud)
		market = market || s == string(analysis.SellerMarketplace)
	}
	switch {
	case cloud && !market:
		return analysis.SellerCloud
	case market && !cloud:
		return analysis.SellerMarketplace
	}
	return ""
}

// ExpectedIntervals maps each enabled provider to the longest gap between
// two runs its schedule allows (the daemon runs a provider without a
// schedule hourly).
func (w *Wiring) ExpectedIntervals(now time.Time) map[string]time.Duration {
	out := map[string]time.Duration{}
	for name, c := range w.Config.Providers.Commons() {
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
func (w *Wiring) digestChannel() string {
	if c := strings.TrimSpace(w.Config.Digest.Channel); c != "" {
		return c
	}
	return strings.TrimSpace(w.Config.Slack.Channel)
}

// DigestMessage prepares the digest for the outbox: its data as an
// outbox document (the Slack notifier renders it when it sends) under the
// week's delivery key (plus suffix), and the chart PNG when it goes with
// it. It also returns the Block Kit it renders to now, for --format slack.
func (w *Wiring) DigestMessage(d digest.Digest, suffix string) (storage.OutboxMessage, []byte, []byte, error) {
	token, err := w.SlackToken()
	if err != nil {
		return storage.OutboxMessage{}, nil, nil, err
	}
	channel := w.digestChannel()
	if !token.Empty() && channel == "" {
		return storage.OutboxMessage{}, nil, nil, errors.New("the digest has no channel: set digest.channel or slack.channel (a channel ID such as C0123ABCD)")
	}
	keyChannel := channel
	if keyChannel == "" {
		keyChannel = "default"
	}
	key := "digest/" + d.Week + "/" + keyChannel + suffix
	mode := digestrender.ChartAttached
	switch {
	case !w.Config.Digest.Chart:
		mode = digestrender.ChartOff
	case d.Chart.Empty():
		mode = digestrender.ChartNoData
	case token.Empty() && !w.Config.Slack.WebhookURL.Empty():
		mode = digestrender.ChartWebhook
	}
	preview, err := digestrender.SlackPayload(d, digestrender.SlackOptions{DeliveryKey: key, Chart: mode})
	if err != nil {
		return storage.OutboxMessage{}, nil, nil, fmt.Errorf("rendering the digest: %w", err)
	}
	payload, err := digestrender.Document(d, key, w.Config.Digest.Chart)
	if err != nil {
		return storage.OutboxMessage{}, nil, nil, err
	}
	var png []byte
	if mode == digestrender.ChartAttached {
		var buf bytes.Buffer
		if err := digestrender.RenderChart(d, &buf); err != nil {
			return storage.OutboxMessage{}, nil, nil, fmt.Errorf("rendering the digest chart: %w", err)
		}
		png = buf.Bytes()
	}
	return storage.OutboxMessage{DeliveryKey: key, Channel: channel, Kind: digest.Kind, Payload: payload}, png, preview, nil
}

// EnqueueDigest queues the digest unless this week's is already queued; it
// returns the delivery key and whether this call queued it.
func (w *Wiring) EnqueueDigest(ctx context.Context, db *storage.DB, d digest.Digest, suffix string) (string, bool, error) {
	msg, png, _, err := w.DigestMessage(d, suffix)
	if err != nil {
		return "", false, err
	}
	queued, err := db.Enqueue(ctx, msg, png)
	return msg.DeliveryKey, queued, err
}

// QueueDigest builds the digest of the week as of now and queues it
// unless that week's is queued already (the daemon's weekly trigger).
func (w *Wiring) QueueDigest(ctx context.Context, db *storage.DB, now time.Time) (week, key string, queued bool, err error) {
	d, err := w.BuildDigest(ctx, db, now)
	if err != nil {
		return "", "", false, fmt.Errorf("building the weekly digest: %w", err)
	}
	key, queued, err = w.EnqueueDigest(ctx, db, d, "")
	if err != nil {
		return d.Week, key, false, fmt.Errorf("queueing the weekly digest: %w", err)
	}
	return d.Week, key, queued, nil
}
