package aws

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/sharedtest"
)

var replayDir = flag.String("replay-dir", "", "also write the replay tree's two stages (stage1/, stage2/) under this directory, to serve to pricewatch with any static file server")

// writeReplayTree lays a bucket out as files, in two stages:
//
//   - stage 1: us-east-1 with p4d.24xlarge and p5.48xlarge, us-west-2 with
//     p5.48xlarge, savings plans for us-east-1, a spot feed for both;
//   - stage 2: us-west-2 publishes a new version that also lists
//     p5en.48xlarge; us-east-1, the savings plans and the spot feed are
//     unchanged (same files, same modification times).
//
// It differs from the other tests' trees (regions, types, versions, a spot
// feed served without ETag, only Last-Modified) and is served by
// http.FileServer, as a plain static mirror of the bucket would be.
func writeReplayTree(t *testing.T, stage1, stage2 string) {
	t.Helper()
	b := awstest.NewBucket(t)
	b.PublishEC2(map[string]awstest.Region{
		"us-east-1": {Version: "20261201000000", Types: []awstest.GPUType{p4d, p5}},
		"us-west-2": {Version: "20261201000000", Types: []awstest.GPUType{replayWestP5}},
	})
	b.SetSavingsPlans("us-east-1", "20261130000000", map[string]float64{"p4d.24xlarge": 21.3, "p5.48xlarge": 63.9})
	b.SetSpot(map[string]map[string]string{
		"us-east-1": {"p4d.24xlarge": "9.8318", "p5.48xlarge": "31.464", "m5.large": "0.0388"},
		"us-west-2": {"p5.48xlarge": "29.0044", "p4d.24xlarge": "N/A*"},
	})
	if err := b.WriteDir(stage1); err != nil {
		t.Fatal(err)
	}
	b.AddType("us-west-2", "20261208000000", awstest.GPUType{Type: "p5en.48xlarge", OnDemand: "84.8000000000", Reserved: awstest.SixByClass(84.8), Decoys: []string{"windows"}})
	if err := b.WriteDir(stage2); err != nil {
		t.Fatal(err)
	}
}

var replayWestP5 = awstest.GPUType{Type: "p5.48xlarge", OnDemand: "98.3200000000", Reserved: awstest.SixByClass(98.32), Decoys: []string{"windows", "dedicated", "unused-reservation"}}

func TestReplayTree(t *testing.T) {
	dirs := [3]string{"", t.TempDir(), t.TempDir()}
	if *replayDir != "" {
		dirs[1], dirs[2] = filepath.Join(*replayDir, "stage1"), filepath.Join(*replayDir, "stage2")
	}
	writeReplayTree(t, dirs[1], dirs[2])

	var root http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { root.ServeHTTP(w, r) }))
	defer srv.Close()
	client := fetchers.NewClient(fetchers.DefaultRetryPolicy())
	f, err := New(Config{Endpoint: srv.URL, SpotEndpoint: srv.URL + "/spot.json", Spot: true, SavingsPlans: true}, client, nil)
	if err != nil {
		t.Fatal(err)
	}

	root = http.FileServer(http.Dir(dirs[1]))
	first := firstRun(t, f)
	got := offerIndex(first.Offers)
	for _, g := range []struct {
		region string
		awstest.GPUType
	}{{"us-east-1", p4d}, {"us-east-1", p5}, {"us-west-2", replayWestP5}} {
		if o := got[g.region+"/"+g.Type+"/on_demand///"]; !o.Hourly.Equal(mustDec(t, g.OnDemand)) {
			t.Errorf("%s %s on-demand %s, want %s", g.region, g.Type, o.Hourly, g.OnDemand)
		}
		for _, r := range g.Reserved {
			key := fmt.Sprintf("%s/%s/reserved/%s/%s/%s", g.region, g.Type, termNames[r.Lease], paymentNames[r.Purchase], r.Class)
			if o, ok := got[key]; !ok || !o.Hourly.Equal(mustDec(t, r.Hourly)) || !o.Upfront.Equal(mustDec(t, r.Upfront)) {
				t.Errorf("%s = %+v, want %s + %s", key, o, r.Hourly, r.Upfront)
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
	second, err := f.Fetch(context.Background(), fetchers.Previous{Versions: first.Versions, State: first.State})
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
	// The spot feed did not change, but p5en is new to the catalogue, so
	// the feed is read whole again (its p5en prices, had it any, were left
	// out last time): spot is covered, not unchanged.
	sharedtest.WantLines(t, "unchanged", unchanged, []string{"us-east-1[on_demand reserved savings_plan]"})
	var spotCovered []string
	for _, sc := range second.Coverage {
		if slices.Contains(sc.PriceTypes, pricewatch.Spot) {
			spotCovered = append(spotCovered, sc.Region)
		}
	}
	sort.Strings(spotCovered)
	if !slices.Equal(spotCovered, []string{"us-east-1", "us-west-2"}) {
		t.Errorf("spot covered in %v", spotCovered)
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
