package alerting

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/gpu"
)

// WebhookChannel is the outbox channel of messages for the generic webhook
// (a rule with Webhook set). Slack channels are IDs (C0123…) or names, so
// the word cannot collide with one in practice; cmd routes it to the
// webhook notifier.
const WebhookChannel = "webhook"

// RulesConfig is what the rules need from the configuration
// (alerts.* and slack.channel); cmd converts the YAML into it, so the rules
// do not depend on how the configuration is written down.
type RulesConfig struct {
	AlertOnFirstRun bool
	FlapWindow      time.Duration
	// DefaultChannel is where a rule without a channel posts (slack.channel).
	DefaultChannel string
	// PlacementScoreThresholds are the edges a numeric placement score
	// must cross to alert placement_score_changed (a score at or above an
	// edge is above it); empty takes DefaultPlacementScoreThresholds.
	PlacementScoreThresholds []int
	Rules                    []RuleSpec
}

// RuleSpec is one alert rule as configured (alerts.rules[]).
type RuleSpec struct {
	Name                string
	Events              []string
	GPUModels           []string
	Providers           []string
	Regions             []string // globs
	PriceTypes          []string
	MinChangePct        float64
	MinChangePerGPUHour float64
	SpotBelowPerGPUHour float64
	// Channel is the Slack channel (default DefaultChannel).
	Channel string
	// Webhook also sends the rule's messages to the generic webhook.
	Webhook bool
	// WebhookOnly sends them to the webhook alone, with no Slack route
	// (see RouteBuiltIn); it implies Webhook.
	WebhookOnly bool
}

// Configured says which notifiers a configuration sets up.
type Configured struct {
	// Slack: a bot token or slack.webhook_url.
	Slack bool
	// Webhook: webhook.url or webhook.url_file.
	Webhook bool
}

// RouteBuiltIn routes the built-in rules (config's DefaultRules, which
// name no notifier) to every configured notifier: to Slack when it is
// configured, to the webhook when it is, to the webhook alone when Slack
// is not (a Slack route there would only reach the log), and, with
// neither, to the log through the Slack route as before. Rules a user
// wrote route as written.
func RouteBuiltIn(specs []RuleSpec, to Configured) []RuleSpec {
	out := make([]RuleSpec, len(specs))
	copy(out, specs)
	for i := range out {
		if to.Webhook {
			out[i].Webhook = true
			out[i].WebhookOnly = !to.Slack
		}
	}
	return out
}

// Run is a stored provider run as the rules judge it.
type Run struct {
	ID       int64
	Provider string
	At       time.Time
	// FirstRun: no earlier successful run of the provider (a baseline).
	FirstRun bool
	// Changes are the run's changes that may alert (storage holds back
	// large moves until they are confirmed).
	Changes []pricewatch.Change
}

// Message is a message to queue in the outbox: a Document, encoded.
type Message struct {
	DeliveryKey string // unique; storing the same run twice queues nothing new
	Channel     string
	Kind        string
	Payload     []byte
}

// Rules holds the configured alert rules, ready to judge a stored run.
//
// Semantics worth knowing (also in config.example.yaml):
//   - The first successful run of a provider is a baseline: it alerts
//     nothing unless alerts.alert_on_first_run is set.
//   - Flaps: a back_in_stock or sold_out transition is not alerted when the
//     state it ends lasted less than alerts.flap_window (Change.At −
//     Change.OldSince < window), i.e. when it undoes a flip made within the
//     window. The first flip after a stable period always alerts at once;
//     while a zone keeps flipping nothing more is said until a state has
//     held for the window and then changes. A window of 0 alerts every flip.
//   - Thresholds are inclusive ("at least 5%" alerts at exactly 5%) and,
//     when both are set, both must hold. Percentages are of the old price;
//     absolute moves and spot thresholds are per GPU-hour in the price's own
//     currency, computed in decimal. A rule with a per-GPU-hour threshold
//     ignores offers whose GPU count is unknown.
//   - spot_below fires when a spot price crosses below the threshold (a new
//     spot offer below it, or a move from at or above it to below), not on
//     every move that stays below.
//   - Price events cover Linux prices only: Windows prices of the same type
//     move with them and would repeat every alert.
//   - Filters: gpu_models match case-insensitively, by model or family
//     ("A100" matches A100-40GB and A100-80GB; "A10" does not match A100);
//     regions are path.Match globs tried on the region and on the zone;
//     price_types apply to price events only.
//   - A change reported by one rule is not repeated by a later rule in the
//     same channel for the same event.
type Rules struct {
	rules           []rule
	alertOnFirstRun bool
	flapWindow      time.Duration
}

