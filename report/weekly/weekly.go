// Package weekly builds the weekly FinOps digest from the database and
// queues it in the outbox: the service `pricewatch digest` and the
// daemon's weekly trigger call, built (by compose) from plain settings.
// It sits beside report.WeeklyDigest rather than in package report so that
// report, and the web server over it, link neither the Slack renderer nor
// the chart library.
package weekly

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	digestrender "github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// Service builds and queues the weekly digest (digest.*).
type Service struct {
	// Timezone is digest.timezone, the week's and the schedule's.
	Timezone string
	// Currency, GPUModels, Regions and FleetGPUs are digest.*'s.
	Currency  string
	GPUModels []string
	Regions   []string
	FleetGPUs int
	// Providers and Seller scope the digest (digest.providers, digest.sellers).
	Providers []string
	Seller    analysis.Seller
	// Chart is digest.chart: the chart goes with the digest.
	Chart bool
	// FX is how prices are converted (fx.*).
	FX report.FX
	// Channel is where the digest goes: digest.channel, else
	// slack.channel (empty: the notifier's default).
	Channel string
	// SlackToken says a Slack bot token is set (chat.postMessage needs a
	// channel); SlackTokenErr why the token could not be read, which
	// stops the digest being queued. SlackWebhook says
	// slack.webhook_url is set (an incoming webhook takes no chart).
	SlackToken    bool
	SlackTokenErr error
	SlackWebhook  bool
	// Scrub masks today's secrets in the run errors the digest quotes.
	Scrub func(string) string
	// Expected maps each enabled provider to the longest gap its schedule
	// allows between runs.
	Expected func(now time.Time) map[string]time.Duration
}

// Build loads what the digest needs from the database and builds it as of
// now.
func (s *Service) Build(ctx context.Context, db *storage.DB, now time.Time) (digest.Digest, error) {
	loc, err := time.LoadLocation(s.Timezone)
	if err != nil {
		return digest.Digest{}, fmt.Errorf("digest.timezone %q: %w", s.Timezone, err)
	}
	// The digest looks at prices at a handful of moments, only for the
	// models it is about (digest.gpu_models and the chart's), read one part
	// of them at a time (report.WeeklyDigest).
	in, err := report.WeeklyDigestInput(ctx, db, now, append(append([]string(nil), s.GPUModels...), digest.ChartModels...))
	if err != nil {
		return digest.Digest{}, err
	}
	book, err := report.FXBook(ctx, db, s.FX)
	if err != nil {
		return digest.Digest{}, err
	}
	for i, r := range in.Runs {
		// Run errors were scrubbed when recorded; a digest goes to Slack,
		// so scrub them again with today's secrets.
		in.Runs[i].Error = s.Scrub(r.Error)
	}
	in.Location, in.Currency, in.Models, in.Expected, in.FX = loc, s.Currency, s.GPUModels, s.Expected(now), book
	in.Regions, in.FleetGPUs, in.Providers = s.Regions, s.FleetGPUs, s.Providers
	in.Seller = s.Seller
	return report.WeeklyDigest(ctx, db, in)
}

// Message prepares the digest for the outbox: its data as an outbox
// document (the Slack notifier renders it when it sends) under the week's
// delivery key (plus suffix), and the chart PNG when it goes with it. It
// also returns the Block Kit it renders to now, for --format slack.
func (s *Service) Message(d digest.Digest, suffix string) (storage.OutboxMessage, []byte, []byte, error) {
	if s.SlackTokenErr != nil {
		return storage.OutboxMessage{}, nil, nil, s.SlackTokenErr
	}
	channel := s.Channel
	if s.SlackToken && channel == "" {
		return storage.OutboxMessage{}, nil, nil, errors.New("the digest has no channel: set digest.channel or slack.channel (a channel ID such as C0123ABCD)")
	}
	keyChannel := channel
	if keyChannel == "" {
		keyChannel = "default"
	}
	key := "digest/" + d.Week + "/" + keyChannel + suffix
	mode := digestrender.ChartAttached
	switch {
	case !s.Chart:
		mode = digestrender.ChartOff
	case d.Chart.Empty():
		mode = digestrender.ChartNoData
	case !s.SlackToken && s.SlackWebhook:
		mode = digestrender.ChartWebhook
	}
	preview, err := digestrender.SlackPayload(d, digestrender.SlackOptions{DeliveryKey: key, Chart: mode})
	if err != nil {
		return storage.OutboxMessage{}, nil, nil, fmt.Errorf("rendering the digest: %w", err)
	}
	payload, err := digestrender.Document(d, key, s.Chart)
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

// Enqueue queues the digest unless this week's is already queued; it
// returns the delivery key and whether this call queued it.
func (s *Service) Enqueue(ctx context.Context, db *storage.DB, d digest.Digest, suffix string) (string, bool, error) {
	msg, png, _, err := s.Message(d, suffix)
	if err != nil {
		return "", false, err
	}
	queued, err := db.Enqueue(ctx, msg, png)
	return msg.DeliveryKey, queued, err
}

// QueueDigest builds the digest of the week as of now and queues it
// unless that week's is queued already (the daemon's weekly trigger).
func (s *Service) QueueDigest(ctx context.Context, db *storage.DB, now time.Time) (week, key string, queued bool, err error) {
	d, err := s.Build(ctx, db, now)
	if err != nil {
		return "", "", false, fmt.Errorf("building the weekly digest: %w", err)
	}
	key, queued, err = s.Enqueue(ctx, db, d, "")
	if err != nil {
		return d.Week, key, false, fmt.Errorf("queueing the weekly digest: %w", err)
	}
	return d.Week, key, queued, nil
}
