// Package aws fetches AWS EC2 GPU prices and availability from public,
// unauthenticated sources: the Price List Bulk API (on-demand and reserved
// prices per region, savings-plan rates) and the spot price feed behind the
// AWS spot pricing page.
//
// A region's price file is hundreds of megabytes; it is streamed through a
// hand-written JSON scanner that keeps only GPU and accelerator types, and
// it is not downloaded at all while its version is the one stored last run.
package aws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// Default endpoints.
const (
	DefaultEndpoint     = "https://pricing.us-east-1.amazonaws.com"
	DefaultSpotEndpoint = "https://website.spot.ec2.aws.a2z.com/spot.json"
)

// Paths under Endpoint, with the partition's segment ("aws", or "cn" for
// the China regions) in place of %s. The EC2 index names each region's
// current, version-pinned price file; the savings-plan index (the EC2
// offer's currentSavingsPlanIndexUrl) names each region's rate file.
const (
	ec2RegionIndexFmt = "/offers/v1.0/%s/AmazonEC2/current/region_index.json"
	spRegionIndexFmt  = "/savingsPlan/v1.0/%s/AWSComputeSavingsPlan/current/region_index.json"
)

// Partitions: the path segment of a price list partition.
const (
	// PartitionGlobal is the commercial regions' price list.
	PartitionGlobal = "aws"
	// PartitionChina is the China regions' price list (Beijing, Ningxia),
	// served from pricing.cn-north-1.amazonaws.com.cn, in CNY.
	PartitionChina = "cn"
)

// Keys of Snapshot.Versions.
const (
	versionEC2         = "ec2/"         // + region: price-file version
	versionSavingsPlan = "savingsplan/" // + region: rate-file version
	versionSpotETag    = "spot/etag"
	versionSpotLastMod = "spot/last-modified"
)

// state is what the fetcher keeps between runs besides version tokens
// (Snapshot.State), at shape version stateVersion.
type state struct {
	// GPUTypes remembers the hardware of every GPU type seen, so that
	// spot and savings-plan prices in regions whose price file was skipped
	// still carry hardware.
	GPUTypes map[string]typeFacts `json:"gpu_types"`
}

const stateVersion = 1

// Config says where to read and what. Zero values take the defaults.
type Config struct {
	// Name is the provider the offers are stored under (a partition is a
	// cloud of its own: AWS China is bought separately); empty is "aws".
	Name string
	// Partition is the price list partition's path segment
	// (PartitionGlobal, PartitionChina); empty is PartitionGlobal.
	Partition    string
	Endpoint     string // Price List Bulk API base URL
	SpotEndpoint string // spot.json URL
	// SpotAdvisorEndpoint is the Spot Advisor file's URL
	// (DefaultSpotAdvisorEndpoint when empty); SpotAdvisor reads it.
	SpotAdvisorEndpoint string
	SpotAdvisor         bool
	// CapacityBlocks asks EC2 for Capacity Block offerings (signed
	// requests; skipped without credentials).
	CapacityBlocks CapacityBlocks
	// PlacementScores asks EC2 for spot placement scores (signed
	// requests; skipped without credentials).
	PlacementScores PlacementScores
	Regions         []string // empty means every region the index lists
	Spot            bool
	SavingsPlans    bool
	// Concurrency is how many regions' files are downloaded and parsed at
	// once (0: DefaultConcurrency). One stream from the price-list CDN is
	// capped well below a host's link, so a cold run over every region is
	// bounded by the slowest schedule, not by parsing; memory grows by one
	// file's working set (about 2 MB) per stream, never with file size.
	Concurrency int
	// Progress receives a status line during long downloads (bytes, rate);
	// nil shows none.
	Progress io.Writer
	// Now is the clock that decides which terms are in effect (their
	// effectiveDate); nil means time.Now.
	Now func() time.Time
	// Format is the form the region price files and savings-plan files
	// are read in: FormatCSV (empty: the default) or FormatJSON.
	Format string
}

// Forms of the price list (providers.aws.format).
const (
	// FormatCSV reads index.csv beside each index.json: the same price
	// list in about 45 % fewer bytes. A CSV answer whose end cannot be
	// told from a cut (framed by neither Content-Length nor chunked
	// encoding) is read as JSON instead.
	FormatCSV = "csv"
	// FormatJSON reads the JSON files only.
	FormatJSON = "json"
)

// CheckFormat checks a format key (shared with aws-cn).
func CheckFormat(k section.Checker, v string) error {
	if v != FormatCSV && v != FormatJSON {
		return k.Errorf("format", "%q: want %q or %q", v, FormatCSV, FormatJSON)
	}
	return nil
}

// DefaultConcurrency is providers.aws.concurrency's default: region files
// read at once.
const DefaultConcurrency = 4

