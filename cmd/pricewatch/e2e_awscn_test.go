package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/awscn/awscntest"
)

// Issue 22 item 2 (and item 6's "no special cases"): AWS China end to end
// through the CLI. `pricewatch fetch` is pointed at a bucket serving the
// China partition's layout (fetchers/awscn/awscntest: a documented-shape
// cn-northwest-1 file with p4d.24xlarge in CNY); a second version of the
// file lowers the on-demand rate from 211.0496 to 199.8 CNY (-5.33%),
// which the built-in price-drops rule (A100-40GB, at least 5%) sends to
// Slack as exactly one message. `compare --currency USD` then converts the
// stored CNY price with a stored ECB rate and says which.
func TestAWSChinaEndToEnd(t *testing.T) {
	b := awstest.NewBucket(t)
	const v2 = "20261208000000"
	cfg, _ := cloudE2E{
		cloud: cloud{name: "aws-cn", endpoint: b.URL()},
		baseline: alertStep{change: func(t *testing.T) {
			awscntest.Publish(t, b, awscntest.Version, map[string][]byte{
				awscntest.Region: awscntest.RegionFile(t, awscntest.Version, awscntest.OnDemand),
			})
		}, line: "aws-cn   ok       2 offers: 2 new"},
		steps: []alertStep{{
			change: func(t *testing.T) {
				awscntest.Publish(t, b, v2, map[string][]byte{awscntest.Region: awscntest.RegionFile(t, v2, "199.8000000000")})
			},
			line: "aws-cn   ok       2 offers: 0 new, 1 changed, 1 unchanged, 0 closed", rule: priceDrop,
			text: []string{"AWS China", "p4d.24xlarge", "cn-northwest-1"},
		}},
	}.run(t)

	// 1 CNY = 1.05 / 7.5 = 0.14 USD (test rates, stored as `fx update`
	// would). 199.8 CNY / 8 GPUs = 24.975 CNY = 3.4965 USD per GPU-hour.
	day := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	db := openTestDB(t, filepath.Join(filepath.Dir(cfg), "pw.db"))
	storeFXDays(context.Background(), t, db, []fixtureFXDay{{Date: day, Source: "ECB", PerEUR: map[string]string{"USD": "1.05", "CNY": "7.5"}}})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	rows, raw, _ := compareRowsOf(t, cfg, "--gpu", "A100", "--provider", "aws-cn", "--price-type", "on_demand", "--currency", "USD", "--format", "json")
	if len(rows) != 1 {
		t.Fatalf("%d rows, want the one AWS China offer:\n%s", len(rows), raw)
	}
	r := rows[0]
	if r.Provider != "aws-cn" || r.Region != "cn-northwest-1" || r.InstanceType != "p4d.24xlarge" || r.Currency != "USD" || r.NativeCurrency != "CNY" {
		t.Errorf("row: %+v", r)
	}
	if r.NativeEffectiveHourly.String() != "199.8" {
		t.Errorf("native_effective_hourly %s, want 199.8 (CNY)", r.NativeEffectiveHourly)
	}
	if !r.PricePerGPUHour.Valid || !r.PricePerGPUHour.D.Equal(decimal.RequireFromString("3.4965")) {
		t.Errorf("price_per_gpu_hour %s, want 3.4965 USD", r.PricePerGPUHour.Text())
	}
	if r.FXRate.Text() != "0.14" || r.FXDate == nil || *r.FXDate != day {
		t.Errorf("fx_rate %s of %v, want 0.14 of %s", r.FXRate.Text(), r.FXDate, day)
	}
	text, errOut, code := runCLI(t, "--config", cfg, "compare", "--gpu", "A100", "--price-type", "on_demand", "--currency", "USD")
	if code != 0 {
		t.Fatalf("compare exited %d: %s", code, errOut)
	}
	if want := "Rates: 1 CNY = 0.14 USD (ECB " + day + ")"; !strings.Contains(text, want) || !strings.Contains(text, "aws-cn    cn-northwest-1  p4d.24xlarge") {
		t.Errorf("compare does not list the aws-cn row and say %q:\n%s", want, text)
	}
}

// awsChinaCloud is AWS China at a bucket serving the stored cn-northwest-1
// file, for the tests that fetch every provider.
func awsChinaCloud(t *testing.T) cloud {
	t.Helper()
	b := awstest.NewBucket(t)
	awscntest.Publish(t, b, awscntest.Version, map[string][]byte{
		awscntest.Region: awscntest.RegionFile(t, awscntest.Version, awscntest.OnDemand),
	})
	return cloud{name: "aws-cn", endpoint: b.URL()}
}
