package oci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/oci/ocitest"
)

const capture = "testdata/cetools-products-currencyCode-USD-GPU-rows-20260822.json"

func fetch(t *testing.T, url string) (*pricewatch.Snapshot, error) {
	t.Helper()
	f, err := New(Config{Endpoint: url}, fetcherstest.QuickClient(), nil)
	return fetcherstest.Fetch(t, f, err)
}

// Every shape price in the real capture: the row's per-GPU-hour value ×
// the shape's GPUs. perGPU is the row's value as the capture gives it.
type wantShape struct {
	shape, model  string
	gpus          float64
	hourly, perGP string
}

var wantShapes = []wantShape{
	{"BM.GPU.H100.8", "H100", 8, "80", "10"},
	{"BM.GPU.H200.8", "H200", 8, "80", "10"},
	{"BM.GPU.B200.8", "B200", 8, "112", "14"},
	{"BM.GPU.GB200.4", "GB200", 4, "64", "16"},
	{"BM.GPU.B300.8", "B300", 8, "120", "15"},
	{"BM.GPU.GB300.4", "GB300", 4, "72", "18"},
	{"BM.GPU.MI300X.8", "MI300X", 8, "48", "6"},
	{"BM.GPU.MI355X.8", "MI355X", 8, "68.8", "8.6"},
	{"BM.GPU.A100-v2.8", "A100-80GB", 8, "32", "4"},
	{"BM.GPU4.8", "A100-40GB", 8, "24.4", "3.05"},
	{"VM.GPU.A10.1", "A10", 1, "2", "2"},
	{"VM.GPU.A10.2", "A10", 2, "4", "2"},
	{"BM.GPU.A10.4", "A10", 4, "8", "2"},
	{"BM.GPU.L40S.4", "L40S", 4, "14", "3.5"},
	{"VM.GPU3.1", "V100", 1, "2.95", "2.95"},
	{"VM.GPU3.2", "V100", 2, "5.9", "2.95"},
	{"VM.GPU3.4", "V100", 4, "11.8", "2.95"},
	{"BM.GPU3.8", "V100", 8, "23.6", "2.95"},
	{"BM.GPU2.2", "P100", 2, "2.55", "1.275"},
	{"VM.GPU2.1", "P100", 1, "1.275", "1.275"},
	{"BM.GPU.RTXPRO.8", "RTX-PRO-6000", 8, "36", "4.5"},
}

func checkShapes(t *testing.T, snap *pricewatch.Snapshot) {
	t.Helper()
	got := map[string]pricewatch.Offer{}
	for _, o := range snap.Offers {
		if o.Region != Region || o.PriceType != pricewatch.OnDemand || o.Currency != "USD" || o.OS != pricewatch.Linux {
			t.Errorf("%s: %+v", o.InstanceType, o)
		}
		got[o.InstanceType] = o
	}
	fetcherstest.EachWanted(t, "shape prices", got, wantShapes, func(w wantShape) string { return w.shape }, func(w wantShape, o pricewatch.Offer) {
		if !o.Hourly.Equal(decimal.RequireFromString(w.hourly)) || o.GPUModel != w.model || o.GPUCount != w.gpus {
			t.Errorf("%s: %s for %v × %s, want %s for %v × %s", w.shape, o.Hourly, o.GPUCount, o.GPUModel, w.hourly, w.gpus, w.model)
		}
		if per := o.Hourly.Div(decimal.NewFromFloat(o.GPUCount)); !per.Equal(decimal.RequireFromString(w.perGP)) {
			t.Errorf("%s: %s per GPU-hour, want %s", w.shape, per, w.perGP)
		}
	})
	for _, a := range snap.Availability {
		if a.Region != Region || a.State != pricewatch.Offered {
			t.Errorf("availability %+v", a)
		}
	}
	if len(snap.Availability) != len(wantShapes) {
		t.Errorf("%d availability records, want one per shape", len(snap.Availability))
	}
}

