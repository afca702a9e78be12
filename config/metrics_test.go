package config

import (
	"slices"
	"strings"
	"testing"
)

// TestMetricsOffers: per-offer series are off by default; a selection is
// read as given, and a bad price type, an unknown provider or a narrowing
// without any GPU model is refused with its key and line.
func TestMetricsOffers(t *testing.T) {
	if o := Default().Metrics.Offers; len(o.GPUModels)+len(o.PriceTypes)+len(o.Providers) != 0 {
		t.Errorf("default metrics.offers %+v, want off", o)
	}
	cfg, err := Parse(strings.NewReader("metrics:\n  offers:\n    gpu_models: [H100, A100]\n    price_types: [spot]\n    providers: [aws]\n"), "inline")
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.Metrics.Offers; !slices.Equal(o.GPUModels, []string{"H100", "A100"}) || !slices.Equal(o.PriceTypes, []string{"spot"}) || !slices.Equal(o.Providers, []string{"aws"}) {
		t.Errorf("read %+v", o)
	}
	for _, c := range []struct{ yaml, want string }{
		{"metrics:\n  offers:\n    gpu_models: [H100]\n    price_types: [cheap]\n", "line 4: metrics.offers.price_types[0]"},
		{"metrics:\n  offers:\n    gpu_models: [H100]\n    providers: [nimbus]\n", "line 4: metrics.offers.providers[0]"},
		{"metrics:\n  offers:\n    providers: [aws]\n", "metrics.offers.gpu_models"},
	} {
		_, err := Parse(strings.NewReader(c.yaml), "inline")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to name %q", c.yaml, err, c.want)
		}
	}
}