// Section is providers.aws: the public Price List Bulk API and the spot
// feed.
type Section struct {
	section.Common `yaml:",inline"`
	SpotEndpoint   string `yaml:"spot_endpoint"`
	SpotEnabled    bool   `yaml:"spot"`
	SavingsPlans   bool   `yaml:"savings_plans"`
	Concurrency    int    `yaml:"concurrency"`
	// Format is the form of the price and savings-plan files read: "csv"
	// (default) or "json".
	Format string `yaml:"format"`
	// SpotAdvisor reads the public Spot Advisor file for interruption
	// bands (issue 23); SpotAdvisorEndpoint overrides its URL.
	SpotAdvisor         bool   `yaml:"spot_advisor"`
	SpotAdvisorEndpoint string `yaml:"spot_advisor_endpoint"`
	// CapacityBlocks asks EC2 for Capacity Block for ML offerings, signed
	// with the standard AWS credential chain; EC2Endpoint replaces the
	// regional EC2 endpoint of every region.
	CapacityBlocks CapacityBlocksSection `yaml:"capacity_blocks"`
	EC2Endpoint    string                `yaml:"ec2_endpoint"`
	// PlacementScores asks EC2's GetSpotPlacementScores, with the same
	// credentials and ec2_endpoint as the capacity blocks.
	PlacementScores PlacementScoresSection `yaml:"placement_scores"`
}

// Validate checks the keys beyond the shared ones.
func (s *Section) Validate(k section.Checker) error {
	var spot error
	if s.SpotEnabled {
		spot = k.URL("spot_endpoint", s.SpotEndpoint)
	}
	if err := errors.Join(spot, CheckConcurrency(k, s.Concurrency), CheckFormat(k, s.Format)); err != nil {
		return err
	}
	if s.SpotAdvisor {
		if err := k.URL("spot_advisor_endpoint", s.SpotAdvisorEndpoint); err != nil {
			return err
		}
	}
	if s.EC2Endpoint != "" {
		if err := k.URL("ec2_endpoint", s.EC2Endpoint); err != nil {
			return err
		}
	}
	// The section's own value, before withDefaults: a target capacity
	// of 0 written in the file is a mistake, not a request for the
	// default (which the section starts with).
	if err := k.Between("placement_scores.target_capacity", s.PlacementScores.TargetCapacity, 1, maxTargetCapacity); err != nil {
		return err
	}
	for _, err := range []error{s.blocks().validate(), s.placement().validate()} {
		// validate names the key ("capacity_blocks.duration_days[0]"):
		// the checker adds the section, the file and the line.
		if ke, ok := errors.AsType[*section.KeyError](err); ok {
			return k.Errorf(ke.Key, "%s", ke.Msg)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// placement is the placement_scores section as the fetcher takes it,
// empty keys taking their defaults.
func (s *Section) placement() PlacementScores {
	p := s.PlacementScores
	return PlacementScores{Enabled: p.Enabled, InstanceTypes: p.InstanceTypes, TargetCapacity: p.TargetCapacity, SingleAvailabilityZone: p.SingleAvailabilityZone,
		Regions: p.Regions, EC2Endpoint: s.EC2Endpoint}.withDefaults()
}

// blocks is the capacity_blocks section as the fetcher takes it, an empty
// list taking its default.
func (s *Section) blocks() CapacityBlocks {
	c := s.CapacityBlocks
	or := func(v, def []int) []int {
		if len(v) == 0 {
			return slices.Clone(def)
		}
		return v
	}
	types := c.InstanceTypes
	if len(types) == 0 {
		types = slices.Clone(DefaultBlockTypes)
	}
	return CapacityBlocks{Enabled: c.Enabled, InstanceTypes: types, InstanceCounts: or(c.InstanceCounts, DefaultBlockCounts),
		DurationDays: or(c.DurationDays, DefaultBlockDurations), Regions: c.Regions, EC2Endpoint: s.EC2Endpoint}
}

// CheckConcurrency checks a concurrency key (shared with aws-cn, which
// reads through this package).
func CheckConcurrency(k section.Checker, v int) error {
	return k.Between("concurrency", v, 1, section.MaxConcurrency)
}

// Provider registers AWS (see package providers).
var Provider = fetchers.Provider{
	Name:  pricewatch.AWS,
	Facts: section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		return &Section{
			Common:              section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "17 */6 * * *", Timeout: 2 * time.Hour},
			SpotEndpoint:        DefaultSpotEndpoint,
			SpotEnabled:         true,
			SavingsPlans:        true,
			Concurrency:         DefaultConcurrency,
			Format:              FormatCSV,
			SpotAdvisor:         true,
			SpotAdvisorEndpoint: DefaultSpotAdvisorEndpoint,
			PlacementScores:     PlacementScoresSection{TargetCapacity: DefaultTargetCapacity},
		}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		return New(Config{Endpoint: s.Endpoint, SpotEndpoint: s.SpotEndpoint, Regions: s.Regions,
			Spot: s.SpotEnabled, SavingsPlans: s.SavingsPlans, Concurrency: s.Concurrency, SpotAdvisor: s.SpotAdvisor, SpotAdvisorEndpoint: s.SpotAdvisorEndpoint, CapacityBlocks: s.blocks(),
			PlacementScores: s.placement(), Progress: env.Progress, Now: env.Now, Format: s.Format}, env.Client, env.Log)
	}),
}

