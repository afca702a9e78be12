package alerting

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting/alertingtest"
)

func TestDocumentRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	spot := alertingtest.AzureH100(pricewatch.Spot, "18.169536")
	tests := []struct {
		name string
		item Item
	}{
		{"price drop with every figure", Item{Event: PriceDrop,
			Change:    alertingtest.PriceChange(pricewatch.PriceChanged, spot, "25", "18.169536", at),
			OldPerGPU: alertingtest.NullDec("3.125"), NewPerGPU: alertingtest.NullDec("2.271192"), Delta: alertingtest.NullDec("-6.830464"), DeltaPerGPU: alertingtest.NullDec("-0.853808"), DeltaPct: alertingtest.NullDec("-27.32")}},
		{"new price: no old price", Item{Event: PriceNew, Change: alertingtest.PriceChange(pricewatch.PriceNew, spot, "", "18.169536", at), NewPerGPU: alertingtest.NullDec("2.271192")}},
		{"back in stock, with the flap clock", Item{Event: BackInStock, Change: pricewatch.Change{Kind: pricewatch.BackInStock, At: at,
			Place:    pricewatch.AvailabilityKey{Provider: pricewatch.Tencent, Region: "ap-guangzhou", Zone: "ap-guangzhou-3", InstanceType: "GN10Xp.20XLARGE320"},
			OldState: pricewatch.SoldOut, NewState: pricewatch.InStock, OldSince: at.Add(-7 * time.Hour),
			Hardware: pricewatch.Hardware{GPUModel: "V100-32GB", GPUCount: 8, GPUMemoryGB: 32, VCPUs: 80, MemoryGB: 320}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Group{Key: "run/7/C0/r/" + string(tt.item.Event), Channel: "C0", Rule: "r", Event: tt.item.Event, Criteria: "drop ≥ 5%",
				RunID: 7, Provider: tt.item.Change.Place.Provider, At: at, Items: []Item{tt.item}}
			b, err := AlertDocument(g).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			doc, err := DecodeDocument(b)
			if err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			if doc.Version != DocumentVersion || doc.Type != TypeAlert || doc.Alert == nil {
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
	o := alertingtest.AzureH100(pricewatch.Spot, "18.169536")
	g := Group{Key: "k", Rule: "r", Event: PriceDrop, Provider: pricewatch.Azure,
		Items: []Item{{Event: PriceDrop, Change: alertingtest.PriceChange(pricewatch.PriceChanged, o, "25.0000000001", "18.169536", time.Time{})}}}
	b, err := AlertDocument(g).MarshalJSON()
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
			_, err := DecodeDocument([]byte(tt.payload))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if got := errors.Is(err, ErrNotDocument); got != tt.legacy {
				t.Errorf("errors.Is(err, ErrNotDocument) = %v, want %v", got, tt.legacy)
			}
		})
	}
	doc, err := DecodeDocument([]byte(`{"version":1,"type":"digest","digest":{"week":"2026-W49"}}`))
	if err != nil || doc.Type != TypeDigest || !json.Valid(doc.Digest) {
		t.Errorf("digest document: %+v, %v", doc, err)
	}
}

func TestEncodeJSONKeepsTextAsSent(t *testing.T) {
	got, err := EncodeJSON(map[string]string{"text": "<https://example.com?a=1&b=2|H100 & A100>"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"text":"<https://example.com?a=1&b=2|H100 & A100>"}`; string(got) != want {
		t.Errorf("EncodeJSON = %s, want %s (no HTML escaping, no trailing newline)", got, want)
	}
}
