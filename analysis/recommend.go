package analysis

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/gpu"
)

// RecommendOptions state the question: how many GPUs of which model, at
// what utilisation, over what horizon, in which currency.
type RecommendOptions struct {
	// GPU is a model or family ("A100" covers A100-40GB and A100-80GB).
	GPU string
	// Count is the number of GPUs needed at once.
	Count int
	// Utilization is the share of the horizon's hours the GPUs are busy.
	Utilization decimal.Decimal
	// Horizon is how long the capacity is needed: "3y", "18m", "1y".
	Horizon string
	// Currency the answer is given in; FX and At convert to it.
	Currency string
	FX       Converter
	At       time.Time
	// Providers and Regions to consider; empty means all.
	Providers, Regions []string
	// OS: "" means Linux, "any" every OS.
	OS string
	// IncludeSpot adds spot prices; they are left out by default because
	// spot capacity can be taken back at any time. Included, each is
	// costed with its band's expected-interruption overhead (spotrisk.go).
	IncludeSpot bool
	// SpotBand is a spot offer's AWS Spot Advisor interruption band, ""
	// when none is stored; nil knows none.
	SpotBand func(pricewatch.Offer) string
	// Seller keeps the clouds' own offers, marketplace hosts' or both.
	Seller Seller
	// Hardware bounds each machine and its converted price (per instance-
	// or GPU-hour, before any interruption overhead).
	Hardware HardwareFilter
	// Hosts is how many machines the job may be spread over (issue 31
	// item 1). 0 (not asked): one machine that holds the job, or several
	// only when the cloud states their interconnect, so that a job is
	// never silently split over single-GPU hosts; with Seller
	// marketplace, marketplace hosts as they are. K: at most K machines,
	// as they are (the answer says when no interconnect is stated).
	Hosts int
	// CapacityBlocks are the current capacity block offerings (signals of
	// kind capacity_block): those of the GPU that fit the question are
	// offered beside the options.
	CapacityBlocks []pricewatch.Signal
}

// Option is one way to get the GPUs for the horizon: a number of instances
// of one type, bought on one price type and term, kept for the horizon.
type Option struct {
	Rank int `json:"rank"`
	pricewatch.OfferKeyJSON
	GPUModel        string  `json:"gpu_model"`
	GPUsPerInstance float64 `json:"gpus_per_instance"`
	Instances       int     `json:"instances"`
	Currency        string  `json:"currency"`
	// Terms is how many consecutive terms are bought to cover the horizon
	// at today's price (0 for pay-as-you-go); CommittedHours their length,
	// which may run past the horizon.
	Terms          int   `json:"terms"`
	CommittedHours int64 `json:"committed_hours"`
	// FixedCost is paid whatever the use (commitments); VariableCost is the
	// pay-as-you-go cost if the GPUs ran every hour of the horizon. The
	// cost at utilisation u is FixedCost + VariableCost × u.
	FixedCost    decimal.Decimal `json:"fixed_cost"`
	VariableCost decimal.Decimal `json:"variable_cost_at_full_use"`
	// TotalCost is the cost over the horizon at the utilisation asked.
	TotalCost decimal.Decimal `json:"total_cost"`
	// CostPerGPUHour is TotalCost per GPU-hour actually used (Count GPUs ×
	// horizon hours × utilisation).
	CostPerGPUHour decimal.Decimal `json:"cost_per_gpu_hour_used"`
	// EffectiveHourly is one instance's effective hourly price.
	EffectiveHourly decimal.Decimal `json:"effective_hourly"`
	// BreakEvenUtilization compares a commitment with on-demand for the same
	// machine in the same place over the commitment's term; null for
	// pay-as-you-go options or when no on-demand price is stored.
	BreakEvenUtilization decimal.NullDecimal `json:"break_even_utilization"`
	Interruptible        bool                `json:"interruptible"`
	// InterruptionBand is a spot option's band ("" none stored) and
	// InterruptionOverhead the share its variable cost was raised by for
	// the work interruptions lose (spot options only).
	InterruptionBand     string              `json:"interruption_band,omitempty"`
	InterruptionOverhead decimal.NullDecimal `json:"interruption_overhead"`
	// Marketplace: third-party hosts sell it (clouds.IsMarketplace).
	Marketplace    bool   `json:"marketplace"`
	Available      *bool  `json:"available"`
	Availability   string `json:"availability"`
	NativeCurrency string `json:"native_currency"`
	FXUsed
	FXError string `json:"fx_error,omitempty"`

	Offer pricewatch.Offer `json:"-"`
}