type rule struct {
	name       string
	channel    string
	webhook    bool
	noSlack    bool // webhook only
	events     []Event
	gpuModels  []string
	providers  []string
	regions    []string
	priceTypes []pricewatch.PriceType
	minPct     decimal.Decimal
	minPerGPU  decimal.Decimal
	spotBelow  decimal.Decimal
	// scoreEdges are alerts.placement_score_thresholds, ascending.
	scoreEdges []int
}

// NewRules builds the rules of cfg. A rule without a channel goes to
// cfg.DefaultChannel (slack.channel).
func NewRules(cfg RulesConfig) (*Rules, error) {
	if cfg.FlapWindow < 0 {
		return nil, fmt.Errorf("alerts.flap_window must not be negative")
	}
	defaultChannel := cfg.DefaultChannel
	edges := cfg.PlacementScoreThresholds
	if len(edges) == 0 {
		edges = DefaultPlacementScoreThresholds
	}
	for i, e := range edges {
		if e < 2 || e > 10 || (i > 0 && e <= edges[i-1]) {
			return nil, fmt.Errorf("alerts.placement_score_thresholds: %v: want ascending scores from 2 to 10", edges)
		}
	}
	rs := &Rules{alertOnFirstRun: cfg.AlertOnFirstRun, flapWindow: cfg.FlapWindow}
	names := map[string]int{}
	for i, c := range cfg.Rules {
		key := fmt.Sprintf("alerts.rules[%d]", i)
		r := rule{name: strings.TrimSpace(c.Name), channel: strings.TrimSpace(c.Channel), webhook: c.Webhook || c.WebhookOnly, noSlack: c.WebhookOnly,
			scoreEdges: slices.Clone(edges)}
		if r.name == "" {
			r.name = fmt.Sprintf("rule-%d", i+1)
		}
		if j, dup := names[r.name]; dup {
			return nil, fmt.Errorf("%s.name %q is also the name of alerts.rules[%d]: rule names must be unique", key, r.name, j)
		}
		names[r.name] = i
		if r.noSlack {
			r.channel = ""
		} else if r.channel == "" {
			r.channel = defaultChannel
		}
		if !r.noSlack && r.channel == WebhookChannel {
			return nil, fmt.Errorf("%s.channel %q is the webhook's outbox channel: set webhook: true to send the rule to the webhook", key, r.channel)
		}
		if len(c.Events) == 0 {
			return nil, fmt.Errorf("%s.events: a rule needs at least one event", key)
		}
		for _, e := range c.Events {
			ev := Event(e)
			if !ev.valid() {
				return nil, fmt.Errorf("%s.events: unknown event %q", key, e)
			}
			if !containsEvent(r.events, ev) {
				r.events = append(r.events, ev)
			}
		}
		sort.SliceStable(r.events, func(a, b int) bool { return eventRank(r.events[a]) < eventRank(r.events[b]) })
		for _, g := range c.GPUModels {
			if g = strings.TrimSpace(g); g != "" {
				r.gpuModels = append(r.gpuModels, g)
			}
		}
		r.providers = c.Providers
		for _, g := range c.Regions {
			if _, err := path.Match(g, ""); err != nil {
				return nil, fmt.Errorf("%s.regions: %q is not a valid glob", key, g)
			}
			r.regions = append(r.regions, g)
		}
		for _, p := range c.PriceTypes {
			pt := pricewatch.PriceType(p)
			if !pt.Valid() {
				return nil, fmt.Errorf("%s.price_types: unknown price type %q", key, p)
			}
			r.priceTypes = append(r.priceTypes, pt)
		}
		if c.MinChangePct < 0 || c.MinChangePerGPUHour < 0 || c.SpotBelowPerGPUHour < 0 {
			return nil, fmt.Errorf("%s: thresholds must not be negative", key)
		}
		// Thresholds are written as YAML floats; NewFromFloat takes the
		// shortest decimal that reads back as the same float, so 0.1 is
		// exactly 0.1 from here on.
		r.minPct = decimal.NewFromFloat(c.MinChangePct)
		r.minPerGPU = decimal.NewFromFloat(c.MinChangePerGPUHour)
		r.spotBelow = decimal.NewFromFloat(c.SpotBelowPerGPUHour)
		if containsEvent(r.events, SpotBelow) && !r.spotBelow.IsPositive() {
			return nil, fmt.Errorf("%s: event spot_below needs spot_below_per_gpu_hour", key)
		}
		rs.rules = append(rs.rules, r)
	}
	return rs, nil
}

