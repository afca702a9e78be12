package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
)

// End to end through the CLI, for AWS: `pricewatch fetch` pointed at a
// local bucket (fetchers/aws/awstest) that serves the Price List Bulk API
// layout — region_index.json, version-pinned region price files,
// the savings-plan index and rate files — and spot.json, every file built
// in the real layout from the real excerpts in awstest/samples.
//
// The scenario is not the aws package's own: eu-west-1 lists p4d.24xlarge
// (six standard reserved options) and p5.48xlarge (standard and
// convertible), each among decoy products (Windows, BYOL, RHEL, SUSE, SQL,
// dedicated, host, capacity reservations), m5.large and storage;
// ap-northeast-1 lists p5.48xlarge. Both have savings plans. The spot feed
// has no p5 price in eu-west-1 ("N/A*"). ap-northeast-1's savings-plan
// file and the spot feed already price p6-b200.48xlarge, which the price
// list does not list yet; a later version of ap-northeast-1 lists it.
// Prices are test values, written as AWS writes them.

const (
	awsV1 = "20261201090000" // both regions' first price files
	awsV3 = "20261208090000" // ap-northeast-1 lists p6-b200.48xlarge
	awsV4 = "20261215090000" // eu-west-1: p5.48xlarge on-demand cheaper
	awsSP = "20261130000000" // savings-plan files, never changed
)

// awsRI is a reserved offering: its rates as the price file writes them,
// and the effective hourly rate pricewatch must store (upfront over 8,760
// or 26,280 hours plus hourly, to 10 decimals; worked out by hand).
type awsRI struct {
	term, payment, class string
	hourly, upfront      string
	effective            string
}

// awsType is an instance type in a region: what the bucket publishes and
// what must be stored.
type awsType struct {
	region, itype string
	onDemand      string
	reserved      []awsRI
	decoys        []string
	spRate        float64   // Compute 1yr No Upfront rate in the savings-plan file
	sp            [3]string // stored: compute 1y no_upfront, compute 3y all_upfront, ec2_instance 1y partial_upfront
	spot          string    // Linux price in spot.json; "N/A*" is no price
	hw            pricewatch.Hardware
}

var (
	awsA100 = pricewatch.Hardware{GPUModel: "A100-40GB", GPUCount: 8, GPUMemoryGB: 40}
	awsH100 = pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80}
	awsB200 = pricewatch.Hardware{GPUModel: "B200", GPUCount: 8, GPUMemoryGB: 180}
)

var awsEUp4d = awsType{region: "eu-west-1", itype: "p4d.24xlarge", onDemand: "24.1526", decoys: awstest.AllDecoys,
	reserved: []awsRI{
		{"1y", "no_upfront", "standard", "16.1823", "0", "16.1823"},
		{"1y", "partial_upfront", "standard", "7.7046", "67492", "15.40916621"},
		{"1y", "all_upfront", "standard", "0", "132289", "15.1014840183"},
		{"3y", "no_upfront", "standard", "11.5932", "0", "11.5932"},
		{"3y", "partial_upfront", "standard", "5.0962", "133928", "10.192394825"},
		{"3y", "all_upfront", "standard", "0", "262521", "9.9893835616"},
	},
	spRate: 17.2381, sp: [3]string{"17.2381", "10.6876", "14.3076"}, spot: "7.9631", hw: awsA100}

var awsEUp5 = awsType{region: "eu-west-1", itype: "p5.48xlarge", onDemand: "61.952", decoys: []string{"windows", "rhel", "dedicated", "unused-reservation"},
	reserved: []awsRI{
		{"1y", "no_upfront", "standard", "41.5078", "0", "41.5078"},
		{"1y", "partial_upfront", "standard", "19.763", "173124", "39.5260136986"},
		{"1y", "all_upfront", "standard", "0", "339380", "38.7420091324"},
		{"3y", "no_upfront", "standard", "28.4979", "0", "28.4979"},
		{"3y", "partial_upfront", "standard", "13.0099", "341900", "26.0197934551"},
		{"3y", "all_upfront", "standard", "0", "670224", "25.503196347"},
		{"1y", "no_upfront", "convertible", "46.464", "0", "46.464"},
		{"1y", "partial_upfront", "convertible", "22.12", "193771", "44.2399771689"},
		{"1y", "all_upfront", "convertible", "0", "379850", "43.3618721461"},
		{"3y", "no_upfront", "convertible", "32.8346", "0", "32.8346"},
		{"3y", "partial_upfront", "convertible", "15.6431", "411100", "31.2861745814"},
		{"3y", "all_upfront", "convertible", "0", "805720", "30.6590563166"},
	},
	spRate: 44.1735, sp: [3]string{"44.1735", "27.3876", "36.664"}, spot: "N/A*", hw: awsH100}

