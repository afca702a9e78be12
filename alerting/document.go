package alerting

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// DocumentVersion is the version of the outbox document this build writes.
// A reader accepts every version up to it; a later one (queued by a newer
// pricewatch sharing the database) is refused rather than half-read.
const DocumentVersion = 1

// Document types.
const (
	// TypeAlert: one rule's changes from one run (Document.Alert).
	TypeAlert = "alert"
	// TypeDigest: the weekly digest's data (Document.Digest), in the
	// digest package's own JSON form.
	TypeDigest = "digest"
)

// Document is what the outbox stores for a message: the data, not a
// rendering of it. Each notifier renders it when it sends, so a template
// fix reaches messages already queued or being retried, and a second
// channel never has to read Slack's Block Kit. The schema is documented in
// README.md (Alerts → The outbox document).
type Document struct {
	Version int    `json:"version"`
	Type    string `json:"type"`
	// Alert is set for TypeAlert.
	Alert *Group `json:"-"`
	// Digest is set for TypeDigest: the digest package encodes and decodes
	// it, so alerting needs no knowledge of its fields.
	Digest json.RawMessage `json:"-"`
}

// ErrNotDocument is returned by DecodeDocument for a payload written by a
// pricewatch older than the outbox document (Slack Block Kit JSON) or by
// `alerts test`: the notifier that wrote such bytes may send them as they
// are; no other notifier can read them.
var ErrNotDocument = errors.New("not a pricewatch outbox document")

// wire is Document on the wire.
type wire struct {
	Version int             `json:"version"`
	Type    string          `json:"type"`
	Alert   *groupJSON      `json:"alert,omitempty"`
	Digest  json.RawMessage `json:"digest,omitempty"`
}

// AlertDocument returns the document of one alert message.
func AlertDocument(g Group) Document {
	return Document{Version: DocumentVersion, Type: TypeAlert, Alert: &g}
}

// DigestDocument returns the document of a digest whose data the digest
// package encoded.
func DigestDocument(data json.RawMessage) Document {
	return Document{Version: DocumentVersion, Type: TypeDigest, Digest: data}
}

// MarshalJSON encodes the document as stored in the outbox.
func (d Document) MarshalJSON() ([]byte, error) {
	w := wire{Version: d.Version, Type: d.Type, Digest: d.Digest}
	if d.Alert != nil {
		g := groupToJSON(*d.Alert)
		w.Alert = &g
	}
	return EncodeJSON(w)
}

// EncodeJSON encodes v as the outbox stores it and notifiers send it:
// without Go's HTML escaping, so that the text reads as the receiver gets
// it (&lt; stays &lt;, not \u0026lt;), and without a trailing newline.
func EncodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// DecodeDocument reads a stored payload. It returns an error wrapping
// ErrNotDocument for bytes that carry no "version" (what older builds
// queued: Slack's chat.postMessage JSON), and an error for a version newer
// than DocumentVersion or a document that does not match its type.
func DecodeDocument(payload []byte) (Document, error) {
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(payload, &probe); err != nil {
		return Document{}, fmt.Errorf("reading outbox payload: %w: %v", ErrNotDocument, err)
	}
	if probe.Version == nil {
		return Document{}, fmt.Errorf("reading outbox payload: %w (no version: queued by an older pricewatch)", ErrNotDocument)
	}
	if *probe.Version < 1 || *probe.Version > DocumentVersion {
		return Document{}, fmt.Errorf("outbox document version %d: this pricewatch reads versions 1 to %d (was it queued by a newer one?)", *probe.Version, DocumentVersion)
	}
	var w wire
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(&w); err != nil {
		return Document{}, fmt.Errorf("reading outbox document: %w", err)
	}
	d := Document{Version: w.Version, Type: w.Type}
	switch w.Type {
	case TypeAlert:
		if w.Alert == nil {
			return Document{}, errors.New("outbox alert document without its alert")
		}
		g, err := w.Alert.group()
		if err != nil {
			return Document{}, fmt.Errorf("reading outbox alert document: %w", err)
		}
		d.Alert = &g
	case TypeDigest:
		if len(w.Digest) == 0 {
			return Document{}, errors.New("outbox digest document without its digest")
		}
		d.Digest = w.Digest
	default:
		return Document{}, fmt.Errorf("outbox document type %q: want %s or %s", w.Type, TypeAlert, TypeDigest)
	}
	return d, nil
}

// The JSON form of a group. Prices are exact JSON numbers (every stored
// digit), times RFC 3339 UTC, absent figures null.
type groupJSON struct {
	DeliveryKey string     `json:"delivery_key"`
	Channel     string     `json:"channel"`
	Rule        string     `json:"rule"`
	Event       Event      `json:"event"`
	Criteria    string     `json:"criteria"`
	RunID       int64      `json:"run_id"`
	Provider    string     `json:"provider"`
	At          time.Time  `json:"at"`
	Items       []itemJSON `json:"items"`
}

