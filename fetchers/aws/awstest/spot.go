package awstest

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// SpotFeedFor builds spot.json in the real feed's shape: the real af-south-1
// entry copied for each region, its instance types replaced by one
// "gpuCurrentGen" group listing the given sizes with their Linux price
// (as the feed writes it: "31.464", "N/A*", "9.0E-4") and "N/A*" for
// Windows. prices maps region → instance type → Linux price.
func (s *Samples) SpotFeedFor(tb testing.TB, prices map[string]map[string]string) []byte {
	tb.Helper()
	var feed map[string]any
	if err := json.Unmarshal(s.SpotFeed, &feed); err != nil {
		tb.Fatal(err)
	}
	cfg := feed["config"].(map[string]any)
	tmpl := cfg["regions"].([]any)[0].(map[string]any)
	regions := slices.Sorted(maps.Keys(prices))
	var out []any
	for _, code := range regions {
		r := map[string]any{}
		for k, v := range tmpl {
			r[k] = v
		}
		r["region"] = code
		names := slices.Sorted(maps.Keys(prices[code]))
		var sizes []any
		for _, n := range names {
			sizes = append(sizes, map[string]any{"size": n, "valueColumns": []any{
				map[string]any{"name": "linux", "prices": map[string]string{"USD": prices[code][n]}},
				map[string]any{"name": "mswin", "prices": map[string]string{"USD": "N/A*"}},
			}})
		}
		r["instanceTypes"] = []any{map[string]any{"type": "gpuCurrentGen", "sizes": sizes}}
		out = append(out, r)
	}
	cfg["regions"] = out
	raw, err := json.Marshal(feed)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}
