// Package scalegen builds a simulated deployment's price history through
// the storage API, for the scale benchmarks: Azure (~20k offers, hourly)
// and AWS (~30k offers, every 6 hours) with change rates like the real
// clouds' (spot prices move often, list prices rarely), over any share of a
// year. Databases are cached under os.UserCacheDir, keyed by Version and
// the share, because a year takes minutes to build.
package scalegen

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/storage"
)

// Version changes whenever the simulation changes, so that a cached
// database of an older simulation is never mistaken for a new one, and
// whenever a cached database could no longer be opened (4: version 3's
// were written before the migrations were renumbered at a merge, scale's
// as 0004 where it is now 0007, and fail to migrate).
const Version = 4

// Start is the simulated deployment's first run.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Year is the length of a simulated year.
const Year = 365 * 24 * time.Hour

// Deployment describes what is simulated.
type Deployment struct {
	// Share of a year to simulate (0.1, 1, 3).
	Share float64
	// Hourly share of Azure spot offers that change per run, and per-run
	// share of AWS spot offers that change; other prices change at
	// ListChangeRate per run.
	AzureSpotChangeRate, AWSSpotChangeRate, ListChangeRate float64
	// AWSRegionChangeRate is the share of AWS regions whose price file
	// changes in a run (the rest are skipped as unchanged).
	AWSRegionChangeRate float64
	// AzureEvery is how often an Azure run is simulated. The deployment
	// runs Azure hourly; simulating every few hours with the change rates
	// scaled to match stores the same intervals and changes (an unchanged
	// run writes only its run record), so a year builds in minutes. The
	// benchmarks time real hourly runs on top.
	AzureEvery time.Duration
}

// Default is the deployment of issue 16: Azure ~20k offers hourly, AWS
// ~30k every 6 h, spot moving every few days (Azure) or hours (AWS).
func Default(share float64) Deployment {
	return Deployment{Share: share, AzureSpotChangeRate: 1.0 / 72, AWSSpotChangeRate: 0.15, ListChangeRate: 1.0 / 20000, AWSRegionChangeRate: 0.1,
		AzureEvery: 6 * time.Hour}
}

// Name identifies a deployment's cached database.
func (d Deployment) Name() string {
	return fmt.Sprintf("v%d-share%g-az%g-aws%g-list%g-reg%g-every%s", Version, d.Share, d.AzureSpotChangeRate, d.AWSSpotChangeRate, d.ListChangeRate, d.AWSRegionChangeRate, d.AzureEvery)
}

// CacheDir is where built databases are kept.
func CacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding a cache directory: %w", err)
	}
	return filepath.Join(dir, "pricewatch-scale"), nil
}

// Cached returns the path of a built database for d, building it first if
// the cache has none. Callers that write must copy it (CopyTo).
func Cached(ctx context.Context, d Deployment, progress io.Writer) (string, error) {
	dir, err := CacheDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, d.Name()+".db")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	tmp := path + ".building"
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(tmp + suffix)
	}
	sim, err := Build(ctx, tmp, d, progress)
	if err != nil {
		return "", err
	}
	if err := sim.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("caching %s: %w", path, err)
	}
	return path, nil
}

// CopyTo copies a cached database to dir and returns the copy's path.
func CopyTo(src, dir string) (string, error) {
	dst := filepath.Join(dir, filepath.Base(src))
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return "", err
	}
	return dst, out.Close()
}

// Sim is a simulated deployment: the database and the clouds' current
// catalogues, so that a benchmark can store one more run.
type Sim struct {
	DB  *storage.DB
	Now time.Time
	// Started, when set, is called once a run is started (its start
	// committed) and before its snapshot is saved: the load test notes
	// the data version a run's start makes, which no page shows as the
	// run's prices.
	Started func(ctx context.Context)
	azure   *catalogue
	aws     *catalogue
	rng     *rand.Rand
	d       Deployment
}

// Close closes the database, checkpointing its WAL.
func (s *Sim) Close() error { return s.DB.Close() }

type catalogue struct {
	provider string
	offers   []pricewatch.Offer
	regions  []string
	spot     []int            // indexes of spot offers
	list     []int            // indexes of the others
	byRegion map[string][]int // non-spot offers per region
	avail    []pricewatch.Availability
}

