package fetchers

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
)

func TestKey(t *testing.T) {
	const env = "PRICEWATCH_TEST_LISTED_KEY"
	k := Key{Provider: "lambda", What: "lambda API key", Env: env, Required: true}
	t.Setenv(env, "")
	if _, err := k.From(""); !errors.Is(err, ErrNoCredentials) || err.Error() != ErrNoCredentials.Error()+": set "+env+" or providers.lambda.api_key_file" {
		t.Errorf("required key set nowhere: %v", err)
	}
	k.Note = "a note"
	if err := k.Missing(); !strings.HasSuffix(err.Error(), "api_key_file (a note)") {
		t.Errorf("Missing with a note: %v", err)
	}
	if got := k.Help(); got != "check "+env+" or providers.lambda.api_key_file" {
		t.Errorf("Help: %q", got)
	}
	optional := Key{Provider: "vultr", What: "vultr API key", Env: env}
	if s, err := optional.From(""); err != nil || !s.Empty() {
		t.Errorf("an optional key set nowhere: %v %v", s, err)
	}
	t.Setenv(env, "from-env")
	if s, err := k.From(""); err != nil || s.Value() != "from-env" {
		t.Errorf("from the environment: %v", err)
	}
}

func TestListedFinish(t *testing.T) {
	hw := pricewatch.Hardware{GPUModel: "H100", GPUCount: 1}
	offer := pricewatch.Offer{Provider: "lambda", Region: "global", InstanceType: "gpu_1x_h100", PriceType: pricewatch.OnDemand,
		OS: pricewatch.Linux, Currency: "USD", Hourly: decimal.RequireFromString("2.49"), Hardware: hw}
	soldOut := pricewatch.Availability{Provider: "lambda", Region: "us-east-1", InstanceType: "gpu_1x_h100", State: pricewatch.SoldOut, Hardware: hw}
	scope := []pricewatch.Scope{{Region: pricewatch.AllRegions, Availability: true}}
	l := Listed{Provider: "lambda", Where: "/api/v1/instance-types", Entries: "instance types", Key: "types", Read: 3,
		Malformed: map[string]string{"b": "no specs", "a": "no price"}, Skipped: []string{"cpu_4x"}, SkipWhy: "without GPUs or price",
		Want: "one GPU type with a price"}
	for _, c := range []struct {
		name       string
		l          Listed
		snap       pricewatch.Snapshot
		wantErr    string
		incomplete bool
	}{
		{name: "offers", l: l, snap: pricewatch.Snapshot{Provider: "lambda", Coverage: scope, Offers: []pricewatch.Offer{offer}}},
		{name: "nothing", l: l, snap: pricewatch.Snapshot{Provider: "lambda", Coverage: scope},
			wantErr: "lambda /api/v1/instance-types: 3 instance types but not one GPU type with a price: not believed", incomplete: true},
		{name: "sold out only", l: l, snap: pricewatch.Snapshot{Provider: "lambda", Coverage: scope, Availability: []pricewatch.Availability{soldOut}},
			wantErr: "lambda /api/v1/instance-types: 3 instance types but not", incomplete: true},
		{name: "sold out only, believed", l: func() Listed { l := l; l.AvailabilityOnly = true; return l }(),
			snap: pricewatch.Snapshot{Provider: "lambda", Coverage: scope, Availability: []pricewatch.Availability{soldOut}}},
		{name: "invalid", l: l, snap: pricewatch.Snapshot{Provider: "lambda", Offers: []pricewatch.Offer{offer}},
			wantErr: "lambda: built an invalid snapshot"},
	} {
		t.Run(c.name, func(t *testing.T) {
			core, logs := observer.New(zap.InfoLevel)
			snap := c.snap
			got, err := c.l.Finish(zap.New(core), &snap)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || errors.Is(err, ErrIncomplete) != c.incomplete || got != nil {
					t.Fatalf("got %v, %v; want an error with %q (incomplete %v)", got, err, c.wantErr, c.incomplete)
				}
				return
			}
			if err != nil || got != &snap {
				t.Fatalf("got %v, %v; want the snapshot", got, err)
			}
			w := logs.FilterMessage("lambda instance types malformed; left out, the others are stored").All()
			if len(w) != 1 || w[0].ContextMap()["first_error"] != "no price" {
				t.Errorf("malformed log: %+v", w)
			}
			if logs.FilterMessage("lambda instance types without GPUs or price left out").Len() != 1 {
				t.Errorf("no skipped line: %+v", logs.All())
			}
			if f := logs.FilterMessage("lambda instance types fetched").All(); len(f) != 1 || f[0].ContextMap()["types"] != int64(3) {
				t.Errorf("fetched log: %+v", f)
			}
		})
	}
}