// Fetcher implements fetchers.Fetcher for AWS.
type Fetcher struct {
	cfg    Config
	client *fetchers.Client
	log    *zap.Logger
}

var _ fetchers.Fetcher = (*Fetcher)(nil)

// New checks the configuration. A nil client gets the default retry
// policy; a nil logger logs nothing.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	if cfg.Endpoint == "" {
		cfg.Endpoint = DefaultEndpoint
	}
	if cfg.SpotEndpoint == "" {
		cfg.SpotEndpoint = DefaultSpotEndpoint
	}
	if cfg.SpotAdvisorEndpoint == "" {
		cfg.SpotAdvisorEndpoint = DefaultSpotAdvisorEndpoint
	}
	if cfg.Name == "" {
		cfg.Name = pricewatch.AWS
	}
	if cfg.Partition == "" {
		cfg.Partition = PartitionGlobal
	}
	if cfg.Partition != PartitionGlobal && cfg.Partition != PartitionChina {
		return nil, fmt.Errorf("aws partition %q: want %q or %q", cfg.Partition, PartitionGlobal, PartitionChina)
	}
	cfg.Endpoint = strings.TrimRight(cfg.Endpoint, "/")
	for name, v := range map[string]string{"endpoint": cfg.Endpoint, "spot endpoint": cfg.SpotEndpoint, "spot advisor endpoint": cfg.SpotAdvisorEndpoint} {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("aws %s %q: want an http(s) URL", name, v)
		}
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Format == "" {
		cfg.Format = FormatCSV
	}
	if cfg.Format != FormatCSV && cfg.Format != FormatJSON {
		return nil, fmt.Errorf("aws format %q: want %q or %q", cfg.Format, FormatCSV, FormatJSON)
	}
	if cfg.Concurrency < 1 || cfg.Concurrency > section.MaxConcurrency {
		return nil, fmt.Errorf("aws concurrency %d: want 1 to %d", cfg.Concurrency, section.MaxConcurrency)
	}
	if err := cfg.CapacityBlocks.validate(); err != nil {
		return nil, fmt.Errorf("aws %w", err)
	}
	if cfg.PlacementScores.Enabled {
		cfg.PlacementScores = cfg.PlacementScores.withDefaults()
	}
	if err := cfg.PlacementScores.validate(); err != nil {
		return nil, fmt.Errorf("aws %w", err)
	}
	cfg.Regions = slices.Clone(cfg.Regions)
	for _, r := range cfg.Regions {
		if r == "" || strings.ContainsAny(r, "/ ") {
			return nil, fmt.Errorf("aws region %q: want a region code such as us-east-1", r)
		}
	}
	if client == nil {
		client = fetchers.NewClient(fetchers.DefaultRetryPolicy())
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &Fetcher{cfg: cfg, client: client, log: log.With(zap.String("provider", cfg.Name))}, nil
}

// Provider implements fetchers.Fetcher.
func (f *Fetcher) Provider() string { return f.cfg.Name }

// run is the state of one Fetch.
type run struct {
	snap    *pricewatch.Snapshot
	prev    map[string]string
	types   map[string]typeFacts // hardware catalogue: remembered + this run
	known   map[string]bool      // types in the remembered catalogue
	haveCat bool                 // the remembered catalogue was readable
	newType bool                 // a price file read this run lists a type the catalogue lacked
	bytes   int64
	read    int
	board   *board // progress lines of the downloads running at once; nil: none
}

// regionRun is what one region's files gave. Each region fills its own,
// in its own goroutine, while the run's catalogue (run.types, run.known)
// is only read; the run takes them in region order once all are done, so
// the snapshot does not depend on which download finished first.
type regionRun struct {
	versions            map[string]string
	types               map[string]typeFacts // listed by the price file read this run
	newTypes            bool                 // some of them were not in the remembered catalogue
	offers              []pricewatch.Offer
	availability        []pricewatch.Availability
	coverage, unchanged []pricewatch.Scope
	read, skipped       int
	bytes               int64
}

