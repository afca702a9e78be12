package main

import (
	"encoding/json"
	"testing"
)

// Issue 20 item 11: the fetch counts must add up, seen = new + changed +
// unchanged, for every provider and every kind of run. AWS broke it: a
// region whose price file had not changed was counted unchanged but not
// seen ("0 offers: 0 new, 0 changed, 38 unchanged"), and a price held by
// the guard was seen but counted nowhere. Every provider is fetched
// from their fakes in one database, through `pricewatch fetch --format
// json`, over runs that are first runs, runs that change nothing (AWS
// skips both regions), runs where a region publishes a new file (AWS) and
// a price moves (Azure), and a run where the guard holds a price (Azure).
// Issue 22 item 6: a cloud added (ovhcloud, gcp) is fetched here too.
func TestFetchCountsAddUpForEveryProvider(t *testing.T) {
	bucket := awsScenarioBucket(t)
	// Issue 22: every cloud added (aws-cn, ovhcloud, gcp, azure-cn,
	// huawei) is counted like the rest.
	clouds, az := everyProviderFakes(t, awsBucketCloud(bucket, "    spot: true\n    savings_plans: true\n"))
	cfg := testConfig{clouds: clouds}.write(t, t.TempDir())

	runs := []struct {
		name   string
		before func()
		// want are counts a run must show besides the sum, by provider.
		want map[string]fetchRow
	}{
		{"first run", func() {}, map[string]fetchRow{"aws": {OffersNew: 38}}},
		{"nothing changed", func() {}, map[string]fetchRow{"aws": {OffersUnchanged: 38, RegionsSkipped: 2}}},
		{"a region's new file and a price move", func() {
			bucket.AddType("ap-northeast-1", awsV3, awsAPNp6.gpuType())
			az.setH100(t, "6.98", "6.5")
		}, map[string]fetchRow{"aws": {OffersNew: 8, OffersUnchanged: 38, RegionsSkipped: 1}, "azure": {OffersChanged: 1}}},
		{"a held price", func() { az.setH100(t, "6.5", "0.0065") }, map[string]fetchRow{"azure": {OffersHeld: 1}}},
	}
	for _, run := range runs {
		run.before()
		out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--format", "json")
		if code != 0 {
			t.Fatalf("%s: fetch exited %d:\n%s%s", run.name, code, out, errOut)
		}
		var rows []fetchRow
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("%s: %v\n%s", run.name, err, out)
		}
		if len(rows) != len(providerNames) {
			t.Fatalf("%s: %d providers in the summary, want %d:\n%s", run.name, len(rows), len(providerNames), out)
		}
		for _, r := range rows {
			if r.Status != "ok" {
				t.Errorf("%s: %s %s: %v", run.name, r.Provider, r.Status, r.Error)
				continue
			}
			if r.OffersSeen == 0 || r.OffersSeen != r.OffersNew+r.OffersChanged+r.OffersUnchanged {
				t.Errorf("%s: %s: %d offers seen, %d new + %d changed + %d unchanged", run.name, r.Provider,
					r.OffersSeen, r.OffersNew, r.OffersChanged, r.OffersUnchanged)
			}
			if w, ok := run.want[r.Provider]; ok && (r.OffersNew != w.OffersNew || r.OffersChanged != w.OffersChanged ||
				(w.OffersUnchanged != 0 && r.OffersUnchanged != w.OffersUnchanged) || r.RegionsSkipped != w.RegionsSkipped || r.OffersHeld != w.OffersHeld) {
				t.Errorf("%s: %s: %+v, want %+v", run.name, r.Provider, r, w)
			}
		}
	}
}

// fetchRow is a row of `fetch --format json` as a reader of the CLI sees
// it: the fields this test counts.
type fetchRow struct {
	Provider        string  `json:"provider"`
	Status          string  `json:"status"`
	Error           *string `json:"error"`
	OffersSeen      int     `json:"offers_seen"`
	OffersNew       int     `json:"offers_new"`
	OffersChanged   int     `json:"offers_changed"`
	OffersUnchanged int     `json:"offers_unchanged"`
	RegionsSkipped  int     `json:"regions_skipped"`
	OffersHeld      int     `json:"offers_held"`
}
