package slack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/alerting/alertingtest"
	"github.com/pricewatch/pricewatch/internal/golden"
)

var runAt = time.Date(2026, 11, 30, 9, 17, 0, 0, time.UTC)

// Offers and places in the clouds' real formats (and alertingtest's); see
// testdata/README.md for where each value comes from.
func azureH100(pt pricewatch.PriceType) pricewatch.Offer { return alertingtest.AzureH100(pt, "") }

// azureOffer is azureH100 on demand at hourly USD.
func azureOffer(hourly string) pricewatch.Offer {
	return alertingtest.AzureH100(pricewatch.OnDemand, hourly)
}

func awsP5(region, zone string) pricewatch.Offer {
	return pricewatch.Offer{Provider: pricewatch.AWS, Region: region, Zone: zone, InstanceType: "p5.48xlarge", PriceType: pricewatch.OnDemand,
		OS: pricewatch.Linux, Currency: "USD", Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 192, MemoryGB: 2048}}
}

func tencentGN10Xp(zone string) pricewatch.Availability {
	return pricewatch.Availability{Provider: pricewatch.Tencent, Region: "ap-guangzhou", Zone: zone, InstanceType: "GN10Xp.20XLARGE320",
		Hardware: pricewatch.Hardware{GPUModel: "V100-32GB", GPUCount: 8, GPUMemoryGB: 32, VCPUs: 80, MemoryGB: 320}}
}

func priceChange(kind pricewatch.ChangeKind, o pricewatch.Offer, old, new string) pricewatch.Change {
	return alertingtest.PriceChange(kind, o, old, new, runAt)
}

func stockChange(kind pricewatch.ChangeKind, a pricewatch.Availability, from, to pricewatch.AvailabilityState, since time.Duration) pricewatch.Change {
	return pricewatch.Change{Kind: kind, At: runAt, Place: a.Key(), Hardware: a.Hardware, OldState: from, NewState: to, OldSince: runAt.Add(-since)}
}

// render runs changes through the rules and this package's renderer, as
// the notifier does when it sends what a run queued.
func render(t *testing.T, rule alerting.RuleSpec, provider string, changes ...pricewatch.Change) []alerting.Message {
	t.Helper()
	rules, err := alerting.NewRules(alerting.RulesConfig{FlapWindow: 6 * time.Hour, DefaultChannel: "C0GPUALERTS", Rules: []alerting.RuleSpec{rule}})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []alerting.Message
	for _, g := range rules.Groups(alerting.Run{ID: 4711, Provider: provider, At: runAt, Changes: changes}) {
		payload, err := Renderer{}.Render(g)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, alerting.Message{DeliveryKey: g.Key, Channel: g.Channel, Kind: string(g.Event), Payload: payload})
	}
	return msgs
}

// canonical re-encodes a payload with sorted keys, indented, and without
// Go's \u003c-style escaping, so golden files read as Slack sees them.
func canonical(t *testing.T, payload []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("payload is not JSON: %v", err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func checkPayload(t *testing.T, name string, payload []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".golden.json"), canonical(t, payload))
}