var awsAPNp5 = awsType{region: "ap-northeast-1", itype: "p5.48xlarge", onDemand: "68.425", decoys: []string{"windows", "windows-byol", "host", "allocated-reservation"},
	reserved: []awsRI{
		{"1y", "no_upfront", "standard", "45.8448", "0", "45.8448"},
		{"1y", "partial_upfront", "standard", "21.827", "191212", "43.6548538813"},
		{"1y", "all_upfront", "standard", "0", "374837", "42.7896118721"},
		{"3y", "no_upfront", "standard", "31.4756", "0", "31.4756"},
		{"3y", "partial_upfront", "standard", "14.3693", "377624", "28.7385541857"},
		{"3y", "all_upfront", "standard", "0", "740246", "28.1676560122"},
	},
	spRate: 48.9902, sp: [3]string{"48.9902", "30.3739", "40.6619"}, spot: "20.5275", hw: awsH100}

// awsAPNp6 is priced by the savings-plan file and the spot feed from the
// start, and listed by the price file only from awsV3.
var awsAPNp6 = awsType{region: "ap-northeast-1", itype: "p6-b200.48xlarge", onDemand: "113.932", decoys: []string{"windows", "dedicated"},
	reserved: []awsRI{
		{"1y", "no_upfront", "standard", "76.3344", "0", "76.3344"},
		{"1y", "all_upfront", "standard", "0", "652883", "74.5300228311"},
		{"3y", "partial_upfront", "standard", "24.986", "656574", "49.9697899543"},
	},
	spRate: 81.2466, sp: [3]string{"81.2466", "50.3729", "67.4347"}, spot: "34.1796", hw: awsB200}

// fixed10 writes a rate as the price file does ("7.7046000000").
func fixed10(s string) string { return decimal.RequireFromString(s).StringFixed(10) }

func (a awsType) gpuType() awstest.GPUType {
	lease := map[string]string{"1y": "1yr", "3y": "3yr"}
	purchase := map[string]string{"no_upfront": "No Upfront", "partial_upfront": "Partial Upfront", "all_upfront": "All Upfront"}
	g := awstest.GPUType{Type: a.itype, OnDemand: fixed10(a.onDemand), Decoys: a.decoys}
	for _, r := range a.reserved {
		up := r.upfront
		if r.payment == "no_upfront" {
			up = ""
		}
		g.Reserved = append(g.Reserved, awstest.Reserved{Lease: lease[r.term], Class: r.class, Purchase: purchase[r.payment], Hourly: fixed10(r.hourly), Upfront: up})
	}
	return g
}

// awsWant is one stored offer.
type awsWant struct{ hourly, upfront, effective string }

// want lists what must be stored for the type, by
// region|type|price_type|term|payment|class.
func (a awsType) want() map[string]awsWant {
	key := func(pt, term, pay, class string) string {
		return strings.Join([]string{a.region, a.itype, pt, term, pay, class}, "|")
	}
	w := map[string]awsWant{key("on_demand", "", "", ""): {a.onDemand, "0", a.onDemand}}
	for _, r := range a.reserved {
		w[key("reserved", r.term, r.payment, r.class)] = awsWant{r.hourly, r.upfront, r.effective}
	}
	w[key("savings_plan", "1y", "no_upfront", "compute")] = awsWant{a.sp[0], "0", a.sp[0]}
	w[key("savings_plan", "3y", "all_upfront", "compute")] = awsWant{a.sp[1], "0", a.sp[1]}
	w[key("savings_plan", "1y", "partial_upfront", "ec2_instance")] = awsWant{a.sp[2], "0", a.sp[2]}
	if a.spot != "N/A*" {
		w[key("spot", "", "", "")] = awsWant{a.spot, "0", a.spot}
	}
	return w
}

func awsSavingsPlanPrices(types ...awsType) map[string]float64 {
	m := map[string]float64{}
	for _, a := range types {
		m[a.itype] = a.spRate
	}
	return m
}

func awsSpotFeed(types ...awsType) map[string]map[string]string {
	feed := map[string]map[string]string{}
	for _, a := range types {
		if feed[a.region] == nil {
			// A non-GPU type the fetcher must leave out.
			feed[a.region] = map[string]string{"m5.large": "0.0412"}
		}
		feed[a.region][a.itype] = a.spot
	}
	return feed
}

