package digest

import (
	"sort"
	"time"

	"github.com/pricewatch/pricewatch"
)

// The week's availability events: new capacity, sell-outs and withdrawals.

// availabilityEvents finds, among watched models, the places that became
// available, sold out or were withdrawn between now − Week and now.
func availabilityEvents(ivs []pricewatch.AvailabilityInterval, now time.Time, watched func(string) bool) (news, gone []AvailabilityEvent, baseline []string) {
	from := now.Add(-Week)
	byKey := map[pricewatch.AvailabilityKey][]pricewatch.AvailabilityInterval{}
	before := map[string]bool{} // providers with data from before the week
	for _, a := range ivs {
		if a.Since.After(now) {
			continue
		}
		if !a.Since.After(from) {
			before[a.Provider] = true
		}
		if watched(a.GPUModel) {
			byKey[a.AvailabilityKey] = append(byKey[a.AvailabilityKey], a)
		}
	}
	isAvail := func(s pricewatch.AvailabilityState) bool { return s == pricewatch.Offered || s == pricewatch.InStock }
	type group struct {
		provider, region, instanceType, state string
		back                                  bool
	}
	events := map[group]*AvailabilityEvent{}
	base := map[string]bool{}
	add := func(g group, a pricewatch.AvailabilityInterval, at time.Time, still bool) {
		e := events[g]
		if e == nil {
			e = &AvailabilityEvent{Provider: a.Provider, Region: a.Region, InstanceType: a.InstanceType, GPUModel: a.GPUModel,
				GPUCount: a.GPUCount, State: g.state, Back: g.back, At: at, Still: true}
			events[g] = e
		}
		e.Zones = append(e.Zones, a.Zone)
		if at.Before(e.At) {
			e.At = at
		}
		e.Still = e.Still && still
	}
	for key, list := range byKey {
		sort.Slice(list, func(i, j int) bool { return list[i].Since.Before(list[j].Since) })
		last := list[len(list)-1]
		current := last.Until == nil || last.Until.After(now)
		// One event per kind and place: the latest transition of the week.
		seen := map[group]bool{}
		for i := len(list) - 1; i >= 0; i-- {
			a := list[i]
			var prev *pricewatch.AvailabilityInterval
			if i > 0 && list[i-1].Until != nil && list[i-1].Until.Equal(a.Since) {
				prev = &list[i-1]
			}
			if a.Since.After(from) {
				switch {
				case isAvail(a.State) && (prev == nil || !isAvail(prev.State)):
					if prev == nil && !before[key.Provider] {
						base[key.Provider] = true
						break
					}
					g := group{a.Provider, a.Region, a.InstanceType, string(pricewatch.InStock), prev != nil}
					if a.State == pricewatch.Offered {
						g.state = string(pricewatch.Offered)
					}
					if !seen[g] {
						seen[g] = true
						add(g, a, a.Since, current && isAvail(last.State))
					}
				case a.State == pricewatch.SoldOut && prev != nil && isAvail(prev.State):
					g := group{a.Provider, a.Region, a.InstanceType, string(pricewatch.SoldOut), false}
					if !seen[g] {
						seen[g] = true
						add(g, a, a.Since, current && last.State == pricewatch.SoldOut)
					}
				}
			}
			// Withdrawn: the interval ended in the week and nothing followed.
			if a.Until != nil && a.Until.After(from) && !a.Until.After(now) && i == len(list)-1 {
				g := group{a.Provider, a.Region, a.InstanceType, Withdrawn, false}
				if !seen[g] {
					seen[g] = true
					add(g, a, *a.Until, true)
				}
			}
		}
	}
	for _, e := range events {
		sort.Strings(e.Zones)
		if e.State == string(pricewatch.SoldOut) || e.State == Withdrawn {
			gone = append(gone, *e)
		} else {
			news = append(news, *e)
		}
	}
	order := func(es []AvailabilityEvent) {
		sort.Slice(es, func(i, j int) bool {
			a, b := es[i], es[j]
			for _, p := range [][2]string{{a.Provider, b.Provider}, {a.Region, b.Region}, {a.InstanceType, b.InstanceType}, {a.State, b.State}} {
				if p[0] != p[1] {
					return p[0] < p[1]
				}
			}
			return !a.Back && b.Back
		})
	}
	order(news)
	order(gone)
	for p := range base {
		baseline = append(baseline, p)
	}
	sort.Strings(baseline)
	return news, gone, baseline
}
