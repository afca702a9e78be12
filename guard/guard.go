// Package guard holds back implausible prices between fetch and store, the
// same way for every cloud.
//
// Clouds publish placeholder rows (0.01 USD an hour for an eight-GPU H200
// beside its real 106.0), fields misread as prices and half-finished price
// lists. Stored as current, such a price would top every ranking and alert
// as a 99.99% drop. The guard compares each new price with what the same
// GPU costs and holds a price that is far outside it: the price does not
// become current (the stored one stays current), nothing alerts, and the
// run counts it. A held price that keeps coming back unchanged in
// guard.accept_after_runs consecutive complete runs is what the cloud
// really charges, and is accepted then.
//
// A price is held when, per GPU-hour (effective hourly over the GPU count):
//   - it is below guard.floor_per_gpu_hour for its currency, or
//   - it is at most 1/guard.implausible_ratio of the offer's own stored
//     price and of every other current offer of the same GPU model, price
//     type and operating system in the same currency (at least one such
//     price must exist), or
//   - it is a commitment (reserved, savings plan) whose effective hourly is
//     below guard.commitment_min_fraction of the same offer's on-demand
//     price (same provider, place, type, OS and currency; this run's
//     on-demand price, else the stored one): Alibaba's 1-year TradePrice
//     that is really one month's price reads as 1/12 of on-demand and would
//     rank cheapest everywhere.
//
// Prices are compared only within one currency, so no exchange rate (which
// may be missing or stale) decides whether a price is stored. A price that
// equals the offer's stored one is never held: it is already current.
package guard

import (
	"context"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/storage"
)

// Store is what the guard reads: the stored current prices (of the
// provider's offers, and of the other offers of one GPU model and price
// type) and the streaks of prices held before. *storage.DB implements it.
type Store interface {
	Prices(ctx context.Context, f storage.PriceFilter) ([]storage.PriceInterval, error)
	HeldStreaks(ctx context.Context, provider string) (map[pricewatch.OfferKey]storage.HeldStreak, error)
}

// Guard judges snapshots against stored prices.
type Guard struct {
	enabled bool
	ratio   decimal.Decimal
	floors  map[string]decimal.Decimal
	accept  int
	// commitFraction is guard.commitment_min_fraction (0: off).
	commitFraction decimal.Decimal
	log            *zap.Logger
}

// Config is the guard section of the config (guard.* keys), as the
// composition hands it over: the guard reads no config itself.
type Config struct {
	// Enabled turns the guard on.
	Enabled bool
	// ImplausibleRatio: a price per GPU-hour at or below 1/ratio of the
	// offer's own stored price and of every other current offer of the
	// same GPU model and price type (same currency) is held; 0 turns the
	// comparison off.
	ImplausibleRatio float64
	// FloorPerGPUHour: per currency, a price per GPU-hour below this is
	// held. A currency without a floor has none.
	FloorPerGPUHour map[string]float64
	// AcceptAfterRuns: a held price that comes back unchanged in this many
	// consecutive complete runs is accepted in the last of them.
	AcceptAfterRuns int
	// CommitmentMinFraction: a reservation or savings plan whose effective
	// hourly is below this fraction of the same offer's on-demand price is
	// held; 0 turns the test off.
	CommitmentMinFraction float64
}

// New builds a guard from the guard section of the config. A nil log
// discards logging.
func New(cfg Config, log *zap.Logger) (*Guard, error) {
	if log == nil {
		log = zap.NewNop()
	}
	if cfg.AcceptAfterRuns < 1 {
		return nil, fmt.Errorf("guard.accept_after_runs must be at least 1")
	}
	if cfg.ImplausibleRatio != 0 && cfg.ImplausibleRatio <= 1 {
		return nil, fmt.Errorf("guard.implausible_ratio must be greater than 1, or 0")
	}
	if cfg.CommitmentMinFraction < 0 || cfg.CommitmentMinFraction >= 1 {
		return nil, fmt.Errorf("guard.commitment_min_fraction must be at least 0 and below 1")
	}
	g := &Guard{enabled: cfg.Enabled, ratio: decimal.NewFromFloat(cfg.ImplausibleRatio), floors: map[string]decimal.Decimal{},
		accept: cfg.AcceptAfterRuns, commitFraction: decimal.NewFromFloat(cfg.CommitmentMinFraction), log: log}
	for cur, f := range cfg.FloorPerGPUHour {
		if f > 0 {
			g.floors[strings.ToUpper(cur)] = decimal.NewFromFloat(f)
		}
	}
	return g, nil
}

