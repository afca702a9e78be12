package clitext

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/internal/table"
)

// RateNotes collects the exchange rates a report used and the currencies it
// could not convert, and says so under the table (and on stderr for JSON
// and CSV, whose stdout scripts parse).
type RateNotes struct {
	target string
	now    time.Time
	maxAge time.Duration
	quotes map[string]rateUse // by "CNY 2022-07-08 ECB 0.149…": from, date, source, rate
	absent map[string]bool    // native currencies without a rate
}

type rateUse struct {
	from string
	analysis.FXUsed
}

// NewRateNotes starts the notes of a report converted into target at now;
// a rate older than maxAge is stale.
func NewRateNotes(target string, now time.Time, maxAge time.Duration) *RateNotes {
	return &RateNotes{target: target, now: now, maxAge: maxAge, quotes: map[string]rateUse{}, absent: map[string]bool{}}
}

// Used records the rate a price in from was converted at.
func (n *RateNotes) Used(from string, u analysis.FXUsed) {
	if u.FXSource == fx.SourceIdentity || u.FXSource == "" {
		return
	}
	n.quotes[strings.Join([]string{from, u.FXDate, u.FXSource, u.FXRate.String()}, " ")] = rateUse{from, u}
}

// Missing records a currency that had no rate.
func (n *RateNotes) Missing(from string) { n.absent[from] = true }

// Absent lists the currencies without a rate, sorted.
func (n *RateNotes) Absent() []string { return slices.Sorted(maps.Keys(n.absent)) }

// Lines says which rates were used, which were stale and which are missing.
func (n *RateNotes) Lines() []string {
	var out []string
	keys := make([]string, 0, len(n.quotes))
	for k := range n.quotes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// A series converts each day at that day's rate: of a long run of one
	// currency's rates, show the first and the last.
	byFrom := map[string][]string{}
	var froms []string
	for _, k := range keys {
		from := n.quotes[k].from
		if _, ok := byFrom[from]; !ok {
			froms = append(froms, from)
		}
		byFrom[from] = append(byFrom[from], k)
	}
	keys = keys[:0]
	for _, from := range froms {
		ks := byFrom[from]
		if len(ks) > 2 {
			out = append(out, fmt.Sprintf("Rates: %d %s rates used, each price at the rate of its own day; the first and the last:", len(ks), from))
			ks = []string{ks[0], ks[len(ks)-1]}
		}
		keys = append(keys, ks...)
	}
	for _, k := range keys {
		q := n.quotes[k]
		s := fmt.Sprintf("Rates: 1 %s = %s %s (%s", q.from, q.FXRate, n.target, q.FXSource)
		if q.FXDate != "" {
			s += " " + q.FXDate
		}
		if q.FXSource == fx.SourceFixed {
			s += ", from fx.fixed_rates"
		}
		out = append(out, s+")")
		if q.FXStale {
			days := "?"
			if d, err := time.Parse(time.DateOnly, q.FXDate); err == nil {
				days = fmt.Sprint(int(n.now.Sub(d).Hours() / 24))
			}
			out = append(out, fmt.Sprintf("STALE: the %s rate of %s is %s days old (fx.max_age %s): run `pricewatch fx update`.",
				q.from, q.FXDate, days, durationText(n.maxAge)))
		}
	}
	for _, from := range n.Absent() {
		out = append(out, fmt.Sprintf("No rate for %s→%s: set fx.fixed_rates or run `pricewatch fx update`; %s prices are not converted.", from, n.target, from))
	}
	return out
}

// Write writes the notes, each wrapped to width.
func (n *RateNotes) Write(b *strings.Builder, width int) {
	for _, l := range n.Lines() {
		b.WriteString(table.Wrap(l, width, "  "))
	}
}

// WriteApart writes the notes as Write does, after a blank line; nothing
// when there is none.
func (n *RateNotes) WriteApart(b *strings.Builder, width int) {
	if lines := n.Lines(); len(lines) > 0 {
		b.WriteString("\n")
		n.Write(b, width)
	}
}

// Warn repeats the stale and missing-rate lines on stderr.
func (n *RateNotes) Warn(w io.Writer) {
	for _, l := range n.Lines() {
		if strings.Contains(l, "STALE") || strings.HasPrefix(l, "No rate") {
			fmt.Fprintf(w, "pricewatch: warning: %s\n", l)
		}
	}
}

func durationText(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}