// Fetch implements fetchers.Fetcher.
func (f *Fetcher) Fetch(ctx context.Context, prev fetchers.Previous) (*pricewatch.Snapshot, error) {
	started := time.Now()
	r := &run{
		snap:  &pricewatch.Snapshot{Provider: f.cfg.Name, Versions: map[string]string{}},
		prev:  prev.Versions,
		types: map[string]typeFacts{},
		known: map[string]bool{},
	}
	if f.cfg.Progress != nil {
		r.board = &board{w: f.cfg.Progress}
	}
	var st state
	if ok, err := fetchers.DecodeState(prev.State, stateVersion, &st); err != nil {
		f.log.Warn("remembered GPU types unreadable; reading every region again", zap.Error(err))
	} else if ok && st.GPUTypes != nil {
		r.types, r.haveCat = st.GPUTypes, true
		for t := range r.types {
			r.known[t] = true
		}
	}

	regions, err := f.ec2Regions(ctx, r)
	if err != nil {
		return nil, err
	}
	var spFiles map[string]string
	if f.cfg.SavingsPlans {
		if spFiles, err = f.savingsPlanRegions(ctx, r); err != nil {
			return nil, err
		}
	}
	// Regions are read cfg.Concurrency at a time. A region whose file
	// cannot be read (after the retries and resumes of its download) is
	// that region's loss only (issue 26 item 1): it is left out of the
	// coverage, so its stored prices stay as they were, and its version is
	// not remembered, so the next run reads it again. The fetch fails
	// only when no region could be read, or when it was cancelled.
	names := slices.Sorted(maps.Keys(regions))
	results := make([]regionRun, len(names))
	failed := make([]error, len(names))
	jobs := make([]func(context.Context) error, len(names))
	for i, region := range names {
		jobs[i] = func(ctx context.Context) error {
			err := f.region(ctx, r, &results[i], region, regions[region], spFiles)
			if err == nil {
				return nil
			}
			err = fmt.Errorf("aws region %s: %w", region, err)
			if ctx.Err() != nil {
				return err
			}
			results[i], failed[i] = regionRun{}, err
			return nil
		}
	}
	if err := fetchers.Bounded(ctx, f.cfg.Concurrency, jobs); err != nil {
		return nil, err
	}
	var lost []error
	for i, err := range failed {
		if err != nil {
			lost = append(lost, err)
			f.log.Warn("aws region could not be read; its stored prices stay as they were and it is read again next run",
				zap.String("region", names[i]), zap.Error(err))
			// The run is partial, not a success: the summary line, the
			// run's record and the exit status say which region and why.
			r.snap.Unread = append(r.snap.Unread, pricewatch.Unread{Region: names[i],
				Reason: strings.TrimPrefix(err.Error(), "aws region "+names[i]+": ")})
		}
	}
	if len(lost) > 0 && len(lost) == len(names) {
		return nil, errors.Join(lost...)
	}
	for i := range results {
		r.merge(&results[i])
	}
	if len(r.snap.Offers) == 0 && len(r.snap.Unchanged) == 0 {
		// A region without GPUs is normal; price files in which no
		// region lists one are a broken answer, never "every GPU type
		// withdrawn".
		return nil, fmt.Errorf("aws: %w: %d region files read, not one GPU type priced: not believed", fetchers.ErrIncomplete, r.read)
	}
	if f.cfg.Spot {
		if err := f.spot(ctx, r); err != nil {
			return nil, fmt.Errorf("aws spot feed: %w", err)
		}
	}
	if f.cfg.SpotAdvisor {
		f.spotAdvisor(ctx, r)
	}
	if f.cfg.CapacityBlocks.Enabled {
		f.capacityBlocks(ctx, r, blockRegions(f.cfg.Regions, regions))
	}
	if f.cfg.PlacementScores.Enabled {
		f.placementScores(ctx, r)
	}

	if fams := unknownFamilies(r.types); len(fams) > 0 {
		f.log.Warn("GPU families missing from the GPU table; their GPU model is left empty", zap.Strings("families", fams))
	}
	r.snap.State, err = fetchers.EncodeState(stateVersion, state{GPUTypes: r.types})
	if err != nil {
		return nil, fmt.Errorf("aws: saving GPU types: %w", err)
	}
	r.snap.SourceVersion = sourceVersion(r.snap.Versions)
	if err := r.snap.Validate(); err != nil {
		return nil, fmt.Errorf("aws: %w: %w", fetchers.ErrIncomplete, err)
	}
	f.log.Info("fetched",
		zap.Int("regions_read", r.read), zap.Int("regions_unchanged", r.snap.Skipped),
		zap.Int("offers", len(r.snap.Offers)), zap.Int("gpu_types_listed", len(r.snap.Availability)),
		zap.Int64("bytes", r.bytes), zap.Int("concurrency", f.cfg.Concurrency), zap.Duration("took", time.Since(started)))
	return r.snap, nil
}

