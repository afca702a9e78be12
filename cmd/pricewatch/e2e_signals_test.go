package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// Example credentials of the AWS documentation: never real.
const (
	e2eAWSKeyID  = "AKIAIOSFODNN7EXAMPLE"
	e2eAWSSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

// signalsConfig starts what the capacity-signal tests fetch from: the
// SDK's credential chain with the example keys and nothing of the
// machine's (no shared files, no instance metadata), a bucket whose
// us-east-2 price file lists p5.48xlarge, a fake EC2 and a fake Slack.
// It writes a config with AWS in us-east-2 alone (no spot, savings plans
// or spot advisor) at the EC2 fake, with signals (the aws entry's further
// keys) and alerts' rules, and returns its path, the EC2 fake and Slack.
func signalsConfig(t *testing.T, signals, rules string) (string, *awstest.EC2, *slackAPI) {
	t.Helper()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": e2eAWSKeyID, "AWS_SECRET_ACCESS_KEY": e2eAWSSecret, "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_WEB_IDENTITY_TOKEN_FILE": "",
	} {
		t.Setenv(k, v)
	}
	t.Setenv(envSlackToken, alertsToken)
	b := awstest.NewBucket(t)
	b.PublishEC2(map[string]awstest.Region{"us-east-2": {Version: "20261201090000",
		Types: []awstest.GPUType{{Type: "p5.48xlarge", OnDemand: "98.3200000000", Reserved: awstest.SixByClass(98.32)}}}})
	ec2 := awstest.NewEC2(t)
	slack := newSlackAPI(t)
	keys := "    regions: [us-east-2]\n    spot: false\n    savings_plans: false\n    spot_advisor: false\n" +
		"    ec2_endpoint: " + ec2.URL() + "\n" + signals
	cfg := testConfig{
		clouds: []cloud{{name: "aws", endpoint: b.URL(), keys: keys}},
		slack:  fakeSlackSection(slack.URL, "C0GPUALERTS"),
		alerts: "alerts:\n  fetch_delivery_wait: 5s\n" + rules,
	}.write(t, t.TempDir())
	return cfg, ec2, slack
}

