package alerting_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
)

func TestDocumentRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	spot := h100(pricewatch.Spot, "18.169536")
	tests := []struct {
		name string
		item alerting.Item
	}{
		{"price drop with every figure", alerting.Item{Event: alerting.PriceDrop,
			Change:    priceChangeAt(pricewatch.PriceChanged, spot, "25", "18.169536", at),
			OldPerGPU: nd("3.125"), NewPerGPU: nd("2.271192"), Delta: nd("-6.830464"), DeltaPerGPU: nd("-0.853808"), DeltaPct: nd("-27.32")}},
		{"new price: no old price", alerting.Item{Event: alerting.PriceNew, Change: priceChangeAt(pricewatch.PriceNew, spot, "", "18.169536", at), NewPerGPU: nd("2.271192")}},
		{"back in stock, with the flap clock", alerting.Item{Event: alerting.BackInStock, Change: pricewatch.Change{Kind: pricewatch.BackInStock, At: at,
			Place:    pricewatch.AvailabilityKey{Provider: pricewatch.Tencent, Region: "ap-guangzhou", Zone: "ap-guangzhou-3", InstanceType: "GN10Xp.20XLARGE320"},
			OldState: pricewatch.SoldOut, NewState: pricewatch.InStock, OldSince: at.Add(-7 * time.Hour),
			Hardware: pricewatch.Hardware{GPUModel: "V100-32GB", GPUCount: 8, GPUMemoryGB: 32, VCPUs: 80, MemoryGB: 320}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := alerting.Group{Key: "run/7/C0/r/" + string(tt.item.Event), Channel: "C0", Rule: "r", Event: tt.item.Event, Criteria: "drop ≥ 5%",
				RunID: 7, Provider: tt.item.Change.Place.Provider, At: at, Items: []alerting.Item{tt.item}}
			b, err := alerting.AlertDocument(g).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			doc, err := alerting.DecodeDocument(b)
			if err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			if doc.Version != alerting.DocumentVersion || doc.Type != alerting.TypeAlert || doc.Alert == nil {
				t.Fatalf("decoded %+v", doc)
			}
			if !reflect.DeepEqual(*doc.Alert, g) {
				t.Errorf("round trip changed the group:\n got %+v\nwant %+v\n%s", *doc.Alert, g, b)
			}
		})
	}
}

// TestDocumentPricesAreExactNumbers: the stored document carries every
// digit as a JSON number, never a float's rounding or a string.
func TestDocumentPricesAreExactNumbers(t *testing.T) {
	o := h100(pricewatch.Spot, "18.169536")
	g := alerting.Group{Key: "k", Rule: "r", Event: alerting.PriceDrop, Provider: pricewatch.Azure,
		Items: []alerting.Item{{Event: alerting.PriceDrop, Change: priceChangeAt(pricewatch.PriceChanged, o, "25.0000000001", "18.169536", time.Time{})}}}
	b, err := alerting.AlertDocument(g).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"version":1`, `"type":"alert"`, `"old_effective_hourly":25.0000000001`, `"new_effective_hourly":18.169536`, `"delta_pct":null`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("document lacks %s:\n%s", want, b)
		}
	}
}

func TestDecodeDocumentRefuses(t *testing.T) {
	tests := []struct {
		name, payload string
		legacy        bool
		want          string
	}{
		{"Block Kit queued by an older pricewatch", `{"text":"pricewatch: 🔻 Price drop","blocks":[{"type":"header"}]}`, true, "older pricewatch"},
		{"not JSON", `🔻`, true, "not a pricewatch outbox document"},
		{"a newer version", `{"version":2,"type":"alert","alert":{}}`, false, "reads versions 1 to 1"},
		{"unknown type", `{"version":1,"type":"page"}`, false, `type "page"`},
		{"alert without alert", `{"version":1,"type":"alert"}`, false, "without its alert"},
		{"alert without items", `{"version":1,"type":"alert","alert":{"event":"price_drop","items":[]}}`, false, "without items"},
		{"unknown event", `{"version":1,"type":"alert","alert":{"event":"price_plunge","items":[{}]}}`, false, "unknown event"},
		{"a price that is not a number", `{"version":1,"type":"alert","alert":{"event":"price_drop","items":[{"event":"price_drop","old_effective_hourly":"x"}]}}`, false, "invalid number"},
		{"digest without data", `{"version":1,"type":"digest"}`, false, "without its digest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := alerting.DecodeDocument([]byte(tt.payload))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if got := errors.Is(err, alerting.ErrNotDocument); got != tt.legacy {
				t.Errorf("errors.Is(err, ErrNotDocument) = %v, want %v", got, tt.legacy)
			}
		})
	}
	doc, err := alerting.DecodeDocument([]byte(`{"version":1,"type":"digest","digest":{"week":"2026-W49"}}`))
	if err != nil || doc.Type != alerting.TypeDigest || !json.Valid(doc.Digest) {
		t.Errorf("digest document: %+v, %v", doc, err)
	}
}

func nd(s string) decimal.NullDecimal { return decimal.NewNullDecimal(decimal.RequireFromString(s)) }

func priceChangeAt(kind pricewatch.ChangeKind, o pricewatch.Offer, old, new string, at time.Time) pricewatch.Change {
	c := pricewatch.Change{Kind: kind, At: at, Offer: o.Key(), Place: pricewatch.AvailabilityKey{Provider: o.Provider, Region: o.Region, Zone: o.Zone, InstanceType: o.InstanceType},
		Currency: o.Currency, Hardware: o.Hardware}
	if old != "" {
		c.Old = nd(old)
	}
	if new != "" {
		c.New = nd(new)
	}
	return c
}

func TestEncodeJSONKeepsTextAsSent(t *testing.T) {
	got, err := alerting.EncodeJSON(map[string]string{"text": "<https://example.com?a=1&b=2|H100 & A100>"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"text":"<https://example.com?a=1&b=2|H100 & A100>"}`; string(got) != want {
		t.Errorf("EncodeJSON = %s, want %s (no HTML escaping, no trailing newline)", got, want)
	}
}
