package digest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis/digest"
	"github.com/pricewatch/pricewatch/internal/golden"
)

// lambdaH100 is 8 × H100 on demand on another cloud: 23.12 an hour, 2.89
// per GPU-hour, below Azure's 1-year all-upfront reservation (7.50).
var lambdaH100 = offerSpec{pricewatch.Lambda, "us-east-1", "", "gpu_8x_h100_sxm5", pricewatch.OnDemand, "", "", "USD", "H100", 8}

// lockInDigest is baseInput with that cheaper on-demand beside the best
// commitment, and a reference fleet of 8 GPUs.
func lockInDigest(t *testing.T) digest.Digest {
	t.Helper()
	in := baseInput(t)
	in.Prices = append(in.Prices, history(lambdaH100, "0", weeksAgo(14), "23.12")...)
	in.Runs = append(in.Runs, pricewatch.Run{ID: 12, Provider: "lambda", StartedAt: now.Add(-3 * time.Hour), FinishedAt: ptr(now.Add(-3 * time.Hour)), Status: "ok"})
	in.Expected["lambda"] = 24 * time.Hour
	in.FleetGPUs = 8
	d, err := digest.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Issue 31 item 4: the best commitment is compared with the best on-demand
// of the same GPU and count on any cloud, and a lock-in dearer than it is
// said plainly, in every rendering; the per-instance upfront and the
// fleet's month are on lines of their own.
func TestDigestSaysLockInCostsMore(t *testing.T) {
	d := lockInDigest(t)
	if len(d.Savings) != 1 {
		t.Fatalf("savings %+v", d.Savings)
	}
	s := d.Savings[0]
	if s.Alternative == nil || s.Alternative.Offer.Provider != pricewatch.Lambda || !s.Alternative.PerGPUHour.Equal(dec("2.89")) || !s.LockInDearer() {
		t.Fatalf("alternative %+v, dearer %v", s.Alternative, s.LockInDearer())
	}
	var text, md bytes.Buffer
	if err := WriteText(&text, d); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, d); err != nil {
		t.Fatal(err)
	}
	payload, err := SlackPayload(d, SlackOptions{DeliveryKey: "digest/" + d.Week + "/C0FINOPS"})
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, payload, "", "  "); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"lockin.txt": text.String(), "lockin.md": md.String(), "lockin.slack.json": pretty.String() + "\n"} {
		golden.Check(t, filepath.Join("testdata", name), []byte(out))
		shown := out
		if name == "lockin.slack.json" {
			shown = shownText(t, payload)
		}
		if !strings.Contains(shown, "this lock-in costs MORE than another cloud") || !strings.Contains(shown, "lambda us-east-1") {
			t.Errorf("%s does not say the lock-in costs more:\n%s", name, shown)
		}
		for _, line := range strings.Split(shown, "\n") {
			if strings.Contains(line, "per instance") && strings.Contains(line, "a month") {
				t.Errorf("%s mixes a per-instance and a fleet figure in one line: %s", name, line)
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

// Issue 31 item 4: weeks without history are said. In baseInput the only
// A100 spot price is in CNY with a rate from 2022-07-08 on: the weeks
// before have no price, and every rendering says so.
func TestDigestSaysWeeksWithoutHistory(t *testing.T) {
	d := lockInDigest(t)
	var text, md bytes.Buffer
	if err := WriteText(&text, d); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, d); err != nil {
		t.Fatal(err)
	}
	payload, err := SlackPayload(d, SlackOptions{DeliveryKey: "k", Chart: ChartAttached})
	if err != nil {
		t.Fatal(err)
	}
	want := "A100 spot: no price before the week of 2022-07-11 (11 of 13 weeks without a price)"
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "slack": shownText(t, payload)} {
		if !strings.Contains(out, want) {
			t.Errorf("%s does not say the weeks without history (%q):\n%s", name, want, out)
		}
	}
	// A series with a price every week says nothing.
	if strings.Contains(text.String(), "H100 on-demand: no price") {
		t.Errorf("a full series is flagged:\n%s", text.String())
	}
}

// Issue 31 item 4: one spot cut on four shapes in two regions at one
// per-GPU-hour price is one line of the moves, in every rendering.
func TestDigestGroupsOneMoveOverManyShapes(t *testing.T) {
	in := baseInput(t)
	for _, region := range []string{"us-central1", "europe-west4"} {
		for _, n := range []int{1, 2, 4, 8} {
			s := offerSpec{pricewatch.GCP, region, "", fmt.Sprintf("a3-highgpu-%dg", n), pricewatch.Spot, "", "", "USD", "H100", float64(n)}
			from, to := decimal.NewFromInt(int64(2*n)).String(), decimal.NewFromFloat(1.5*float64(n)).String()
			in.Prices = append(in.Prices, history(s, "0", weeksAgo(14), from, now.Add(-2*24*time.Hour), to)...)
		}
	}
	d, err := digest.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	var text, md bytes.Buffer
	if err := WriteText(&text, d); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, d); err != nil {
		t.Fatal(err)
	}
	payload, err := SlackPayload(d, SlackOptions{DeliveryKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "slack": shownText(t, payload)} {
		if n := strings.Count(out, "a3-highgpu-2g"); n != 1 {
			t.Errorf("%s names a3-highgpu-2g %d times, want once (one grouped line):\n%s", name, n, out)
		}
		if !strings.Contains(out, "8 offers") || !strings.Contains(out, "4 types") || !strings.Contains(out, "2 places") {
			t.Errorf("%s does not group the cut:\n%s", name, out)
		}
	}
}
