package digest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/analysis/digest"
)

// queued is the digest as the outbox stores it (an alerting.TypeDigest
// document's "digest"): the computed data, not a rendering, so the Slack
// notifier renders it with the templates of the build that sends it.
type queued struct {
	DeliveryKey string `json:"delivery_key"`
	// Chart is digest.chart: whether the chart was wanted (the PNG itself
	// is stored beside the message when it can be sent).
	Chart bool `json:"chart"`
	// Location is the time zone dates are shown in (digest.timezone).
	Location string        `json:"location"`
	Digest   digest.Digest `json:"digest"`
	// The analysis rows keep their inputs out of their JSON (their API
	// shape); the digest's renderers read them, so they travel beside.
	SavingsOffers []savingsInputs         `json:"savings_offers"`
	ChartKeys     [][]pricewatch.OfferKey `json:"chart_keys"`
}

type savingsInputs struct {
	Offer, OnDemand pricewatch.Offer
}

// Document returns the outbox document of a digest queued under key;
// chart is digest.chart.
func Document(d digest.Digest, key string, chart bool) ([]byte, error) {
	q := queued{DeliveryKey: key, Chart: chart, Location: d.Loc().String(), Digest: d}
	for _, r := range d.Savings {
		q.SavingsOffers = append(q.SavingsOffers, savingsInputs{r.Offer, r.OnDemand})
	}
	for _, sr := range d.Chart.Series {
		keys := make([]pricewatch.OfferKey, 0, len(sr.Points))
		for _, p := range sr.Points {
			keys = append(keys, p.Key)
		}
		q.ChartKeys = append(q.ChartKeys, keys)
	}
	data, err := alerting.EncodeJSON(q)
	if err != nil {
		return nil, fmt.Errorf("encoding the digest for the outbox: %w", err)
	}
	return alerting.DigestDocument(data).MarshalJSON()
}

// decode reads a queued digest back.
func decode(data []byte) (queued, error) {
	var q queued
	if err := json.Unmarshal(data, &q); err != nil {
		return q, fmt.Errorf("reading the queued digest: %w", err)
	}
	loc, err := time.LoadLocation(q.Location)
	if err != nil {
		return q, fmt.Errorf("reading the queued digest: time zone %q: %w", q.Location, err)
	}
	q.Digest.Location = loc
	if len(q.SavingsOffers) != len(q.Digest.Savings) || len(q.ChartKeys) != len(q.Digest.Chart.Series) {
		return q, fmt.Errorf("reading the queued digest: its savings or chart inputs do not match its rows")
	}
	for i, in := range q.SavingsOffers {
		q.Digest.Savings[i].Offer, q.Digest.Savings[i].OnDemand = in.Offer, in.OnDemand
	}
	for i, keys := range q.ChartKeys {
		pts := q.Digest.Chart.Series[i].Points
		if len(keys) != len(pts) {
			return q, fmt.Errorf("reading the queued digest: chart series %d has %d points and %d keys", i, len(pts), len(keys))
		}
		for j := range pts {
			pts[j].Key = keys[j]
		}
	}
	return q, nil
}

// RenderSlack renders a queued digest (a TypeDigest document's data) as
// Block Kit when the Slack notifier sends it: webhook says the message
// goes through an incoming webhook, attachment whether the chart's PNG is
// stored with it. It is slack.Config.Digest.
func RenderSlack(data []byte, webhook, attachment bool) ([]byte, error) {
	q, err := decode(data)
	if err != nil {
		return nil, err
	}
	mode := ChartAttached
	switch {
	case !q.Chart:
		mode = ChartOff
	case q.Digest.Chart.Empty():
		mode = ChartNoData
	case webhook:
		mode = ChartWebhook
	case !attachment:
		mode = ChartOff
	}
	return SlackPayload(q.Digest, SlackOptions{DeliveryKey: q.DeliveryKey, Chart: mode})
}

// Summary is a queued digest's notification line as Slack shows it
// (mrkdwn-escaped), for listings.
func Summary(data []byte) string {
	b, err := RenderSlack(data, false, true)
	if err != nil {
		return ""
	}
	var p struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(b, &p) != nil {
		return ""
	}
	return p.Text
}
