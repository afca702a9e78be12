package digest

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
)

// Providers whose data is stale, and the exchange rates the digest used.

// Freshness judges each expected provider by its runs (Input.Runs), in
// provider order: the digest's and the overview's freshness table.
func Freshness(runs []pricewatch.Run, expected map[string]time.Duration, now time.Time) []ProviderStatus {
	type pair struct{ last, ok *pricewatch.Run }
	by := map[string]*pair{}
	for i := range runs {
		r := &runs[i]
		p := by[r.Provider]
		if p == nil {
			p = &pair{}
			by[r.Provider] = p
		}
		if p.last == nil || r.ID > p.last.ID {
			p.last = r
		}
		if r.Status == pricewatch.RunOK && (p.ok == nil || r.ID > p.ok.ID) {
			p.ok = r
		}
	}
	var out []ProviderStatus
	for provider, every := range expected {
		st := ProviderStatus{Provider: provider, Expected: every}
		p := by[provider]
		if p == nil {
			st.Stale, st.Reason = true, "never fetched"
			out = append(out, st)
			continue
		}
		if p.last != nil {
			t := p.last.StartedAt
			st.LastRun, st.LastStatus, st.LastError = &t, p.last.Status, p.last.Error
		}
		if p.ok != nil {
			t := p.ok.StartedAt
			if p.ok.FinishedAt != nil {
				t = *p.ok.FinishedAt
			}
			st.LastSuccess = &t
		}
		var why []string
		switch st.LastStatus {
		case pricewatch.RunFailed, pricewatch.RunAbandoned, pricewatch.RunSkipped:
			w := "last run " + st.LastStatus
			if st.LastStatus == pricewatch.RunSkipped {
				w = "last run skipped"
			}
			if st.LastError != "" {
				w += ": " + st.LastError
			}
			why = append(why, w)
		}
		switch {
		case st.LastSuccess == nil:
			why = append(why, "no successful run yet")
		case every > 0 && now.Sub(*st.LastSuccess) > StaleFactor*every:
			why = append(why, fmt.Sprintf("last successful run %s ago, runs expected every %s", Age(now.Sub(*st.LastSuccess)), Age(every)))
		}
		if len(why) > 0 {
			st.Stale, st.Reason = true, strings.Join(why, "; ")
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Provider < out[j].Provider })
	return out
}

// Age prints a duration the way the digest shows it: "45m", "36h", "7d".
func Age(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	case d >= time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dm", int(d/time.Minute))
}

// rates quotes every currency the digest's figures come in; counts holds
// the current watched offers per currency (upper case) and every series'
// newest currency (0 when no watched offer is priced in it).
func rates(counts map[string]int, conv analysis.Converter, cur string, now time.Time) []Rate {
	var out []Rate
	for c, n := range counts {
		if c == cur {
			continue
		}
		r := Rate{From: c, To: cur, Offers: n}
		var err error
		if conv == nil {
			err = analysis.ErrNoConverter
		} else {
			r.Quote, err = conv.Quote(c, cur, now)
		}
		if err != nil {
			r.Missing, r.Error = true, err.Error()
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].From < out[j].From })
	return out
}