// merge adds one region's results to the snapshot and the catalogue.
func (r *run) merge(rr *regionRun) {
	maps.Copy(r.snap.Versions, rr.versions)
	for t, facts := range rr.types {
		r.types[t] = facts
	}
	r.newType = r.newType || rr.newTypes
	r.snap.Offers = append(r.snap.Offers, rr.offers...)
	r.snap.Availability = append(r.snap.Availability, rr.availability...)
	for _, sc := range rr.coverage {
		addScope(&r.snap.Coverage, sc.Region, sc.Availability, sc.PriceTypes...)
	}
	for _, sc := range rr.unchanged {
		addScope(&r.snap.Unchanged, sc.Region, sc.Availability, sc.PriceTypes...)
	}
	r.read += rr.read
	r.snap.Skipped += rr.skipped
	r.bytes += rr.bytes
}

// incomplete wraps an error so that callers see fetchers.ErrIncomplete,
// unless the request never reached the cloud (a DNS failure, a refused
// connection): that says what happened instead of "malformed response".
func incomplete(err error) error {
	if errors.Is(err, fetchers.ErrIncomplete) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, fetchers.ErrUnreachable) {
		return err
	}
	return fmt.Errorf("%w: %w", fetchers.ErrIncomplete, err)
}

// facts is a type's hardware as this region knows it: from its price file
// if it was read this run, else from the remembered catalogue.
func (rr *regionRun) facts(r *run, itype string) (typeFacts, bool) {
	if t, ok := rr.types[itype]; ok {
		return t, true
	}
	t, ok := r.types[itype]
	return t, ok
}

// region reads (or skips) one region's price file and savings-plan file
// into rr. It only reads r, which other regions read at the same time.
func (f *Fetcher) region(ctx context.Context, r *run, rr *regionRun, region, fileURL string, spFiles map[string]string) error {
	rr.versions = map[string]string{}
	version := versionFromURL(fileURL)
	rr.versions[versionEC2+region] = version
	ec2Changed := !r.haveCat || r.prev[versionEC2+region] != version
	fileTypes := []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Reserved}
	if ec2Changed {
		rp, err := f.readPriceFile(ctx, r, rr, region, fileURL)
		if err != nil {
			return err
		}
		if rp.csv && rp.Version != version && version != fileURL {
			// The CSV's Version line is the only sign inside the file
			// that it is the one the index named (a CSV has no brackets
			// to close): another version is a stale or mixed-up object.
			return incomplete(fmt.Errorf("price file %s: %w: its Version line says %s, the region index names %s", fileURL, errLayout, rp.Version, version))
		}
		if rp.Version != "" && rp.Version != version {
			f.log.Warn("price file version differs from its index entry",
				zap.String("region", region), zap.String("index", version), zap.String("file", rp.Version))
		}
		rr.types = rp.Types
		for t := range rp.Types {
			if !r.known[t] {
				rr.newTypes = true
			}
		}
		for _, o := range rp.Offers {
			o.Provider = f.cfg.Name // the scanner knows no partition
			o.Hardware = hardware(o.InstanceType, rp.Types[o.InstanceType])
			rr.offers = append(rr.offers, o)
		}
		listed := slices.Sorted(maps.Keys(rp.Types))
		for _, t := range listed {
			rr.availability = append(rr.availability, pricewatch.Availability{
				Provider: f.cfg.Name, Region: region, InstanceType: t,
				State: pricewatch.Offered, Hardware: hardware(t, rp.Types[t]),
			})
		}
		addScope(&rr.coverage, region, true, fileTypes...)
		rr.read++
	} else {
		addScope(&rr.unchanged, region, true, fileTypes...)
		rr.skipped++
		f.log.Debug("price file unchanged", zap.String("region", region), zap.String("version", version))
	}

	if spFiles == nil {
		return nil // savings plans off, or the index listed none
	}
	spURL, ok := spFiles[region]
	if !ok {
		// The index lists no savings plans here: none are sold.
		addScope(&rr.coverage, region, false, pricewatch.SavingsPlan)
		return nil
	}
	spVersion := versionFromURL(spURL)
	rr.versions[versionSavingsPlan+region] = spVersion
	// A type new to the catalogue had its rates filtered out last time,
	// so the file is read again even if its version did not move.
	if r.haveCat && !rr.newTypes && r.prev[versionSavingsPlan+region] == spVersion {
		addScope(&rr.unchanged, region, false, pricewatch.SavingsPlan)
		return nil
	}
	if err := f.readSavingsPlans(ctx, r, rr, region, spURL); err != nil {
		return err
	}
	addScope(&rr.coverage, region, false, pricewatch.SavingsPlan)
	return nil
}

