package aws

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
)

// DefaultSpotAdvisorEndpoint is the public Spot Instance Advisor data
// behind aws.amazon.com/ec2/spot/instance-advisor (no account needed).
const DefaultSpotAdvisorEndpoint = "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"

// Keys of Snapshot.Versions for the Spot Advisor file.
const (
	versionAdvisorETag    = "spot-advisor/etag"
	versionAdvisorLastMod = "spot-advisor/last-modified"
)

// SourceSpotAdvisor names the Spot Advisor in stored signals.
const SourceSpotAdvisor = "aws:spot-advisor"

// spotAdvisorFile is the layout of spot-advisor-data.json: "ranges" are the
// interruption-frequency bands, and "spot_advisor" gives per region, per
// operating system ("Linux", "Windows") and per type the savings over
// on-demand in percent ("s") and the index of the band in ranges ("r").
// Below the ranges every level is decoded on its own (advisorEntry), so
// that one odd entry anywhere costs that entry, not the file.
type spotAdvisorFile struct {
	Ranges []struct {
		Index int    `json:"index"`
		Label string `json:"label"`
		Max   int    `json:"max"`
	} `json:"ranges"`
	SpotAdvisor map[string]json.RawMessage `json:"spot_advisor"`
}

// advisorEntry is one type's entry ({"s": 52, "r": 4}).
type advisorEntry struct {
	Savings *int `json:"s"`
	Range   *int `json:"r"`
}

// spotAdvisor reads the Spot Advisor file, conditionally when it gave
// validators before, and adds the Linux interruption band of each GPU type
// as a signal. An unchanged file (304) adds nothing and covers nothing, so
// nothing is written. The file is advice beside the prices: when it cannot
// be read, the run's prices still stand; the failure is logged and no band
// is ended.
func (f *Fetcher) spotAdvisor(ctx context.Context, r *run) {
	if err := f.readSpotAdvisor(ctx, r); err != nil {
		if ctx.Err() != nil {
			return
		}
		f.log.Warn("spot advisor not read this run; stored interruption bands stand", zap.Error(err))
	}
}

func (f *Fetcher) readSpotAdvisor(ctx context.Context, r *run) error {
	// The file is about a megabyte.
	body, h, unchanged, err := f.getIfChanged(ctx, r, f.cfg.SpotAdvisorEndpoint, advisorValidators, 64<<20)
	if err != nil || unchanged {
		return err
	}
	sigs, regions, err := f.parseSpotAdvisor(body, r.types)
	if err != nil {
		return fmt.Errorf("spot advisor %s: %w", f.cfg.SpotAdvisorEndpoint, err)
	}
	advisorValidators.keepAnswer(r, h)
	r.snap.Signals = append(r.snap.Signals, sigs...)
	for _, region := range regions {
		r.snap.SignalCoverage = append(r.snap.SignalCoverage, pricewatch.SignalScope{Kind: pricewatch.InterruptionBand, Region: region})
	}
	return nil
}