// Issue 23 (must show): run 1 finds no capacity block for p5.48xlarge;
// in run 2 one appears and the built-in rule sends one Slack message
// naming the type, the zone, the window and the cost per GPU-hour; run 3
// sees it unchanged and says nothing; `availability p5.48xlarge` and
// /api/v1/signals show its interval. The secret key is in no output, log
// or database row.
func TestCapacityBlockEndToEnd(t *testing.T) {
	cfg, ec2, slack := signalsConfig(t, "    capacity_blocks:\n      enabled: true\n      instance_types: [p5.48xlarge]\n      duration_days: [1]\n", "")

	// Run 1: a baseline, and no offering.
	out, errOut := fetchSignals(t, cfg)
	if got := slack.received(); len(got) != 0 || !strings.Contains(out, "first run") {
		t.Fatalf("run 1 alerted %+v, or was no baseline: %s", got, out)
	}
	if calls := ec2.Calls(); len(calls) != 1 || calls[0] != "us-east-2 p5.48xlarge 1 24" {
		t.Errorf("EC2 calls %v, want one signed DescribeCapacityBlockOfferings in us-east-2", calls)
	}

	// Run 2: a one-day block in us-east-2b, 755.136 USD = 3.9330 per GPU-hour.
	start := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 12).Add(11*time.Hour + 30*time.Minute)
	ec2.SetOfferings("us-east-2", awstest.Offering{ID: "cb-0e2a5b1c3d4f5a6b7", InstanceType: "p5.48xlarge", Zone: "us-east-2b", InstanceCount: 1,
		Start: start, End: start.Add(24 * time.Hour), DurationHours: 24, UpfrontFee: "755.136", Currency: "USD"})
	out, errOut2 := fetchSignals(t, cfg)
	msg := alertSent(t, out, slack, 1).text
	for _, want := range []string{"p5.48xlarge", "us-east-2b", start.Format("2006-01-02 15:04"), start.Add(24 * time.Hour).Format("2006-01-02 15:04"), "3.933 USD per GPU-hour"} {
		if !strings.Contains(msg, want) {
			t.Errorf("alert does not say %q: %s", want, msg)
		}
	}

	// Run 3: the same offering: nothing new.
	out, errOut3 := fetchSignals(t, cfg)
	if n := len(slack.received()); n != 1 || strings.Contains(out, "alerts   1 sent") {
		t.Errorf("run 3 sent more (%d messages in all): %s", n, out)
	}

	text := rawCLI(t, "--config", cfg, "availability", "p5.48xlarge")
	for _, want := range []string{"Capacity signals:", "capacity_block", "us-east-2b", "duration_hours=24 instance_count=1", "755.136 USD", "3.9330 USD"} {
		if !strings.Contains(text, want) {
			t.Errorf("availability does not show %q:\n%s", want, text)
		}
	}
	// recommend offers the block for a one-day horizon (issue 23 item 7),
	// beside the on-demand option, not ranked with it.
	rec := rawCLI(t, "--config", cfg, "recommend", "--gpu", "H100", "--count", "8", "--horizon", "1d")
	for _, want := range []string{"Capacity blocks that fit (1 block", "8 × H100 (1 × aws p5.48xlarge) for 1 day from " + start.Format("Jan 2 15:04 UTC") + " in us-east-2b: 3.933 USD per GPU-hour, 755.14 USD upfront",
		"A capacity block fits the horizon"} {
		if !strings.Contains(rec, want) {
			t.Errorf("recommend does not say %q:\n%s", want, rec)
		}
	}
	var recJSON report.RecommendJSON
	if err := json.Unmarshal([]byte(rawCLI(t, "--config", cfg, "recommend", "--gpu", "H100", "--count", "8", "--horizon", "1d", "--format", "json")), &recJSON); err != nil {
		t.Fatal(err)
	}
	if len(recJSON.CapacityBlocks) != 1 || recJSON.CapacityBlocks[0].Zone != "us-east-2b" || recJSON.CapacityBlocks[0].PerGPUHour.D.String() != "3.933" {
		t.Errorf("recommend JSON blocks: %+v", recJSON.CapacityBlocks)
	}
	// Over a week the one-day block does not fit.
	if week := rawCLI(t, "--config", cfg, "recommend", "--gpu", "H100", "--count", "8", "--horizon", "7d"); strings.Contains(week, "Capacity blocks") {
		t.Errorf("a one-day block offered for a week:\n%s", week)
	}

	// Issue 23 item 3: the block is a capacity_block price too: compare
	// shows it with its window and 755.136 / (24 h × 8 GPUs) = 3.933 per
	// GPU-hour; compare's default (on-demand) does not.
	cmp := rawCLI(t, "--config", cfg, "compare", "--gpu", "H100", "--price-type", "capacity_block")
	for _, want := range []string{"capacity_block", "us-east-2b", "p5.48xlarge", "3.933", "WINDOW (UTC)",
		start.Format("2006-01-02 15:04") + " → " + start.Add(24*time.Hour).Format("01-02 15:04")} {
		if !strings.Contains(cmp, want) {
			t.Errorf("compare --price-type capacity_block does not show %q:\n%s", want, cmp)
		}
	}
	if od := rawCLI(t, "--config", cfg, "compare", "--gpu", "H100"); strings.Contains(od, "us-east-2b") || strings.Contains(od, "WINDOW") || !strings.Contains(od, "us-east-2") {
		t.Errorf("compare's default lists the block:\n%s", od)
	}
	var cmpRows []report.CompareRow
	if err := json.Unmarshal([]byte(rawCLI(t, "--config", cfg, "compare", "--gpu", "H100", "--price-type", "any", "--format", "json")), &cmpRows); err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, r := range cmpRows {
		if r.PriceType != "capacity_block" {
			if r.WindowStart != nil || r.WindowEnd != nil {
				t.Errorf("a %s row has a window: %+v", r.PriceType, r)
			}
			continue
		}
		blocks++
		if r.Zone != "us-east-2b" || r.Term != "1d" || r.Payment != "all_upfront" || r.PricePerGPUHour.D.String() != "3.933" ||
			r.EffectiveHourly.D.String() != "31.464" || r.WindowStart == nil || !r.WindowStart.Equal(start) ||
			r.WindowEnd == nil || !r.WindowEnd.Equal(start.Add(24*time.Hour)) {
			t.Errorf("block row %+v", r)
		}
	}
	if blocks != 1 {
		t.Errorf("%d capacity_block rows in compare --price-type any, want 1", blocks)
	}

	ts, _, db := apiServer(t, cfg)
	// Run 3 found the block unchanged: it wrote no second interval.
	var intervals int
	prices, err := db.Prices(t.Context(), storage.PriceFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prices {
		if p.PriceType == "capacity_block" {
			intervals++
			if p.ValidTo != nil || p.Upfront.String() != "755.136" || !p.Hourly.IsZero() {
				t.Errorf("block interval %+v", p)
			}
		}
	}
	if intervals != 1 {
		t.Errorf("%d capacity_block price intervals after three runs, want 1", intervals)
	}
	resp, body := apiGet(t, ts.URL+"/api/v1/signals?instance_type=p5.48xlarge&kind=capacity_block")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/api/v1/signals: %d %s", resp.StatusCode, body)
	}
	var rows []report.SignalRow
	if err := json.Unmarshal([]byte(body), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d signal rows, want the one block: %s", len(rows), body)
	}
	r := rows[0]
	if r.Zone != "us-east-2b" || r.Value != "755.136" || r.Unit != "USD" || r.PerGPUHour == nil || *r.PerGPUHour != "3.9330" ||
		r.WindowStart != start.Format(time.RFC3339) || r.Until != nil || r.Since == nil || r.GPUModel != "H100" {
		t.Errorf("signal row %+v", r)
	}
	if resp, _ := apiGet(t, ts.URL+"/api/v1/signals?kind=weather"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown kind answered %d, want 400", resp.StatusCode)
	}

	// The secret key is nowhere: outputs, logs, the database.
	for _, s := range []string{out, errOut, errOut2, errOut3, text, body} {
		if strings.Contains(s, e2eAWSSecret) {
			t.Errorf("secret key printed: %s", s)
		}
	}
	files, _ := filepath.Glob(db.Path() + "*") // the database, its WAL
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), e2eAWSSecret) || strings.Contains(string(raw), e2eAWSKeyID) {
			t.Errorf("%s holds an AWS key", f)
		}
	}
}

