package digest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis/digest"
)

// Issue 23 item 7: the digest lists the week's capacity blocks of watched
// GPUs, cheapest per GPU-hour first, in every renderer: a block offered
// now, one gone during the week (said so), none of an unwatched model,
// none gone before the week.
func TestDigestListsTheWeeksCapacityBlocks(t *testing.T) {
	const day = 24 * time.Hour
	start := time.Date(2022, 7, 25, 11, 30, 0, 0, time.UTC)
	block := func(typ, zone, model string, gpus float64, hours int, fee string, since time.Time, until *time.Time) digest.BlockInterval {
		return digest.BlockInterval{Signal: pricewatch.Signal{Provider: pricewatch.AWS, Kind: pricewatch.CapacityBlock, Region: "us-east-2", Zone: zone,
			InstanceType: typ, Shape: pricewatch.ShapeOf("instance_count", "1", "duration_hours", strconv.Itoa(hours)), Start: start, End: start.Add(time.Duration(hours) * time.Hour),
			Value: fee, Unit: "USD", Source: "test", Hardware: pricewatch.Hardware{GPUModel: model, GPUCount: gpus}}, Since: since, Until: until}
	}
	in := baseInput(t)
	in.CapacityBlocks = []digest.BlockInterval{
		// 41,664 / (168 × 8) = 31 per GPU-hour, offered now.
		block("p5.48xlarge", "us-east-2b", "H100", 8, 168, "41664.00", now.Add(-2*day), nil),
		// 5,952 / (24 × 8) = 31 too, earlier in the list (same price, same
		// start: zone order); gone 1 day ago.
		block("p5.48xlarge", "us-east-2a", "H100", 8, 24, "5952.00", now.Add(-3*day), at(1*day)),
		// A B200 block at 60 per GPU-hour: 60 × 24 × 8 = 11,520.
		block("p6-b200.48xlarge", "us-east-2c", "B200", 8, 24, "11520.00", now.Add(-1*day), nil),
		// Unwatched, and gone before the week: not listed.
		block("p4d.24xlarge", "us-east-2a", "A100-40GB", 8, 24, "1000.00", now.Add(-1*day), nil),
		block("p5.48xlarge", "us-east-2c", "H100", 8, 24, "5000.00", now.Add(-20*day), at(9*day)),
	}
	d, err := digest.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range d.CapacityBlocks {
		got = append(got, c.Zone+" "+c.GPUModel+" "+c.PerGPUHour.Decimal.String()+" "+c.Days())
	}
	want := []string{"us-east-2a H100 31 1", "us-east-2b H100 31 7", "us-east-2c B200 60 1"}
	if strings.Join(got, "|") != strings.Join(want, "|") || d.BlocksSeen != 3 {
		t.Fatalf("blocks %q (%d seen), want %q", got, d.BlocksSeen, want)
	}

	line := "8 × H100 for 7 days from Jul 25 11:30 in us-east-2b (aws p5.48xlarge): 31.0000 USD per GPU-hour, 41664.00 USD upfront"
	gone := "8 × H100 for 1 day from Jul 25 11:30 in us-east-2a (aws p5.48xlarge): 31.0000 USD per GPU-hour, 5952.00 USD upfront; no longer offered"
	var text, mdown bytes.Buffer
	if err := WriteText(&text, d); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&mdown, d); err != nil {
		t.Fatal(err)
	}
	payload, err := SlackPayload(d, SlackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for name, out := range map[string]string{"text": text.String(), "markdown": mdown.String(), "slack": shownText(t, payload)} {
		if !strings.Contains(flat(out), line) || !strings.Contains(flat(out), gone) || strings.Contains(out, "p4d.24xlarge") {
			t.Errorf("%s does not list the week's blocks:\n%s", name, out)
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, d); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Blocks []struct {
			Zone       string      `json:"zone"`
			PerGPUHour json.Number `json:"price_per_gpu_hour"`
			Start      string      `json:"window_start"`
			Still      bool        `json:"still"`
		} `json:"capacity_blocks"`
		Seen int `json:"capacity_blocks_seen"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Seen != 3 || len(doc.Blocks) != 3 || doc.Blocks[1].Zone != "us-east-2b" || doc.Blocks[1].PerGPUHour != "31" ||
		doc.Blocks[1].Start != "2022-07-25T11:30:00Z" || !doc.Blocks[1].Still || doc.Blocks[0].Still {
		t.Errorf("JSON blocks: %+v", doc)
	}
	// A week without blocks has no section in the text (the JSON keeps
	// an empty list).
	d.CapacityBlocks, d.BlocksSeen = nil, 0
	text.Reset()
	if err := WriteText(&text, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "CAPACITY BLOCKS") {
		t.Errorf("an empty blocks section:\n%s", text.String())
	}
}
