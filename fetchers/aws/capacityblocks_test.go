package aws

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/sharedtest"
)

// Example credentials of the AWS documentation: never real.
const (
	testKeyID  = "AKIAIOSFODNN7EXAMPLE"
	testSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

// awsEnv points the SDK's credential chain at the environment alone: no
// shared files of the machine, no instance metadata service.
func awsEnv(t *testing.T, withKeys bool) {
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "")
	t.Setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", "")
	t.Setenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "")
	if withKeys {
		t.Setenv("AWS_ACCESS_KEY_ID", testKeyID)
		t.Setenv("AWS_SECRET_ACCESS_KEY", testSecret)
	} else {
		t.Setenv("AWS_ACCESS_KEY_ID", "")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	}
}

// skippedWithoutCredentials runs the fetcher fetcher builds (logging to
// the observer) without AWS credentials: the EC2 step named step sends
// nothing, stores and covers no signal and says so in one line, while
// the prices stand.
func skippedWithoutCredentials(t *testing.T, step string, fetcher func(e *awstest.EC2, log *zap.Logger) *Fetcher) {
	awsEnv(t, false)
	e := awstest.NewEC2(t)
	core, logs := observer.New(zap.InfoLevel)
	snap := firstRun(t, fetcher(e, zap.New(core)))
	if len(e.Forms()) != 0 || len(snap.Signals) != 0 || len(snap.SignalCoverage) != 0 || len(snap.Offers) == 0 {
		t.Errorf("forms %v, signals %v, coverage %v, %d offers", e.Forms(), snap.Signals, snap.SignalCoverage, len(snap.Offers))
	}
	if n := logs.FilterMessageSnippet(step + " skipped: no AWS credentials").Len(); n != 1 {
		t.Errorf("%d skip lines, want 1: %v", n, logs.All())
	}
}

// noSecretLogged fails t for each log line that holds the secret key.
func noSecretLogged(t *testing.T, logs *observer.ObservedLogs) {
	t.Helper()
	for _, l := range logs.All() {
		if strings.Contains(fmt.Sprint(l.ContextMap()), testSecret) || strings.Contains(l.Message, testSecret) {
			t.Errorf("log line holds the secret key: %v", l)
		}
	}
}

var blockStart = time.Date(2026, 12, 14, 11, 30, 0, 0, time.UTC)

func p5Block(zone string, start time.Time, days int, fee string) awstest.Offering {
	return awstest.Offering{ID: "cb-0123456789" + zone, InstanceType: "p5.48xlarge", Zone: zone, InstanceCount: 1,
		Start: start, End: start.Add(time.Duration(days) * 24 * time.Hour), DurationHours: days * 24, UpfrontFee: fee, Currency: "USD"}
}

func blockFetcher(t *testing.T, e *awstest.EC2, log *zap.Logger) *Fetcher {
	b := awstest.NewBucket(t)
	tree{"us-east-2": {Version: v1, Types: []awstest.GPUType{p5}}}.publish(t, b)
	f := newFetcher(t, b, Config{Regions: []string{"us-east-2"}, CapacityBlocks: CapacityBlocks{Enabled: true,
		InstanceTypes: []string{"p5.48xlarge", "p5en.48xlarge"}, InstanceCounts: []int{1}, DurationDays: []int{1, 7}, EC2Endpoint: e.URL()}})
	if log != nil {
		f.log = log
	}
	return f
}

// Issue 23 item 3: every configured type × count × duration is asked in
// the region through the SDK (SigV4-signed, scope us-east-2/ec2); each
// offering, across pages, becomes a capacity_block signal with its zone,
// window and fee, and the region is covered.
func TestCapacityBlockOfferings(t *testing.T) {
	awsEnv(t, true)
	e := awstest.NewEC2(t)
	e.SetOfferings("us-east-2",
		p5Block("us-east-2b", blockStart, 1, "755.136"),
		p5Block("us-east-2b", blockStart.Add(24*time.Hour), 1, "755.136"),
		p5Block("us-east-2a", blockStart, 1, "786.60"),
		p5Block("us-east-2b", blockStart, 7, "5285.952"))
	snap := firstRun(t, blockFetcher(t, e, nil))
	var got []string
	for _, s := range snap.Signals {
		if s.Kind != pricewatch.CapacityBlock {
			continue
		}
		per, _ := s.BlockPerGPUHour()
		got = append(got, fmt.Sprintf("%s %s %s %s→%s %s %s %s/GPU-h", s.InstanceType, s.Zone, s.Shape, s.Start.Format("01-02T15"), s.End.Format("01-02T15"),
			s.Value, s.Unit, per.StringFixed(4)))
		if s.Region != "us-east-2" || s.GPUModel != "H100" || s.GPUCount != 8 || s.Source != SourceCapacityBlocks {
			t.Errorf("signal %+v", s)
		}
	}
	slices.Sort(got)
	want := []string{
		"p5.48xlarge us-east-2a duration_hours=24,instance_count=1 12-14T11→12-15T11 786.6 USD 4.0969/GPU-h",
		"p5.48xlarge us-east-2b duration_hours=168,instance_count=1 12-14T11→12-21T11 5285.952 USD 3.9330/GPU-h",
		"p5.48xlarge us-east-2b duration_hours=24,instance_count=1 12-14T11→12-15T11 755.136 USD 3.9330/GPU-h",
		"p5.48xlarge us-east-2b duration_hours=24,instance_count=1 12-15T11→12-16T11 755.136 USD 3.9330/GPU-h",
	}
	sharedtest.WantLines(t, "blocks", got, want)
	calls := e.Calls()
	slices.Sort(calls)
	// The 1-day query of p5 has three offerings: two pages.
	wantCalls := []string{"us-east-2 p5.48xlarge 1 168", "us-east-2 p5.48xlarge 1 24", "us-east-2 p5.48xlarge 1 24",
		"us-east-2 p5en.48xlarge 1 168", "us-east-2 p5en.48xlarge 1 24"}
	sharedtest.WantLines(t, "calls", calls, wantCalls)
	for _, a := range e.Authorizations() {
		if !strings.Contains(a, "Credential="+testKeyID+"/") || strings.Contains(a, testSecret) {
			t.Errorf("authorization %q", a)
		}
	}
	if !slices.Contains(snap.SignalCoverage, pricewatch.SignalScope{Kind: pricewatch.CapacityBlock, Region: "us-east-2"}) {
		t.Errorf("coverage %v", snap.SignalCoverage)
	}
}