type peerKey struct {
	model string
	pt    pricewatch.PriceType
	os    string
}

// Check returns the prices of snap to hold (and the held prices accepted
// now, marked Accepted), for storage.SaveOptions.Held. It changes nothing.
func (g *Guard) Check(ctx context.Context, store Store, snap *pricewatch.Snapshot) ([]storage.HeldPrice, error) {
	if g == nil || !g.enabled || len(snap.Offers) == 0 {
		return nil, nil
	}
	own, err := store.Prices(ctx, storage.PriceFilter{Providers: []string{snap.Provider}, CurrentOnly: true})
	if err != nil {
		return nil, fmt.Errorf("guard: reading stored %s prices: %w", snap.Provider, err)
	}
	stored := make(map[pricewatch.OfferKey]storage.PriceInterval, len(own))
	for _, p := range own {
		stored[p.Key()] = p
	}
	streaks, err := store.HeldStreaks(ctx, snap.Provider)
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	peerCache := map[peerKey][]storage.PriceInterval{}
	peersOf := func(o pricewatch.Offer) ([]storage.PriceInterval, error) {
		k := peerKey{strings.ToUpper(o.GPUModel), o.PriceType, o.OS}
		if ps, ok := peerCache[k]; ok {
			return ps, nil
		}
		ps, err := store.Prices(ctx, storage.PriceFilter{GPUModel: o.GPUModel, PriceTypes: []pricewatch.PriceType{o.PriceType}, OS: o.OS, CurrentOnly: true})
		if err != nil {
			return nil, fmt.Errorf("guard: reading current %s %s prices: %w", o.GPUModel, o.PriceType, err)
		}
		peerCache[k] = ps
		return ps, nil
	}

	// This run's on-demand prices, for the commitment test.
	onDemand := map[pricewatch.OfferKey]pricewatch.Offer{}
	for _, o := range snap.Offers {
		if o.PriceType == pricewatch.OnDemand {
			onDemand[o.Key()] = o
		}
	}

	var out []storage.HeldPrice
	for _, o := range snap.Offers {
		key := o.Key()
		cur, hasCur := stored[key]
		if hasCur && cur.Currency == o.Currency && cur.Hourly.Equal(o.Hourly) && cur.Upfront.Equal(o.Upfront) {
			continue
		}
		eff, err := o.EffectiveHourly()
		if err != nil {
			return nil, fmt.Errorf("guard: offer %s: %w", key, err)
		}
		h := storage.HeldPrice{Offer: o}
		if hasCur && cur.Currency == o.Currency {
			h.Stored = decimal.NewNullDecimal(cur.EffectiveHourly)
		}
		perGPU, countKnown := pricewatch.PerGPUHour(eff, o.GPUCount)
		if floor, ok := g.floors[strings.ToUpper(o.Currency)]; ok && countKnown && perGPU.LessThan(floor) {
			h.Reason = storage.HeldBelowFloor
			h.Detail = fmt.Sprintf("%s %s per GPU-hour is below the floor of %s (guard.floor_per_gpu_hour.%s)", perGPU, o.Currency, floor, o.Currency)
		} else if g.ratio.IsPositive() {
			var peers []storage.PriceInterval
			if countKnown && strings.TrimSpace(o.GPUModel) != "" {
				if peers, err = peersOf(o); err != nil {
					return nil, err
				}
			}
			if detail, tiny := g.tiny(o, eff, perGPU, countKnown, h.Stored, peers); tiny {
				h.Reason, h.Detail = storage.HeldFractionOfPrice, detail
			}
		}
		if h.Reason == "" {
			if detail, low := g.belowOnDemand(o, eff, onDemand, stored); low {
				h.Reason, h.Detail = storage.HeldBelowOnDemand, detail
			}
		}
		if h.Reason == "" {
			continue
		}
		runs := 1
		if st, ok := streaks[key]; ok && st.Same(o) {
			runs = st.Runs + 1
		}
		h.Accepted = runs >= g.accept
		if h.Accepted {
			g.log.Warn("implausible price accepted: it came back in consecutive complete runs", zap.Stringer("offer", key),
				zap.String("effective_hourly", eff.String()), zap.String("currency", o.Currency), zap.Int("runs", runs), zap.String("why_held", h.Detail))
		} else {
			g.log.Warn("implausible price held, not stored (see `pricewatch held`)", zap.Stringer("offer", key),
				zap.String("effective_hourly", eff.String()), zap.String("currency", o.Currency), zap.Int("runs", runs), zap.String("reason", h.Detail))
		}
		out = append(out, h)
	}
	return out, nil
}