func (f *Fetcher) readPriceFile(ctx context.Context, r *run, rr *regionRun, region, fileURL string) (*regionPrices, error) {
	u, err := f.resolve(fileURL)
	if err != nil {
		return nil, fmt.Errorf("aws %s: %w", region, err)
	}
	var rp *regionPrices
	err = f.readForm(ctx, r, rr, u, "aws "+region, func(body io.Reader) error {
		var err error
		if rp, err = parseOfferCSVAt(body, region, f.now()); rp != nil {
			rp.csv = true
		}
		return err
	}, func(body io.Reader) error {
		var err error
		rp, err = parseOfferFileAt(body, region, f.now())
		return err
	})
	if err != nil {
		return nil, incomplete(fmt.Errorf("price file %s: %w", fileURL, err))
	}
	return rp, nil
}

// maxStartOvers bounds how often one file is downloaded again from its
// first byte after a drop that could not be resumed (no ranges served, or
// the object changed under the same URL).
const maxStartOvers = 2

// readFile downloads u and hands the body to parse as it arrives. A
// connection dropped mid-way is resumed by the download itself; one that
// cannot be resumed there starts the file (and parse) over, a bounded
// number of times.
func (f *Fetcher) readFile(ctx context.Context, r *run, rr *regionRun, u, label string, framed bool, parse func(io.Reader) error) error {
	for attempt := 0; ; attempt++ {
		d, err := f.open(ctx, u, label, r.board, framed)
		if err != nil {
			return err
		}
		err = parse(d)
		d.Close()
		rr.bytes += d.n
		if err == nil || !errors.Is(err, errStartOver) || attempt >= maxStartOvers || ctx.Err() != nil {
			return err
		}
		f.log.Warn("download could not be resumed; reading the file again from the start",
			zap.String("url", u), zap.Int64("bytes_read", d.n), zap.Int("attempt", attempt+1), zap.Error(err))
	}
}

// readForm reads a price or savings-plan file (u is its JSON URL) in the
// configured form. In CSV, a response framed by neither Content-Length nor
// chunked encoding is not read: its end cannot be told from a cut, and a
// CSV cut at a row boundary would parse as a shorter file. The JSON form,
// whose brackets must close, is read instead.
func (f *Fetcher) readForm(ctx context.Context, r *run, rr *regionRun, u, label string, parseCSV, parseJSON func(io.Reader) error) error {
	if f.cfg.Format == FormatCSV {
		if cu, ok := csvURL(u); ok {
			err := f.readFile(ctx, r, rr, cu, label, true, parseCSV)
			if !errors.Is(err, errUnframed) {
				return err
			}
			f.log.Info("CSV answer without a length or chunked framing; reading the JSON form", zap.String("url", cu))
		}
	}
	return f.readFile(ctx, r, rr, u, label, false, parseJSON)
}

// csvURL is the CSV form's URL beside a JSON file's (index.json →
// index.csv); a URL of another shape has no known CSV form.
func csvURL(u string) (string, bool) {
	base, query, _ := strings.Cut(u, "?")
	if !strings.HasSuffix(base, ".json") {
		return "", false
	}
	out := strings.TrimSuffix(base, ".json") + ".csv"
	if query != "" {
		out += "?" + query
	}
	return out, true
}

// now is the moment terms' effectiveDate is judged at.
func (f *Fetcher) now() time.Time {
	if f.cfg.Now != nil {
		return f.cfg.Now()
	}
	return time.Now()
}

func (f *Fetcher) readSavingsPlans(ctx context.Context, r *run, rr *regionRun, region, spURL string) error {
	u, err := f.resolve(spURL)
	if err != nil {
		return fmt.Errorf("aws %s savings plans: %w", region, err)
	}
	gpu := func(t string) bool { _, ok := rr.facts(r, t); return ok }
	var offers []pricewatch.Offer
	want := versionFromURL(spURL)
	err = f.readForm(ctx, r, rr, u, "aws "+region+" savings plans", func(body io.Reader) error {
		v, o, err := parseSavingsPlanCSV(body, region, f.now(), gpu)
		if err == nil && v != want && want != spURL {
			return fmt.Errorf("%w: its Version line says %s, the savings-plan index names %s", errLayout, v, want)
		}
		offers = o
		return err
	}, func(body io.Reader) error {
		var err error
		_, offers, err = parseSavingsPlanFile(body, region, f.now(), gpu)
		return err
	})
	if err != nil {
		return incomplete(fmt.Errorf("savings plan file %s: %w", spURL, err))
	}
	for _, o := range offers {
		o.Provider = f.cfg.Name
		facts, _ := rr.facts(r, o.InstanceType)
		o.Hardware = hardware(o.InstanceType, facts)
		rr.offers = append(rr.offers, o)
	}
	return nil
}

