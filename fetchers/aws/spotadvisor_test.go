package aws

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/sharedtest"
)

// bands lists a snapshot's interruption bands as "region type band".
func bands(snap *pricewatch.Snapshot) map[string]string {
	out := map[string]string{}
	for _, s := range snap.Signals {
		if s.Kind == pricewatch.InterruptionBand {
			out[s.Region+" "+s.InstanceType] = s.Value + " " + s.Detail
		}
	}
	return out
}

// Issue 23 item 2: the real Spot Advisor excerpt gives each GPU type's
// Linux band per region (r is the index into ranges); a second run with
// the file unchanged gets 304 and lists no band and no coverage, so
// nothing is written; a changed file is read again.
func TestSpotAdvisorBands(t *testing.T) {
	b := awstest.NewBucket(t)
	tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{p5, p4d}}, "us-west-2": {Version: v1, Types: []awstest.GPUType{p5}}}.publish(t, b)
	advisor := awstest.SampleFile(t, "spot-advisor-data-excerpt.json")
	b.Put(awstest.SpotAdvisorPath, advisor)
	f := newFetcher(t, b, Config{SpotAdvisor: true, SpotAdvisorEndpoint: b.SpotAdvisorURL(), Regions: []string{"us-east-1", "us-west-2"}})
	snap := firstRun(t, f)
	got := bands(snap)
	// From the excerpt: us-east-1 p5.48xlarge {"s":52,"r":4}, p4d.24xlarge
	// {"s":67,"r":2}; us-west-2 p5.48xlarge {"s":46,"r":1}, p4d.24xlarge
	// {"s":53,"r":4} (a GPU type is known from any region's file). Types no
	// price file lists (p5en) and regions not configured are left out.
	want := map[string]string{
		"us-east-1 p5.48xlarge":  ">20% savings 52% vs on-demand",
		"us-east-1 p4d.24xlarge": "10-15% savings 67% vs on-demand",
		"us-west-2 p5.48xlarge":  "5-10% savings 46% vs on-demand",
		"us-west-2 p4d.24xlarge": ">20% savings 53% vs on-demand",
	}
	sharedtest.WantMap(t, "bands", got, want)
	for _, s := range snap.Signals {
		if s.GPUModel != "H100" && s.InstanceType == "p5.48xlarge" || s.Shape != "os=linux" || s.Source != SourceSpotAdvisor {
			t.Errorf("signal %+v", s)
		}
	}
	if len(snap.SignalCoverage) != 2 || snap.Versions[versionAdvisorETag] == "" {
		t.Errorf("coverage %v, versions %v", snap.SignalCoverage, snap.Versions)
	}

	b.BytesSent()
	second, err := f.Fetch(context.Background(), fetchers.Previous{Versions: snap.Versions, State: snap.State})
	if err != nil {
		t.Fatal(err)
	}
	if n := b.BytesSent()[awstest.SpotAdvisorPath]; n != 0 || len(second.Signals) != 0 || len(second.SignalCoverage) != 0 {
		t.Errorf("unchanged file: %d bytes, %d signals, coverage %v; want none", n, len(second.Signals), second.SignalCoverage)
	}
	if second.Versions[versionAdvisorETag] != snap.Versions[versionAdvisorETag] {
		t.Errorf("ETag not carried: %v", second.Versions)
	}

	b.Put(awstest.SpotAdvisorPath, bytes.Replace(advisor, []byte(`"p5.48xlarge": {"s": 52, "r": 4}`), []byte(`"p5.48xlarge": {"s": 52, "r": 0}`), 1))
	third, err := f.Fetch(context.Background(), fetchers.Previous{Versions: second.Versions, State: second.State})
	if err != nil {
		t.Fatal(err)
	}
	if got := bands(third)["us-east-1 p5.48xlarge"]; got != "<5% savings 52% vs on-demand" {
		t.Errorf("changed file: band %q", got)
	}
}

// A cut, empty or failing Spot Advisor answer never ends the stored bands
// (no signals, no coverage) and never fails the run's prices.
func TestSpotAdvisorBrokenAnswers(t *testing.T) {
	advisor := awstest.SampleFile(t, "spot-advisor-data-excerpt.json")
	for name, put := range map[string]func(b *awstest.Bucket){
		"cut short": func(b *awstest.Bucket) { b.Put(awstest.SpotAdvisorPath, advisor[:len(advisor)/2]) },
		"no regions": func(b *awstest.Bucket) {
			b.Put(awstest.SpotAdvisorPath, []byte(`{"ranges":[{"index":0,"label":"<5%"}],"spot_advisor":{}}`))
		},
		"no ranges": func(b *awstest.Bucket) {
			b.Put(awstest.SpotAdvisorPath, []byte(`{"ranges":[],"spot_advisor":{"us-east-1":{}}}`))
		},
		"throttled": func(b *awstest.Bucket) {
			b.Put(awstest.SpotAdvisorPath, advisor)
			b.FailWith(awstest.SpotAdvisorPath, http.StatusServiceUnavailable)
		},
		"band off range": func(b *awstest.Bucket) {
			b.Put(awstest.SpotAdvisorPath, bytes.ReplaceAll(advisor, []byte(`"r": 4}`), []byte(`"r": 9}`)))
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := awstest.NewBucket(t)
			tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{p5}}}.publish(t, b)
			put(b)
			snap := firstRun(t, newFetcher(t, b, Config{SpotAdvisor: true, SpotAdvisorEndpoint: b.SpotAdvisorURL(), Regions: []string{"us-east-1"}}))
			if len(offersOf(snap, pricewatch.OnDemand)) == 0 {
				t.Error("the prices were lost with the advisor")
			}
			if name == "band off range" {
				// The one odd entry is left out and its region is not
				// spoken for: the stored band stands (issue 34 item 4).
				if len(snap.Signals) != 0 || len(snap.SignalCoverage) != 0 {
					t.Errorf("signals %v, coverage %v", snap.Signals, snap.SignalCoverage)
				}
				return
			}
			if len(snap.Signals) != 0 || len(snap.SignalCoverage) != 0 || snap.Versions[versionAdvisorETag] != "" {
				t.Errorf("signals %v, coverage %v, versions %v; want none", snap.Signals, snap.SignalCoverage, snap.Versions)
			}
		})
	}
}

