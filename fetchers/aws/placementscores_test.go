package aws

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/sharedtest"
	"github.com/pricewatch/pricewatch/section"
)

// placementFetcher reads prices of us-east-2 and asks for the scores of
// three types in the regions given (none: the API's own choice).
func placementFetcher(t *testing.T, e *awstest.EC2, log *zap.Logger, singleAZ bool, regions ...string) *Fetcher {
	b := awstest.NewBucket(t)
	tree{"us-east-2": {Version: v1, Types: []awstest.GPUType{p5}}}.publish(t, b)
	f := newFetcher(t, b, Config{Regions: []string{"us-east-2"}, PlacementScores: PlacementScores{Enabled: true,
		InstanceTypes: []string{"p5.48xlarge", "p5en.48xlarge", "p4d.24xlarge"}, TargetCapacity: 2, SingleAvailabilityZone: singleAZ,
		Regions: regions, EC2Endpoint: e.URL()}})
	if log != nil {
		f.log = log
	}
	return f
}

func scoreLines(snap *pricewatch.Snapshot) []string {
	var got []string
	for _, s := range snap.Signals {
		if s.Kind == pricewatch.PlacementScore {
			got = append(got, fmt.Sprintf("%s %s %s %s %s", s.Region, s.Zone, s.InstanceType, s.Value, s.Unit))
		}
	}
	slices.Sort(got)
	return got
}

// Issue 23 item 4: one signed GetSpotPlacementScores request names every
// configured type (InstanceType.N), the target capacity in units, region
// or zone scores, and the regions to score (RegionName.N); its pages are
// followed; each score is stored once per type of the request with the
// request in the shape, and each asked region is covered.
func TestSpotPlacementScores(t *testing.T) {
	awsEnv(t, true)
	e := awstest.NewEC2(t)
	e.SetPlacementScores(
		awstest.PlacementScore{Region: "us-east-1", Score: 8},
		awstest.PlacementScore{Region: "us-east-2", Score: 3},
		awstest.PlacementScore{Region: "us-west-2", Score: 9},
		awstest.PlacementScore{Region: "eu-west-1", Score: 7},                     // not asked for
		awstest.PlacementScore{Region: "us-east-1", ZoneID: "use1-az4", Score: 6}) // a zone score: not asked for
	snap := firstRun(t, placementFetcher(t, e, nil, false, "us-east-1", "us-east-2", "us-west-2"))

	want := []string{}
	for _, r := range []string{"us-east-1 8", "us-east-2 3", "us-west-2 9"} {
		region, score, _ := strings.Cut(r, " ")
		for _, typ := range []string{"p4d.24xlarge", "p5.48xlarge", "p5en.48xlarge"} {
			want = append(want, fmt.Sprintf("%s  %s %s score", region, typ, score))
		}
	}
	slices.Sort(want)
	sharedtest.WantLines(t, "scores", scoreLines(snap), want)
	const shape = "instance_types=p4d.24xlarge+p5.48xlarge+p5en.48xlarge,single_availability_zone=false,target_capacity=2,target_capacity_unit=units"
	for _, s := range snap.Signals {
		if s.Shape != shape || s.Source != SourcePlacementScores || s.Provider != "aws" || s.Validate() != nil {
			t.Errorf("signal %+v (%v)", s, s.Validate())
		}
		if s.InstanceType == "p5.48xlarge" && (s.GPUModel != "H100" || s.GPUCount != 8) {
			t.Errorf("p5 without its hardware: %+v", s.Hardware)
		}
	}
	forms := e.Forms()
	// Three scores, two to a page: two requests, the second with the token.
	if len(forms) != 2 || forms[1].Get("NextToken") != "page-2" {
		t.Fatalf("%d requests %v, want two pages", len(forms), forms)
	}
	f := forms[0]
	for k, v := range map[string]string{"Action": "GetSpotPlacementScores", "Version": "2016-11-15", "InstanceType.1": "p5.48xlarge",
		"InstanceType.2": "p5en.48xlarge", "InstanceType.3": "p4d.24xlarge", "TargetCapacity": "2", "TargetCapacityUnitType": "units",
		"SingleAvailabilityZone": "false", "RegionName.1": "us-east-1", "RegionName.2": "us-east-2", "RegionName.3": "us-west-2", "MaxResults": "100"} {
		if f.Get(k) != v {
			t.Errorf("form %s = %q, want %q", k, f.Get(k), v)
		}
	}
	for _, a := range e.Authorizations() {
		if !strings.Contains(a, "Credential="+testKeyID+"/") || !strings.Contains(a, "/us-east-1/ec2/aws4_request") || strings.Contains(a, testSecret) {
			t.Errorf("authorization %q", a)
		}
	}
	var cover []string
	for _, sc := range snap.SignalCoverage {
		if sc.Kind == pricewatch.PlacementScore {
			cover = append(cover, sc.Region)
		}
	}
	if !slices.Equal(cover, []string{"us-east-1", "us-east-2", "us-west-2"}) {
		t.Errorf("coverage %v", snap.SignalCoverage)
	}
}