// parseSpotAdvisor turns the file into interruption-band signals (one per
// operating system the advisor lists) of the GPU types in types, in the
// configured regions, and lists the regions it speaks for completely. A
// file without bands or regions is refused whole (a cut or empty answer
// must not end every band). One odd entry is that entry's loss only: an
// entry of a type nobody watches is skipped; one of a watched type that is
// listed but cannot be read (a band index outside the ranges, a missing
// band, strings for numbers), or a region or OS whose list cannot be read,
// leaves its region out of the regions returned, so the stored bands there
// stand (not ended, as a band the advisor no longer lists is) while the
// entries read are applied.
func (f *Fetcher) parseSpotAdvisor(body []byte, types map[string]typeFacts) ([]pricewatch.Signal, []string, error) {
	var file spotAdvisorFile
	if err := json.Unmarshal(body, &file); err != nil {
		return nil, nil, err
	}
	if len(file.Ranges) == 0 || len(file.SpotAdvisor) == 0 {
		return nil, nil, fmt.Errorf("%w: no ranges or no regions", errLayout)
	}
	labels := map[int]string{}
	for _, rg := range file.Ranges {
		if strings.TrimSpace(rg.Label) == "" {
			return nil, nil, fmt.Errorf("%w: band %d has no label", errLayout, rg.Index)
		}
		labels[rg.Index] = rg.Label
	}
	var sigs []pricewatch.Signal
	var regions []string
	skipped := 0
	for region, raw := range file.SpotAdvisor {
		if len(f.cfg.Regions) > 0 && !slices.Contains(f.cfg.Regions, region) {
			continue
		}
		if !pricewatch.IsRegionCode(region) {
			f.log.Warn("spot advisor names a region that is not a region code; left out", zap.String("region", pricewatch.Printable(region)))
			continue
		}
		complete := true
		odd := func(msg string, fields ...zap.Field) {
			complete = false
			f.log.Warn(msg+"; the stored bands of the region stand this run", append([]zap.Field{zap.String("region", region)}, fields...)...)
		}
		var byOS map[string]json.RawMessage
		if err := json.Unmarshal(raw, &byOS); err != nil {
			odd("spot advisor region unreadable", zap.Error(err))
			continue
		}
		// The advisor's OS keys are "Linux" and "Windows": a band per
		// region × type × OS, each kept under its OS (compare shows the
		// Linux band beside the Linux spot prices it compares; alerts, as
		// for prices, follow Linux only).
		for _, osKey := range []struct{ key, os string }{{"Linux", pricewatch.Linux}, {"Windows", pricewatch.Windows}} {
			rawTypes, listed := byOS[osKey.key]
			if !listed {
				continue
			}
			var entries map[string]json.RawMessage
			if err := json.Unmarshal(rawTypes, &entries); err != nil {
				odd("spot advisor OS list unreadable", zap.String("os", osKey.key), zap.Error(err))
				continue
			}
			for typ, rawEntry := range entries {
				facts, gpu := types[typ]
				var row advisorEntry
				err := json.Unmarshal(rawEntry, &row)
				switch {
				case !gpu:
					if err != nil {
						skipped++ // a type nobody watches: its entry is not ours
					}
					continue
				case err != nil:
					odd("spot advisor entry unreadable; left out", zap.String("instance_type", typ), zap.String("os", osKey.key), zap.Error(err))
					continue
				case row.Range == nil:
					odd("spot advisor entry without a band; left out", zap.String("instance_type", typ), zap.String("os", osKey.key))
					continue
				}
				label, ok := labels[*row.Range]
				if !ok {
					odd("spot advisor band index outside its ranges; left out", zap.String("instance_type", typ),
						zap.String("os", osKey.key), zap.Int("r", *row.Range))
					continue
				}
				sg := pricewatch.Signal{
					Provider: f.cfg.Name, Kind: pricewatch.InterruptionBand, Region: region, InstanceType: typ,
					Shape: pricewatch.ShapeOf("os", osKey.os), Value: label, Unit: "band",
					Source: SourceSpotAdvisor, Hardware: hardware(typ, facts),
				}
				if row.Savings != nil {
					sg.Detail = "savings " + strconv.Itoa(*row.Savings) + "% vs on-demand"
				}
				sigs = append(sigs, sg)
			}
		}
		if complete {
			regions = append(regions, region)
		}
	}
	if skipped > 0 {
		f.log.Info("spot advisor entries of types not watched could not be read; skipped", zap.Int("entries", skipped))
	}
	sort.Strings(regions)
	sort.Slice(sigs, func(i, j int) bool {
		if sigs[i].Region != sigs[j].Region {
			return sigs[i].Region < sigs[j].Region
		}
		if sigs[i].InstanceType != sigs[j].InstanceType {
			return sigs[i].InstanceType < sigs[j].InstanceType
		}
		return sigs[i].Shape < sigs[j].Shape
	})
	return sigs, regions, nil
}