func awsConfig(t *testing.T, b *awstest.Bucket) string {
	t.Helper()
	return testConfig{clouds: []cloud{awsBucketCloud(b, "    spot: true\n    savings_plans: true\n")}}.write(t, t.TempDir())
}

// awsFetch runs `pricewatch fetch --provider aws`, wants it to succeed and
// its summary line to contain want.
func awsFetch(t *testing.T, cfg, want string) {
	t.Helper()
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "aws")
	if code != 0 || !strings.HasPrefix(out, "aws      ok ") {
		t.Fatalf("fetch exited %d:\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, want) {
		t.Errorf("fetch summary %q, want it to say %q", strings.TrimSpace(out), want)
	}
}

// checkAWSOffers compares the open price intervals of the types' instance
// types with what each must store, exactly: the same set of offers (no
// decoy price, no N/A* spot row, nothing from a region not asked for),
// every amount equal as a decimal, USD, Linux, the type's hardware.
func checkAWSOffers(t *testing.T, cfg string, types ...awsType) {
	t.Helper()
	want := map[string]awsWant{}
	hw := map[string]pricewatch.Hardware{}
	for _, a := range types {
		maps.Copy(want, a.want())
		hw[a.itype] = a.hw
	}
	got := openPrices(t, cfg, slices.Sorted(maps.Keys(hw)), func(r historyJSON) string {
		return strings.Join([]string{r.Region, r.InstanceType, string(r.PriceType), r.Term, r.Payment, r.OfferingClass}, "|")
	})
	for _, id := range slices.Sorted(maps.Keys(want)) {
		w := want[id]
		r, ok := got[id]
		if !ok {
			t.Errorf("no stored offer %s", id)
			continue
		}
		if r.Provider != "aws" || r.Currency != "USD" || r.OS != "linux" || r.Zone != "" {
			t.Errorf("%s: %s %s %s zone %q, want aws USD linux, no zone", id, r.Provider, r.Currency, r.OS, r.Zone)
		}
		checkAmounts(t, id, r, w.hourly, w.upfront, w.effective)
		checkHardware(t, id, r, hw[r.InstanceType])
		if decimal.Decimal(r.EffectiveHourly).Sign() <= 0 {
			t.Errorf("%s: a zero price was stored", id)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[id]; !ok {
			t.Errorf("unexpected stored offer %s = %s", id, got[id].HourlyPrice)
		}
	}
}

// openAvailability maps region|type to the `since` of its open interval.
func openAvailability(t *testing.T, cfg string) map[string]string {
	t.Helper()
	open := map[string]string{}
	for _, r := range availability(t, cfg, "aws") {
		if r.Until != nil {
			t.Errorf("closed availability %+v", r)
			continue
		}
		if r.State != "offered" || r.Zone != "" {
			t.Errorf("availability %+v, want offered, per region", r)
		}
		open[r.Region+"|"+r.InstanceType] = r.Since
	}
	return open
}

func awsSorted(s ...string) []string { return slices.Sorted(slices.Values(s)) }

// rawCLI is a command's whole output, for comparing before and after.
func rawCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v exited %d: %s", args, code, errOut)
	}
	return out
}

// awsScenarioBucket publishes the scenario's first version: both regions'
// price files (v1), their savings-plan files and the spot feed.
func awsScenarioBucket(t *testing.T) *awstest.Bucket {
	t.Helper()
	b := awstest.NewBucket(t)
	b.PublishEC2(map[string]awstest.Region{
		"eu-west-1":      {Version: awsV1, Types: []awstest.GPUType{awsEUp4d.gpuType(), awsEUp5.gpuType()}},
		"ap-northeast-1": {Version: awsV1, Types: []awstest.GPUType{awsAPNp5.gpuType()}},
	})
	b.SetSavingsPlans("eu-west-1", awsSP, awsSavingsPlanPrices(awsEUp4d, awsEUp5))
	b.SetSavingsPlans("ap-northeast-1", awsSP, awsSavingsPlanPrices(awsAPNp5, awsAPNp6))
	b.SetSpot(awsSpotFeed(awsEUp4d, awsEUp5, awsAPNp5, awsAPNp6))
	return b
}

