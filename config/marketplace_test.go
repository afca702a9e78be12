package config

import (
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/fetchers/oci"
	"github.com/pricewatch/pricewatch/fetchers/vastai"
)

func TestVastAIAndOCIKeys(t *testing.T) {
	cfg, err := Parse(strings.NewReader(`providers:
  vastai:
    endpoint: http://127.0.0.1:8080
    gpu_models: ["H100 SXM", B200]
    max_pages: 3
    request_interval: 0s
  oci:
    enabled: false
    schedule: "@hourly"
`), "inline")
	if err != nil {
		t.Fatal(err)
	}
	v := sectionOf[*vastai.Section](t, cfg, "vastai")
	if !v.Enabled || v.Endpoint != "http://127.0.0.1:8080" || strings.Join(v.GPUModels, "|") != "H100 SXM|B200" || v.MaxPages != 3 || v.RequestInterval != 0 {
		t.Errorf("vastai %+v", v)
	}
	if o := sectionOf[*oci.Section](t, cfg, "oci"); o.Enabled || o.Schedule != "@hourly" || o.Endpoint != "https://apexapps.oracle.com" || o.Timeout != 10*time.Minute {
		t.Errorf("oci %+v", o)
	}
	if d := sectionOf[*vastai.Section](t, Default(), "vastai"); d.Endpoint != "https://console.vast.ai" || d.RequestInterval != 750*time.Millisecond || d.MaxPages != vastai.DefaultMaxPages || len(d.GPUModels) != 0 { // issue 20 item 7: every GPU model by default
		t.Errorf("vastai defaults %+v", d)
	}
}

func TestVastAIAndOCIBadValues(t *testing.T) {
	_, err := Parse(strings.NewReader(`providers:
  vastai:
    regions: [US]
    gpu_models: [""]
    max_pages: 0
    request_interval: -1s
  oci:
    regions: [us-ashburn-1]
    endpoint: apexapps.oracle.com
alerts:
  rules:
    - events: [back_in_stock]
      providers: [vastai, oci, nosuchcloud]
`), "inline")
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		"line 3: providers.vastai.regions: is not used",
		"line 4: providers.vastai.gpu_models[0]: must not be empty",
		"line 5: providers.vastai.max_pages: must be at least 1",
		"line 6: providers.vastai.request_interval: must not be negative",
		"line 8: providers.oci.regions: is not used: OCI's list price is the same in every region",
		"line 9: providers.oci.endpoint: \"apexapps.oracle.com\" is not an http(s) URL",
		"providers[2]: \"nosuchcloud\"",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "providers[0]") || strings.Contains(err.Error(), "providers[1]") {
		t.Errorf("vastai or oci refused in a rule:\n%v", err)
	}
}