// CostAt is the option's cost over the horizon at utilisation u.
func (o Option) CostAt(u decimal.Decimal) decimal.Decimal {
	return o.FixedCost.Add(o.VariableCost.Mul(u))
}

// Label names the option in one line: "2 × azure eastus Standard_NC96ads_A100_v4 on_demand",
// "1 × alibaba cn-hangzhou ecs.ebmgn7e.32xlarge reserved 3y all_upfront".
func (o Option) Label() string {
	place := o.Region
	if o.Zone != "" {
		place = o.Zone
	}
	parts := []string{fmt.Sprintf("%d × %s %s %s %s", o.Instances, o.Provider, place, o.InstanceType, o.PriceType)}
	for _, p := range []string{o.Term, o.Payment, o.OfferingClass} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}

// Crossover is a utilisation at which another option becomes the cheapest.
type Crossover struct {
	Utilization decimal.Decimal
	// Option is the one that wins beyond Utilization.
	Option Option
	// Below is true when Option wins below Utilization, false above it.
	Below bool
}

// Recommendation answers the question with its reasoning.
type Recommendation struct {
	GPU          string
	Models       []string // the GPU models the options use
	Count        int
	Utilization  decimal.Decimal
	Horizon      string
	HorizonHours int64
	Currency     string
	// Options are cheapest first at the utilisation asked.
	Options []Option
	// Best indexes Options (-1 when nothing can be recommended): the
	// cheapest option not known to be sold out, of either seller.
	Best int
	// BestCloud and BestMarketplace index the cheapest option not known
	// to be sold out of the clouds' own capacity and of marketplace hosts
	// (-1: none), which answers show side by side rather than one mixed
	// winner (issue 31 item 1).
	BestCloud, BestMarketplace int
	// Unconverted are options without an exchange rate into Currency:
	// listed, never ranked.
	Unconverted []Option
	Skipped     []Skipped
	// Blocks are the capacity blocks that fit the question, cheapest per
	// GPU-hour first; UnconvertedBlocks those without an exchange rate.
	// They are offered beside the options, never ranked with them: a block
	// starts when its window does, not now.
	Blocks, UnconvertedBlocks []BlockOption
	// HighBandLeftOut counts spot options left out for a >20% band over a
	// long horizon.
	HighBandLeftOut int
	// HardwareLeftOut counts offers left out by the hardware bounds;
	// PriceLeftOut those over the price bound.
	HardwareLeftOut, PriceLeftOut int
	// TooFewGPUs counts offers whose machines would need more hosts than
	// --hosts allows; LargestMachine is the most GPUs of any machine
	// considered;
	// NoInterconnect those that would need several machines (at most
	// NoInterconnectHosts) but state no interconnect between them.
	TooFewGPUs          int
	LargestMachine      float64
	NoInterconnect      int
	NoInterconnectHosts int
	// Hosts is --hosts: the most machines an option may use (0: see
	// RecommendOptions.Hosts).
	Hosts int
	// StaleRates is set when any ranked option was converted with a stale rate.
	StaleRates bool
	// Lower and Upper are the nearest utilisations, below and above the
	// one asked, at which another option becomes cheapest (nil: none in (0, 1]).
	Lower, Upper *Crossover
	// Reasons explain the answer; Changes say what would change it.
	Reasons []string
	Changes []string
}

// BestOption returns the recommended option.
func (r Recommendation) BestOption() (Option, bool) {
	if r.Best < 0 || r.Best >= len(r.Options) {
		return Option{}, false
	}
	return r.Options[r.Best], true
}

