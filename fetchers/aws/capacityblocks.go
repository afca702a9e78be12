package aws

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/section"
)

// SourceCapacityBlocks names EC2's DescribeCapacityBlockOfferings in
// stored signals.
const SourceCapacityBlocks = "aws:ec2:DescribeCapacityBlockOfferings"

// Defaults of providers.aws.capacity_blocks (issue 23 item 3): the types
// sold as Capacity Blocks for ML with H100, H200 and B200 GPUs, one
// instance, one day and one week.
var (
	DefaultBlockTypes     = []string{"p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge"}
	DefaultBlockCounts    = []int{1}
	DefaultBlockDurations = []int{1, 7}
)

// blockHorizon is how far ahead offerings are asked for: Capacity Blocks
// are sold for start dates up to eight weeks out.
const blockHorizon = 8 * 7 * 24 * time.Hour

// CapacityBlocks is what Capacity Block offerings to ask for.
type CapacityBlocks struct {
	Enabled        bool
	InstanceTypes  []string
	InstanceCounts []int
	DurationDays   []int
	// Regions to ask in; empty means the fetcher's regions (Config.Regions),
	// and with those empty too, every region of the EC2 index.
	Regions []string
	// EC2Endpoint replaces the regional EC2 endpoint of every region
	// (a fake in tests); empty uses https://ec2.<region>.amazonaws.com/.
	EC2Endpoint string
}

// CapacityBlocksSection is providers.aws.capacity_blocks.
type CapacityBlocksSection struct {
	Enabled        bool     `yaml:"enabled"`
	InstanceTypes  []string `yaml:"instance_types"`
	InstanceCounts []int    `yaml:"instance_counts"`
	DurationDays   []int    `yaml:"duration_days"`
	Regions        []string `yaml:"regions"`
}

// validate checks the grid: Capacity Blocks are 1 to 64 instances, and
// 1 to 14 days in steps of one day or up to 182 days in steps of seven.
func (c CapacityBlocks) validate() error {
	for i, t := range c.InstanceTypes {
		if t == "" || strings.ContainsAny(t, "/ ") {
			return badKey("capacity_blocks.instance_types", i, "%q is not an instance type", t)
		}
	}
	for i, n := range c.InstanceCounts {
		if n < 1 || n > 64 {
			return badKey("capacity_blocks.instance_counts", i, "%d is outside 1 to 64", n)
		}
	}
	for i, d := range c.DurationDays {
		if d < 1 || (d > 14 && (d%7 != 0 || d > 182)) {
			return badKey("capacity_blocks.duration_days", i, "%d is not 1 to 14, or a multiple of 7 up to 182", d)
		}
	}
	return nil
}

