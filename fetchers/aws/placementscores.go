package aws

import (
	"context"
	"encoding/xml"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
)

// SourcePlacementScores names EC2's GetSpotPlacementScores in stored
// signals.
const SourcePlacementScores = "aws:ec2:GetSpotPlacementScores"

// DefaultPlacementTypes is providers.aws.placement_scores.instance_types'
// default: the 8-GPU training nodes a buyer of H100/H200/A100 spot would
// take interchangeably, sent together in one request. AWS recommends at
// least three types per request ("If you specify one or two instance
// types … the returned placement score will always be low"), and a score
// is only meaningful for types one would really accept in each other's
// place: mixing a g5.xlarge in would let plentiful small GPUs lift the
// score of the scarce big ones.
var DefaultPlacementTypes = []string{"p5.48xlarge", "p5en.48xlarge", "p4d.24xlarge", "p4de.24xlarge"}

// placementMaxRequests bounds the GetSpotPlacementScores requests (pages)
// of one run. AWS limits how many distinct request configurations an
// account may score in 24 hours (MaxConfigLimitExceeded) besides the
// usual request rate; the fetcher sends one configuration, the same every
// run, and at most this many pages of it.
const placementMaxRequests = 10

// placementPageSize is MaxResults of each page (the API takes 10 to 1000).
const placementPageSize = 100

// placementRegion is the region whose endpoint is asked when no region is
// configured: scores cover every region whatever endpoint answers.
const placementRegion = "us-east-1"

// PlacementScores is what spot placement scores to ask for.
type PlacementScores struct {
	Enabled bool
	// InstanceTypes are sent together in one request (InstanceType.N):
	// the score is for the set, not for each type.
	InstanceTypes []string
	// TargetCapacity is in instances (TargetCapacityUnitType=units).
	TargetCapacity int
	// SingleAvailabilityZone asks for scores per availability zone (by
	// zone ID, e.g. use1-az4) instead of per region.
	SingleAvailabilityZone bool
	// Regions narrow the regions scored (RegionName.N); empty means the
	// fetcher's regions, and with those empty too the API's own choice
	// (its top ten).
	Regions []string
	// EC2Endpoint replaces the regional EC2 endpoint (a fake in tests).
	EC2Endpoint string
}

// PlacementScoresSection is providers.aws.placement_scores.
type PlacementScoresSection struct {
	Enabled                bool     `yaml:"enabled"`
	InstanceTypes          []string `yaml:"instance_types"`
	TargetCapacity         int      `yaml:"target_capacity"`
	SingleAvailabilityZone bool     `yaml:"single_availability_zone"`
	Regions                []string `yaml:"regions"`
}

// validate checks the request: the API takes 1 to 1000 instance types and
// a positive target capacity.
// withDefaults fills the keys left empty: DefaultPlacementTypes and a
// target capacity of 1.
func (p PlacementScores) withDefaults() PlacementScores {
	if len(p.InstanceTypes) == 0 {
		p.InstanceTypes = slices.Clone(DefaultPlacementTypes)
	}
	if p.TargetCapacity == 0 {
		p.TargetCapacity = DefaultTargetCapacity
	}
	return p
}

func (p PlacementScores) validate() error {
	if len(p.InstanceTypes) > 1000 {
		return badKey("placement_scores.instance_types", -1, "%d types, the API takes at most 1000", len(p.InstanceTypes))
	}
	for i, t := range p.InstanceTypes {
		if t == "" || strings.ContainsAny(t, "/ ,+") {
			return badKey("placement_scores.instance_types", i, "%q is not an instance type", t)
		}
	}
	if p.TargetCapacity < 0 || p.TargetCapacity > maxTargetCapacity {
		return badKey("placement_scores.target_capacity", -1, "%d is outside 1 to %d", p.TargetCapacity, maxTargetCapacity)
	}
	for i, r := range p.Regions {
		if !pricewatch.IsRegionCode(r) {
			return badKey("placement_scores.regions", i, "%q is not a region code", r)
		}
	}
	return nil
}

// DefaultTargetCapacity is placement_scores.target_capacity's default:
// the score of one instance.
const DefaultTargetCapacity = 1

// maxTargetCapacity is the largest target capacity the API takes.
const maxTargetCapacity = 2_000_000_000

// placementQuery is one GetSpotPlacementScores request.
type placementQuery struct {
	InstanceTypes  []string
	TargetCapacity int
	SingleAZ       bool
	Regions        []string
	NextToken      string
}

// placementScore is one item of spotPlacementScoreSet, as documented
// (SpotPlacementScore: region, availabilityZoneId, score).
type placementScore struct {
	Region string `xml:"region"`
	ZoneID string `xml:"availabilityZoneId"`
	Score  string `xml:"score"`
}

// placementPage is one GetSpotPlacementScoresResponse.
type placementPage struct {
	XMLName   xml.Name         `xml:"GetSpotPlacementScoresResponse"`
	Scores    []placementScore `xml:"spotPlacementScoreSet>item"`
	NextToken string           `xml:"nextToken"`
}

// ec2PlacementClient is the one call the placement step makes.
type ec2PlacementClient interface {
	getSpotPlacementScores(ctx context.Context, in placementQuery) (placementPage, error)
}

