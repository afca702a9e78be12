package aws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/sharedtest"
)

const (
	v1 = "20261101000000"
	v2 = "20261115000000"
)

var (
	p4d = awstest.GPUType{Type: "p4d.24xlarge", OnDemand: "32.7726000000", Reserved: awstest.SixByClass(32.7726), Decoys: awstest.AllDecoys}
	p5  = awstest.GPUType{Type: "p5.48xlarge", OnDemand: "98.3200000000", Reserved: awstest.SixByClass(98.32), Decoys: awstest.AllDecoys}
	p3  = awstest.GPUType{Type: "p3.8xlarge", OnDemand: "12.2400000000", Reserved: awstest.SixByClass(12.24), Decoys: []string{"windows-byol", "rhel"}}
)

func g4dnTypes() []awstest.GPUType {
	var out []awstest.GPUType
	for i, size := range []string{"xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "metal"} {
		out = append(out, awstest.GPUType{Type: "g4dn." + size, OnDemand: fmt.Sprintf("%.10f", 0.526*float64(i+1)), Decoys: []string{"windows", "unused-reservation"}})
	}
	return out
}

func standardTree() tree {
	return tree{
		"us-east-1":  {Version: v1, Types: []awstest.GPUType{p4d, p5}},
		"us-east-2":  {Version: v1, Types: []awstest.GPUType{p3}},
		"af-south-1": {Version: v1, Types: g4dnTypes()},
	}
}

// offerIndex finds offers by a short key: region/type/price_type/term/payment/class.
func offerIndex(offers []pricewatch.Offer) map[string]pricewatch.Offer {
	m := map[string]pricewatch.Offer{}
	for _, o := range offers {
		m[strings.Join([]string{o.Region, o.InstanceType, string(o.PriceType), o.Term, o.Payment, o.OfferingClass}, "/")] = o
	}
	return m
}

var (
	termNames    = map[string]string{"1yr": "1y", "3yr": "3y"}
	paymentNames = map[string]string{"No Upfront": pricewatch.NoUpfront, "Partial Upfront": pricewatch.PartialUpfront, "All Upfront": pricewatch.AllUpfront}
)

func mustDec(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	if s == "" {
		return decimal.Zero
	}
	return decimal.RequireFromString(s)
}

// TestFetchKeepsOnlyPlainLinuxGPUPrices serves a region with p4d and p5
// products under every variant AWS lists (Windows, BYOL, RHEL, SUSE, SQL,
// dedicated, host, both capacity-reservation kinds) plus m5.large and
// storage, and checks that exactly the Linux on-demand and reserved prices
// of the GPU types come back, each exact.
func TestFetchKeepsOnlyPlainLinuxGPUPrices(t *testing.T) {
	b := awstest.NewBucket(t)
	tr := tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{p4d, p5}}}
	built := tr.publish(t, b)
	snap, err := newFetcher(t, b, Config{}).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	if len(built["us-east-1"]) != 2*(1+len(awstest.AllDecoys))+2 {
		t.Fatalf("fixture has %d products", len(built["us-east-1"]))
	}
	got := offerIndex(snap.Offers)
	want := 0
	for _, g := range []awstest.GPUType{p4d, p5} {
		od, ok := got["us-east-1/"+g.Type+"/on_demand///"]
		if !ok {
			t.Fatalf("no on-demand price for %s", g.Type)
		}
		if !od.Hourly.Equal(mustDec(t, g.OnDemand)) || od.Currency != "USD" || od.OS != pricewatch.Linux {
			t.Errorf("%s on-demand = %s %s %s, want %s USD linux", g.Type, od.Hourly, od.Currency, od.OS, g.OnDemand)
		}
		want++
		for _, r := range g.Reserved {
			key := fmt.Sprintf("us-east-1/%s/reserved/%s/%s/%s", g.Type, termNames[r.Lease], paymentNames[r.Purchase], r.Class)
			o, ok := got[key]
			if !ok {
				t.Errorf("missing %s", key)
				continue
			}
			want++
			if !o.Hourly.Equal(mustDec(t, r.Hourly)) || !o.Upfront.Equal(mustDec(t, r.Upfront)) {
				t.Errorf("%s = %s hourly + %s upfront, want %s + %s", key, o.Hourly, o.Upfront, r.Hourly, r.Upfront)
			}
		}
	}
	if len(snap.Offers) != want {
		for _, o := range snap.Offers {
			t.Logf("offer %s = %s", o.Key(), o.Hourly)
		}
		t.Fatalf("%d offers, want %d (decoys or non-GPU types leaked)", len(snap.Offers), want)
	}
	for _, o := range snap.Offers {
		if o.Provider != pricewatch.AWS || o.Zone != "" || o.GPUModel == "" || o.VCPUs == 0 || o.MemoryGB == 0 {
			t.Errorf("offer %s lacks provider or hardware: %+v", o.Key(), o.Hardware)
		}
	}
	p5od := got["us-east-1/p5.48xlarge/on_demand///"].Hardware
	if p5od != (pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 192, MemoryGB: 2048,
		Interconnect: "3200 Gigabit", LocalStorage: "8 x 3800 GB NVMe SSD"}) {
		t.Errorf("p5.48xlarge hardware = %+v", p5od)
	}
	if d := got["us-east-1/p4d.24xlarge/on_demand///"].Hardware; d.GPUModel != "A100-40GB" || d.GPUCount != 8 || d.VCPUs != 96 || d.MemoryGB != 1152 {
		t.Errorf("p4d.24xlarge hardware = %+v", d)
	}

	var listed []string
	for _, a := range snap.Availability {
		listed = append(listed, a.Region+"/"+a.InstanceType+"/"+string(a.State))
		if a.GPUModel == "" || a.Zone != "" {
			t.Errorf("availability %v: %+v", a.Key(), a)
		}
	}
	sharedtest.WantLines(t, "availability", listed, []string{"us-east-1/p4d.24xlarge/offered", "us-east-1/p5.48xlarge/offered"})
	if len(snap.Coverage) != 1 || snap.Coverage[0].Region != "us-east-1" || !snap.Coverage[0].Availability ||
		!slices.Equal(snap.Coverage[0].PriceTypes, []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Reserved}) {
		t.Errorf("coverage = %+v", snap.Coverage)
	}
	if snap.Versions["ec2/us-east-1"] != v1 || snap.Skipped != 0 || len(snap.Unchanged) != 0 {
		t.Errorf("versions %v, skipped %d, unchanged %v", snap.Versions, snap.Skipped, snap.Unchanged)
	}
}