func fetchSignals(t *testing.T, cfg string) (string, string) {
	t.Helper()
	out, errOut, code := runCLI(t, "--config", cfg, "fetch", "--provider", "aws")
	if code != 0 || !strings.HasPrefix(out, "aws      ok ") {
		t.Fatalf("fetch exited %d:\n%s%s", code, out, errOut)
	}
	return out, errOut
}

// Issue 23 (must show): with the real Spot Advisor excerpt served,
// `compare --gpu H100 --price-type spot` shows each AWS spot row's band
// (us-east-1 p5.48xlarge {"r":4} >20%, us-west-2 {"r":1} 5-10%), in the
// table and the JSON; a second run finds the file unchanged (304), reads
// no byte of it and writes no signal.
func TestSpotAdvisorBandsInCompare(t *testing.T) {
	b := awstest.NewBucket(t)
	p5 := awstest.GPUType{Type: "p5.48xlarge", OnDemand: "98.3200000000", Reserved: awstest.SixByClass(98.32)}
	b.PublishEC2(map[string]awstest.Region{"us-east-1": {Version: "20261201090000", Types: []awstest.GPUType{p5}},
		"us-west-2": {Version: "20261201090000", Types: []awstest.GPUType{p5}}})
	b.SetSpot(map[string]map[string]string{"us-east-1": {"p5.48xlarge": "31.464"}, "us-west-2": {"p5.48xlarge": "29.0112"}})
	b.Put(awstest.SpotAdvisorPath, awstest.SampleFile(t, "spot-advisor-data-excerpt.json"))
	cfg := testConfig{clouds: []cloud{awsBucketCloud(b, "    regions: [us-east-1, us-west-2]\n    spot: true\n    savings_plans: false\n"+
		"    spot_advisor: true\n    spot_advisor_endpoint: "+b.SpotAdvisorURL()+"\n")}}.write(t, t.TempDir())
	fetchSignals(t, cfg)
	db := openTestDB(t, filepath.Join(filepath.Dir(cfg), "pw.db"))
	defer db.Close()
	first, err := db.Signals(t.Context(), storage.SignalFilter{})
	if err != nil || len(first) != 2 {
		t.Fatalf("%d signals after run 1 (%v), want the two p5 bands", len(first), err)
	}

	text := rawCLI(t, "--config", cfg, "compare", "--gpu", "H100", "--price-type", "spot")
	for _, want := range []string{"BAND", ">20%", "5-10%"} {
		if !strings.Contains(text, want) {
			t.Errorf("compare does not show %q:\n%s", want, text)
		}
	}
	rows, raw, _ := compareRowsOf(t, cfg, "--gpu", "H100", "--price-type", "spot", "--format", "json")
	bands := map[string]string{}
	for _, r := range rows {
		if r.InterruptionBand != nil {
			bands[r.Region] = *r.InterruptionBand
		}
	}
	if len(rows) != 2 || bands["us-east-1"] != ">20%" || bands["us-west-2"] != "5-10%" {
		t.Errorf("bands %v, want us-east-1 >20%%, us-west-2 5-10%%:\n%s", bands, raw)
	}

	b.BytesSent()
	fetchSignals(t, cfg)
	if n := b.BytesSent()[awstest.SpotAdvisorPath]; n != 0 {
		t.Errorf("the unchanged Spot Advisor file was downloaded again (%d bytes)", n)
	}
	second, err := db.Signals(t.Context(), storage.SignalFilter{})
	if err != nil || len(second) != 2 {
		t.Fatalf("%d signals after run 2 (%v), want the same two", len(second), err)
	}
	for i := range second {
		if second[i].ID != first[i].ID || second[i].Until != nil || !second[i].Since.Equal(first[i].Since) {
			t.Errorf("run 2 touched %+v (was %+v)", second[i], first[i])
		}
	}
}
