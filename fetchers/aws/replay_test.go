package aws

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
)

var replayDir = flag.String("replay-dir", "", "also write the replay tree's two stages (stage1/, stage2/) under this directory, to serve to pricewatch with any static file server")

// replayTree is a bucket laid out as files, in two stages:
//
//   - stage 1: us-east-1 with p4d.24xlarge and p5.48xlarge, us-west-2 with
//     p5.48xlarge, savings plans for us-east-1, a spot feed for both;
//   - stage 2: us-west-2 publishes a new version that also lists
//     p5en.48xlarge; us-east-1, the savings plans and the spot feed are
//     unchanged.
//
// It differs from the other tests' trees (regions, types, versions, a spot
// feed served without ETag, only Last-Modified) and is served by
// http.FileServer, as a plain static mirror of the bucket would be.
func writeReplayTree(t *testing.T, dir string, stage int) {
	t.Helper()
	s := loadSamples(t)
	west := []gpuType{{itype: "p5.48xlarge", onDemand: "98.3200000000", reserved: sixByClass(98.32), decoys: []string{"windows", "dedicated", "unused-reservation"}}}
	westVersion := "20261201000000"
	if stage == 2 {
		west = append(west, gpuType{itype: "p5en.48xlarge", onDemand: "84.8000000000", reserved: sixByClass(84.8), decoys: []string{"windows"}})
		westVersion = "20261208000000"
	}
	tr := map[string]struct {
		version string
		types   []gpuType
	}{
		"us-east-1": {"20261201000000", []gpuType{p4d, p5}},
		"us-west-2": {westVersion, west},
	}
	write := func(path string, body []byte) {
		full := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	index := map[string]map[string]string{}
	for region, spec := range tr {
		p := ec2Path(spec.version, region)
		write(p, s.regionFile(spec.version, s.buildRegion(t, region, spec.types)))
		index[region] = map[string]string{"regionCode": region, "currentVersionUrl": p}
	}
	raw, _ := json.MarshalIndent(map[string]any{"formatVersion": "v1.0", "disclaimer": s.disclaimer,
		"publicationDate": "2026-12-01T00:00:00Z", "regions": index}, "", "  ")
	write(ec2RegionIndexPath, raw)

	spVersion := "20261130000000"
	linux := map[string]string{}
	prices := map[string]float64{"p4d.24xlarge": 21.3, "p5.48xlarge": 63.9}
	for it := range prices {
		linux[it] = skuFor("us-east-1" + it + "linux")
	}
	write(spPath(spVersion, "us-east-1"), savingsPlanFile(t, spVersion, "us-east-1", s.spCSV[0], gpuSavingsPlanRows(s.spCSV[0], "us-east-1", linux, prices)))
	raw, _ = json.MarshalIndent(map[string]any{"formatVersion": "v1.0", "disclaimer": s.disclaimer, "publicationDate": "2026-11-30T00:00:00Z",
		"regions": []map[string]string{{"regionCode": "us-east-1", "versionUrl": spPath(spVersion, "us-east-1")}}}, "", "  ")
	write(spRegionIndexPath, raw)

	// The spot feed: the real af-south-1 entry's shape, for both regions.
	var feed map[string]any
	if err := json.Unmarshal(s.spotFeed, &feed); err != nil {
		t.Fatal(err)
	}
	cfg := feed["config"].(map[string]any)
	tmpl := cfg["regions"].([]any)[0].(map[string]any)
	region := func(code string, linux map[string]string) map[string]any {
		r := map[string]any{}
		for k, v := range tmpl {
			r[k] = v
		}
		r["region"] = code
		var sizes []any
		names := make([]string, 0, len(linux))
		for n := range linux {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			sizes = append(sizes, map[string]any{"size": n, "valueColumns": []any{
				map[string]any{"name": "linux", "prices": map[string]string{"USD": linux[n]}},
				map[string]any{"name": "mswin", "prices": map[string]string{"USD": "N/A*"}},
			}})
		}
		r["instanceTypes"] = []any{map[string]any{"type": "gpuCurrentGen", "sizes": sizes}}
		return r
	}
	cfg["regions"] = []any{
		region("us-east-1", map[string]string{"p4d.24xlarge": "9.8318", "p5.48xlarge": "31.464", "m5.large": "0.0388"}),
		region("us-west-2", map[string]string{"p5.48xlarge": "29.0044", "p4d.24xlarge": "N/A*"}),
	}
	raw, _ = json.Marshal(feed)
	write("spot.json", raw)
	// Both stages serve the same feed with the same Last-Modified, so the
	// second run's If-Modified-Since gets 304.
	mod := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "spot.json"), mod, mod); err != nil {
		t.Fatal(err)
	}
}