// TestReservedConversion checks term, payment and class labelling and the
// effective hourly rate (upfront spread over the term's hours) exactly.
func TestReservedConversion(t *testing.T) {
	b := awstest.NewBucket(t)
	g := awstest.GPUType{Type: "p5.48xlarge", OnDemand: "98.3200000000", Reserved: []awstest.Reserved{
		{Lease: "1yr", Class: "standard", Purchase: "Partial Upfront", Hourly: "30.3510000000", Upfront: "265874"},
		{Lease: "3yr", Class: "convertible", Purchase: "All Upfront", Hourly: "0.0000000000", Upfront: "1004452"},
		{Lease: "1yr", Class: "standard", Purchase: "No Upfront", Hourly: "63.4800000000", Upfront: ""},
	}}
	tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{g}}}.publish(t, b)
	snap, err := newFetcher(t, b, Config{}).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	got := offerIndex(snap.Offers)
	for _, c := range []struct {
		key, hourly, upfront, effective string
	}{
		{"us-east-1/p5.48xlarge/reserved/1y/partial_upfront/standard", "30.351", "265874", "60.701913242"},
		{"us-east-1/p5.48xlarge/reserved/3y/all_upfront/convertible", "0", "1004452", "38.2211567732"},
		{"us-east-1/p5.48xlarge/reserved/1y/no_upfront/standard", "63.48", "0", "63.48"},
	} {
		o, ok := got[c.key]
		if !ok {
			t.Errorf("missing %s", c.key)
			continue
		}
		eff, err := o.EffectiveHourly()
		if err != nil {
			t.Fatal(err)
		}
		if !o.Hourly.Equal(mustDec(t, c.hourly)) || !o.Upfront.Equal(mustDec(t, c.upfront)) || !eff.Equal(mustDec(t, c.effective)) {
			t.Errorf("%s: hourly %s upfront %s effective %s, want %s %s %s", c.key, o.Hourly, o.Upfront, eff, c.hourly, c.upfront, c.effective)
		}
		if err := o.Validate(); err != nil {
			t.Error(err)
		}
	}
}

