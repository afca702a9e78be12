package compose

import (
	"strings"
	"sync"
	"time"

	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/report/weekly"
	"github.com/pricewatch/pricewatch/section"
)

// Digests is the weekly digest's service of digest.* (with the Slack
// settings that decide its channel and chart and the secrets it masks).
func (w *Wiring) Digests() *weekly.Service {
	token, tokenErr := w.SlackToken()
	channel := strings.TrimSpace(w.Config.Digest.Channel)
	if channel == "" {
		channel = strings.TrimSpace(w.Config.Slack.Channel)
	}
	d := w.Config.Digest
	return &weekly.Service{Timezone: d.Timezone, Currency: d.Currency, GPUModels: d.GPUModels, Regions: d.Regions, FleetGPUs: d.FleetGPUs,
		Providers: d.Providers, Seller: digestSeller(d.Sellers),
		Chart: d.Chart, FX: ReportFX(w.Config.FX), Channel: channel,
		SlackToken: tokenErr == nil && !token.Empty(), SlackTokenErr: tokenErr, SlackWebhook: !w.Config.Slack.WebhookURL.Empty(),
		Scrub: w.Secrets.String, Expected: w.ExpectedIntervals}
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
// schedule hourly). The map is worked out once per minute of now and
// shared: the caller must not change it.
//
// Every kept page and API answer is keyed by it (web's answerKey), so it
// is asked at every request; worked out each time, the default config's
// 23 providers cost 22.6 ms of CPU a call (each schedule's firings over
// two weeks walked again), a hundred times what serving the answer cost.
// A schedule's firings fall on whole minutes (a cron spec) or keep their
// gaps whatever the second (@every), so within a minute the map is the
// same.
func (w *Wiring) ExpectedIntervals(now time.Time) map[string]time.Duration {
	minute := now.Truncate(time.Minute)
	w.expected.mu.Lock()
	defer w.expected.mu.Unlock()
	if w.expected.m != nil && w.expected.minute.Equal(minute) {
		return w.expected.m
	}
	out := map[string]time.Duration{}
	for name, c := range w.Config.Providers.Commons() {
		if c.Enabled {
			out[name] = scheduleInterval(c.Schedule, now)
		}
	}
	w.expected.minute, w.expected.m = minute, out
	return out
}

// expectedMemo is ExpectedIntervals' map of one minute.
type expectedMemo struct {
	mu     sync.Mutex
	minute time.Time
	m      map[string]time.Duration
}

// scheduleInterval is the longest gap between consecutive firings of a
// cron spec over the next two weeks (a weekday-only schedule has a longer
// gap over the weekend, and that is what staleness must allow for).
func scheduleInterval(spec string, from time.Time) time.Duration {
	sched, err := section.ParseSchedule(spec)
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
