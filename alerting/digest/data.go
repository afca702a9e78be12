// Package digest renders the weekly FinOps digest that analysis/digest
// computes: as text, Markdown, JSON, Slack Block Kit (which the Slack
// notifier calls when it sends a queued digest) and the PNG chart. The
// names below are the computation's, so that callers and renderers read
// one vocabulary; the digest's data is built and judged there.
package digest

import (
	"time"

	"github.com/pricewatch/pricewatch"

	"github.com/pricewatch/pricewatch/analysis/digest"
)

// The computation's types and values (analysis/digest).
type (
	Input                = digest.Input
	Digest               = digest.Digest
	Choice               = digest.Choice
	ModelRow             = digest.ModelRow
	Move                 = digest.Move
	AvailabilityEvent    = digest.AvailabilityEvent
	SavingsRow           = digest.SavingsRow
	ProviderStatus       = digest.ProviderStatus
	Rate                 = digest.Rate
	Chart                = digest.Chart
	ChartSeries          = digest.ChartSeries
	AvailabilityInterval = digest.AvailabilityInterval
	Run                  = digest.Run
	ChangeCount          = digest.ChangeCount
)

const (
	Kind        = digest.Kind
	Week        = digest.Week
	ChartWeeks  = digest.ChartWeeks
	StaleFactor = digest.StaleFactor
	MaxMoves    = digest.MaxMoves
	FleetHours  = digest.FleetHours
	Withdrawn   = digest.Withdrawn
)

// ChartModels are the GPU families the chart draws.
var ChartModels = digest.ChartModels

// Build computes the digest (analysis/digest.Build).
func Build(in Input) (Digest, error) { return digest.Build(in) }

// ISOWeek is analysis/digest.ISOWeek.
func ISOWeek(t time.Time, loc *time.Location) string { return digest.ISOWeek(t, loc) }

// Age is analysis/digest.Age.
func Age(d time.Duration) string { return digest.Age(d) }

// PriceTypeLabel is analysis/digest.PriceTypeLabel.
func PriceTypeLabel(pt pricewatch.PriceType) string { return digest.PriceTypeLabel(pt) }
