package main

import (
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/pricewatch/pricewatch/fetchers/nebius"
	"github.com/pricewatch/pricewatch/fetchers/nebius/nebiustest"
)

// Issue 33 item 1: Nebius end to end through the CLI and the built-in
// rules, over the fake's constructed catalogue (fetchers/nebius/
// nebiustest/testdata/README.md), every call over gRPC to a local
// google.golang.org/grpc server. The 8× H100 preset's on-demand price
// drops from 23.6 to 18.88 USD (20%): one alert. Nebius states no stock
// or capacity, so there is no availability change to alert on (the
// fetcher stores none; checked below). An answer cut inside its message
// fails the run and closes nothing; the private key and the IAM token
// are never printed.
func TestNebiusEndToEnd(t *testing.T) {
	const h100 = "gpu-h100-sxm.8gpu-128vcpu-1600gb"
	key := nebiustest.PrivateKey(t)
	t.Setenv(nebius.EnvCredentials, nebiustest.Credentials(key))
	fake := nebiustest.New(t)
	cloudE2E{
		cloud: cloud{name: "nebius", endpoint: "https://api.nebius.example", keys: "    token_endpoint: " + fake.URL +
			"\n    iam_endpoint: " + fake.URL + "\n    compute_endpoint: " + fake.URL + "\n    calculator_endpoint: " + fake.URL + "\n"},
		typ: h100,
		baseline: alertStep{line: "15 offers: 15 new", check: func(t *testing.T, cfg string) {
			wantNebius(t, cfg, h100, "23.6")
			var rows []availabilityJSON
			cliJSON(t, &rows, "--config", cfg, "availability", h100, "--all", "--format", "json")
			if len(rows) != 0 {
				t.Errorf("availability of %s stored: %+v; Nebius states none", h100, rows)
			}
		}},
		steps: []alertStep{{
			change: func(*testing.T) { fake.SetPrice("gpu-h100-sxm", "8gpu-128vcpu-1600gb", false, "18.880000000") },
			line:   "15 offers: 0 new, 1 changed, 14 unchanged", rule: "price_drop",
			check: func(t *testing.T, cfg string) { wantNebius(t, cfg, h100, "18.88") },
		}},
		fail:    func() { fake.FailNext(codes.Internal) },
		secrets: []string{key[40:100], nebiustest.IAMToken},
	}.run(t)
}

func wantNebius(t *testing.T, cfg, typ, hourly string) {
	t.Helper()
	storedPrice{provider: "nebius", region: "eu-north1", model: "H100", gpus: 8, hourly: hourly}.check(t, cfg, typ)
}