type itemJSON struct {
	Event Event `json:"event"`
	// Change, as storage recorded it.
	Kind pricewatch.ChangeKind `json:"kind"`
	At   time.Time             `json:"at"`
	// The offer's key for a price change; for an availability change
	// the place's four fields and empty purchase fields.
	pricewatch.OfferKeyJSON
	Currency    string       `json:"currency"`
	Old         *json.Number `json:"old_effective_hourly"`
	New         *json.Number `json:"new_effective_hourly"`
	OldState    string       `json:"old_state"`
	NewState    string       `json:"new_state"`
	OldSince    *time.Time   `json:"old_since"`
	GPUModel    string       `json:"gpu_model"`
	GPUCount    float64      `json:"gpu_count"`
	GPUMemoryGB float64      `json:"gpu_memory_gb"`
	VCPUs       int          `json:"vcpus"`
	MemoryGB    float64      `json:"memory_gb"`
	// Figures the rule computed.
	OldPerGPUHour *json.Number `json:"old_per_gpu_hour"`
	NewPerGPUHour *json.Number `json:"new_per_gpu_hour"`
	Delta         *json.Number `json:"delta"`
	DeltaPerGPU   *json.Number `json:"delta_per_gpu_hour"`
	DeltaPct      *json.Number `json:"delta_pct"`
	// Signal is a capacity signal's observation (issue 23); absent for
	// price and availability changes.
	Signal *signalJSON `json:"signal,omitempty"`
}