// TestVersionSkip runs two cycles: the second, with no version changed,
// downloads only the index files, reports every region unchanged, and
// carries the versions forward. Then one region's version moves and only
// that region's file is read.
func TestVersionSkip(t *testing.T) {
	b := awstest.NewBucket(t)
	tr := standardTree()
	tr.publish(t, b)
	b.Put(awstest.SpotPath, awstest.LoadSamples(t).SpotFeed)
	f := newFetcher(t, b, Config{Spot: true})

	first := firstRun(t, f)
	sent := b.BytesSent()
	for region, spec := range tr {
		if sent[awstest.EC2Path(spec.Version, region)] == 0 {
			t.Errorf("first run did not read %s", region)
		}
	}

	second, err := f.Fetch(context.Background(), fetchers.Previous{Versions: first.Versions, State: first.State})
	if err != nil {
		t.Fatal(err)
	}
	sent = b.BytesSent()
	var paths []string
	for p, n := range sent {
		if n > 0 {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	if !slices.Equal(paths, []string{ec2RegionIndexPath}) {
		t.Errorf("second run downloaded %v (%v), want only the region index", paths, sent)
	}
	if second.Skipped != 3 || len(second.Offers) != 0 || len(second.Availability) != 0 || len(second.Coverage) != 0 {
		t.Errorf("second run: skipped %d, %d offers, %d availability, coverage %v", second.Skipped, len(second.Offers), len(second.Availability), second.Coverage)
	}
	var unchanged []string
	for _, s := range second.Unchanged {
		unchanged = append(unchanged, fmt.Sprintf("%s%v%v", s.Region, s.PriceTypes, s.Availability))
	}
	sort.Strings(unchanged)
	want := []string{"*[spot]false", "af-south-1[on_demand reserved]true", "us-east-1[on_demand reserved]true", "us-east-2[on_demand reserved]true"}
	sharedtest.WantLines(t, "unchanged", unchanged, want)
	for k, v := range first.Versions {
		if second.Versions[k] != v {
			t.Errorf("version %s: %q then %q", k, v, second.Versions[k])
		}
	}
	if !strings.Contains(second.SourceVersion, v1+" (3 regions)") {
		t.Errorf("source version %q", second.SourceVersion)
	}

	// us-east-2 publishes a new version; the others stay.
	tr["us-east-2"] = awstest.Region{Version: v2, Types: []awstest.GPUType{p3}}
	tr.publish(t, b)
	b.BytesSent()
	third, err := f.Fetch(context.Background(), fetchers.Previous{Versions: second.Versions, State: second.State})
	if err != nil {
		t.Fatal(err)
	}
	sent = b.BytesSent()
	if sent[awstest.EC2Path(v2, "us-east-2")] == 0 || sent[awstest.EC2Path(v1, "us-east-1")] != 0 || sent[awstest.EC2Path(v1, "af-south-1")] != 0 {
		t.Errorf("third run read %v", sent)
	}
	if third.Skipped != 2 || third.Versions["ec2/us-east-2"] != v2 || len(third.Coverage) != 1 || third.Coverage[0].Region != "us-east-2" {
		t.Errorf("third run: skipped %d, versions %v, coverage %v", third.Skipped, third.Versions, third.Coverage)
	}
}

// TestNewRegionAndNewType: a region appearing in the index is read in
// full; a GPU type listed for the first time in a region comes back as
// offered (storage opens its availability interval).
func TestNewRegionAndNewType(t *testing.T) {
	b := awstest.NewBucket(t)
	tr := tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{p4d}}}
	tr.publish(t, b)
	f := newFetcher(t, b, Config{})
	first := firstRun(t, f)

	tr["us-east-1"] = awstest.Region{Version: v2, Types: []awstest.GPUType{p4d, p5}}
	tr["us-west-2"] = awstest.Region{Version: v1, Types: []awstest.GPUType{p5}}
	tr.publish(t, b)
	second, err := f.Fetch(context.Background(), fetchers.Previous{Versions: first.Versions, State: first.State})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, a := range second.Availability {
		listed = append(listed, a.Region+"/"+a.InstanceType)
	}
	sharedtest.WantLines(t, "listed", listed, []string{"us-east-1/p4d.24xlarge", "us-east-1/p5.48xlarge", "us-west-2/p5.48xlarge"})
	got := offerIndex(second.Offers)
	for _, k := range []string{"us-east-1/p5.48xlarge/on_demand///", "us-west-2/p5.48xlarge/on_demand///", "us-west-2/p5.48xlarge/reserved/3y/all_upfront/convertible"} {
		if _, ok := got[k]; !ok {
			t.Errorf("missing %s", k)
		}
	}
	if second.Skipped != 0 || len(second.Coverage) != 2 {
		t.Errorf("skipped %d, coverage %v", second.Skipped, second.Coverage)
	}
}