// gpuType is a GPU family the simulated clouds sell, by its type name.
type gpuType struct {
	name  string
	model string
	count float64
	price float64 // on-demand per hour, USD
}

var gpuTypes = []gpuType{
	{"H100x8", "H100", 8, 98.32}, {"H100x1", "H100", 1, 12.29}, {"H200x8", "H200", 8, 110.24}, {"B200x8", "B200", 8, 142.5},
	{"A100-80x8", "A100-80GB", 8, 32.77}, {"A100-80x1", "A100-80GB", 1, 3.67}, {"A100-40x8", "A100-40GB", 8, 27.2},
	{"L40Sx1", "L40S", 1, 1.86}, {"L40Sx4", "L40S", 4, 7.44}, {"A10x1", "A10", 1, 1.1}, {"T4x1", "T4", 1, 0.53},
	{"T4x4", "T4", 4, 2.12}, {"V100x1", "V100", 1, 3.06}, {"V100x8", "V100", 8, 24.48}, {"MI300Xx8", "MI300X", 8, 96.0},
	{"L4x1", "L4", 1, 0.8}, {"L4x8", "L4", 8, 6.4},
}

// newCatalogue is an empty catalogue of provider over n regions named by
// regionFormat (a printf verb for the region's number).
func newCatalogue(provider string, n int, regionFormat string) *catalogue {
	c := &catalogue{provider: provider, byRegion: map[string][]int{}}
	for r := 0; r < n; r++ {
		c.regions = append(c.regions, fmt.Sprintf(regionFormat, r))
	}
	return c
}

// eachType calls fn for every instance type of c: each GPU type in sizes
// sizes (typed by name) in every region, with its hardware; every type is
// offered where it is sold.
func (c *catalogue) eachType(sizes int, name func(g gpuType, v int) string, fn func(region, typ string, g gpuType, v int, hw pricewatch.Hardware)) {
	for _, region := range c.regions {
		for _, g := range gpuTypes {
			for v := 0; v < sizes; v++ {
				typ := name(g, v)
				hw := pricewatch.Hardware{GPUModel: g.model, GPUCount: g.count, GPUMemoryGB: 80, VCPUs: int(12 * g.count), MemoryGB: 110 * g.count}
				fn(region, typ, g, v, hw)
				c.avail = append(c.avail, pricewatch.Availability{Provider: c.provider, Region: region, InstanceType: typ, State: pricewatch.Offered, Hardware: hw})
			}
		}
	}
}

func newAzure() *catalogue {
	c := newCatalogue(pricewatch.Azure, 50, "azregion%02d")
	// 17 families × 3 sizes × 50 regions × 8 prices ≈ 20k offers.
	c.eachType(3, func(g gpuType, v int) string { return fmt.Sprintf("Standard_%s_v%d", g.name, v+3) },
		func(region, typ string, g gpuType, v int, hw pricewatch.Hardware) {
			base := decimal.NewFromFloat(g.price * (1 + 0.03*float64(v))).Round(4)
			add := func(pt pricewatch.PriceType, os, term string, hourly, upfront decimal.Decimal) {
				o := pricewatch.Offer{Provider: c.provider, Region: region, InstanceType: typ, PriceType: pt, Term: term, OS: os,
					Currency: "USD", Hourly: hourly, Upfront: upfront, Hardware: hw}
				if pt == pricewatch.Reserved {
					o.Payment = pricewatch.AllUpfront
				}
				if pt == pricewatch.SavingsPlan {
					o.Payment = pricewatch.NoUpfront
				}
				c.add(o)
			}
			add(pricewatch.OnDemand, pricewatch.Linux, "", base, decimal.Zero)
			add(pricewatch.OnDemand, pricewatch.Windows, "", base.Mul(decimal.NewFromFloat(1.1)).Round(4), decimal.Zero)
			add(pricewatch.Spot, pricewatch.Linux, "", base.Mul(decimal.NewFromFloat(0.3)).Round(4), decimal.Zero)
			add(pricewatch.Spot, pricewatch.Windows, "", base.Mul(decimal.NewFromFloat(0.35)).Round(4), decimal.Zero)
			add(pricewatch.Reserved, pricewatch.Linux, "1y", decimal.Zero, base.Mul(decimal.NewFromInt(8760*6/10)).Round(2))
			add(pricewatch.Reserved, pricewatch.Linux, "3y", decimal.Zero, base.Mul(decimal.NewFromInt(26280*4/10)).Round(2))
			add(pricewatch.SavingsPlan, pricewatch.Linux, "1y", base.Mul(decimal.NewFromFloat(0.7)).Round(4), decimal.Zero)
			add(pricewatch.SavingsPlan, pricewatch.Linux, "3y", base.Mul(decimal.NewFromFloat(0.5)).Round(4), decimal.Zero)
		})
	return c
}