// spot reads the spot feed, conditionally when it gave validators before.
func (f *Fetcher) spot(ctx context.Context, r *run) error {
	// The feed is a few megabytes.
	body, h, unchanged, err := f.getIfChanged(ctx, r, f.cfg.SpotEndpoint, spotValidators, 256<<20)
	if err != nil {
		return incomplete(err)
	}
	if unchanged {
		if len(f.cfg.Regions) == 0 {
			addScope(&r.snap.Unchanged, pricewatch.AllRegions, false, pricewatch.Spot)
		}
		for _, region := range f.cfg.Regions {
			addScope(&r.snap.Unchanged, region, false, pricewatch.Spot)
		}
		return nil
	}
	byRegion, err := parseSpotFeed(body)
	if err != nil {
		return incomplete(err)
	}
	spotValidators.keepAnswer(r, h)
	regions := make([]string, 0, len(byRegion))
	for region := range byRegion {
		if len(f.cfg.Regions) == 0 || slices.Contains(f.cfg.Regions, region) {
			regions = append(regions, region)
		}
	}
	sort.Strings(regions)
	for _, region := range regions {
		// A size listed twice at different prices: the feed gives nothing
		// to choose by, so neither is kept (as Azure's ties), and the
		// rest of the run stands.
		seen := map[string]spotPrice{}
		conflict := map[string]bool{}
		for _, p := range byRegion[region] {
			if _, gpu := r.types[p.InstanceType]; !gpu {
				continue
			}
			if prev, dup := seen[p.InstanceType]; dup && (!prev.Price.Equal(p.Price) || prev.Currency != p.Currency) {
				if !conflict[p.InstanceType] {
					f.log.Warn("spot feed lists one size twice at different prices; keeping neither this run",
						zap.String("region", region), zap.String("instance_type", p.InstanceType),
						zap.String("price", prev.Price.String()+" "+prev.Currency), zap.String("other_price", p.Price.String()+" "+p.Currency))
				}
				conflict[p.InstanceType] = true
			} else if !dup {
				seen[p.InstanceType] = p
			}
		}
		emitted := map[string]bool{}
		for _, p := range byRegion[region] {
			facts, gpu := r.types[p.InstanceType]
			if !gpu || conflict[p.InstanceType] || emitted[p.InstanceType] {
				continue
			}
			emitted[p.InstanceType] = true
			r.snap.Offers = append(r.snap.Offers, pricewatch.Offer{
				Provider: f.cfg.Name, Region: region, InstanceType: p.InstanceType,
				PriceType: pricewatch.Spot, OS: pricewatch.Linux, Currency: p.Currency,
				Hourly: p.Price, Hardware: hardware(p.InstanceType, facts),
			})
		}
		addScope(&r.snap.Coverage, region, false, pricewatch.Spot)
	}
	return nil
}

// unknownFamilies lists GPU families the price list has and the table
// lacks, so that the log says which row to add.
func unknownFamilies(types map[string]typeFacts) []string {
	var out []string
	for t := range types {
		fam, _, _ := strings.Cut(t, ".")
		if _, ok := gpuFamilies[fam]; !ok && !slices.Contains(out, fam) {
			out = append(out, fam)
		}
	}
	sort.Strings(out)
	return out
}

// ec2Regions reads the EC2 region index and picks the configured regions.
func (f *Fetcher) ec2Regions(ctx context.Context, r *run) (map[string]string, error) {
	var idx struct {
		Regions map[string]struct {
			RegionCode        string `json:"regionCode"`
			CurrentVersionURL string `json:"currentVersionUrl"`
		} `json:"regions"`
	}
	if err := f.getJSON(ctx, r, f.cfg.Endpoint+fmt.Sprintf(ec2RegionIndexFmt, f.cfg.Partition), &idx); err != nil {
		return nil, fmt.Errorf("aws EC2 region index: %w", incomplete(err))
	}
	all := map[string]string{}
	for code, e := range idx.Regions {
		if e.CurrentVersionURL == "" {
			return nil, fmt.Errorf("aws EC2 region index: %w: region %s has no currentVersionUrl", fetchers.ErrIncomplete, code)
		}
		all[code] = e.CurrentVersionURL
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("aws EC2 region index: %w: it lists no regions", fetchers.ErrIncomplete)
	}
	if len(f.cfg.Regions) == 0 {
		return all, nil
	}
	picked := map[string]string{}
	for _, region := range f.cfg.Regions {
		u, ok := all[region]
		if !ok {
			return nil, fmt.Errorf("aws region %q is not in the price list's region index (check providers.%s.regions)", region, f.cfg.Name)
		}
		picked[region] = u
	}
	return picked, nil
}