// Recommend answers "which cloud and which commitment" for Count GPUs of a
// model at a utilisation over a horizon, from the current offers of every
// cloud. avail are the current availability records.
func Recommend(offers []pricewatch.Offer, avail []pricewatch.Availability, opts RecommendOptions) (Recommendation, error) {
	if strings.TrimSpace(opts.GPU) == "" {
		return Recommendation{}, errors.New("recommend: a GPU model is needed (e.g. A100, H100)")
	}
	if opts.Count <= 0 {
		return Recommendation{}, fmt.Errorf("recommend: GPU count %d: want at least 1", opts.Count)
	}
	if err := checkUtilization(opts.Utilization); err != nil {
		return Recommendation{}, fmt.Errorf("recommend: %w", err)
	}
	// A horizon is a term: days (the capacity blocks' lengths), months or years.
	horizon, err := pricewatch.TermHours(opts.Horizon)
	if err != nil {
		return Recommendation{}, fmt.Errorf("recommend: horizon: %w", err)
	}
	if opts.Currency == "" {
		return Recommendation{}, errors.New("recommend: a currency is needed to compare clouds")
	}
	rec := Recommendation{GPU: opts.GPU, Count: opts.Count, Utilization: opts.Utilization, Horizon: opts.Horizon,
		HorizonHours: horizon, Currency: strings.ToUpper(opts.Currency), Best: -1, BestCloud: -1, BestMarketplace: -1, Hosts: opts.Hosts}

	var cands []pricewatch.Offer
	models := map[string]bool{}
	spotLeftOut, fractional := 0, 0
	band := func(o pricewatch.Offer) string {
		if opts.SpotBand == nil || o.PriceType != pricewatch.Spot {
			return ""
		}
		return opts.SpotBand(o)
	}
	for _, o := range offers {
		if !gpu.Matches(opts.GPU, o.GPUModel) || !inSet(opts.Providers, o.Provider) || !inSet(opts.Regions, o.Region) || !osMatches(opts.OS, o.OS) {
			continue
		}
		if o.PriceType == pricewatch.CapacityBlockPrice {
			// A block is one window of fixed days from a fixed start, not a
			// rate to run for any horizon: it is offered apart, from its
			// signal (CapacityBlocks), never ranked with the options.
			continue
		}
		if o.PriceType == pricewatch.Spot && !opts.IncludeSpot {
			spotLeftOut++
			continue
		}
		if o.PriceType == pricewatch.Spot && horizon >= LongHorizonHours && band(o) == highBand {
			rec.HighBandLeftOut++
			continue
		}
		if o.GPUCount < 1 {
			// A slice of a GPU cannot be stacked into whole GPUs for one job.
			fractional++
			continue
		}
		if !opts.Seller.KeepsOffer(o.Provider, o.OfferingClass) {
			continue
		}
		if !opts.Hardware.KeepsMachine(o.Hardware) {
			rec.HardwareLeftOut++
			continue
		}
		rec.LargestMachine = max(rec.LargestMachine, o.GPUCount)
		if n := machines(opts.Count, o.GPUCount); n > 1 {
			switch {
			case opts.Hosts > 0 && n > opts.Hosts:
				rec.TooFewGPUs++
				continue
			case opts.Hosts == 0 && o.Interconnect == "" && opts.Seller != SellerMarketplace:
				rec.NoInterconnect++
				rec.NoInterconnectHosts = max(rec.NoInterconnectHosts, n)
				continue
			}
		}
		cands = append(cands, o)
	}
	rec.Options, rec.Unconverted, rec.Skipped = buildOptions(cands, offers, avail, opts, horizon)
	rec.Options, rec.Unconverted, rec.PriceLeftOut = withinPrice(rec.Options, rec.Unconverted, opts.Hardware)
	for _, o := range rec.Options {
		models[o.GPUModel] = true
		rec.StaleRates = rec.StaleRates || o.FXStale
	}
	rec.Models = SortedKeys(models)
	rec.Blocks, rec.UnconvertedBlocks = blockOptions(opts.CapacityBlocks, opts, horizon)
	for i, o := range rec.Options {
		if o.Available != nil && !*o.Available {
			continue
		}
		if rec.Best < 0 {
			rec.Best = i
		}
		if o.Marketplace && rec.BestMarketplace < 0 {
			rec.BestMarketplace = i
		} else if !o.Marketplace && rec.BestCloud < 0 {
			rec.BestCloud = i
		}
	}
	if best, ok := rec.BestOption(); ok {
		rec.Lower, rec.Upper = crossovers(rec.Options, best, opts.Utilization)
	}
	rec.explain(opts, spotLeftOut, fractional, cands, offers, avail)
	return rec, nil
}