func TestReplayTree(t *testing.T) {
	dirs := [3]string{"", t.TempDir(), t.TempDir()}
	if *replayDir != "" {
		dirs[1], dirs[2] = filepath.Join(*replayDir, "stage1"), filepath.Join(*replayDir, "stage2")
	}
	writeReplayTree(t, dirs[1], 1)
	writeReplayTree(t, dirs[2], 2)

	var root http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { root.ServeHTTP(w, r) }))
	defer srv.Close()
	client := fetchers.NewClient(fetchers.DefaultRetryPolicy())
	f, err := New(Config{Endpoint: srv.URL, SpotEndpoint: srv.URL + "/spot.json", Spot: true, SavingsPlans: true}, client, nil)
	if err != nil {
		t.Fatal(err)
	}

	root = http.FileServer(http.Dir(dirs[1]))
	first, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	got := offerIndex(first.Offers)
	for _, g := range []struct {
		region string
		gpuType
	}{{"us-east-1", p4d}, {"us-east-1", p5}, {"us-west-2", gpuType{itype: "p5.48xlarge", onDemand: "98.3200000000", reserved: sixByClass(98.32)}}} {
		if o := got[g.region+"/"+g.itype+"/on_demand///"]; !o.Hourly.Equal(mustDec(t, g.onDemand)) {
			t.Errorf("%s %s on-demand %s, want %s", g.region, g.itype, o.Hourly, g.onDemand)
		}
		for _, r := range g.reserved {
			key := fmt.Sprintf("%s/%s/reserved/%s/%s/%s", g.region, g.itype, termNames[r.lease], paymentNames[r.purchase], r.class)
			if o, ok := got[key]; !ok || !o.Hourly.Equal(mustDec(t, r.hourly)) || !o.Upfront.Equal(mustDec(t, r.upfront)) {
				t.Errorf("%s = %+v, want %s + %s", key, o, r.hourly, r.upfront)
			}
		}
	}
	for key, want := range map[string]string{
		"us-east-1/p4d.24xlarge/spot///": "9.8318", "us-east-1/p5.48xlarge/spot///": "31.464", "us-west-2/p5.48xlarge/spot///": "29.0044",
		"us-east-1/p5.48xlarge/savings_plan/1y/no_upfront/compute": "63.9",
	} {
		if o, ok := got[key]; !ok || !o.Hourly.Equal(mustDec(t, want)) {
			t.Errorf("%s = %s, want %s", key, o.Hourly, want)
		}
	}
	if _, ok := got["us-east-1/m5.large/spot///"]; ok {
		t.Error("a non-GPU spot price was kept")
	}
	if _, ok := got["us-west-2/p4d.24xlarge/spot///"]; ok {
		t.Error("an N/A* spot price was stored")
	}
	if first.Versions[versionSpotLastMod] == "" {
		t.Errorf("no Last-Modified remembered for the spot feed: %v", first.Versions)
	}

	root = http.FileServer(http.Dir(dirs[2]))
	second, err := f.Fetch(context.Background(), fetchers.Previous{Versions: first.Versions})
	if err != nil {
		t.Fatal(err)
	}
	if second.Skipped != 1 || second.Versions["ec2/us-west-2"] != "20261208000000" {
		t.Errorf("skipped %d, versions %v", second.Skipped, second.Versions)
	}
	var listed []string
	for _, a := range second.Availability {
		listed = append(listed, a.Region+"/"+a.InstanceType)
	}
	if !slices.Equal(listed, []string{"us-west-2/p5.48xlarge", "us-west-2/p5en.48xlarge"}) {
		t.Errorf("listed %v", listed)
	}
	var unchanged []string
	for _, sc := range second.Unchanged {
		unchanged = append(unchanged, fmt.Sprint(sc.Region, sc.PriceTypes))
	}
	sort.Strings(unchanged)
	if want := []string{"*[spot]", "us-east-1[on_demand reserved savings_plan]"}; !slices.Equal(unchanged, want) {
		t.Errorf("unchanged %v, want %v", unchanged, want)
	}
	got = offerIndex(second.Offers)
	if o := got["us-west-2/p5en.48xlarge/on_demand///"]; !o.Hourly.Equal(mustDec(t, "84.8")) || o.GPUModel != "H200" {
		t.Errorf("new type: %+v", o)
	}
	for _, o := range second.Offers {
		if o.Region == "us-east-1" && o.PriceType != pricewatch.Spot {
			t.Errorf("unchanged region re-read: %s", o.Key())
		}
	}
	if !strings.Contains(second.SourceVersion, "20261208000000 (1 regions)") {
		t.Errorf("source version %q", second.SourceVersion)
	}
}