func newAWS() *catalogue {
	c := newCatalogue(pricewatch.AWS, 25, "awsregion-%02d")
	// 17 families × 2 sizes × 25 regions × 36 prices ≈ 30k offers.
	c.eachType(2, func(g gpuType, v int) string { return fmt.Sprintf("p%d.%s", v+4, g.name) },
		func(region, typ string, g gpuType, v int, hw pricewatch.Hardware) {
			base := decimal.NewFromFloat(g.price * (1.05 + 0.02*float64(v))).Round(4)
			add := func(o pricewatch.Offer) {
				o.Provider, o.Region, o.InstanceType, o.Currency, o.Hardware = c.provider, region, typ, "USD", hw
				if o.OS == "" {
					o.OS = pricewatch.Linux
				}
				c.add(o)
			}
			add(pricewatch.Offer{PriceType: pricewatch.OnDemand, Hourly: base})
			add(pricewatch.Offer{PriceType: pricewatch.OnDemand, OS: pricewatch.Windows, Hourly: base.Mul(decimal.NewFromFloat(1.1)).Round(4)})
			for z := 0; z < 3; z++ {
				add(pricewatch.Offer{PriceType: pricewatch.Spot, Zone: fmt.Sprintf("%s%c", region, 'a'+z), Hourly: base.Mul(decimal.NewFromFloat(0.35)).Round(4)})
			}
			for _, term := range []string{"1y", "3y"} {
				for _, pay := range []string{pricewatch.NoUpfront, pricewatch.PartialUpfront, pricewatch.AllUpfront} {
					for _, class := range []string{pricewatch.Standard, pricewatch.Convertible} {
						for _, pt := range []pricewatch.PriceType{pricewatch.Reserved, pricewatch.SavingsPlan} {
							cl := class
							if pt == pricewatch.SavingsPlan {
								cl = map[string]string{pricewatch.Standard: pricewatch.EC2InstanceSavingsPlan, pricewatch.Convertible: pricewatch.ComputeSavingsPlan}[class]
							}
							o := pricewatch.Offer{PriceType: pt, Term: term, Payment: pay, OfferingClass: cl, Hourly: base.Mul(decimal.NewFromFloat(0.6)).Round(4)}
							switch pay {
							case pricewatch.PartialUpfront:
								o.Hourly = base.Mul(decimal.NewFromFloat(0.3)).Round(4)
								o.Upfront = base.Mul(decimal.NewFromInt(2600)).Round(2)
							case pricewatch.AllUpfront:
								o.Hourly = decimal.Zero
								o.Upfront = base.Mul(decimal.NewFromInt(5000)).Round(2)
							}
							add(o)
							_ = pt
						}
					}
				}
			}
		})
	return c
}

func (c *catalogue) add(o pricewatch.Offer) {
	i := len(c.offers)
	c.offers = append(c.offers, o)
	if o.PriceType == pricewatch.Spot {
		c.spot = append(c.spot, i)
	} else {
		c.list = append(c.list, i)
		c.byRegion[o.Region] = append(c.byRegion[o.Region], i)
	}
}

// move changes the price of offer i by up to ±8 %, never to zero.
func (c *catalogue) move(rng *rand.Rand, i int) {
	o := &c.offers[i]
	f := decimal.NewFromFloat(0.92 + 0.16*rng.Float64())
	if !o.Hourly.IsZero() {
		if h := o.Hourly.Mul(f).Round(4); h.IsPositive() {
			o.Hourly = h
		}
	}
	if !o.Upfront.IsZero() {
		o.Upfront = o.Upfront.Mul(f).Round(2)
	}
}