// buildOptions prices every candidate for the horizon, cheapest first.
func buildOptions(cands, all []pricewatch.Offer, avail []pricewatch.Availability, opts RecommendOptions, horizon int64) (ranked, unconverted []Option, skipped []Skipped) {
	h := decimal.NewFromInt(horizon)
	onDemand := NewOnDemandIndex(all)
	places := indexAvailability(avail)
	for _, o := range cands {
		op := Option{
			OfferKeyJSON: o.Key().JSON(),
			GPUModel:     o.GPUModel, GPUsPerInstance: o.GPUCount, NativeCurrency: o.Currency,
			Interruptible: o.PriceType == pricewatch.Spot, Offer: o,
			Marketplace: clouds.IsMarketplace(o.Provider, o.OfferingClass),
		}
		op.Instances = machines(opts.Count, o.GPUCount)
		n := decimal.NewFromInt(int64(op.Instances))
		op.Available, op.Availability = places.of(o)
		eff, err := o.EffectiveHourly()
		if err != nil {
			skipped = append(skipped, Skipped{o, err.Error()})
			continue
		}
		var fixed, variable decimal.Decimal
		if o.PriceType.IsCommitment() {
			termHours, err := pricewatch.TermHours(o.Term)
			if err != nil {
				skipped = append(skipped, Skipped{o, err.Error()})
				continue
			}
			// Whole terms, renewed at today's price, until the horizon is covered.
			op.Terms = int((horizon + termHours - 1) / termHours)
			op.CommittedHours = int64(op.Terms) * termHours
			termCost := o.Upfront.Add(o.Hourly.Mul(decimal.NewFromInt(termHours)))
			fixed = termCost.Mul(decimal.NewFromInt(int64(op.Terms))).Mul(n)
			variable = decimal.Zero
			if od, ok := onDemand.Match(o); ok {
				if s, err := CompareCommitment(o, od, one); err == nil {
					op.BreakEvenUtilization = decimal.NewNullDecimal(s.BreakEvenUtilization)
				}
			}
		} else {
			fixed = decimal.Zero
			variable = o.Hourly.Mul(h).Mul(n)
			if op.Interruptible {
				if opts.SpotBand != nil {
					op.InterruptionBand = opts.SpotBand(o)
				}
				over := InterruptionOverhead(op.InterruptionBand)
				op.InterruptionOverhead = decimal.NewNullDecimal(over)
				variable = variable.Mul(one.Add(over))
			}
		}
		q, err := quote(opts.FX, o.Currency, opts.Currency, opts.At)
		if err != nil {
			op.FXError = err.Error()
			op.Currency = o.Currency
			op.FixedCost, op.VariableCost, op.EffectiveHourly = fixed, variable, eff
			unconverted = append(unconverted, op)
			continue
		}
		op.Currency = q.To
		op.FXUsed = fxUsed(q)
		op.FixedCost = q.Convert(fixed)
		op.VariableCost = q.Convert(variable)
		op.EffectiveHourly = q.Convert(eff)
		op.TotalCost = op.CostAt(opts.Utilization).Round(RateDecimals)
		used := decimal.NewFromInt(int64(opts.Count)).Mul(h).Mul(opts.Utilization)
		op.CostPerGPUHour = op.TotalCost.DivRound(used, RateDecimals)
		ranked = append(ranked, op)
	}
	sort.SliceStable(ranked, func(i, j int) bool {
		if c := ranked[i].TotalCost.Cmp(ranked[j].TotalCost); c != 0 {
			return c < 0
		}
		return keyLess(ranked[i].Offer.Key(), ranked[j].Offer.Key())
	})
	for i := range ranked {
		ranked[i].Rank = i + 1
	}
	sort.SliceStable(unconverted, func(i, j int) bool { return keyLess(unconverted[i].Offer.Key(), unconverted[j].Offer.Key()) })
	return ranked, unconverted, skipped
}

// machines is how many machines of gpus GPUs each hold count GPUs.
func machines(count int, gpus float64) int {
	return int(math.Ceil(float64(count)/gpus - 1e-9))
}

// withinPrice keeps the options whose instance price is within the
// hardware filter's price bound, renumbering the ranks; unconverted
// options cannot be checked against a bound in Currency and are left out
// by one. left counts what was left out.
func withinPrice(ranked, unconverted []Option, f HardwareFilter) (keptRanked, keptUnconverted []Option, left int) {
	if !f.MaxPrice.Valid {
		return ranked, unconverted, 0
	}
	for _, o := range ranked {
		perGPU, _ := pricewatch.PerGPUHour(o.EffectiveHourly, o.GPUsPerInstance)
		if !f.KeepsPrice(o.EffectiveHourly, perGPU) {
			left++
			continue
		}
		o.Rank = len(keptRanked) + 1
		keptRanked = append(keptRanked, o)
	}
	return keptRanked, nil, left + len(unconverted)
}

