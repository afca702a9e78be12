package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/storage"
)

// Issue 23 items 4 and 6 through the CLI, storage and Slack: run 1 finds
// a spot placement score of 8 in us-east-2 (a baseline); run 2 finds 8
// again: nothing is written and nothing alerts; run 3 finds 2, which
// crosses both default edges (7 and 3): the interval moves and one Slack
// message says placement_score_changed for the H100 type, 8 → 2, with the
// request it answers. The secret key is in no output.
func TestPlacementScoreEndToEnd(t *testing.T) {
	cfg, ec2, slack := signalsConfig(t, "    placement_scores:\n      enabled: true\n"+
		"      instance_types: [p5.48xlarge, p5en.48xlarge, p4d.24xlarge]\n      target_capacity: 2\n",
		"  rules:\n    - name: h100-spot-placement\n      events: [placement_score_changed]\n      gpu_models: [H100]\n")
	db := openTestDB(t, filepath.Join(filepath.Dir(cfg), "pw.db"))
	defer db.Close()
	scores := func(step string, want int) []storage.SignalInterval {
		t.Helper()
		rows, err := db.Signals(t.Context(), storage.SignalFilter{Kinds: []pricewatch.SignalKind{pricewatch.PlacementScore}})
		if err != nil || len(rows) != want {
			t.Fatalf("%s: %d placement score intervals (%v), want %d: %+v", step, len(rows), err, want, rows)
		}
		return rows
	}

	// Run 1: 8, a baseline: one interval per type of the request.
	ec2.SetPlacementScores(awstest.PlacementScore{Region: "us-east-2", Score: 8})
	out, errOut := fetchSignals(t, cfg)
	if got := slack.received(); len(got) != 0 || !strings.Contains(out, "first run") {
		t.Fatalf("run 1 alerted %+v, or was no baseline: %s", got, out)
	}
	first := scores("run 1", 3)
	forms := ec2.Forms()
	if len(forms) != 1 || forms[0].Get("Action") != "GetSpotPlacementScores" || forms[0].Get("TargetCapacity") != "2" || forms[0].Get("RegionName.1") != "us-east-2" {
		t.Errorf("EC2 requests %v", forms)
	}

	// Run 2: 8 again: nothing written, nothing sent.
	out2, errOut2 := fetchSignals(t, cfg)
	if got := slack.received(); len(got) != 0 || strings.Contains(out2, "alerts   1 sent") {
		t.Fatalf("run 2 alerted %+v: %s", got, out2)
	}
	second := scores("run 2", 3)
	for i := range second {
		if second[i].ID != first[i].ID || second[i].Until != nil || second[i].Value != "8" {
			t.Errorf("run 2 touched %+v (was %+v)", second[i], first[i])
		}
	}

	// Run 3: 2: three intervals end, three start, one message.
	ec2.SetPlacementScores(awstest.PlacementScore{Region: "us-east-2", Score: 2})
	out3, errOut3 := fetchSignals(t, cfg)
	msg := alertSent(t, out3, slack, 1).text
	for _, want := range []string{"p5.48xlarge", "us-east-2", "1 score on AWS", "spot placement score 8 → 2", "for 2 instances of any of p4d.24xlarge, p5.48xlarge, p5en.48xlarge"} {
		if !strings.Contains(msg, want) {
			t.Errorf("alert does not say %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "— p5en.48xlarge") || strings.Contains(msg, "— p4d.24xlarge") {
		t.Errorf("the H100 rule reported another GPU's type: %s", msg)
	}
	var current, ended int
	for _, r := range scores("run 3", 6) {
		switch {
		case r.Until == nil && r.Value == "2":
			current++
		case r.Until != nil && r.Value == "8" && !r.EndedMissing:
			ended++
		}
	}
	if current != 3 || ended != 3 {
		t.Errorf("run 3: %d current scores of 2, %d ended scores of 8; want 3 and 3", current, ended)
	}
	for _, s := range []string{out, errOut, out2, errOut2, out3, errOut3, msg} {
		if strings.Contains(s, e2eAWSSecret) {
			t.Errorf("secret key printed: %s", s)
		}
	}
}