func (c *catalogue) churn(rng *rand.Rand, idx []int, rate float64) {
	if rate <= 0 {
		return
	}
	// Geometric skipping: as many draws as changes, not as offers.
	for i := skip(rng, rate); i < len(idx); i += 1 + skip(rng, rate) {
		c.move(rng, idx[i])
	}
}

func skip(rng *rand.Rand, p float64) int {
	if p >= 1 {
		return 0
	}
	n := 0
	for rng.Float64() >= p {
		n++
		if n > 1<<20 {
			break
		}
	}
	return n
}

// Build simulates d into a new database at path.
func Build(ctx context.Context, path string, d Deployment, progress io.Writer) (*Sim, error) {
	db, err := storage.Open(ctx, path, storage.Options{})
	if err != nil {
		return nil, err
	}
	s := &Sim{DB: db, Now: Start, azure: newAzure(), aws: newAWS(), rng: rand.New(rand.NewPCG(uint64(Version), 16)), d: d}
	db.Now = func() time.Time { return s.Now }
	end := Start.Add(time.Duration(d.Share * float64(Year)))
	every := max(d.AzureEvery, time.Hour)
	began := time.Now()
	lastReport := began
	runs := 0
	for ; s.Now.Before(end); s.Now = s.Now.Add(time.Hour) {
		if err := ctx.Err(); err != nil {
			db.Close()
			return nil, err
		}
		if s.Now.Sub(Start)%every == 0 {
			if _, err := s.azureRun(ctx, true, every); err != nil {
				db.Close()
				return nil, err
			}
			runs++
		}
		if s.Now.Sub(Start)%(6*time.Hour) == 0 {
			if _, err := s.AWSRun(ctx, true); err != nil {
				db.Close()
				return nil, err
			}
			runs++
		}
		if progress != nil && time.Since(lastReport) > 10*time.Second {
			lastReport = time.Now()
			fmt.Fprintf(progress, "scalegen %s: %s of %s simulated, %d runs, %s\n", d.Name(),
				s.Now.Sub(Start).Round(time.Hour), end.Sub(Start).Round(time.Hour), runs, time.Since(began).Round(time.Second))
		}
	}
	return s, nil
}

// Open reopens a built database for more runs; the clouds' catalogues
// are read back from its current prices, so an unchanged run is unchanged.
func Open(ctx context.Context, path string, d Deployment) (*Sim, error) {
	db, err := storage.OpenURL(ctx, path, storage.Options{}) // a file, or a postgres:// copy of one
	if err != nil {
		return nil, err
	}
	s := &Sim{DB: db, azure: newAzure(), aws: newAWS(), rng: rand.New(rand.NewPCG(uint64(Version), 99)), d: d}
	db.Now = func() time.Time { return s.Now }
	for _, c := range []*catalogue{s.azure, s.aws} {
		byKey := make(map[pricewatch.OfferKey]int, len(c.offers))
		for i, o := range c.offers {
			byKey[o.Key()] = i
		}
		err := db.EachPrice(ctx, storage.PriceFilter{Providers: []string{c.provider}, CurrentOnly: true}, func(p *storage.PriceInterval) error {
			if i, ok := byKey[p.Key()]; ok {
				c.offers[i].Hourly, c.offers[i].Upfront = p.Hourly, p.Upfront
			}
			if p.LastSeen.After(s.Now) {
				s.Now = p.LastSeen
			}
			return nil
		})
		if err != nil {
			db.Close()
			return nil, err
		}
	}
	return s, nil
}

// AzureRun stores one Azure run: every offer, prices moved at the
// deployment's rates when change is true.
func (s *Sim) AzureRun(ctx context.Context, change bool) (*storage.Result, error) {
	return s.azureRun(ctx, change, time.Hour)
}

// azureRun stores an Azure run standing for every hourly run of span.
func (s *Sim) azureRun(ctx context.Context, change bool, span time.Duration) (*storage.Result, error) {
	c := s.azure
	if change {
		hours := max(1, float64(span/time.Hour))
		scaled := func(p float64) float64 { return 1 - math.Pow(1-p, hours) }
		c.churn(s.rng, c.spot, scaled(s.d.AzureSpotChangeRate))
		c.churn(s.rng, c.list, scaled(s.d.ListChangeRate))
	}
	return s.store(ctx, c, []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: true}}, nil)
}