// TestCutOffFileLosesItsRegion: a price file that ends mid-way (the
// object itself short, so every byte served is "complete" to HTTP) is that
// region's loss only (issue 26 item 1): the other regions are stored, the
// cut region is neither covered (its stored prices stay) nor remembered
// (it is read again next run).
func TestCutOffFileLosesItsRegion(t *testing.T) {
	b := awstest.NewBucket(t)
	tr := standardTree()
	built := tr.publish(t, b)
	path := awstest.EC2Path(v1, "us-east-2")
	full := b.Object(path)
	if !bytes.Equal(full, awstest.LoadSamples(t).RegionFile(v1, built["us-east-2"])) {
		t.Fatal("the bucket serves another file than the one built")
	}
	for _, cut := range []int{len(full) / 3, len(full) / 2, len(full) - 3} {
		b.Put(path, full)
		b.Truncate(path, cut)
		snap, err := newFetcher(t, b, Config{}).Fetch(context.Background(), fetchers.Previous{})
		checkRegionLost(t, fmt.Sprintf("cut at %d of %d", cut, len(full)), snap, err, "us-east-2")
	}
}

// checkRegionLost checks a fetch in which region alone could not be read:
// a snapshot of the other regions, nothing of region's in it.
func checkRegionLost(t *testing.T, what string, snap *pricewatch.Snapshot, err error, region string) {
	t.Helper()
	if err != nil || snap == nil {
		t.Fatalf("%s: err %v, snapshot %v: want the other regions stored", what, err, snap != nil)
	}
	others := 0
	for _, o := range snap.Offers {
		if o.Region == region {
			t.Errorf("%s: an offer of the lost region %s: %s", what, region, o.Key())
		} else {
			others++
		}
	}
	for _, sc := range snap.Coverage {
		if sc.Region == region {
			t.Errorf("%s: the lost region %s is covered: %+v", what, region, sc)
		}
	}
	if v, ok := snap.Versions["ec2/"+region]; ok {
		t.Errorf("%s: the lost region's version %s is remembered: it would not be read again", what, v)
	}
	if others == 0 || len(snap.Coverage) == 0 {
		t.Errorf("%s: %d offers and coverage %v of the other regions", what, others, snap.Coverage)
	}
}

// TestDroppedConnection: a connection dropped mid-body is resumed with a
// range request pinned to the object's ETag; one that keeps dropping fails
// the run.
func TestDroppedConnection(t *testing.T) {
	b := awstest.NewBucket(t)
	tr := tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{p4d, p5}}}
	tr.publish(t, b)
	want, err := newFetcher(t, b, Config{}).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}

	path := awstest.EC2Path(v1, "us-east-1")
	size := len(b.Object(path))
	b.DropAfter(path, size/4+1) // every request stops after a quarter: 4 requests in all
	got, err := newFetcher(t, b, Config{}).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatalf("resumable drop: %v", err)
	}
	if len(got.Offers) != len(want.Offers) || b.Gets(path) != 1+4 {
		t.Errorf("after resuming: %d offers (want %d), %d GETs", len(got.Offers), len(want.Offers), b.Gets(path))
	}

	b.DropAfter(path, size/10) // needs more resumes than allowed
	snap, err := newFetcher(t, b, Config{}).Fetch(context.Background(), fetchers.Previous{})
	if err == nil || snap != nil || !errors.Is(err, fetchers.ErrIncomplete) || !strings.Contains(err.Error(), "us-east-1") {
		t.Errorf("persistent drop: snapshot %v, err %v", snap != nil, err)
	}
}

// TestServerErrorsNeverRecover: a region file answering 503 on every retry
// is that region's loss; an index answering 500 fails the fetch.
func TestServerErrorsNeverRecover(t *testing.T) {
	b := awstest.NewBucket(t)
	standardTree().publish(t, b)
	b.FailWith(awstest.EC2Path(v1, "us-east-2"), http.StatusServiceUnavailable)
	snap, err := newFetcher(t, b, Config{}).Fetch(context.Background(), fetchers.Previous{})
	checkRegionLost(t, "503 on every retry", snap, err, "us-east-2")
	if n := b.Gets(awstest.EC2Path(v1, "us-east-2")); n != 3 {
		t.Errorf("%d attempts, want 3 (the retry policy's)", n)
	}

	b.FailWith(ec2RegionIndexPath, http.StatusInternalServerError)
	if _, err := newFetcher(t, b, Config{}).Fetch(context.Background(), fetchers.Previous{}); !errors.Is(err, fetchers.ErrIncomplete) || !strings.Contains(err.Error(), "region index") {
		t.Errorf("index failure: %v", err)
	}
}