// crossovers finds, for the best option's cost line F_B + V_B·u, the
// nearest utilisations below and above u where another (not sold-out)
// option's line crosses it. Going down from u, the first line to cross is
// the new cheapest; likewise going up.
func crossovers(options []Option, best Option, u decimal.Decimal) (lower, upper *Crossover) {
	for _, a := range options {
		if a.Offer.Key() == best.Offer.Key() || (a.Available != nil && !*a.Available) {
			continue
		}
		dv := a.VariableCost.Sub(best.VariableCost)
		if dv.IsZero() {
			continue // parallel lines never cross
		}
		// F_A + V_A·x = F_B + V_B·x  ⇔  x = (F_B − F_A) / (V_A − V_B)
		x := best.FixedCost.Sub(a.FixedCost).DivRound(dv, ShareDecimals)
		if !x.IsPositive() || x.GreaterThan(one) {
			continue
		}
		if dv.IsPositive() && x.LessThanOrEqual(u) {
			// a costs more per unit of use: it wins below x.
			if lower == nil || x.GreaterThan(lower.Utilization) {
				lower = &Crossover{Utilization: x, Option: a, Below: true}
			}
		} else if dv.IsNegative() && x.GreaterThanOrEqual(u) {
			if upper == nil || x.LessThan(upper.Utilization) {
				upper = &Crossover{Utilization: x, Option: a}
			}
		}
	}
	return lower, upper
}