// Without credentials the step is skipped with one line and the prices
// stand; a throttled answer leaves the region uncovered (nothing ends) and
// its log line holds no secret.
func TestCapacityBlocksSkippedOrThrottled(t *testing.T) {
	t.Run("no credentials", func(t *testing.T) {
		skippedWithoutCredentials(t, "capacity blocks", func(e *awstest.EC2, log *zap.Logger) *Fetcher { return blockFetcher(t, e, log) })
	})
	t.Run("throttled", func(t *testing.T) {
		awsEnv(t, true)
		e := awstest.NewEC2(t)
		e.SetOfferings("us-east-2", p5Block("us-east-2b", blockStart, 1, "755.136"))
		e.FailWith(http.StatusServiceUnavailable)
		core, logs := observer.New(zap.InfoLevel)
		snap := firstRun(t, blockFetcher(t, e, zap.New(core)))
		if len(snap.Signals) != 0 || len(snap.SignalCoverage) != 0 || len(snap.Offers) == 0 {
			t.Errorf("signals %v, coverage %v, %d offers", snap.Signals, snap.SignalCoverage, len(snap.Offers))
		}
		if logs.FilterMessageSnippet("capacity block offerings not read").Len() == 0 {
			t.Errorf("no warning: %v", logs.All())
		}
		noSecretLogged(t, logs)
	})
}