func TestGoldenPayloads(t *testing.T) {
	p5 := awsP5("us-east-1", "")
	spot := azureH100(pricewatch.Spot)
	gn := tencentGN10Xp("ap-guangzhou-3")
	alibaba := pricewatch.Offer{Provider: pricewatch.Alibaba, Region: "cn-hangzhou", InstanceType: "ecs.gn7i-c8g1.2xlarge",
		PriceType: pricewatch.OnDemand, OS: pricewatch.Linux, Currency: "CNY",
		Hardware: pricewatch.Hardware{GPUModel: "A10", GPUCount: 1, GPUMemoryGB: 24, VCPUs: 8, MemoryGB: 30}}
	awsNew := awsP5("us-east-1", "us-east-1a")
	newAvail := pricewatch.Change{Kind: pricewatch.AvailabilityNew, At: runAt, Place: pricewatch.AvailabilityKey{Provider: pricewatch.AWS, Region: "us-east-1", Zone: "us-east-1a", InstanceType: "p5.48xlarge"},
		Hardware: awsNew.Hardware, NewState: pricewatch.Offered}
	gone := pricewatch.Change{Kind: pricewatch.AvailabilityGone, At: runAt, Place: pricewatch.AvailabilityKey{Provider: pricewatch.Azure, Region: "westus3", InstanceType: "Standard_ND96isr_H100_v5"},
		Hardware: spot.Hardware, OldState: pricewatch.Offered, OldSince: runAt.Add(-90 * 24 * time.Hour)}
	tests := []struct {
		name     string
		event    string
		provider string
		change   pricewatch.Change
		rule     alerting.RuleSpec
	}{
		{"availability_new", "availability_new", pricewatch.AWS, newAvail, alerting.RuleSpec{GPUModels: []string{"H100", "H200", "B200"}}},
		{"availability_gone", "availability_gone", pricewatch.Azure, gone, alerting.RuleSpec{}},
		{"back_in_stock", "back_in_stock", pricewatch.Tencent, stockChange(pricewatch.BackInStock, gn, pricewatch.SoldOut, pricewatch.InStock, 72*time.Hour), alerting.RuleSpec{}},
		{"sold_out", "sold_out", pricewatch.Tencent, stockChange(pricewatch.SoldOutNow, gn, pricewatch.InStock, pricewatch.SoldOut, 9*time.Hour), alerting.RuleSpec{}},
		{"price_drop", "price_drop", pricewatch.Azure, priceChange(pricewatch.PriceChanged, azureH100(pricewatch.OnDemand), "98.32", "88.488"), alerting.RuleSpec{MinChangePct: 5}},
		{"price_rise", "price_rise", pricewatch.Azure, priceChange(pricewatch.PriceChanged, spot, "18.169536", "19.5"), alerting.RuleSpec{MinChangePct: 5}},
		{"spot_below", "spot_below", pricewatch.Azure, priceChange(pricewatch.PriceNew, spot, "", "18.169536"), alerting.RuleSpec{SpotBelowPerGPUHour: 2.5, GPUModels: []string{"H100"}}},
		{"price_new", "price_new", pricewatch.Alibaba, priceChange(pricewatch.PriceNew, alibaba, "", "11.58"), alerting.RuleSpec{}},
		{"price_new_aws", "price_new", pricewatch.AWS, priceChange(pricewatch.PriceNew, p5, "", "55.04"), alerting.RuleSpec{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.rule.Name = "rule-" + tt.event
			tt.rule.Events = []string{tt.event}
			msgs := render(t, tt.rule, tt.provider, tt.change)
			if len(msgs) != 1 {
				t.Fatalf("got %d messages, want 1", len(msgs))
			}
			if msgs[0].Kind != tt.event || msgs[0].Channel != "C0GPUALERTS" {
				t.Errorf("message kind %s channel %s", msgs[0].Kind, msgs[0].Channel)
			}
			checkLimits(t, msgs[0].Payload)
			checkPayload(t, tt.name, msgs[0].Payload)
		})
	}
}

// TestGoldenGrouped: an AWS price-file update that cuts p5.48xlarge in 40
// regions and zones is one message: the 15 biggest moves and "25 more".
func TestGoldenGrouped(t *testing.T) {
	var changes []pricewatch.Change
	for i := 0; i < 40; i++ {
		o := awsP5(fmt.Sprintf("region-%02d", i), "")
		if i%4 == 0 {
			o.Region, o.Zone = "us-east-1", fmt.Sprintf("us-east-1-wl1-zone-%02d", i)
		}
		// Cuts of 5.00% to 44.00% of 98.32, in a shuffled order.
		pct := decimal.NewFromInt(int64((i*17)%40 + 5))
		newPrice := decimal.RequireFromString("98.32").Mul(decimal.NewFromInt(100).Sub(pct)).Div(decimal.NewFromInt(100))
		changes = append(changes, priceChange(pricewatch.PriceChanged, o, "98.32", newPrice.String()))
	}
	msgs := render(t, alerting.RuleSpec{Name: "price-drops", Events: []string{"price_drop"}, GPUModels: []string{"H100", "H200", "B200"},
		PriceTypes: []string{"on_demand", "reserved", "savings_plan"}, MinChangePct: 5}, pricewatch.AWS, changes...)
	if len(msgs) != 1 {
		t.Fatalf("got %d messages, want one grouped message", len(msgs))
	}
	p := checkLimits(t, msgs[0].Payload)
	if len(p.Blocks.BlockSet) != DefaultMaxItems+4 {
		t.Errorf("%d blocks, want %d items + 4", len(p.Blocks.BlockSet), DefaultMaxItems)
	}
	if !strings.Contains(string(canonical(t, msgs[0].Payload)), "…and *25 more*") {
		t.Error("no \"and 25 more\" line")
	}
	checkPayload(t, "grouped_price_drop", msgs[0].Payload)
}