// savingsPlanRegions reads the savings-plan region index (an array, unlike
// the EC2 one). An empty index is no error, but then no region's savings
// plans count as covered: an index that suddenly lists nothing must not
// read as "every savings plan withdrawn".
func (f *Fetcher) savingsPlanRegions(ctx context.Context, r *run) (map[string]string, error) {
	var idx struct {
		Regions []struct {
			RegionCode string `json:"regionCode"`
			VersionURL string `json:"versionUrl"`
		} `json:"regions"`
	}
	if err := f.getJSON(ctx, r, f.cfg.Endpoint+fmt.Sprintf(spRegionIndexFmt, f.cfg.Partition), &idx); err != nil {
		return nil, fmt.Errorf("aws savings plan region index: %w", incomplete(err))
	}
	if len(idx.Regions) == 0 {
		f.log.Warn("the savings plan index lists no regions; savings plan prices are left as they were")
		return nil, nil
	}
	out := map[string]string{}
	for _, e := range idx.Regions {
		if e.RegionCode == "" || e.VersionURL == "" {
			return nil, fmt.Errorf("aws savings plan region index: %w: an entry lacks regionCode or versionUrl", fetchers.ErrIncomplete)
		}
		out[e.RegionCode] = e.VersionURL
	}
	return out, nil
}

// getJSON reads a small JSON document (an index) whole.
func (f *Fetcher) getJSON(ctx context.Context, r *run, u string, v any) error {
	resp, err := f.get(ctx, u, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: unexpected HTTP %d", u, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	r.bytes += int64(len(body))
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

func (f *Fetcher) get(ctx context.Context, u string, hdr http.Header) (*http.Response, error) {
	return f.client.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		for k, vs := range hdr {
			req.Header[k] = vs
		}
		return req, nil
	})
}

// resolve turns an index's path ("/offers/v1.0/aws/…") into a URL under
// the configured endpoint. An absolute URL (currentVersionUrl, versionUrl)
// is used only when it has the endpoint's origin: a price file from
// another host, or over http when the endpoint is https, is refused.
func (f *Fetcher) resolve(p string) (string, error) {
	if !strings.HasPrefix(p, "http://") && !strings.HasPrefix(p, "https://") {
		return f.cfg.Endpoint + "/" + strings.TrimLeft(p, "/"), nil
	}
	base, err := url.Parse(f.cfg.Endpoint)
	if err != nil {
		return "", fmt.Errorf("aws endpoint: %w", err)
	}
	u, err := url.Parse(p)
	if err != nil {
		return "", fmt.Errorf("%w: price file URL is not a URL: %v", fetchers.ErrIncomplete, err)
	}
	if err := fetchers.CheckOrigin(base, u, "price file URL"); err != nil {
		return "", err
	}
	return p, nil
}

// versionFromURL takes the version out of a pinned file URL
// (/offers/v1.0/aws/AmazonEC2/20250912225308/us-east-1/index.json). A URL
// of another shape is its own version token: it changes when the file does.
func versionFromURL(u string) string {
	parts := strings.Split(strings.Trim(u, "/"), "/")
	if len(parts) >= 3 {
		v := parts[len(parts)-3]
		if v != "" && strings.Trim(v, "0123456789") == "" {
			return v
		}
	}
	return u
}

// addScope adds price types to the region's scope in list, creating it.
func addScope(list *[]pricewatch.Scope, region string, availability bool, pts ...pricewatch.PriceType) {
	for i := range *list {
		s := &(*list)[i]
		if s.Region == region {
			s.PriceTypes = append(s.PriceTypes, pts...)
			s.Availability = s.Availability || availability
			return
		}
	}
	*list = append(*list, pricewatch.Scope{Region: region, PriceTypes: slices.Clone(pts), Availability: availability})
}

// sourceVersion summarises the versions for the fetch-run record:
// "ec2 20250912225308 (106 regions); savingsplan 20250911184447; spot <etag>".
func sourceVersion(v map[string]string) string {
	count := func(prefix string) map[string]int {
		m := map[string]int{}
		for k, ver := range v {
			if strings.HasPrefix(k, prefix) {
				m[ver]++
			}
		}
		return m
	}
	var parts []string
	for _, kind := range []struct{ prefix, name string }{{versionEC2, "ec2"}, {versionSavingsPlan, "savingsplan"}} {
		m := count(kind.prefix)
		vers := make([]string, 0, len(m))
		for ver, n := range m {
			vers = append(vers, fmt.Sprintf("%s (%d regions)", ver, n))
		}
		sort.Strings(vers)
		if len(vers) > 0 {
			parts = append(parts, kind.name+" "+strings.Join(vers, ", "))
		}
	}
	if ver := advisorValidators.version(v); ver != "" {
		parts = append(parts, "spot-advisor "+ver)
	}
	if ver := spotValidators.version(v); ver != "" {
		parts = append(parts, "spot "+ver)
	}
	return strings.Join(parts, "; ")
}