// explain writes the reasoning and what would change the answer.
func (r *Recommendation) explain(opts RecommendOptions, spotLeftOut, fractional int, cands, all []pricewatch.Offer, avail []pricewatch.Availability) {
	models := strings.Join(r.Models, ", ")
	if models == "" {
		models = "none found"
	}
	r.Reasons = append(r.Reasons, fmt.Sprintf("Compared %s for %d × %s GPUs (%s) over %s at %s utilisation, costs in %s.",
		count(len(r.Options), "option"), r.Count, r.GPU, models, r.Horizon, percent(r.Utilization), r.Currency))
	if spotLeftOut > 0 {
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s left out: spot capacity can be taken back at any time.", count(spotLeftOut, "spot price")))
	}
	if opts.IncludeSpot {
		r.Reasons = append(r.Reasons, "Spot prices are raised by an expected-interruption overhead: the upper bound of the interruption band (5% for <5% … 20% for 15-20%), 25% for >20% or where no band is stored.")
	}
	if r.HighBandLeftOut > 0 {
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s left out: interrupted more than 20%% of the time, too often for a %s horizon.", count(r.HighBandLeftOut, "spot price"), r.Horizon))
	}
	if fractional > 0 {
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s left out: slices of a GPU do not add up to whole GPUs.", count(fractional, "fractional-GPU offer")))
	}
	if opts.Seller == SellerCloud {
		r.Reasons = append(r.Reasons, "Only the clouds' own capacity (--seller cloud): marketplace hosts are left out.")
	} else if opts.Seller == SellerMarketplace {
		r.Reasons = append(r.Reasons, "Only marketplace hosts' machines (--seller marketplace).")
	}
	if r.HardwareLeftOut > 0 {
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s left out by the hardware bounds.", count(r.HardwareLeftOut, "offer")))
	}
	if r.PriceLeftOut > 0 {
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s left out by the price bound.", count(r.PriceLeftOut, "option")))
	}
	if r.TooFewGPUs > 0 {
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s left out: %d GPUs do not fit on %s of theirs (the largest machine has %s).",
			count(r.TooFewGPUs, "offer"), r.Count, hostsText(r.Hosts), gpusText(r.LargestMachine)))
	}
	if r.NoInterconnect > 0 {
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s left out: the job would be split over up to %d machines whose cloud states no interconnect between them (--hosts %d allows it).",
			count(r.NoInterconnect, "offer"), r.NoInterconnectHosts, r.NoInterconnectHosts))
	}
	if r.Hosts > 1 {
		for _, o := range r.Options {
			if o.Instances > 1 && o.Offer.Interconnect == "" {
				r.Reasons = append(r.Reasons, fmt.Sprintf("Options of several machines are allowed (--hosts %d); those whose cloud states no interconnect say nothing of how fast the machines talk.", r.Hosts))
				break
			}
		}
	}
	if len(r.Unconverted) > 0 {
		cur := map[string]bool{}
		for _, o := range r.Unconverted {
			cur[o.NativeCurrency] = true
		}
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s not compared: no exchange rate from %s to %s.",
			count(len(r.Unconverted), "option"), strings.Join(SortedKeys(cur), ", "), r.Currency))
	}
	r.explainBlocks()
	best, ok := r.BestOption()
	if !ok {
		if len(r.Options) > 0 {
			r.Reasons = append(r.Reasons, "Every priced option is sold out where it is priced.")
		} else {
			r.Reasons = append(r.Reasons, "No stored price matches the question.")
		}
		return
	}
	if r.Best > 0 {
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s sold out where priced, starting with %s.", count(r.Best, "cheaper option"), r.Options[0].Label()))
	}
	r.Reasons = append(r.Reasons, fmt.Sprintf("Cheapest: %s, %s over %s (%s per GPU-hour used).",
		best.Label(), money(best.TotalCost, r.Currency), r.Horizon, money(best.CostPerGPUHour, r.Currency)))
	if best.PriceType.IsCommitment() {
		r.Reasons = append(r.Reasons, fmt.Sprintf("It is paid for every hour whether used or not: %d × %s term, %s committed.",
			best.Terms, best.Term, hoursText(best.CommittedHours)))
		if best.CommittedHours > r.HorizonHours {
			r.Reasons = append(r.Reasons, fmt.Sprintf("The commitment runs %s past the %s horizon; that time is paid for too.",
				hoursText(best.CommittedHours-r.HorizonHours), r.Horizon))
		}
		if best.BreakEvenUtilization.Valid {
			r.Reasons = append(r.Reasons, fmt.Sprintf("Against on-demand for the same machine it breaks even at %s utilisation; %s is planned.",
				percent(best.BreakEvenUtilization.Decimal), percent(r.Utilization)))
		}
	} else if best.Interruptible {
		band := best.InterruptionBand
		if band == "" {
			band = "none stored"
		}
		r.Reasons = append(r.Reasons, fmt.Sprintf("It is spot capacity: it can be interrupted and its price moves (interruption band %s, costed with %s overhead).",
			band, percent(best.InterruptionOverhead.Decimal)))
	}
	if best.Marketplace {
		r.Reasons = append(r.Reasons, r.marketplaceNote(best))
	} else if r.BestMarketplace >= 0 {
		m := r.Options[r.BestMarketplace]
		r.Reasons = append(r.Reasons, fmt.Sprintf("The cheapest marketplace option, beside it: %s on %s, %s (%s per GPU-hour used), on the marketplace's terms.",
			m.Label(), clouds.MarketplaceName(m.Provider, m.OfferingClass), money(m.TotalCost, r.Currency), money(m.CostPerGPUHour, r.Currency)))
	}
	var runner *Option
	for i := range r.Options {
		if i != r.Best && (r.Options[i].Available == nil || *r.Options[i].Available) {
			runner = &r.Options[i]
			break
		}
	}
	if runner != nil {
		gap := runner.TotalCost.Sub(best.TotalCost)
		r.Reasons = append(r.Reasons, fmt.Sprintf("Next: %s, %s (%s more).", runner.Label(), money(runner.TotalCost, r.Currency), money(gap, r.Currency)))
	}
	rates := map[string]bool{}
	for _, o := range []*Option{&best, runner} {
		if o == nil || o.FXSource == fx.SourceIdentity || o.FXSource == "" {
			continue
		}
		s := fmt.Sprintf("%s converted at 1 %s = %s %s (%s", o.NativeCurrency, o.NativeCurrency, o.FXRate, r.Currency, o.FXSource)
		if o.FXDate != "" {
			s += " " + o.FXDate
		}
		if o.FXStale {
			s += "; STALE: older than the configured maximum age"
		}
		rates[s+")."] = true
	}
	r.Reasons = append(r.Reasons, SortedKeys(rates)...)

	if r.Lower != nil {
		r.Changes = append(r.Changes, fmt.Sprintf("Below %s utilisation, %s would be cheapest.", percent(r.Lower.Utilization), r.Lower.Option.Label()))
	}
	if r.Upper != nil {
		r.Changes = append(r.Changes, fmt.Sprintf("Above %s utilisation, %s would be cheapest.", percent(r.Upper.Utilization), r.Upper.Option.Label()))
	}
	if runner != nil && runner.TotalCost.IsPositive() {
		gapPct := runner.TotalCost.Sub(best.TotalCost).DivRound(runner.TotalCost, divDecimals).Mul(hundred).Round(2)
		s := fmt.Sprintf("%s would be cheapest if its price fell by more than %s%%", runner.Label(), gapPct.StringFixed(2))
		if runner.NativeCurrency != best.NativeCurrency && best.TotalCost.IsPositive() {
			// Converted into the same currency, a move of the best option's
			// currency against the runner-up's scales only the best's cost.
			rise := runner.TotalCost.DivRound(best.TotalCost, divDecimals).Sub(one).Mul(hundred).Round(2)
			s += fmt.Sprintf(", or if %s gained more than %s%% against %s", best.NativeCurrency, rise.StringFixed(2), runner.NativeCurrency)
		}
		r.Changes = append(r.Changes, s+".")
	}
	// The same question over the other usual horizons.
	for _, alt := range []string{"1y", "3y"} {
		hh, _ := pricewatch.TermHours(alt)
		if hh == r.HorizonHours {
			continue
		}
		altOpts := opts
		altOpts.Horizon = alt
		ranked, _, _ := buildOptions(cands, all, avail, altOpts, hh)
		for _, o := range ranked {
			if o.Available != nil && !*o.Available {
				continue
			}
			if o.Interruptible && hh >= LongHorizonHours && o.InterruptionBand == highBand {
				continue // left out over a long horizon, as asked directly
			}
			if o.Offer.Key() != best.Offer.Key() {
				r.Changes = append(r.Changes, fmt.Sprintf("Over %s instead of %s, %s would be cheapest (%s).", alt, r.Horizon, o.Label(), money(o.TotalCost, r.Currency)))
			}
			break
		}
	}
}