// belowOnDemand reports whether a commitment's effective hourly is below
// commitFraction of the same offer's on-demand price: this run's, else
// the stored current one (same currency only).
func (g *Guard) belowOnDemand(o pricewatch.Offer, eff decimal.Decimal, onDemand map[pricewatch.OfferKey]pricewatch.Offer,
	stored map[pricewatch.OfferKey]storage.PriceInterval) (string, bool) {
	if !g.commitFraction.IsPositive() || !o.PriceType.IsCommitment() {
		return "", false
	}
	k := o.Key()
	k.PriceType, k.Term, k.Payment, k.OfferingClass = pricewatch.OnDemand, "", "", ""
	var ref decimal.Decimal
	source := "this run's"
	if od, ok := onDemand[k]; ok && od.Currency == o.Currency {
		ref = od.Hourly
	} else if st, ok := stored[k]; ok && st.Currency == o.Currency {
		ref, source = st.EffectiveHourly, "the stored"
	} else {
		return "", false
	}
	if !ref.IsPositive() || !eff.LessThan(ref.Mul(g.commitFraction)) {
		return "", false
	}
	return fmt.Sprintf("%s %s an hour is %s%% of %s on-demand price %s of the same offer, below guard.commitment_min_fraction %s",
		eff.StringFixed(4), o.Currency, eff.Div(ref).Mul(decimal.NewFromInt(100)).StringFixed(1), source, ref, g.commitFraction), true
}

// tiny reports whether a price is at most 1/ratio of the offer's own stored
// price and of every comparable current offer (at least one of them
// known).
func (g *Guard) tiny(o pricewatch.Offer, eff, perGPU decimal.Decimal, countKnown bool, stored decimal.NullDecimal, peers []storage.PriceInterval) (string, bool) {
	refs := 0
	var lowest decimal.Decimal
	note := func(ref decimal.Decimal) {
		if refs == 0 || ref.LessThan(lowest) {
			lowest = ref
		}
		refs++
	}
	if stored.Valid {
		if eff.Mul(g.ratio).GreaterThan(stored.Decimal) {
			return "", false
		}
		note(stored.Decimal)
	}
	key := o.Key()
	for _, p := range peers {
		if p.Key() == key || p.Currency != o.Currency {
			continue
		}
		peer, ok := pricewatch.PerGPUHour(p.EffectiveHourly, p.GPUCount)
		if !ok || !countKnown {
			continue
		}
		if perGPU.Mul(g.ratio).GreaterThan(peer) {
			return "", false
		}
		// The lowest reference is shown per instance of this offer.
		note(peer.Mul(decimal.NewFromFloat(o.GPUCount)))
	}
	if refs == 0 {
		return "", false
	}
	return fmt.Sprintf("%s %s an hour is at most 1/%s of the offer's stored price and of every current %s %s offer in %s (%d compared; the lowest %s)",
		eff, o.Currency, g.ratio, o.GPUModel, o.PriceType, o.Currency, refs, lowest.StringFixed(4)), true
}