// The grid is checked when the fetcher is built.
func TestCapacityBlockGrid(t *testing.T) {
	for _, c := range []CapacityBlocks{{InstanceCounts: []int{0}}, {InstanceCounts: []int{65}}, {DurationDays: []int{15}}, {DurationDays: []int{189}}, {InstanceTypes: []string{"p5 48xlarge"}}} {
		if _, err := New(Config{CapacityBlocks: c}, nil, nil); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if _, err := New(Config{CapacityBlocks: CapacityBlocks{InstanceCounts: []int{64}, DurationDays: []int{1, 14, 21, 182}}}, nil, nil); err != nil {
		t.Error(err)
	}
}

// Issue 23 item 3: each zone's one-instance offering of a duration is
// also a capacity_block price: Term the duration in days, the fee all
// upfront, so its per-GPU-hour is fee ÷ (hours × 8 GPUs), exactly. Of a
// zone's several start dates the soonest is the price. The block prices
// have a scope of their own (capacity_block alone, the region read); the
// price file's scope never names capacity_block.
func TestCapacityBlockPrices(t *testing.T) {
	awsEnv(t, true)
	e := awstest.NewEC2(t)
	e.SetOfferings("us-east-2",
		// The later start is listed first and is cheaper: the soonest
		// start is still the price.
		p5Block("us-east-2b", blockStart.Add(24*time.Hour), 1, "700.00"),
		p5Block("us-east-2b", blockStart, 1, "755.136"),
		p5Block("us-east-2a", blockStart, 1, "786.60"),
		p5Block("us-east-2b", blockStart, 7, "5285.952"))
	snap := firstRun(t, blockFetcher(t, e, nil))
	var got []string
	for _, o := range offersOf(snap, pricewatch.CapacityBlockPrice) {
		eff, err := o.EffectiveHourly()
		if err != nil {
			t.Fatal(err)
		}
		per, _ := pricewatch.PerGPUHour(eff, o.GPUCount)
		got = append(got, fmt.Sprintf("%s %s %s %s %s upfront=%s hourly=%s eff=%s per_gpu_hour=%s %s",
			o.InstanceType, o.Zone, o.Term, o.Payment, o.OS, o.Upfront, o.Hourly, eff, per, o.Currency))
		if o.Region != "us-east-2" || o.GPUModel != "H100" || o.GPUCount != 8 {
			t.Errorf("offer %+v", o)
		}
	}
	slices.Sort(got)
	want := []string{
		"p5.48xlarge us-east-2a 1d all_upfront linux upfront=786.6 hourly=0 eff=32.775 per_gpu_hour=4.096875 USD",
		"p5.48xlarge us-east-2b 1d all_upfront linux upfront=755.136 hourly=0 eff=31.464 per_gpu_hour=3.933 USD",
		"p5.48xlarge us-east-2b 7d all_upfront linux upfront=5285.952 hourly=0 eff=31.464 per_gpu_hour=3.933 USD",
	}
	sharedtest.WantLines(t, "block prices", got, want)
	var blockScopes int
	for _, sc := range snap.Coverage {
		if slices.Contains(sc.PriceTypes, pricewatch.CapacityBlockPrice) {
			blockScopes++
			if sc.Region != "us-east-2" || len(sc.PriceTypes) != 1 || sc.Availability {
				t.Errorf("block scope %+v: want us-east-2, capacity_block alone, no availability", sc)
			}
		}
	}
	if blockScopes != 1 {
		t.Errorf("%d scopes name capacity_block, want 1: %+v", blockScopes, snap.Coverage)
	}
}

// No credentials, a throttled query, or a grid without one-instance
// blocks: no block price and no scope naming capacity_block, so stored
// block prices stay as they are.
func TestCapacityBlockPricesNotSpokenFor(t *testing.T) {
	for _, tt := range []struct {
		name   string
		keys   bool
		fail   bool
		counts []int
	}{
		{"no credentials", false, false, []int{1}},
		{"throttled", true, true, []int{1}},
		{"two-instance blocks only", true, false, []int{2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			awsEnv(t, tt.keys)
			e := awstest.NewEC2(t)
			two := p5Block("us-east-2b", blockStart, 1, "1510.272")
			two.InstanceCount = 2
			e.SetOfferings("us-east-2", p5Block("us-east-2b", blockStart, 1, "755.136"), two)
			if tt.fail {
				e.FailWith(http.StatusServiceUnavailable)
			}
			f := blockFetcher(t, e, nil)
			f.cfg.CapacityBlocks.InstanceCounts = tt.counts
			snap := firstRun(t, f)
			if n := len(offersOf(snap, pricewatch.CapacityBlockPrice)); n != 0 {
				t.Errorf("%d block prices, want none", n)
			}
			for _, sc := range snap.Coverage {
				if slices.Contains(sc.PriceTypes, pricewatch.CapacityBlockPrice) {
					t.Errorf("scope %+v names capacity_block", sc)
				}
			}
			if len(offersOf(snap, pricewatch.OnDemand)) == 0 {
				t.Error("the price file's prices are gone")
			}
			if tt.name == "two-instance blocks only" && len(snap.Signals) != 1 {
				t.Errorf("signals %v: the two-instance block is still a signal", snap.Signals)
			}
		})
	}
}

// Issue 34 item 5: a one-day block sold from 12:00 has the window 12:00 →
// 11:30 the next day (23.5 h) and CapacityBlockDurationHours 24: its fee
// buys 24 hours, and its cost per GPU-hour is one figure, the fee over
// them, in its signal and its price alike (it was 4.0167 in the signal,
// the fee over 23.5 h, and 3.9330 in the price), as docs/data.md says.
func TestCapacityBlockOneCostPerGPUHour(t *testing.T) {
	awsEnv(t, true)
	e := awstest.NewEC2(t)
	start := blockStart.Add(30 * time.Minute) // 12:00
	short := p5Block("us-east-2b", start, 1, "755.136")
	short.End = blockStart.Add(24 * time.Hour) // 11:30 the next day
	e.SetOfferings("us-east-2", short)
	snap := firstRun(t, blockFetcher(t, e, nil))
	var sig pricewatch.Signal
	for _, s := range snap.Signals {
		if s.Kind == pricewatch.CapacityBlock {
			sig = s
		}
	}
	if sig.End.Sub(sig.Start) != 23*time.Hour+30*time.Minute || sig.BlockHours() != 24 {
		t.Fatalf("signal %+v: want the 23.5 h window and 24 hours sold", sig)
	}
	sigRate, ok := sig.BlockPerGPUHour()
	if !ok {
		t.Fatal("no cost per GPU-hour for the signal")
	}
	prices := offersOf(snap, pricewatch.CapacityBlockPrice)
	if len(prices) != 1 {
		t.Fatalf("block prices %+v, want one", prices)
	}
	eff, err := prices[0].EffectiveHourly()
	if err != nil {
		t.Fatal(err)
	}
	priceRate, _ := pricewatch.PerGPUHour(eff, prices[0].GPUCount)
	want := "3.933" // 755.136 ÷ (24 h × 8 GPUs)
	if sigRate.String() != want || priceRate.String() != want {
		t.Errorf("cost per GPU-hour: signal %s, price %s; want both %s", sigRate, priceRate, want)
	}
}