type signalJSON struct {
	Kind        pricewatch.SignalKind `json:"kind"`
	Value       string                `json:"value"`
	OldValue    string                `json:"old_value"`
	Unit        string                `json:"unit"`
	Shape       string                `json:"shape"`
	WindowStart *time.Time            `json:"window_start"`
	WindowEnd   *time.Time            `json:"window_end"`
	Detail      string                `json:"detail"`
	Source      string                `json:"source"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func num(d decimal.NullDecimal) *json.Number {
	if !d.Valid {
		return nil
	}
	n := json.Number(d.Decimal.String())
	return &n
}

func dec(n *json.Number, field string) (decimal.NullDecimal, error) {
	if n == nil {
		return decimal.NullDecimal{}, nil
	}
	d, err := decimal.NewFromString(n.String())
	if err != nil {
		return decimal.NullDecimal{}, fmt.Errorf("%s %q: %w", field, n.String(), err)
	}
	return decimal.NewNullDecimal(d), nil
}

func groupToJSON(g Group) groupJSON {
	out := groupJSON{DeliveryKey: g.Key, Channel: g.Channel, Rule: g.Rule, Event: g.Event, Criteria: g.Criteria,
		RunID: g.RunID, Provider: g.Provider, At: g.At.UTC(), Items: make([]itemJSON, 0, len(g.Items))}
	for _, it := range g.Items {
		c := it.Change
		j := itemJSON{
			Event: it.Event, Kind: c.Kind, At: c.At.UTC(), OfferKeyJSON: c.Offer.JSON(),
			Currency: c.Currency, Old: num(c.Old), New: num(c.New),
			OldState: string(c.OldState), NewState: string(c.NewState),
			GPUModel: c.GPUModel, GPUCount: c.GPUCount, GPUMemoryGB: c.GPUMemoryGB, VCPUs: c.VCPUs, MemoryGB: c.MemoryGB,
			OldPerGPUHour: num(it.OldPerGPU), NewPerGPUHour: num(it.NewPerGPU),
			Delta: num(it.Delta), DeltaPerGPU: num(it.DeltaPerGPU), DeltaPct: num(it.DeltaPct),
		}
		if !c.OldSince.IsZero() {
			t := c.OldSince.UTC()
			j.OldSince = &t
		}
		if s := c.Signal; s != nil {
			j.Signal = &signalJSON{Kind: s.Kind, Value: s.Value, OldValue: s.OldValue, Unit: s.Unit, Shape: s.Shape,
				WindowStart: timePtr(s.Start), WindowEnd: timePtr(s.End), Detail: s.Detail, Source: s.Source}
		}
		// A price change names its offer; its place repeats the offer's
		// provider, region, zone and type, so one set of fields holds both.
		if c.Offer.Provider == "" {
			j.Provider, j.Region, j.Zone, j.InstanceType = c.Place.Provider, c.Place.Region, c.Place.Zone, c.Place.InstanceType
		}
		out.Items = append(out.Items, j)
	}
	return out
}

func (j groupJSON) group() (Group, error) {
	if !j.Event.valid() {
		return Group{}, fmt.Errorf("unknown event %q", j.Event)
	}
	g := Group{Key: j.DeliveryKey, Channel: j.Channel, Rule: j.Rule, Event: j.Event, Criteria: j.Criteria,
		RunID: j.RunID, Provider: j.Provider, At: j.At}
	for i, it := range j.Items {
		c := pricewatch.Change{Kind: it.Kind, At: it.At,
			Place:    pricewatch.AvailabilityKey{Provider: it.Provider, Region: it.Region, Zone: it.Zone, InstanceType: it.InstanceType},
			Currency: it.Currency, OldState: pricewatch.AvailabilityState(it.OldState), NewState: pricewatch.AvailabilityState(it.NewState),
			Hardware: pricewatch.Hardware{GPUModel: it.GPUModel, GPUCount: it.GPUCount, GPUMemoryGB: it.GPUMemoryGB, VCPUs: it.VCPUs, MemoryGB: it.MemoryGB},
		}
		if it.OldSince != nil {
			c.OldSince = *it.OldSince
		}
		if it.PriceType != "" {
			c.Offer = it.Key()
		}
		if s := it.Signal; s != nil {
			sc := &pricewatch.SignalChange{OldValue: s.OldValue, Signal: pricewatch.Signal{
				Provider: it.Provider, Kind: s.Kind, Region: it.Region, Zone: it.Zone, InstanceType: it.InstanceType,
				Shape: s.Shape, Value: s.Value, Unit: s.Unit, Detail: s.Detail, Source: s.Source, Hardware: c.Hardware}}
			if s.WindowStart != nil {
				sc.Start = *s.WindowStart
			}
			if s.WindowEnd != nil {
				sc.End = *s.WindowEnd
			}
			c.Signal = sc
		}
		item := Item{Event: it.Event, Change: c}
		var err error
		for _, f := range []struct {
			dst  *decimal.NullDecimal
			src  *json.Number
			name string
		}{
			{&item.Change.Old, it.Old, "old_effective_hourly"}, {&item.Change.New, it.New, "new_effective_hourly"},
			{&item.OldPerGPU, it.OldPerGPUHour, "old_per_gpu_hour"}, {&item.NewPerGPU, it.NewPerGPUHour, "new_per_gpu_hour"},
			{&item.Delta, it.Delta, "delta"}, {&item.DeltaPerGPU, it.DeltaPerGPU, "delta_per_gpu_hour"}, {&item.DeltaPct, it.DeltaPct, "delta_pct"},
		} {
			if *f.dst, err = dec(f.src, f.name); err != nil {
				return Group{}, fmt.Errorf("item %d: %w", i, err)
			}
		}
		g.Items = append(g.Items, item)
	}
	if len(g.Items) == 0 {
		return Group{}, errors.New("an alert without items")
	}
	return g, nil
}

// Summary is a plain-text line for a group, for receivers that show text
// (the log, the webhook's "summary"): what happened, how often, where, and
// the first change. It is not escaped for any markup.
func Summary(g Group) string {
	n := len(g.Items)
	if n == 0 {
		return fmt.Sprintf("pricewatch: %s on %s (rule %s): nothing", g.Event, g.Provider, g.Rule)
	}
	s := fmt.Sprintf("pricewatch: %s: %d on %s (rule %s) — %s", g.Event, n, g.Provider, g.Rule, itemSummary(g.Items[0]))
	if n > 1 {
		s += fmt.Sprintf(" (and %d more)", n-1)
	}
	return s
}

func itemSummary(it Item) string {
	c := it.Change
	where := c.Place.Region
	if c.Place.Zone != "" {
		where = c.Place.Zone
	}
	s := strings.Join(strings.Fields(c.Place.InstanceType+" "+where), " ")
	switch {
	case it.Event == PriceDrop || it.Event == PriceRise:
		s += fmt.Sprintf(" %s %s → %s %s/h", c.Offer.PriceType, c.Old.Decimal, c.New.Decimal, c.Currency)
		if it.DeltaPct.Valid {
			s += fmt.Sprintf(" (%s%%)", it.DeltaPct.Decimal)
		}
	case it.Event == CapacityBlockAvailable && c.Signal != nil:
		s += fmt.Sprintf(" capacity block %s → %s, fee %s %s", c.Signal.Start.UTC().Format("2006-01-02 15:04"), c.Signal.End.UTC().Format("2006-01-02 15:04 MST"),
			c.Signal.Value, c.Signal.Unit)
		if it.NewPerGPU.Valid {
			s += fmt.Sprintf(" (%s %s per GPU-hour)", it.NewPerGPU.Decimal.StringFixed(4), c.Signal.Unit)
		}
	case it.Event == InterruptionBandChanged && c.Signal != nil:
		s += fmt.Sprintf(" interruption band %s → %s", c.Signal.OldValue, c.Signal.Value)
	case it.Event == PlacementScoreChanged && c.Signal != nil:
		s += fmt.Sprintf(" spot placement score %s → %s (%s)", c.Signal.OldValue, c.Signal.Value, c.Signal.Shape)
	case it.Event == EvictionBandChanged && c.Signal != nil:
		s += fmt.Sprintf(" eviction band %s → %s", c.Signal.OldValue, c.Signal.Value)
	case it.Event.IsPrice():
		if it.NewPerGPU.Valid {
			s += fmt.Sprintf(" %s %s %s per GPU-hour", c.Offer.PriceType, it.NewPerGPU.Decimal.StringFixed(4), c.Currency)
		} else if c.New.Valid {
			s += fmt.Sprintf(" %s %s %s/h", c.Offer.PriceType, c.New.Decimal, c.Currency)
		}
	default:
		if c.NewState != "" {
			s += " " + string(c.NewState)
		}
	}
	return s
}