// badKey is a problem with item i of the list key (i < 0: the key
// itself), named so that Section.Validate can point at its line and
// New's error reads "aws capacity_blocks.duration_days[0]: …".
func badKey(key string, i int, format string, args ...any) error {
	if i >= 0 {
		key = fmt.Sprintf("%s[%d]", key, i)
	}
	return &section.KeyError{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// ec2BlockClient is the one EC2 call the fetcher makes: one page of
// DescribeCapacityBlockOfferings (ec2query.go speaks it).
type ec2BlockClient interface {
	describeCapacityBlockOfferings(ctx context.Context, in blockQuery) (blockPage, error)
}

// capacityBlocks asks each region for the configured grid of offerings.
// Credentials come from the SDK's standard chain (environment, shared
// files, SSO, container or instance role); without any, the step is
// skipped with one line. A region whose every query answered in full is
// covered: its stored blocks that no answer lists end (bought, or past).
// A failed query leaves its region uncovered, so a throttled answer never
// reads as "no capacity"; the run's prices stand either way.
func (f *Fetcher) capacityBlocks(ctx context.Context, r *run, regions []string) {
	cb := f.cfg.CapacityBlocks
	if len(cb.Regions) > 0 {
		regions = cb.Regions
	}
	if len(regions) == 0 {
		return
	}
	creds, scrub, ok := f.ec2Credentials(ctx, "capacity blocks", regions[0])
	if !ok {
		return
	}
	start := f.now().UTC()
	signer := v4.NewSigner()
	for _, region := range regions {
		client := f.ec2Client(creds, signer, region)
		complete := true
		// Prices come from the one-instance offerings only (see
		// blockPrices): without one in the grid the region's stored block
		// prices are not spoken for, and stay as they are.
		pricesComplete := slices.Contains(cb.InstanceCounts, 1)
		var offers []pricewatch.Offer
		for _, typ := range cb.InstanceTypes {
			for _, count := range cb.InstanceCounts {
				for _, days := range cb.DurationDays {
					sigs, err := f.blockOfferings(ctx, client, r, region, typ, count, days, start)
					if err != nil {
						if ctx.Err() != nil {
							return
						}
						complete = false
						if count == 1 {
							pricesComplete = false
						}
						f.log.Warn("capacity block offerings not read; stored blocks of the region stand",
							zap.String("region", region), zap.String("instance_type", typ), zap.Int("instance_count", count),
							zap.Int("duration_days", days), zap.String("error", scrub.String(err.Error())))
						continue
					}
					r.snap.Signals = append(r.snap.Signals, sigs...)
					if count == 1 {
						offers = append(offers, blockPrices(sigs, days)...)
					}
				}
			}
		}
		if complete {
			r.snap.SignalCoverage = append(r.snap.SignalCoverage, pricewatch.SignalScope{Kind: pricewatch.CapacityBlock, Region: region})
		}
		// The region's block prices are stored only when every one-instance
		// query answered in full; they get a scope of their own, of price
		// type capacity_block alone (not merged into the price file's scope,
		// which never speaks for blocks): a skipped or failed block fetch
		// covers nothing, so stored block prices stay, and a complete answer
		// that no longer lists a block closes its price.
		if pricesComplete {
			r.snap.Offers = append(r.snap.Offers, offers...)
			r.snap.Coverage = append(r.snap.Coverage, pricewatch.Scope{Region: region, PriceTypes: []pricewatch.PriceType{pricewatch.CapacityBlockPrice}})
		}
	}
}

// blockPrices turns one query's one-instance offerings into capacity_block
// prices (issue 23 item 3), one per zone: the offer key has no start date,
// so when a zone has several offerings of the duration (different start
// dates) the soonest start is the price (ties cannot happen: one zone and
// window is one signal). The soonest, not the cheapest: the series then
// answers "what does the next block here cost", and its window is the
// matching signal's. A block is an all-upfront purchase of its window:
// Term is the duration in days, Upfront the fee, Hourly 0, so
// EffectiveHourly = fee ÷ hours and per GPU-hour fee ÷ (hours × GPUs).
// The offering states no operating system (it is chosen at purchase, at
// the same fee); the price is recorded as linux.
func blockPrices(sigs []pricewatch.Signal, days int) []pricewatch.Offer {
	soonest := map[string]pricewatch.Signal{}
	for _, sg := range sigs {
		if cur, ok := soonest[sg.Zone]; !ok || sg.Start.Before(cur.Start) {
			soonest[sg.Zone] = sg
		}
	}
	zones := slices.Sorted(maps.Keys(soonest))
	out := make([]pricewatch.Offer, 0, len(zones))
	for _, z := range zones {
		sg := soonest[z]
		fee, err := pricewatch.ParsePrice(sg.Value)
		if err != nil {
			// blockSignal wrote the value from a parsed amount.
			continue
		}
		out = append(out, pricewatch.Offer{
			Provider: sg.Provider, Region: sg.Region, Zone: sg.Zone, InstanceType: sg.InstanceType,
			PriceType: pricewatch.CapacityBlockPrice, Term: strconv.Itoa(days) + "d", Payment: pricewatch.AllUpfront,
			OS: pricewatch.Linux, Currency: sg.Unit, Upfront: fee, Hardware: sg.Hardware,
		})
	}
	return out
}

// ec2Client is the EC2 client of region's capacity block queries.
func (f *Fetcher) ec2Client(creds awssdk.CredentialsProvider, signer *v4.Signer, region string) ec2BlockClient {
	return f.newEC2Query(creds, signer, f.cfg.CapacityBlocks.EC2Endpoint, region)
}

// blockOfferings reads every page of one query and turns each offering
// into a signal. An offering that lacks a field it needs, or whose fee is
// not an amount, is left out and logged: one odd row never fails the rest.
// Pages follow nextToken to the same endpoint until it is empty; a token
// handed out twice, or more pages than ec2MaxPages, fails the query.
func (f *Fetcher) blockOfferings(ctx context.Context, client ec2BlockClient, r *run, region, typ string, count, days int, start time.Time) ([]pricewatch.Signal, error) {
	in := blockQuery{InstanceType: typ, InstanceCount: count, DurationHours: days * 24, StartFrom: start, EndUntil: start.Add(blockHorizon)}
	facts := r.types[typ]
	hw := hardware(typ, facts)
	shape := pricewatch.ShapeOf("instance_count", strconv.Itoa(count), "duration_hours", strconv.Itoa(days*24))
	// Two offerings of one zone and window are one signal: one block is
	// enough to say capacity exists there.
	return ec2Signals("EC2 DescribeCapacityBlockOfferings in "+region, ec2MaxPages, func(token string, add func(pricewatch.Signal)) (string, error) {
		in.NextToken = token
		page, err := client.describeCapacityBlockOfferings(ctx, in)
		if err != nil {
			return "", err
		}
		for _, o := range page.Offerings {
			sg, ok := f.blockSignal(o)
			if !ok || sg.InstanceType != typ {
				f.log.Warn("capacity block offering without its zone, window or fee, or of another type; left out",
					zap.String("region", region), zap.String("instance_type", typ), zap.String("offering", o.ID))
				continue
			}
			if c := strings.TrimSpace(o.InstanceCount); c != "" && c != strconv.Itoa(count) {
				continue
			}
			// The shape's duration_hours is what the block's figures are
			// spread over (Signal.BlockHours): an offering stating another
			// CapacityBlockDurationHours than asked is not of this shape.
			if d := strings.TrimSpace(o.DurationHours); d != "" && d != strconv.Itoa(in.DurationHours) {
				continue
			}
			sg.Provider, sg.Region, sg.Shape, sg.Hardware = f.cfg.Name, region, shape, hw
			add(sg)
		}
		return page.NextToken, nil
	})
}

func (f *Fetcher) blockSignal(o blockOffering) (pricewatch.Signal, bool) {
	zone, typ, fee, currency := strings.TrimSpace(o.Zone), strings.TrimSpace(o.InstanceType), strings.TrimSpace(o.UpfrontFee), strings.TrimSpace(o.CurrencyCode)
	start, okStart := ec2Time(o.StartDate)
	end, okEnd := ec2Time(o.EndDate)
	if zone == "" || typ == "" || !okStart || !okEnd || fee == "" || currency == "" || !end.After(start) {
		return pricewatch.Signal{}, false
	}
	amount, err := pricewatch.ParsePrice(fee)
	if err != nil || !amount.IsPositive() || !pricewatch.IsCurrencyCode(currency) {
		return pricewatch.Signal{}, false
	}
	return pricewatch.Signal{
		Kind: pricewatch.CapacityBlock, Zone: zone, InstanceType: typ,
		Start: start.UTC(), End: end.UTC(), Value: decimalText(amount), Unit: currency,
		Detail: strings.TrimSpace(o.ID), Source: SourceCapacityBlocks,
	}, true
}

// decimalText writes a fee as the API's amount reads, without trailing
// zeros that would make "786.60" and "786.6" two values.
func decimalText(d decimal.Decimal) string { return d.String() }

// blockRegions lists the regions capacity blocks are asked in when none is
// configured: the fetcher's regions, else the index's.
func blockRegions(cfg []string, index map[string]string) []string {
	if len(cfg) > 0 {
		return slices.Clone(cfg)
	}
	out := make([]string, 0, len(index))
	for r := range index {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}