// Empty reports whether no rule is configured.
func (rs *Rules) Empty() bool { return len(rs.rules) == 0 }

// Channels lists the channels rules route to ("" stands for a rule with no
// channel while slack.channel is empty too; WebhookChannel for rules sent
// to the webhook).
func (rs *Rules) Channels() map[string][]string {
	out := map[string][]string{}
	for _, r := range rs.rules {
		for _, ch := range r.routes() {
			out[ch] = append(out[ch], r.name)
		}
	}
	return out
}

// Messages turns the alerts of a stored run into outbox messages, each an
// outbox Document holding the group's data (rendered by the notifier when
// it is sent, not here). It is called inside the run's transaction
// (storage.SaveOptions.Outbox), so it does no I/O.
func (rs *Rules) Messages(run Run) ([]Message, error) {
	var out []Message
	for _, g := range rs.Groups(run) {
		payload, err := AlertDocument(g).MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("encoding %s alert of rule %s: %w", g.Event, g.Rule, err)
		}
		out = append(out, Message{DeliveryKey: g.Key, Channel: g.Channel, Kind: string(g.Event), Payload: payload})
	}
	return out, nil
}

// routes are the outbox channels a rule's messages go to: its Slack
// channel, and the webhook's when it asks for it.
func (r *rule) routes() []string {
	if r.noSlack {
		return []string{WebhookChannel}
	}
	if r.webhook {
		return []string{r.channel, WebhookChannel}
	}
	return []string{r.channel}
}

// Groups applies the rules to a stored run: one group per rule, event and
// channel with at least one item, in rule order.
func (rs *Rules) Groups(run Run) []Group {
	if len(run.Changes) == 0 || (run.FirstRun && !rs.alertOnFirstRun) {
		return nil
	}
	var groups []Group
	reported := map[string]bool{} // channel, event and change already in a message
	for _, r := range rs.rules {
		for _, ev := range r.events {
			for _, channel := range r.routes() {
				g := Group{
					Key:     deliveryKey(run.ID, channel, r.name, ev),
					Channel: channel, Rule: r.name, Event: ev, Criteria: r.criteria(ev),
					RunID: run.ID, Provider: run.Provider, At: run.At,
				}
				for _, c := range run.Changes {
					item, ok := r.match(ev, c, rs.flapWindow)
					if !ok {
						continue
					}
					id := channel + "\x00" + string(ev) + "\x00" + changeID(c)
					if reported[id] {
						continue
					}
					reported[id] = true
					g.Items = append(g.Items, item)
				}
				if len(g.Items) > 0 {
					sortItems(ev, g.Items)
					// A per-GPU-hour threshold is in each price's own
					// currency: the footer says which.
					g.Criteria = r.criteriaIn(ev, itemCurrencies(g.Items))
					groups = append(groups, g)
				}
			}
		}
	}
	return groups
}