// checkLimits asserts Slack's limits and returns the decoded payload.
func checkLimits(t *testing.T, payload []byte) Payload {
	t.Helper()
	var p Payload
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatalf("payload is not a Slack message: %v", err)
	}
	if n := len(p.Blocks.BlockSet); n == 0 || n > MaxBlocks {
		t.Errorf("%d blocks; Slack takes 1 to %d", n, MaxBlocks)
	}
	if n := utf8.RuneCountInString(p.Text); n == 0 || n > maxFallbackChars {
		t.Errorf("fallback text has %d characters", n)
	}
	var raw struct {
		Blocks []struct {
			Type     string
			Text     *struct{ Type, Text string }
			Elements []struct{ Type, Text string }
		}
	}
	if err := json.Unmarshal(payload, &raw); err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, b := range raw.Blocks {
		texts := []string{}
		if b.Text != nil {
			texts = append(texts, b.Text.Text)
		}
		for _, e := range b.Elements {
			texts = append(texts, e.Text)
		}
		for _, s := range texts {
			n := utf8.RuneCountInString(s)
			total += n
			limit := MaxSectionChars
			if b.Type == "header" {
				limit = MaxHeaderChars
			}
			if n == 0 || n > limit {
				t.Errorf("block %d (%s): %d characters, limit %d", i, b.Type, n, limit)
			}
		}
	}
	if total > 12000 {
		t.Errorf("blocks hold %d characters in all; Slack has refused ~13k as msg_blocks_too_long", total)
	}
	return p
}

// TestEscapingAndLimitsWithHostileCloudText: text from a cloud is data,
// never markup. An API that returned "<!channel>" or a link in a name must
// neither ping nor link, and very long names must not break any limit.
func TestEscapingAndLimitsWithHostileCloudText(t *testing.T) {
	hostile := "GN10Xp.<!channel> & <https://evil.example|click me>"
	long := strings.Repeat("<&>", 2000)
	var changes []pricewatch.Change
	for i := 0; i < 300; i++ {
		a := tencentGN10Xp(fmt.Sprintf("ap-guangzhou-%d", i))
		a.InstanceType = hostile
		if i%2 == 1 {
			a.InstanceType, a.Zone, a.GPUModel = long, long, "V100 <b>"
		}
		changes = append(changes, stockChange(pricewatch.BackInStock, a, pricewatch.SoldOut, pricewatch.InStock, 72*time.Hour))
	}
	msgs := render(t, alerting.RuleSpec{Name: "a <rule> & co", Events: []string{"back_in_stock"}}, pricewatch.Tencent, changes...)
	if len(msgs) != 1 {
		t.Fatalf("got %d messages, want 1", len(msgs))
	}
	p := checkLimits(t, msgs[0].Payload)
	// What Slack renders: the text and the blocks. (Metadata is JSON data
	// for programs, never shown as mrkdwn.)
	shown := p
	shown.Meta = nil
	b, err := json.Marshal(shown)
	if err != nil {
		t.Fatal(err)
	}
	body := string(canonical(t, b))
	for _, raw := range []string{"<!channel>", "<https://evil", " & ", "<b>", "a <rule>"} {
		if strings.Contains(body, raw) || strings.Contains(p.Text, raw) {
			t.Errorf("unescaped %q in the payload", raw)
		}
	}
	for _, esc := range []string{"GN10Xp.&lt;!channel&gt; &amp; &lt;https://evil.example|click me&gt;", "a &lt;rule&gt; &amp; co"} {
		if !strings.Contains(body, esc) {
			t.Errorf("want %q in the payload", esc)
		}
	}
	// Our own links and date tokens are still there.
	if !strings.Contains(body, "<https://www.tencentcloud.com/pricing/cvm/overview|Tencent Cloud pricing page>") || !strings.Contains(body, "<!date^") {
		t.Error("pricing link or date token missing")
	}
	// Cut text never ends in half an entity.
	for _, b := range p.Blocks.BlockSet {
		js, _ := json.Marshal(b)
		var s struct{ Text struct{ Text string } }
		_ = json.Unmarshal(js, &s)
		if i := strings.LastIndexByte(s.Text.Text, '&'); i >= 0 && !strings.Contains(s.Text.Text[i:], ";") {
			t.Errorf("half an entity at the end of %q", s.Text.Text[max(0, len(s.Text.Text)-40):])
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 5, "abcd…"},
		{"ab&amp;cd", 5, "ab…"},
		{"ab&amp;cd", 8, "ab&amp;…"},
		{"see <https://x.example|x> now", 12, "see …"},
		{"H100 × 8 GPUs ✅", 7, "H100 ×…"},
	}
	for _, tt := range tests {
		if got := truncate(tt.in, tt.n); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if utf8.RuneCountInString(truncate(tt.in, tt.n)) > tt.n {
			t.Errorf("truncate(%q, %d) is too long", tt.in, tt.n)
		}
	}
}