// Issue 23 item 2: a band per region × type × OS. The real excerpt lists
// g4dn.xlarge in us-west-2 under both operating systems ({"s":64,"r":4}
// under Linux, {"s":54,"r":4} under Windows): two signals, each under its
// OS, so the two never overwrite each other.
func TestSpotAdvisorBandsPerOS(t *testing.T) {
	b := awstest.NewBucket(t)
	tree{"us-west-2": {Version: v1, Types: g4dnTypes()[:1]}}.publish(t, b)
	b.Put(awstest.SpotAdvisorPath, awstest.SampleFile(t, "spot-advisor-data-excerpt.json"))
	f := newFetcher(t, b, Config{SpotAdvisor: true, SpotAdvisorEndpoint: b.SpotAdvisorURL(), Regions: []string{"us-west-2"}})
	snap := firstRun(t, f)
	got := map[string]string{}
	for _, s := range snap.Signals {
		if s.Kind == pricewatch.InterruptionBand {
			got[s.InstanceType+" "+s.Shape] = s.Value + " " + s.Detail
		}
	}
	want := map[string]string{
		"g4dn.xlarge os=linux":   ">20% savings 64% vs on-demand",
		"g4dn.xlarge os=windows": ">20% savings 54% vs on-demand",
	}
	sharedtest.WantMap(t, "bands", got, want)
}

// Issue 34 item 4: one odd entry anywhere in the file never makes the
// file unread. An entry with strings for numbers ({"s": "59", "r": "4"})
// of a type nobody watches, in a configured region and in one nobody
// watches, is skipped and every other entry applied; an entry of a watched
// type whose band index is outside the ranges is listed but unreadable, so
// its stored band stands (its region is not spoken for this run) while the
// region's other bands are still applied.
func TestSpotAdvisorOddEntries(t *testing.T) {
	advisor := awstest.SampleFile(t, "spot-advisor-data-excerpt.json")
	odd := bytes.Replace(advisor, []byte(`"spot_advisor": {"us-east-1": {"Linux": {`),
		[]byte(`"spot_advisor": {"sa-east-1": {"Linux": {"x2iezn.metal": {"s": "59", "r": "4"}}}, "us-east-1": {"Linux": {"x2iezn.metal": {"s": "59", "r": "4"}, `), 1)
	if bytes.Equal(odd, advisor) {
		t.Fatal("the odd entries were not added")
	}
	publish := func(t *testing.T, body []byte) *pricewatch.Snapshot {
		b := awstest.NewBucket(t)
		tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{p5, p4d}}, "us-west-2": {Version: v1, Types: []awstest.GPUType{p5}}}.publish(t, b)
		b.Put(awstest.SpotAdvisorPath, body)
		return firstRun(t, newFetcher(t, b, Config{SpotAdvisor: true, SpotAdvisorEndpoint: b.SpotAdvisorURL(), Regions: []string{"us-east-1", "us-west-2"}}))
	}
	covered := func(snap *pricewatch.Snapshot, region string) bool {
		return slices.ContainsFunc(snap.SignalCoverage, func(sc pricewatch.SignalScope) bool {
			return sc.Covers(pricewatch.Signal{Kind: pricewatch.InterruptionBand, Region: region, InstanceType: "p5.48xlarge"}.Key())
		})
	}

	t.Run("unwatched entry with strings", func(t *testing.T) {
		snap := publish(t, odd)
		got := bands(snap)
		for k, v := range map[string]string{
			"us-east-1 p5.48xlarge":  ">20% savings 52% vs on-demand",
			"us-east-1 p4d.24xlarge": "10-15% savings 67% vs on-demand",
			"us-west-2 p5.48xlarge":  "5-10% savings 46% vs on-demand",
		} {
			if got[k] != v {
				t.Errorf("%s: %q, want %q (the rest of the file applied)", k, got[k], v)
			}
		}
		if !covered(snap, "us-east-1") || !covered(snap, "us-west-2") {
			t.Errorf("coverage %v, want both regions spoken for", snap.SignalCoverage)
		}
	})

	t.Run("watched entry off the ranges", func(t *testing.T) {
		snap := publish(t, bytes.Replace(odd, []byte(`"p5.48xlarge": {"s": 52, "r": 4}`), []byte(`"p5.48xlarge": {"s": 52, "r": 9}`), 1))
		got := bands(snap)
		if v, ok := got["us-east-1 p5.48xlarge"]; ok {
			t.Errorf("the unreadable entry gave a band: %q", v)
		}
		if covered(snap, "us-east-1") {
			t.Errorf("coverage %v speaks for us-east-1: its stored p5.48xlarge band would end", snap.SignalCoverage)
		}
		if got["us-east-1 p4d.24xlarge"] != "10-15% savings 67% vs on-demand" || !covered(snap, "us-west-2") {
			t.Errorf("bands %v, coverage %v: want the rest applied and us-west-2 spoken for", got, snap.SignalCoverage)
		}
	})
}