func deliveryKey(runID int64, channel, rule string, ev Event) string {
	return fmt.Sprintf("run/%d/%s/%s/%s", runID, url.PathEscape(channel), url.PathEscape(rule), ev)
}

func changeID(c pricewatch.Change) string {
	if c.Signal != nil {
		// Two blocks of one zone differ by shape and window.
		k := c.Signal.Key()
		return fmt.Sprintf("%s|%s|%s/%s/%s/%s|%s|%s|%s", c.Kind, k.Kind, c.Place.Provider, c.Place.Region, c.Place.Zone, c.Place.InstanceType,
			k.Shape, k.Start.Format(time.RFC3339), k.End.Format(time.RFC3339))
	}
	return fmt.Sprintf("%s|%s|%s/%s/%s/%s", c.Kind, c.Offer, c.Place.Provider, c.Place.Region, c.Place.Zone, c.Place.InstanceType)
}

// match reports whether change c is event ev for this rule, with the
// figures the message shows.
func (r *rule) match(ev Event, c pricewatch.Change, flapWindow time.Duration) (Item, bool) {
	item := Item{Event: ev, Change: c}
	if !r.filters(ev, c) {
		return item, false
	}
	switch ev {
	case CapacityBlockAvailable:
		if c.Kind != pricewatch.CapacityBlockAvailable || c.Signal == nil {
			return item, false
		}
		if per, ok := c.Signal.BlockPerGPUHour(); ok {
			item.NewPerGPU = decimal.NewNullDecimal(per)
		}
		return item, true
	case InterruptionBandChanged:
		// Only a move of a known band: a first band is a baseline, a band
		// missing from an answer no change at all. Windows bands are kept
		// as history but alert nothing, as Windows prices do not.
		return item, c.Kind == pricewatch.SignalChanged && c.Signal != nil && c.Signal.Kind == pricewatch.InterruptionBand &&
			pricewatch.ShapeValue(c.Signal.Shape, "os") != pricewatch.Windows
	case PlacementScoreChanged:
		// A known score of the same request (storage compares only equal
		// keys, shape included) that changed band.
		return item, c.Kind == pricewatch.SignalChanged && c.Signal != nil && c.Signal.Kind == pricewatch.PlacementScore &&
			scoreCrossed(c.Signal.OldValue, c.Signal.Value, r.scoreEdges)
	case EvictionBandChanged:
		return item, c.Kind == pricewatch.SignalChanged && c.Signal != nil && c.Signal.Kind == pricewatch.EvictionBand
	case AvailabilityNew:
		return item, c.Kind == pricewatch.AvailabilityNew
	case AvailabilityGone:
		return item, c.Kind == pricewatch.AvailabilityGone
	case BackInStock, SoldOut:
		want := pricewatch.BackInStock
		if ev == SoldOut {
			want = pricewatch.SoldOutNow
		}
		if c.Kind != want {
			return item, false
		}
		flap := flapWindow > 0 && !c.OldSince.IsZero() && c.At.Sub(c.OldSince) < flapWindow
		return item, !flap
	}

	// Price events.
	if c.Offer.OS == pricewatch.Windows {
		return item, false
	}
	item.OldPerGPU = perGPU(c.Old, c.GPUCount)
	item.NewPerGPU = perGPU(c.New, c.GPUCount)
	count, countKnown := gpuCount(c.GPUCount)
	switch ev {
	case PriceNew:
		return item, c.Kind == pricewatch.PriceNew && c.New.Valid
	case SpotBelow:
		if c.Offer.PriceType != pricewatch.Spot || !countKnown || !c.New.Valid {
			return item, false
		}
		if c.Kind != pricewatch.PriceNew && c.Kind != pricewatch.PriceChanged {
			return item, false
		}
		limit := r.spotBelow.Mul(count)
		if !c.New.Decimal.LessThan(limit) {
			return item, false
		}
		if c.Old.Valid {
			// Only the crossing alerts; moves that stay below do not.
			if c.Old.Decimal.LessThan(limit) {
				return item, false
			}
			item.setDelta(c, count)
		}
		return item, true
	case PriceDrop, PriceRise:
		if c.Kind != pricewatch.PriceChanged || !c.Old.Valid || !c.New.Valid {
			return item, false
		}
		delta := c.New.Decimal.Sub(c.Old.Decimal)
		if (ev == PriceDrop && !delta.IsNegative()) || (ev == PriceRise && !delta.IsPositive()) {
			return item, false
		}
		abs := delta.Abs()
		// Compare by multiplying, not dividing, so an edge such as exactly
		// 5% is decided exactly.
		if abs.Mul(decimal.NewFromInt(100)).LessThan(r.minPct.Mul(c.Old.Decimal)) {
			return item, false
		}
		if r.minPerGPU.IsPositive() && (!countKnown || abs.LessThan(r.minPerGPU.Mul(count))) {
			return item, false
		}
		item.setDelta(c, count)
		return item, true
	}
	return item, false
}