// AWSRun stores one AWS run: the spot feed always, and the price files of
// the regions that changed; the others are skipped as unchanged.
func (s *Sim) AWSRun(ctx context.Context, change bool) (*storage.Result, error) {
	c := s.aws
	listed := []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Reserved, pricewatch.SavingsPlan}
	coverage := []pricewatch.Scope{{Region: pricewatch.AllRegions, PriceTypes: []pricewatch.PriceType{pricewatch.Spot}}}
	var unchanged []pricewatch.Scope
	offers := make([]pricewatch.Offer, 0, len(c.offers))
	for _, i := range c.spot {
		offers = append(offers, c.offers[i])
	}
	if change {
		c.churn(s.rng, c.spot, s.d.AWSSpotChangeRate)
		for i := range offers {
			offers[i] = c.offers[c.spot[i]]
		}
	}
	for _, region := range c.regions {
		if change && s.rng.Float64() < s.d.AWSRegionChangeRate {
			c.churn(s.rng, c.byRegion[region], s.d.ListChangeRate*10)
			coverage = append(coverage, pricewatch.Scope{Region: region, PriceTypes: listed, Availability: true})
			for _, i := range c.byRegion[region] {
				offers = append(offers, c.offers[i])
			}
			continue
		}
		unchanged = append(unchanged, pricewatch.Scope{Region: region, PriceTypes: listed, Availability: true})
	}
	return s.storeOffers(ctx, c, offers, coverage, unchanged)
}

func (s *Sim) store(ctx context.Context, c *catalogue, coverage, unchanged []pricewatch.Scope) (*storage.Result, error) {
	return s.storeOffers(ctx, c, c.offers, coverage, unchanged)
}

func (s *Sim) storeOffers(ctx context.Context, c *catalogue, offers []pricewatch.Offer, coverage, unchanged []pricewatch.Scope) (*storage.Result, error) {
	var avail []pricewatch.Availability
	for _, a := range c.avail {
		for _, sc := range coverage {
			if sc.CoversAvailability(a.Region) {
				avail = append(avail, a)
				break
			}
		}
	}
	snap := &pricewatch.Snapshot{Provider: c.provider, Offers: offers, Availability: avail, Coverage: coverage, Unchanged: unchanged}
	id, err := s.DB.StartRun(ctx, c.provider)
	if err != nil {
		return nil, err
	}
	if s.Started != nil {
		s.Started(ctx)
	}
	res, err := s.DB.SaveSnapshot(ctx, id, snap, storage.SaveOptions{MinOfferRatio: 0.5, Policy: alerting.NewPolicy(0, 2)})
	if err != nil {
		return nil, fmt.Errorf("simulated %s run at %s: %w", c.provider, s.Now.Format(time.RFC3339), err)
	}
	return res, nil
}

// Offers is how many offers each simulated cloud lists.
func (s *Sim) Offers() (azure, aws int) { return len(s.azure.offers), len(s.aws.offers) }

// Shares are the shares of a year named in PRICEWATCH_SCALE ("0.1,1,3"):
// the scale benchmarks run only when it is set.
func Shares() []float64 {
	var out []float64
	for _, f := range strings.Split(os.Getenv("PRICEWATCH_SCALE"), ",") {
		if v, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err == nil && v > 0 {
			out = append(out, v)
		}
	}
	return out
}

// SharesOrSkip is Shares for a scale benchmark: with none it skips tb,
// saying which setting (as "0.25") runs what.
func SharesOrSkip(tb testing.TB, setting, what string) []float64 {
	tb.Helper()
	shares := Shares()
	if len(shares) == 0 {
		tb.Skip("set PRICEWATCH_SCALE=" + setting + " to run " + what)
	}
	return shares
}

// BusiestType is the simulated instance type with the most intervals
// (AWS spot in every zone of every region), for history benchmarks.
const BusiestType = "p4.H100x8"

// BusiestRegion is one region of BusiestType.
const BusiestRegion = "awsregion-00"
