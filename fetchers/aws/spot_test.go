package aws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/sharedtest"
)

func TestParseSpotFeed(t *testing.T) {
	feed := awstest.LoadSamples(t).SpotFeed
	plain, err := parseSpotFeed(feed)
	if err != nil {
		t.Fatal(err)
	}
	wrapped, err := parseSpotFeed([]byte("callback(" + string(feed) + ");\n"))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(plain) != fmt.Sprint(wrapped) {
		t.Errorf("the callback(...) wrapper changed the result")
	}
	prices := map[string]string{}
	for _, p := range plain["af-south-1"] {
		prices[p.InstanceType] = p.Price.String() + " " + p.Currency
	}
	// The excerpt lists 18 sizes, every one with a Linux price.
	for it, want := range map[string]string{
		"t3.nano":       "0.0009 USD", // "9.0E-4" in the feed
		"g4dn.xlarge":   "0.2452 USD",
		"g4dn.12xlarge": "0.9625 USD",
		"inf1.24xlarge": "0.6249 USD",
		"m6g.large":     "0.0134 USD", // its Windows column is "N/A*"
	} {
		if prices[it] != want {
			t.Errorf("%s = %q, want %q", it, prices[it], want)
		}
	}
	if len(plain) != 1 || len(prices) != 18 {
		t.Errorf("%d regions, %d prices", len(plain), len(prices))
	}

	// "N/A*" in the Linux column means no price, never zero.
	na := bytes.Replace(feed, []byte(`"size":"g4dn.xlarge","valueColumns":[{"name":"linux","prices":{"USD":"0.2452"}}`),
		[]byte(`"size":"g4dn.xlarge","valueColumns":[{"name":"linux","prices":{"USD":"N/A*"}}`), 1)
	if bytes.Equal(na, feed) {
		t.Fatal("fixture edit did not apply")
	}
	got, err := parseSpotFeed(na)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got["af-south-1"] {
		if p.InstanceType == "g4dn.xlarge" {
			t.Errorf("N/A* read as price %s", p.Price)
		}
	}

	for _, bad := range []string{"", "{", `{"config":{"regions":[]}}`, "callback(", `{"config":{"regions":[{"region":"x","instanceTypes":[{"sizes":[{"size":"g4dn.xlarge","valueColumns":[{"name":"linux","prices":{"USD":"cheap"}}]}]}]}]}}`} {
		if _, err := parseSpotFeed([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestSpotOffers: the fetcher turns the feed's Linux prices of GPU types
// (known from the price files) into spot offers with hardware; non-GPU
// types are left out; a second run gets 304 and marks spot unchanged.
func TestSpotOffers(t *testing.T) {
	b := awstest.NewBucket(t)
	tree{"af-south-1": {Version: v1, Types: g4dnTypes()}}.publish(t, b)
	b.Put(awstest.SpotPath, awstest.LoadSamples(t).SpotFeed)
	f := newFetcher(t, b, Config{Spot: true})
	snap := firstRun(t, f)
	var got []string
	for _, o := range offersOf(snap, pricewatch.Spot) {
		got = append(got, o.InstanceType+" "+o.Hourly.String())
		if o.GPUModel != "T4" || o.VCPUs == 0 || o.Region != "af-south-1" || o.Term != "" {
			t.Errorf("%s: %+v", o.Key(), o)
		}
	}
	sort.Strings(got)
	want := []string{"g4dn.12xlarge 0.9625", "g4dn.16xlarge 1.5179", "g4dn.2xlarge 0.2708", "g4dn.4xlarge 0.4347",
		"g4dn.8xlarge 0.38", "g4dn.metal 10.381", "g4dn.xlarge 0.2452"}
	sharedtest.WantLines(t, "spot offers", got, want)
	if snap.Versions[versionSpotETag] == "" {
		t.Errorf("no ETag remembered: %v", snap.Versions)
	}
	spotScope := false
	for _, sc := range snap.Coverage {
		if sc.Region == "af-south-1" && slices.Contains(sc.PriceTypes, pricewatch.Spot) {
			spotScope = true
		}
	}
	if !spotScope {
		t.Errorf("coverage %+v", snap.Coverage)
	}

	b.BytesSent()
	second, err := f.Fetch(context.Background(), fetchers.Previous{Versions: snap.Versions, State: snap.State})
	if err != nil {
		t.Fatal(err)
	}
	if n := b.BytesSent()[awstest.SpotPath]; n != 0 {
		t.Errorf("spot feed downloaded again (%d bytes) though unchanged", n)
	}
	if second.Versions[versionSpotETag] != snap.Versions[versionSpotETag] {
		t.Errorf("ETag not carried: %v", second.Versions)
	}
}

// TestSpotFeedWrappedAndBroken: the legacy JSONP form is read; a cut-off
// feed fails the fetch.
func TestSpotFeedWrappedAndBroken(t *testing.T) {
	b := awstest.NewBucket(t)
	tree{"af-south-1": {Version: v1, Types: g4dnTypes()[:1]}}.publish(t, b)
	feed := awstest.LoadSamples(t).SpotFeed
	b.Put(awstest.SpotPath, []byte("callback("+string(feed)+");"))
	snap, err := newFetcher(t, b, Config{Spot: true, Regions: []string{"af-south-1"}}).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	if idx := offerIndex(snap.Offers); !idx["af-south-1/g4dn.xlarge/spot///"].Hourly.Equal(mustDec(t, "0.2452")) {
		t.Errorf("offers %v", snap.Offers)
	}

	b.Put(awstest.SpotPath, feed[:len(feed)/2])
	_, err = newFetcher(t, b, Config{Spot: true}).Fetch(context.Background(), fetchers.Previous{})
	if !errors.Is(err, fetchers.ErrIncomplete) || !strings.Contains(err.Error(), "spot") {
		t.Errorf("cut-off feed: %v", err)
	}
}

// TestSpotReadAgainForNewType: the feed priced g4dn.2xlarge all along, but
// it was left out while no price file listed the type. When a region's new
// version lists it, the unchanged feed is read whole again (not answered
// 304) and its spot price comes back; once the type is known, the
// conditional request resumes.
func TestSpotReadAgainForNewType(t *testing.T) {
	b := awstest.NewBucket(t)
	tr := tree{"af-south-1": {Version: v1, Types: g4dnTypes()[:1]}}
	tr.publish(t, b)
	b.Put(awstest.SpotPath, awstest.LoadSamples(t).SpotFeed)
	f := newFetcher(t, b, Config{Spot: true})
	first := firstRun(t, f)
	if _, ok := offerIndex(first.Offers)["af-south-1/g4dn.2xlarge/spot///"]; ok {
		t.Fatal("spot price of a type no price file lists")
	}

	tr["af-south-1"] = awstest.Region{Version: v2, Types: g4dnTypes()[:2]}
	tr.publish(t, b)
	b.BytesSent()
	second, err := f.Fetch(context.Background(), fetchers.Previous{Versions: first.Versions, State: first.State})
	if err != nil {
		t.Fatal(err)
	}
	if n := b.BytesSent()[awstest.SpotPath]; n != int64(len(awstest.LoadSamples(t).SpotFeed)) {
		t.Errorf("spot feed sent %d bytes, want it whole", n)
	}
	if o := offerIndex(second.Offers)["af-south-1/g4dn.2xlarge/spot///"]; !o.Hourly.Equal(mustDec(t, "0.2708")) {
		t.Errorf("new type's spot price %s, want 0.2708", o.Hourly)
	}

	third, err := f.Fetch(context.Background(), fetchers.Previous{Versions: second.Versions, State: second.State})
	if err != nil {
		t.Fatal(err)
	}
	if n := b.BytesSent()[awstest.SpotPath]; n != 0 || len(third.Offers) != 0 {
		t.Errorf("nothing new: spot feed sent %d bytes, %d offers", n, len(third.Offers))
	}
}