func (it *Item) setDelta(c pricewatch.Change, count decimal.Decimal) {
	delta := c.New.Decimal.Sub(c.Old.Decimal)
	it.Delta = decimal.NewNullDecimal(delta)
	if c.Old.Decimal.IsPositive() {
		it.DeltaPct = decimal.NewNullDecimal(delta.Mul(decimal.NewFromInt(100)).DivRound(c.Old.Decimal, 2))
	}
	if count.IsPositive() {
		it.DeltaPerGPU = decimal.NewNullDecimal(delta.DivRound(count, pricewatch.RateDecimals))
	}
}

// filters applies the rule's provider, GPU, region and price type filters.
func (r *rule) filters(ev Event, c pricewatch.Change) bool {
	if len(r.providers) > 0 && !containsString(r.providers, c.Place.Provider) {
		return false
	}
	if len(r.gpuModels) > 0 {
		// The one matcher compare and availability use: a vendor
		// spelling (A100-SXM4-80GB) means its catalogue model, a family
		// (A100) its variants.
		ok := false
		for _, q := range r.gpuModels {
			if gpu.Matches(q, c.GPUModel) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(r.regions) > 0 {
		ok := false
		for _, g := range r.regions {
			if m, _ := path.Match(g, c.Place.Region); m {
				ok = true
			} else if c.Place.Zone != "" {
				if m, _ := path.Match(g, c.Place.Zone); m {
					ok = true
				}
			}
			if ok {
				break
			}
		}
		if !ok {
			return false
		}
	}
	// A capacity block's price comes and goes with its offerings, which
	// capacity_block_available already announces: price events of blocks
	// reach only a rule that names capacity_block in price_types, so a rule
	// of every price type does not say each block twice.
	if ev.IsPrice() && len(r.priceTypes) == 0 && c.Offer.PriceType == pricewatch.CapacityBlockPrice {
		return false
	}
	if ev.IsPrice() && len(r.priceTypes) > 0 {
		ok := false
		for _, pt := range r.priceTypes {
			if pt == c.Offer.PriceType {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// criteria describes the rule for the message footer.
func (r *rule) criteria(ev Event) string { return r.criteriaIn(ev, "") }

// itemCurrencies names the currencies of a group's prices ("USD",
// "CNY/USD"); "" for availability events.
func itemCurrencies(items []Item) string {
	var curs []string
	for _, it := range items {
		if c := it.Change.Currency; c != "" && !slices.Contains(curs, c) {
			curs = append(curs, c)
		}
	}
	slices.Sort(curs)
	return strings.Join(curs, "/")
}

// criteriaIn is criteria with the thresholds' currency.
func (r *rule) criteriaIn(ev Event, currency string) string {
	perGPU := "per GPU-hour"
	if currency != "" {
		perGPU = currency + " per GPU-hour"
	}
	var parts []string
	switch ev {
	case PriceDrop, PriceRise:
		word := "drop"
		if ev == PriceRise {
			word = "rise"
		}
		t := fmt.Sprintf("%s ≥ %s%%", word, r.minPct)
		if r.minPerGPU.IsPositive() {
			t += fmt.Sprintf(" and ≥ %s %s", r.minPerGPU, perGPU)
		}
		parts = append(parts, t)
	case SpotBelow:
		parts = append(parts, fmt.Sprintf("spot < %s %s", r.spotBelow, perGPU))
	case PlacementScoreChanged:
		edges := make([]string, len(r.scoreEdges))
		for i, e := range r.scoreEdges {
			edges[i] = strconv.Itoa(e)
		}
		parts = append(parts, "score crosses "+strings.Join(edges, "/"))
	}
	if len(r.gpuModels) > 0 {
		parts = append(parts, "GPU "+strings.Join(r.gpuModels, "/"))
	}
	if len(r.providers) > 0 {
		parts = append(parts, "providers "+strings.Join(r.providers, "/"))
	}
	if len(r.regions) > 0 {
		parts = append(parts, "regions "+strings.Join(r.regions, " "))
	}
	if ev.IsPrice() && len(r.priceTypes) > 0 {
		var pts []string
		for _, p := range r.priceTypes {
			pts = append(pts, string(p))
		}
		parts = append(parts, strings.Join(pts, "/"))
	}
	return strings.Join(parts, " · ")
}

// sortItems puts the most important items first: the biggest moves, the
// cheapest spot prices, availability by GPU model and place.
func sortItems(ev Event, items []Item) {
	less := func(a, b Item) bool {
		switch ev {
		case PriceDrop, PriceRise:
			if c := a.DeltaPct.Decimal.Abs().Cmp(b.DeltaPct.Decimal.Abs()); c != 0 {
				return c > 0
			}
			if c := a.DeltaPerGPU.Decimal.Abs().Cmp(b.DeltaPerGPU.Decimal.Abs()); c != 0 {
				return c > 0
			}
		case SpotBelow, PriceNew, CapacityBlockAvailable:
			if a.NewPerGPU.Valid != b.NewPerGPU.Valid {
				return a.NewPerGPU.Valid
			}
			if c := a.NewPerGPU.Decimal.Cmp(b.NewPerGPU.Decimal); c != 0 {
				return c < 0
			}
		default:
			if a.Change.GPUModel != b.Change.GPUModel {
				return a.Change.GPUModel < b.Change.GPUModel
			}
		}
		return changeID(a.Change) < changeID(b.Change)
	}
	sort.SliceStable(items, func(i, j int) bool { return less(items[i], items[j]) })
}

func perGPU(d decimal.NullDecimal, count float64) decimal.NullDecimal {
	if !d.Valid {
		return decimal.NullDecimal{}
	}
	v, ok := pricewatch.PerGPUHour(d.Decimal, count)
	if !ok {
		return decimal.NullDecimal{}
	}
	return decimal.NewNullDecimal(v)
}

func gpuCount(f float64) (decimal.Decimal, bool) {
	if f <= 0 {
		return decimal.Zero, false
	}
	return decimal.NewFromFloat(f), true
}

func eventRank(e Event) int {
	for i, k := range Events {
		if k == e {
			return i
		}
	}
	return len(Events)
}

func containsEvent(list []Event, e Event) bool {
	for _, v := range list {
		if v == e {
			return true
		}
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// scoreCrossed reports whether a placement score moved from old to new
// across an edge: numeric scores (AWS 1–10) change band when an edge lies
// in (min, max]; scores given as words (Azure's High/Medium/Low) are
// bands already, so any other word is a move. A number against a word is
// not comparable and never alerts.
func scoreCrossed(old, new string, edges []int) bool {
	o, errOld := strconv.Atoi(strings.TrimSpace(old))
	n, errNew := strconv.Atoi(strings.TrimSpace(new))
	switch {
	case errOld != nil && errNew != nil:
		return !strings.EqualFold(strings.TrimSpace(old), strings.TrimSpace(new))
	case errOld != nil || errNew != nil:
		return false
	}
	lo, hi := min(o, n), max(o, n)
	for _, e := range edges {
		if lo < e && e <= hi {
			return true
		}
	}
	return false
}