func TestAWSEndToEnd(t *testing.T) {
	b := awsScenarioBucket(t)
	cfg := awsConfig(t, b)
	// Price and savings-plan files are read in their CSV form (the
	// default providers.aws.format).
	euFile, apnFile := awstest.CSVPath(awstest.EC2Path(awsV1, "eu-west-1")), awstest.CSVPath(awstest.EC2Path(awsV1, "ap-northeast-1"))
	euSP, apnSP := awstest.CSVPath(awstest.SPPath(awsSP, "eu-west-1")), awstest.CSVPath(awstest.SPPath(awsSP, "ap-northeast-1"))
	sentPaths := func() []string {
		sent := b.BytesSent()
		t.Logf("bytes sent: %v", sent)
		return slices.Sorted(maps.Keys(sent))
	}

	// (a) First run: every file is read; exact prices of every kind.
	// eu-west-1 p4d 1+6+3+1, p5 1+12+3 (no spot), ap-northeast-1 p5 1+6+3+1.
	awsFetch(t, cfg, "38 offers: 38 new, 0 changed, 0 unchanged, 0 closed (first run: baseline)")
	if got, want := sentPaths(), awsSorted(awstest.EC2RegionIndexPath, awstest.SPRegionIndexPath, euFile, apnFile, euSP, apnSP, awstest.SpotPath); !slices.Equal(got, want) {
		t.Errorf("first run downloaded %v, want %v", got, want)
	}
	checkAWSOffers(t, cfg, awsEUp4d, awsEUp5, awsAPNp5)
	if h := history(t, cfg, "p6-b200.48xlarge"); len(h) != 0 {
		t.Errorf("p6-b200 stored before the price list lists it: %+v", h)
	}
	avail := openAvailability(t, cfg)
	if got := slices.Sorted(maps.Keys(avail)); !slices.Equal(got, []string{"ap-northeast-1|p5.48xlarge", "eu-west-1|p4d.24xlarge", "eu-west-1|p5.48xlarge"}) {
		t.Errorf("offered after the first run: %v", got)
	}

	// (b) Second run, no version changed: both regions skipped, and the
	// bucket sends the two index files and nothing else (the spot feed is
	// asked for and answers 304). The stored offers the skipped files and
	// the 304 vouch for are seen and unchanged (issue 20 item 11: seen was
	// 0 here, so the counts did not add up).
	spotGets := b.Gets(awstest.SpotPath)
	awsFetch(t, cfg, "38 offers: 0 new, 0 changed, 38 unchanged, 0 closed; 2 region(s) skipped as unchanged")
	sent := b.BytesSent()
	t.Logf("bytes sent: %v", sent)
	want2 := map[string]int64{
		awstest.EC2RegionIndexPath: int64(len(b.Object(awstest.EC2RegionIndexPath))),
		awstest.SPRegionIndexPath:  int64(len(b.Object(awstest.SPRegionIndexPath))),
	}
	if !maps.Equal(sent, want2) {
		t.Errorf("second run downloaded %v bytes, want only the two index files, once: %v", sent, want2)
	}
	if n := b.Gets(awstest.SpotPath) - spotGets; n != 1 {
		t.Errorf("spot feed asked %d times, want once (conditionally)", n)
	}
	checkAWSOffers(t, cfg, awsEUp4d, awsEUp5, awsAPNp5)
	if n := closedPrices(t, cfg, "p4d.24xlarge", "p5.48xlarge"); n != 0 {
		t.Errorf("%d price intervals closed by a run that changed nothing", n)
	}
	if got := openAvailability(t, cfg); !maps.Equal(got, avail) {
		t.Errorf("availability after a skipped run %v, want %v", got, avail)
	}

	// (c) ap-northeast-1 publishes a version that lists p6-b200.48xlarge.
	// Start in a new second, so that its `since` cannot be the first run's.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	b.AddType("ap-northeast-1", awsV3, awsAPNp6.gpuType())
	start3 := time.Now()
	// Listed: ap-northeast-1 p5 1+6+3+1 and p6-b200 1+3+3+1, eu-west-1 p4d
	// spot 1; unchanged: 12 of them and eu-west-1's skipped 20+6, which are
	// seen too (46 = 8 + 38).
	awsFetch(t, cfg, "46 offers: 8 new, 0 changed, 38 unchanged, 0 closed; 1 region(s) skipped as unchanged")
	end3 := time.Now()
	// The savings-plan file and the spot feed did not change, but p6-b200's
	// rates in them were left out while it was unknown: both are read again.
	want3 := awsSorted(awstest.EC2RegionIndexPath, awstest.SPRegionIndexPath, awstest.CSVPath(awstest.EC2Path(awsV3, "ap-northeast-1")), apnSP, awstest.SpotPath)
	if got := sentPaths(); !slices.Equal(got, want3) {
		t.Errorf("third run downloaded %v, want %v (not eu-west-1's files)", got, want3)
	}
	checkAWSOffers(t, cfg, awsEUp4d, awsEUp5, awsAPNp5, awsAPNp6)
	got3 := openAvailability(t, cfg)
	for k, since := range avail {
		if got3[k] != since {
			t.Errorf("%s offered since %q, was %q", k, got3[k], since)
		}
	}
	since := parseTime(t, got3["ap-northeast-1|p6-b200.48xlarge"])
	if len(got3) != 4 || since.Before(start3.Truncate(time.Second)) || since.After(end3) {
		t.Errorf("availability %v: want p6-b200 offered since the third run (%s – %s)", got3, start3, end3)
	}

	// (d) eu-west-1 publishes a version with p5 cheaper, and the file is
	// cut off half-way: that region alone is lost (issue 26 item 1). The
	// run stores the rest, warns naming the region, and none of
	// eu-west-1's stored prices or stock changes. It is partial, never a
	// success (issue 34 item 7): its line says partial and names the
	// region and why, `fetch` exits 3, and `runs` reads partial.
	b.SetOnDemand("eu-west-1", awsV4, "p5.48xlarge", fixed10("58.854"))
	cutPath := awstest.EC2Path(awsV4, "eu-west-1")
	full := b.Object(cutPath)
	b.Truncate(cutPath, len(full)/2)
	views := [][]string{
		{"--config", cfg, "history", "p4d.24xlarge", "--format", "json"},
		{"--config", cfg, "history", "p5.48xlarge", "--format", "json"},
		{"--config", cfg, "history", "p6-b200.48xlarge", "--format", "json"},
		{"--config", cfg, "availability", "--all", "--format", "json"},
	}
	// The spot feed is read by this run too (304: unchanged), so spot
	// rows' last_seen may move on to this run's second; everything else
	// must stay as it was.
	view := func(v []string) string {
		raw := rawCLI(t, v...)
		var rows []map[string]any
		if json.Unmarshal([]byte(raw), &rows) != nil {
			return raw
		}
		for _, r := range rows {
			if r["price_type"] == "spot" {
				delete(r, "last_seen")
			}
		}
		out, _ := json.MarshalIndent(rows, "", "  ")
		return string(out)
	}
	var before []string
	for _, v := range views {
		before = append(before, view(v))
	}
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "aws")
	if code != 3 || !strings.Contains(out, "aws      partial  ") || !strings.Contains(out, "0 changed") || !strings.Contains(out, "0 closed") ||
		!strings.Contains(out, "1 region(s) not read, their stored prices kept: eu-west-1 (incomplete or malformed response: price file ") ||
		!strings.Contains(errOut, "region=eu-west-1") || !strings.Contains(errOut, "read again next run") {
		t.Fatalf("cut-off file: exit %d, %q %q", code, out, errOut)
	}
	t.Logf("cut-off file: exit %d: %s", code, out)
	var runs []struct{ Provider, Status, Error string }
	if err := json.Unmarshal([]byte(rawCLI(t, "--config", cfg, "runs", "--format", "json")), &runs); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Status != "partial" || !strings.HasPrefix(runs[0].Error, "not read: eu-west-1 (") {
		t.Errorf("runs %+v, want aws partial, eu-west-1 not read", runs)
	}
	for i, v := range views {
		if after := view(v); after != before[i] {
			t.Errorf("%v changed by a run that could not read eu-west-1:\n%s\nwas\n%s", v[2:], after, before[i])
		}
	}
	b.BytesSent()

	// (e) The whole file is served again: the run that lost eu-west-1
	// recorded no version of it, so it is read now, and the price change
	// is stored.
	b.Put(cutPath, full)
	// Listed: eu-west-1 p4d 1+6, p5 1+12; unchanged: 19 of them and the
	// skipped ap-northeast-1 file's 11, savings plans' 12 and spot's 3,
	// which are seen too (46 = 1 + 45).
	awsFetch(t, cfg, "46 offers: 0 new, 1 changed, 45 unchanged, 0 closed; 1 region(s) skipped as unchanged")
	cheaper := awsEUp5
	cheaper.onDemand = "58.854"
	checkAWSOffers(t, cfg, awsEUp4d, cheaper, awsAPNp5, awsAPNp6)
	var closed []string
	for _, r := range history(t, cfg, "p5.48xlarge") {
		if r.ValidTo != nil {
			closed = append(closed, fmt.Sprintf("%s %s %s", r.Region, r.PriceType, r.HourlyPrice))
		}
	}
	if !slices.Equal(closed, []string{"eu-west-1 on_demand 61.952"}) {
		t.Errorf("closed p5 intervals %v, want the old eu-west-1 on-demand price", closed)
	}
}