func TestTestMessage(t *testing.T) {
	b, err := TestMessage(runAt, "v1.2.3 <&>")
	if err != nil {
		t.Fatal(err)
	}
	p := checkLimits(t, b)
	if !strings.Contains(string(canonical(t, b)), "v1.2.3 &lt;&amp;&gt;") || p.Meta == nil || p.Meta.EventType != "pricewatch_test" {
		t.Errorf("test message: %s", b)
	}
}

// Rates read rounded (four decimals at most, thousands grouped) while the
// stored figures keep every digit; the texts never show a delivery key.
func TestReadableRatesAndNoDeliveryKey(t *testing.T) {
	for in, want := range map[string]string{
		"21.6299543379": "21.63",
		"14.4920045662": "14.492",
		"636439":        "636,439.00",
		"1234567.891":   "1,234,567.891",
		"0.00125":       "0.0013",
		"-5421.5":       "-5,421.50",
	} {
		if got := Readable(decimal.RequireFromString(in)); got != want {
			t.Errorf("Readable(%s) = %q, want %q", in, got, want)
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*.golden.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("goldens: %v %v", files, err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Text   string          `json:"text"`
			Blocks json.RawMessage `json:"blocks"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		shown := p.Text + string(p.Blocks)
		if strings.Contains(shown, "run/4711/") || strings.Contains(shown, "delivery") {
			t.Errorf("%s: a delivery key in the text people read", f)
		}
		if regexp.MustCompile(`\d\.\d{5,}`).MatchString(shown) {
			t.Errorf("%s: a rate with more than four decimals: %s", f, regexp.MustCompile(`\d+\.\d{5,}`).FindString(shown))
		}
	}
}

// Issue 23 item 6: a placement score's message says the move and the
// request it answers (types, capacity, zone or region); an eviction
// band's says the move.
func TestPlacementAndEvictionText(t *testing.T) {
	score := pricewatch.Signal{Provider: "aws", Kind: pricewatch.PlacementScore, Region: "us-east-2", Zone: "use2-az1", InstanceType: "p5.48xlarge",
		Shape: pricewatch.ShapeOf("instance_types", "p4d.24xlarge+p5.48xlarge", "target_capacity", "2", "target_capacity_unit", "units",
			"single_availability_zone", "true"), Value: "2", Unit: "score", Source: "test", Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}
	band := pricewatch.Signal{Provider: "azure", Kind: pricewatch.EvictionBand, Region: "eastus", InstanceType: "Standard_ND96isr_H100_v5",
		Value: "10-15", Unit: "band", Source: "test", Hardware: pricewatch.Hardware{GPUModel: "H100", GPUCount: 8}}
	for _, c := range []struct {
		event string
		sg    pricewatch.Signal
		old   string
		want  []string
	}{
		{"placement_score_changed", score, "8", []string{"Spot placement score changed", "use2-az1", "spot placement score 8 → *2*",
			"for 2 instances of any of p4d.24xlarge, p5.48xlarge, in one zone", "score crosses 3/7"}},
		{"eviction_band_changed", band, "0-5", []string{"Spot eviction band changed", "eastus", "eviction rate 0-5 → *10-15*"}},
	} {
		ch := pricewatch.Change{Kind: pricewatch.SignalChanged, At: runAt, Place: c.sg.Place(), Hardware: c.sg.Hardware,
			Signal: &pricewatch.SignalChange{Signal: c.sg, OldValue: c.old}}
		msgs := render(t, alerting.RuleSpec{Name: "signals", Events: []string{c.event}}, c.sg.Provider, ch)
		if len(msgs) != 1 {
			t.Fatalf("%s: %d messages", c.event, len(msgs))
		}
		text := string(msgs[0].Payload)
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: payload does not say %q: %s", c.event, w, text)
			}
		}
	}
}