// TestConfiguredRegions: only configured regions are read; one missing
// from the index is a configuration error.
func TestConfiguredRegions(t *testing.T) {
	b := awstest.NewBucket(t)
	standardTree().publish(t, b)
	snap, err := newFetcher(t, b, Config{Regions: []string{"us-east-2"}}).Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range snap.Offers {
		if o.Region != "us-east-2" {
			t.Errorf("offer outside the configured region: %s", o.Key())
		}
	}
	if sent := b.BytesSent(); len(snap.Coverage) != 1 || sent[awstest.EC2Path(v1, "us-east-1")] != 0 {
		t.Errorf("coverage %v, sent %v", snap.Coverage, sent)
	}
	if _, err := newFetcher(t, b, Config{Regions: []string{"us-east-7"}}).Fetch(context.Background(), fetchers.Previous{}); err == nil || !strings.Contains(err.Error(), "us-east-7") {
		t.Errorf("unknown region: %v", err)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Endpoint: "ftp://example.com"},
		{SpotEndpoint: "not a url"},
		{Regions: []string{"us east 1"}},
	} {
		if _, err := New(cfg, nil, nil); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
	f, err := New(Config{}, nil, nil)
	if err != nil || f.cfg.Endpoint != DefaultEndpoint || f.cfg.SpotEndpoint != DefaultSpotEndpoint || f.Provider() != pricewatch.AWS {
		t.Errorf("defaults: %+v, %v", f, err)
	}
}

// TestCancelStopsPromptly: a fetch stuck on a stalled download returns
// soon after its context is cancelled, with the context's error (not
// ErrIncomplete: nothing is wrong with the data).
func TestCancelStopsPromptly(t *testing.T) {
	b := awstest.NewBucket(t)
	tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{p4d}}}.publish(t, b)
	b.Stall(awstest.EC2Path(v1, "us-east-1"), 1000)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	snap, err := newFetcher(t, b, Config{}).Fetch(ctx, fetchers.Previous{})
	if snap != nil || !errors.Is(err, context.Canceled) || errors.Is(err, fetchers.ErrIncomplete) {
		t.Errorf("snapshot %v, err %v", snap != nil, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s to stop", d)
	}
}

// TestProgress: with a Progress writer, a download ends with a status line
// naming the region, the bytes and the rate.
func TestProgress(t *testing.T) {
	b := awstest.NewBucket(t)
	tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{p5}}}.publish(t, b)
	var out strings.Builder
	if _, err := newFetcher(t, b, Config{Progress: &out}).Fetch(context.Background(), fetchers.Previous{}); err != nil {
		t.Fatal(err)
	}
	size := len(b.Object(awstest.EC2Path(v1, "us-east-1")))
	want := fmt.Sprintf("aws us-east-1: %.1f MB of %.1f MB (100%%)", float64(size)/1e6, float64(size)/1e6)
	if s := out.String(); !strings.Contains(s, want) || !strings.HasSuffix(s, "\n") || !strings.Contains(s, "MB/s") {
		t.Errorf("progress output %q, want a line with %q", s, want)
	}
}

// Issue 20 item 10: a DNS failure was reported as "incomplete or malformed
// response"; it now says the API could not be reached, after one attempt.
func TestDNSFailureIsNotMalformed(t *testing.T) {
	b := awstest.NewBucket(t)
	standardTree().publish(t, b)
	f := newFetcher(t, b, Config{})
	var dials int
	f.client.HTTP.Transport = &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
		dials++
		return nil, &net.DNSError{Err: "no such host", Name: "pricing.us-east-1.amazonaws.com", IsNotFound: true}
	}}
	_, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err == nil || !errors.Is(err, fetchers.ErrUnreachable) || errors.Is(err, fetchers.ErrIncomplete) || strings.Contains(err.Error(), "malformed") {
		t.Fatalf("err = %v, want ErrUnreachable and no word of a malformed answer", err)
	}
	if dials != 1 {
		t.Errorf("%d attempts, want 1", dials)
	}
}