// getSpotPlacementScores reads one page.
func (q *ec2Query) getSpotPlacementScores(ctx context.Context, in placementQuery) (placementPage, error) {
	form := url.Values{}
	for i, t := range in.InstanceTypes {
		form.Set("InstanceType."+strconv.Itoa(i+1), t)
	}
	form.Set("TargetCapacity", strconv.Itoa(in.TargetCapacity))
	form.Set("TargetCapacityUnitType", "units")
	form.Set("SingleAvailabilityZone", strconv.FormatBool(in.SingleAZ))
	for i, r := range in.Regions {
		form.Set("RegionName."+strconv.Itoa(i+1), r)
	}
	form.Set("MaxResults", strconv.Itoa(placementPageSize))
	return ec2Page[placementPage](ctx, q, "GetSpotPlacementScores", form, in.NextToken)
}

// placementScores asks EC2 once (with its pages) for the spot placement
// scores of the configured set of types and stores each score once per
// type of the set, the request recorded in the signal's shape. Without
// credentials the step is skipped with one line. Only a request answered
// in full, with at least one score, covers its regions: a throttled,
// refused, cut-off or empty answer ends nothing, and a region missing
// from an answer is never read as a score of its own.
func (f *Fetcher) placementScores(ctx context.Context, r *run) {
	ps := f.cfg.PlacementScores
	regions := ps.Regions
	if len(regions) == 0 {
		regions = f.cfg.Regions
	}
	callIn := placementRegion
	if len(regions) > 0 {
		callIn = regions[0]
	}
	creds, scrub, ok := f.ec2Credentials(ctx, "spot placement scores", callIn)
	if !ok {
		return
	}
	client := f.newEC2Query(creds, v4.NewSigner(), ps.EC2Endpoint, callIn)
	sigs, err := f.placementSignals(ctx, client, r, regions)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		var apiErr *ec2APIError
		msg := "spot placement scores not read; stored scores stand"
		if errors.As(err, &apiErr) && apiErr.Code == "MaxConfigLimitExceeded" {
			msg = "spot placement scores not read: the account's limit of distinct request configurations per 24 hours is reached (another tool may use it); stored scores stand"
		}
		f.log.Warn(msg, zap.String("region", callIn), zap.String("error", scrub.String(err.Error())))
		return
	}
	if len(sigs) == 0 {
		f.log.Warn("spot placement scores: the answer listed no score; stored scores stand", zap.String("region", callIn))
		return
	}
	r.snap.Signals = append(r.snap.Signals, sigs...)
	if len(regions) == 0 {
		r.snap.SignalCoverage = append(r.snap.SignalCoverage, pricewatch.SignalScope{Kind: pricewatch.PlacementScore, Region: pricewatch.AllRegions})
		return
	}
	for _, region := range regions {
		r.snap.SignalCoverage = append(r.snap.SignalCoverage, pricewatch.SignalScope{Kind: pricewatch.PlacementScore, Region: region})
	}
}

// placementShape is the request a score answers: the same request gives
// the same text, so only scores of equal requests are compared.
func placementShape(ps PlacementScores) string {
	types := slices.Clone(ps.InstanceTypes)
	slices.Sort(types)
	return pricewatch.ShapeOf("instance_types", strings.Join(types, "+"), "target_capacity", strconv.Itoa(ps.TargetCapacity),
		"target_capacity_unit", "units", "single_availability_zone", strconv.FormatBool(ps.SingleAvailabilityZone))
}

// placementSignals reads every page of the request. A score that is not
// 1 to 10, or lacks its region (or its zone when zones were asked for),
// is left out and logged. A token handed out twice, or more pages than
// placementMaxRequests, fails the request.
func (f *Fetcher) placementSignals(ctx context.Context, client ec2PlacementClient, r *run, regions []string) ([]pricewatch.Signal, error) {
	ps := f.cfg.PlacementScores
	in := placementQuery{InstanceTypes: ps.InstanceTypes, TargetCapacity: ps.TargetCapacity, SingleAZ: ps.SingleAvailabilityZone, Regions: regions}
	shape := placementShape(ps)
	return ec2Signals("EC2 GetSpotPlacementScores", placementMaxRequests, func(token string, add func(pricewatch.Signal)) (string, error) {
		in.NextToken = token
		page, err := client.getSpotPlacementScores(ctx, in)
		if err != nil {
			return "", err
		}
		for _, s := range page.Scores {
			region, zone, score := strings.TrimSpace(s.Region), strings.TrimSpace(s.ZoneID), strings.TrimSpace(s.Score)
			v, err := strconv.Atoi(score)
			if err != nil || v < 1 || v > 10 || !pricewatch.IsRegionCode(region) || (ps.SingleAvailabilityZone != (zone != "")) ||
				(zone != "" && !pricewatch.IsRegionCode(zone)) {
				f.log.Warn("spot placement score without a score of 1 to 10, its region or its zone; left out",
					zap.String("region", region), zap.String("zone", zone), zap.String("score", score))
				continue
			}
			for _, typ := range ps.InstanceTypes {
				add(pricewatch.Signal{Provider: f.cfg.Name, Kind: pricewatch.PlacementScore, Region: region, Zone: zone, InstanceType: typ,
					Shape: shape, Value: strconv.Itoa(v), Unit: "score", Source: SourcePlacementScores,
					Detail: "score of the whole request, not of this type alone", Hardware: hardware(typ, r.types[typ])})
			}
		}
		return page.NextToken, nil
	})
}