func TestFetchRealCapture(t *testing.T) {
	fake := ocitest.NewServer(t, ocitest.Load(t, capture))
	snap, err := fetch(t, fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	checkShapes(t, snap)
	for _, o := range snap.Offers {
		if o.InstanceType == "BM.GPU.H100.8" && o.SkuID != "B98415" {
			t.Errorf("H100 shape's part number %q, want B98415", o.SkuID)
		}
	}
	if snap.SourceVersion != "lastUpdated 2026-08-14T09:09:55.872Z" {
		t.Errorf("source version %q", snap.SourceVersion)
	}
	if reqs := fake.Requests(); len(reqs) != 1 || reqs[0] != ocitest.Path+"?currencyCode=USD" {
		t.Errorf("requests %v", reqs)
	}
}

// Each lookalike of the capture (same GPU names, not a compute price) is
// left out for its own reason, and none of their values appears.
func TestLookalikeRowsLeftOut(t *testing.T) {
	c := ocitest.Load(t, capture)
	want := map[string]string{
		"B108776": skipNotGPUCompute, // WebCenter, per OCPU
		"B108806": skipNotGPUCompute, // VMware BM.GPU.A10.64, Node Per Hour
		"B108807": skipNotGPUCompute,
		"B108808": skipNotGPUCompute,
		"B109480": skipNotGPUCompute, // H100T under "Compute - GPU - Other"
		"B109493": skipNotGPUCompute, // Roving Edge, per day
		"B110965": skipNotGPUCompute, // Cloud@Customer L40S, GPU Per Hour
		"B111454": skipNotGPUCompute,
		"B111455": skipNotGPUCompute,
		"B111463": skipNotGPUCompute, // Cloud@Customer possession per day
		"B111824": skipLicence,       // NVIDIA AI Enterprise - H100 (2.50)
		"B111825": skipLicence,
		"B111826": skipLicence,
		"B111827": skipLicence,
		"B111828": skipLicence,
		"B111829": skipLicence,
		"B111830": skipLicence,
		"B111831": skipLicence,
		"B93544":  skipUnknownPart, // "GPU - E4": shape not confirmed
	}
	rows := map[string]item{}
	for _, raw := range c.Items {
		b, _ := json.Marshal(raw)
		var it item
		if err := json.Unmarshal(b, &it); err != nil {
			t.Fatal(err)
		}
		rows[it.PartNumber] = it
	}
	for pn, why := range want {
		it, ok := rows[pn]
		if !ok {
			t.Errorf("part %s is not in the capture", pn)
			continue
		}
		if got := classify(it); got != why {
			t.Errorf("%s (%s): %q, want %q", pn, it.DisplayName, got, why)
		}
	}
	kept := 0
	for pn, it := range rows {
		if classify(it) == "" {
			kept++
			if _, ok := want[pn]; ok {
				t.Errorf("%s kept", pn)
			}
		}
	}
	if kept+len(want) != len(rows) || kept != 16 {
		t.Errorf("%d rows kept of %d, want 16 (the rest are the %d lookalikes)", kept, len(rows), len(want))
	}

	// Variants a later list could hold: the lookalikes' markers win even
	// on a row that looks like the rental in every other field.
	h100 := rows["B98415"]
	variants := map[string]func(it *item){
		skipLicence:       func(it *item) { it.DisplayName = "OCI - NVIDIA AI Enterprise - H100" },
		skipCustomer:      func(it *item) { it.DisplayName = "Oracle Compute Cloud@Customer - Compute - GPU - H100" },
		skipNotPerGPUHour: func(it *item) { it.MetricName = "Resource Possession Per Day" },
		skipNotGPUCompute: func(it *item) { it.ServiceCategory = "Compute - VMware" },
		skipUnknownPart:   func(it *item) { it.PartNumber = "B999999" }, // a twin with another part number
	}
	for why, change := range variants {
		it := h100
		change(&it)
		if got := classify(it); got != why {
			t.Errorf("variant %q classified %q", why, got)
		}
	}
}

// The list split into APEX pages gives the same prices.
func TestPaging(t *testing.T) {
	fake := ocitest.NewServer(t, ocitest.Load(t, capture))
	fake.Paginate(10)
	snap, err := fetch(t, fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	checkShapes(t, snap)
	if n := len(fake.Requests()); n != 4 {
		t.Errorf("%d requests for 35 items at 10 a page", n)
	}
}

func TestBadAnswersFailTheRun(t *testing.T) {
	tests := []struct {
		name  string
		setup func(s *ocitest.Server)
		want  error
	}{
		{"truncated", func(s *ocitest.Server) { s.Truncate(1) }, fetchers.ErrIncomplete},
		{"throttled throughout", func(s *ocitest.Server) { s.Throttle(10) }, fetchers.ErrThrottled},
		{"no items", func(s *ocitest.Server) { s.SetRaw([]byte(`{"lastUpdated": "2026-08-14T09:09:55.872Z"}`)) }, fetchers.ErrIncomplete},
		{"hasMore without a next link", func(s *ocitest.Server) {
			s.SetRaw([]byte(`{"items": [], "hasMore": true, "links": [{"rel": "self", "href": "/x"}]}`))
		}, fetchers.ErrIncomplete},
		{"price that is no number", func(s *ocitest.Server) {
			s.SetRaw([]byte(`{"items": [{"partNumber": "B98415", "displayName": "Oracle Cloud Infrastructure - Compute - GPU - H100", "metricName": "GPU Per Hour",
				"serviceCategory": "Compute - GPU", "currencyCodeLocalizations": [{"currencyCode": "USD", "prices": [{"model": "PAY_AS_YOU_GO", "value": "ten"}]}]}]}`))
		}, fetchers.ErrIncomplete},
		{"price without a value", func(s *ocitest.Server) {
			s.SetRaw([]byte(`{"items": [{"partNumber": "B98415", "displayName": "H100", "metricName": "GPU Per Hour",
				"serviceCategory": "Compute - GPU", "currencyCodeLocalizations": [{"currencyCode": "USD", "prices": [{"model": "PAY_AS_YOU_GO"}]}]}]}`))
		}, fetchers.ErrIncomplete},
		{"HTML error page", func(s *ocitest.Server) { s.SetRaw([]byte(`<html><body>Service unavailable</body></html>`)) }, fetchers.ErrIncomplete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := ocitest.NewServer(t, ocitest.Load(t, capture))
			tt.setup(fake)
			snap, err := fetch(t, fake.URL)
			if !errors.Is(err, tt.want) || snap != nil {
				t.Fatalf("Fetch = %v, %v; want %v and no snapshot", snap, err, tt.want)
			}
			if n := len(fake.Requests()); n > 3 {
				t.Errorf("%d requests", n)
			}
		})
	}
}

// A cut-off page in the middle of a paged list fails the whole run.
func TestTruncatedLaterPageFails(t *testing.T) {
	fake := ocitest.NewServer(t, ocitest.Load(t, capture))
	fake.Paginate(10)
	f, err := New(Config{Endpoint: fake.URL}, fetcherstest.QuickClient(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// First page fine, then the second is cut off.
	first, err := f.getPage(context.Background(), f.base, 1)
	if err != nil || len(*first.Items) != 10 {
		t.Fatalf("first page: %v", err)
	}
	fake.Truncate(1)
	next, err := nextPage(f.base, first)
	if err != nil || next == nil {
		t.Fatalf("next page link: %v %v", next, err)
	}
	if _, err := f.getPage(context.Background(), next, 2); !errors.Is(err, fetchers.ErrIncomplete) {
		t.Errorf("truncated second page: %v", err)
	}
}

func TestShapeTable(t *testing.T) {
	for pn, p := range parts {
		if len(p.shapes) == 0 || p.source == "" {
			t.Errorf("part %s: no shapes or no source", pn)
		}
		if m, mem := resolveGPU(p.gpu, p.memGB); m == "" || mem == 0 {
			t.Errorf("part %s: GPU %q resolves to %q, %v GB", pn, p.gpu, m, mem)
		}
		for _, s := range p.shapes {
			if s.gpus < 1 {
				t.Errorf("%s: %d GPUs", s.name, s.gpus)
			}
			var n int
			if _, err := fmt.Sscanf(s.name[len(s.name)-1:], "%d", &n); err != nil || n != s.gpus {
				t.Errorf("%s: the name's last figure says %d GPUs, the table %d", s.name, n, s.gpus)
			}
		}
	}
}

func TestNewRejectsBadEndpoint(t *testing.T) {
	for _, e := range []string{"apexapps.oracle.com", "ftp://x", "http://"} {
		if _, err := New(Config{Endpoint: e}, fetcherstest.QuickClient(), nil); err == nil {
			t.Errorf("endpoint %q accepted", e)
		}
	}
	f, err := New(Config{}, fetcherstest.QuickClient(), nil)
	if err != nil || f.base.String() != "https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/?currencyCode=USD" {
		t.Errorf("default URL %v %v", f.base, err)
	}
}
