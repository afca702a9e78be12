package loadgen

import (
	"fmt"
	"time"
)

// Targets are the names the profiles' paths ask for (a GPU model, an
// instance type of it), which differ between databases.
type Targets struct {
	GPU, InstanceType string
}

// Endpoints are the endpoints the first profile tries one at a time:
// every dashboard page and API answer a team opens most, at their
// longest charts, and the scrape.
func (t Targets) Endpoints() []string {
	return []string{
		"/", "/offers", "/gpu/" + t.GPU + "?days=90", "/instance/" + t.InstanceType + "?since=365d",
		"/api/v1/offers?gpu=" + t.GPU, "/api/v1/trends?window=90d", "/metrics",
	}
}

// overviewProfile names the profile of n clients asking for `/` alone.
func overviewProfile(n int) string { return fmt.Sprintf("`/` with %d client(s)", n) }

// Profiles are issue 30's four, each lasting d (60 s for the team and the
// 200 clients in the issue; the one-endpoint ones a quarter of it):
//
//   - each endpoint alone with 10 clients, and the overview with 1 and 2
//     (two at once should cost about what one does);
//   - trends with 4 and 6 clients;
//   - a team: 50 dashboard users each opening a page every 10 s,
//     Prometheus scraping /metrics every 15 s, Grafana's 6 panels each
//     refreshing every 30 s;
//   - 200 clients sending a mix back to back.
func Profiles(t Targets, d time.Duration) []Profile {
	short := max(d/4, time.Second)
	var out []Profile
	for _, n := range []int{1, 2} {
		out = append(out, Profile{Name: overviewProfile(n), Duration: short,
			Streams: []Stream{{Clients: n, Paths: []string{"/"}}}})
	}
	for _, e := range t.Endpoints() {
		out = append(out, Profile{Name: "alone, 10 clients", Duration: short, Streams: []Stream{{Clients: 10, Paths: []string{e}}}})
	}
	for _, n := range []int{4, 6} {
		out = append(out, Profile{Name: fmt.Sprintf("trends, %d clients", n), Duration: short,
			Streams: []Stream{{Clients: n, Paths: []string{"/api/v1/trends?window=90d"}}}})
	}
	pages := []string{"/", "/offers", "/gpu/" + t.GPU + "?days=30", "/gpu/" + t.GPU + "?days=90", "/instance/" + t.InstanceType,
		"/offers?gpu=" + t.GPU + "&price_type=spot", "/gpu/", "/instance/" + t.InstanceType + "?since=365d"}
	panels := []string{"/api/v1/offers?gpu=" + t.GPU, "/api/v1/trends?window=7d", "/api/v1/trends?gpu=" + t.GPU + "&window=30d",
		"/api/v1/availability?gpu=" + t.GPU, "/api/v1/runs", "/api/v1/history/" + t.InstanceType + "?since=30d"}
	team := Profile{Name: "team", Duration: d, Streams: []Stream{
		{Name: "dashboard", Clients: 50, Paths: pages, Think: 10 * time.Second},
		{Name: "prometheus", Clients: 1, Paths: []string{"/metrics"}, Think: 15 * time.Second},
	}}
	for _, p := range panels {
		team.Streams = append(team.Streams, Stream{Name: "grafana", Clients: 1, Paths: []string{p}, Think: 30 * time.Second})
	}
	out = append(out, team)
	mix := append(append(append([]string(nil), pages...), panels...), "/metrics", "/healthz")
	out = append(out, Profile{Name: "200 clients", Duration: d, Streams: []Stream{{Clients: 200, Paths: mix}}})
	return out
}