// hostsText is "one machine" or "up to 3 machines".
func hostsText(n int) string {
	if n <= 1 {
		return "one machine"
	}
	return fmt.Sprintf("up to %d machines", n)
}

// gpusText is "8 GPUs", "1 GPU".
func gpusText(n float64) string {
	if n == 1 {
		return "1 GPU"
	}
	return strconv.FormatFloat(n, 'f', -1, 64) + " GPUs"
}

// count prints "1 option", "3 options".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// percent prints a share as a percentage with up to two decimals: 0.6 → "60%".
func percent(share decimal.Decimal) string {
	return share.Mul(hundred).Round(2).String() + "%"
}

// money prints an amount with two decimals and thousands separators.
func money(d decimal.Decimal, currency string) string {
	return pricewatch.FormatAmount(d) + " " + currency
}

// hoursText prints billed hours as years or months where they divide evenly.
func hoursText(h int64) string {
	switch {
	case h%pricewatch.HoursPerYear == 0:
		return fmt.Sprintf("%dy", h/pricewatch.HoursPerYear)
	case h%pricewatch.HoursPerMonth == 0:
		return fmt.Sprintf("%dm", h/pricewatch.HoursPerMonth)
	}
	return fmt.Sprintf("%dh", h)
}

// marketplaceNote keeps the difference between a marketplace and a cloud
// visible: the cheapest option is a third-party host's machine, worth taking
// only on the marketplace's terms; the cheapest cloud option is named too.
func (r *Recommendation) marketplaceNote(best Option) string {
	note := fmt.Sprintf("It is a marketplace offer from a third-party host: on %s at %s per GPU-hour, if interruptions and the marketplace terms are acceptable.",
		clouds.MarketplaceName(best.Provider, best.OfferingClass), money(best.CostPerGPUHour, r.Currency))
	if r.BestCloud >= 0 {
		o := r.Options[r.BestCloud]
		note += fmt.Sprintf(" The cheapest cloud option is %s at %s per GPU-hour.", o.Label(), money(o.CostPerGPUHour, r.Currency))
	}
	return note
}

// explainBlocks names the cheapest capacity block that fits, if any: the
// one way to have the GPUs for certain, for its window.
func (r *Recommendation) explainBlocks() {
	if len(r.Blocks) == 0 {
		return
	}
	b := r.Blocks[0]
	s := fmt.Sprintf("A capacity block fits the horizon: %s at %s per GPU-hour (%s upfront for the window, paid whatever the use)",
		b.Label(), money(b.PerGPUHour, r.Currency), money(b.Fee, r.Currency))
	if len(r.Blocks) > 1 {
		s += fmt.Sprintf("; %s in all", count(len(r.Blocks), "block"))
	}
	r.Reasons = append(r.Reasons, s+".")
}