// With single_availability_zone the scores are per zone ID; with no region
// configured anywhere the request names none and its answer covers every
// region (a region that drops out of the API's top ten ends, quietly).
func TestSpotPlacementScoresByZone(t *testing.T) {
	awsEnv(t, true)
	e := awstest.NewEC2(t)
	e.SetPlacementScores(awstest.PlacementScore{Region: "us-east-1", ZoneID: "use1-az4", Score: 9},
		awstest.PlacementScore{Region: "us-east-1", Score: 5})
	f := placementFetcher(t, e, nil, true)
	f.cfg.PlacementScores.InstanceTypes = []string{"p5.48xlarge", "p5en.48xlarge", "p4d.24xlarge"}
	f.cfg.Regions = nil // the price files of every region the index lists: us-east-2
	snap := firstRun(t, f)
	want := []string{"us-east-1 use1-az4 p4d.24xlarge 9 score", "us-east-1 use1-az4 p5.48xlarge 9 score", "us-east-1 use1-az4 p5en.48xlarge 9 score"}
	sharedtest.WantLines(t, "scores", scoreLines(snap), want)
	forms := e.Forms()
	if len(forms) != 1 || forms[0].Get("SingleAvailabilityZone") != "true" || forms[0].Has("RegionName.1") {
		t.Errorf("forms %v", forms)
	}
	if !slices.Contains(snap.SignalCoverage, pricewatch.SignalScope{Kind: pricewatch.PlacementScore, Region: pricewatch.AllRegions}) {
		t.Errorf("coverage %v", snap.SignalCoverage)
	}
}

// Without credentials the step is skipped with one line; a throttled, a
// refused (the 24-hour configuration limit) or an empty answer stores no
// score and covers nothing, so no stored score ends; a score outside 1 to
// 10 is left out alone. No log line holds the secret key.
func TestSpotPlacementScoresFailures(t *testing.T) {
	t.Run("no credentials", func(t *testing.T) {
		skippedWithoutCredentials(t, "spot placement scores", func(e *awstest.EC2, log *zap.Logger) *Fetcher {
			return placementFetcher(t, e, log, false, "us-east-1")
		})
	})
	for _, c := range []struct {
		name, code, log string
		status          int
		scores          []awstest.PlacementScore
		want            []string
		covered         bool
	}{
		{name: "throttled", status: http.StatusServiceUnavailable, code: "RequestLimitExceeded", log: "spot placement scores not read",
			scores: []awstest.PlacementScore{{Region: "us-east-1", Score: 8}}},
		{name: "configuration limit", status: http.StatusBadRequest, code: "MaxConfigLimitExceeded", log: "distinct request configurations per 24 hours",
			scores: []awstest.PlacementScore{{Region: "us-east-1", Score: 8}}},
		{name: "empty answer", log: "the answer listed no score"},
		{name: "a score outside 1 to 10", log: "left out", scores: []awstest.PlacementScore{{Region: "us-east-1", Score: 0}, {Region: "us-east-2", Score: 4}},
			want: []string{"us-east-2  p4d.24xlarge 4 score", "us-east-2  p5.48xlarge 4 score", "us-east-2  p5en.48xlarge 4 score"}, covered: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			awsEnv(t, true)
			e := awstest.NewEC2(t)
			e.SetPlacementScores(c.scores...)
			if c.status != 0 {
				e.FailWithCode(c.status, c.code)
			}
			core, logs := observer.New(zap.InfoLevel)
			snap := firstRun(t, placementFetcher(t, e, zap.New(core), false, "us-east-1", "us-east-2"))
			sharedtest.WantLines(t, "scores", scoreLines(snap), c.want)
			if covered := len(snap.SignalCoverage) > 0; covered != c.covered || len(snap.Offers) == 0 {
				t.Errorf("coverage %v, want covered %v; %d offers", snap.SignalCoverage, c.covered, len(snap.Offers))
			}
			if logs.FilterMessageSnippet(c.log).Len() != 1 {
				t.Errorf("no line %q: %v", c.log, logs.All())
			}
			noSecretLogged(t, logs)
		})
	}
}

// providers.aws.placement_scores: off by default; empty keys take the
// default types and a target capacity of 1; a bad type or a capacity
// below 1 written in the file is refused naming the key.
func TestPlacementScoresSection(t *testing.T) {
	s := Provider.Section().(*Section)
	if p := s.placement(); p.Enabled || !slices.Equal(p.InstanceTypes, DefaultPlacementTypes) || p.TargetCapacity != 1 || p.SingleAvailabilityZone {
		t.Errorf("defaults %+v", p)
	}
	k := section.NewChecker("pricewatch.yaml", nil).Under("providers.aws")
	for _, c := range []struct {
		p    PlacementScoresSection
		want string
	}{
		{PlacementScoresSection{InstanceTypes: []string{"p5 48xlarge"}, TargetCapacity: 1}, "placement_scores.instance_types[0]"},
		{PlacementScoresSection{TargetCapacity: -1}, "placement_scores.target_capacity"},
		{PlacementScoresSection{TargetCapacity: 0}, "placement_scores.target_capacity"},
		{PlacementScoresSection{Regions: []string{"us east"}, TargetCapacity: 1}, "placement_scores.regions[0]"},
	} {
		s := Provider.Section().(*Section)
		s.PlacementScores = c.p
		if err := s.Validate(k); err == nil || !strings.Contains(err.Error(), "providers.aws."+c.want) {
			t.Errorf("%+v: %v, want an error naming providers.aws.%s", c.p, err, c.want)
		}
	}
	if _, err := New(Config{PlacementScores: PlacementScores{Enabled: true, InstanceTypes: []string{"p5.48xlarge,p4d"}}}, nil, nil); err == nil {
		t.Error("a type with a comma accepted")
	}
}
