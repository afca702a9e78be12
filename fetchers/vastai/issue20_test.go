package vastai

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/vastai/vastaitest"
	"github.com/pricewatch/pricewatch/gpu"
)

// marketplace is 30 GPU models as Vast.ai names them (gpu_name values of
// its search; see testdata/README.md) with the memory per GPU its offers
// report (gpu_ram, MiB) and the catalogue model each must resolve to.
var marketplace = []struct {
	name   string
	ramMiB int
	model  string
}{
	{"RTX 4090", 24564, "RTX-4090"}, {"RTX 5090", 32607, "RTX-5090"}, {"RTX 5080", 16303, "RTX-5080"},
	{"RTX 4080", 16376, "RTX-4080"}, {"RTX 4070", 12282, "RTX-4070"}, {"RTX 3090", 24576, "RTX-3090"},
	{"RTX A6000", 49140, "RTX-A6000"}, {"RTX A5000", 24564, "RTX-A5000"}, {"RTX A4000", 16376, "RTX-A4000"},
	{"RTX 6000Ada", 49140, "RTX-6000-Ada"}, {"RTX 4000Ada", 20475, "RTX-4000-Ada"}, {"L4", 23034, "L4"},
	{"L40", 46068, "L40"}, {"L40S", 46068, "L40S"}, {"A40", 46068, "A40"}, {"A10", 23028, "A10"},
	{"Tesla T4", 15360, "T4"}, {"Tesla P100", 16384, "P100"}, {"Tesla P40", 24576, "P40"}, {"Tesla P4", 7680, "P4"},
	{"A100 PCIE", 81920, "A100-80GB-PCIe"}, {"A100 SXM4", 40960, "A100-40GB"}, {"H100 SXM", 81559, "H100"},
	{"H100 PCIE", 81559, "H100-PCIe"}, {"H100 NVL", 95830, "H100-NVL"}, {"H200", 143771, "H200"},
	{"H200 NVL", 143771, "H200-NVL"}, {"B200", 183359, "B200"}, {"B300", 275040, "B300"}, {"Tesla V100", 32768, "V100-32GB"},
}

// marketBook builds the book from the real H100 SXM offer object, one
// model after another, three offers each (1, 2 and 4 GPUs), prices rising
// so the book is three pages of 64 in dph_total order.
func marketBook(t *testing.T) []vastaitest.Offer {
	base := vastaitest.LoadOffers(t, h100Capture)[0]
	var book []vastaitest.Offer
	for i, m := range marketplace {
		for j, n := range []int{1, 2, 4} {
			price := decimal.New(int64(10+3*i+j), -2).Mul(decimal.NewFromInt(int64(n)))
			book = append(book, base.With(t, map[string]any{
				"id": 70000000 + 10*i + j, "gpu_name": m.name, "num_gpus": n, "gpu_ram": m.ramMiB,
				"dph_total": json.Number(price.String()), "min_bid": json.Number(price.Div(decimal.NewFromInt(2)).String()),
			}))
		}
	}
	return book
}

// Issue 20 item 7 (must show): a marketplace answer with 30 GPU models
// stores all of them, each with the GPU identity package gpu resolves,
// with the provider's default configuration: one search without a GPU
// filter, paged.
func TestEveryGPUModelByDefault(t *testing.T) {
	if len(marketplace) != 30 {
		t.Fatalf("%d models in the book, want 30", len(marketplace))
	}
	fake := vastaitest.NewServer(t, marketBook(t))
	sec := Provider.Section().(*Section)
	if len(sec.GPUModels) != 0 {
		t.Fatalf("the default configuration names GPU models: %v", sec.GPUModels)
	}
	f, err := New(Config{Endpoint: fake.URL, GPUModels: sec.GPUModels, MaxPages: sec.MaxPages, RequestInterval: -1}, fetcherstest.QuickClient(), nil)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]pricewatch.Hardware{}
	for _, o := range snap.Offers {
		if o.PriceType == pricewatch.OnDemand && o.GPUCount == 1 {
			models[o.InstanceType] = o.Hardware
		}
	}
	for _, m := range marketplace {
		hw, ok := models["1x "+m.name]
		spec, known := gpu.Lookup(m.model)
		switch {
		case !ok:
			t.Errorf("%s not stored", m.name)
		case !known || hw.GPUModel != m.model || hw.GPUMemoryGB != spec.MemoryGB:
			t.Errorf("%s stored as %+v, want %s with %v GB", m.name, hw, m.model, spec.MemoryGB)
		}
	}
	if len(snap.Offers) != 30*3*2 || len(snap.Availability) != 30*3 {
		t.Errorf("%d offers and %d availability records, want 180 and 90", len(snap.Offers), len(snap.Availability))
	}
	reqs := fake.Requests()
	if len(reqs) < 2 {
		t.Errorf("%d requests for 90 offers at 64 a page: not paged", len(reqs))
	}
	for _, q := range reqs {
		if _, ok := q["gpu_name"]; ok {
			t.Errorf("the default search filters on a GPU: %v", q)
		}
	}
	if got := decodeState(t, snap).Rentable["RTX 4090"]; got != 3 {
		t.Errorf("RTX 4090 rentable offers remembered: %d, want 3", got)
	}
}

// Issue 20 item 7: configured gpu_models keep their one search each.
func TestConfiguredModelsStillSearchedOneByOne(t *testing.T) {
	fake := vastaitest.NewServer(t, marketBook(t))
	snap, err := newFetcher(t, fake.URL, "RTX 4090", "H200 NVL").Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, a := range snap.Availability {
		types = append(types, a.InstanceType)
	}
	slices.Sort(types)
	if fmt.Sprint(types) != "[1x H200 NVL 1x RTX 4090 2x H200 NVL 2x RTX 4090 4x H200 NVL 4x RTX 4090]" {
		t.Errorf("types %v, want the two configured models only", types)
	}
	for _, q := range fake.Requests() {
		if n := fmt.Sprint(q["gpu_name"]); n != "map[eq:RTX 4090]" && n != "map[eq:H200 NVL]" {
			t.Errorf("query %v", q)
		}
	}
}

// Issue 20 item 7: an answer holding an offer of another GPU (and other
// offers that cannot be read) no longer fails the run: the offer is
// skipped and counted, the rest stored, one warning says so. Each bad
// offer is the real capture's offer object with one field changed.
func TestOddOffersSkippedAndCounted(t *testing.T) {
	real := vastaitest.LoadOffers(t, h100Capture)
	noPrice := real[2].With(t, nil)
	noPrice["dph_total"] = json.RawMessage(`null`)
	textBid := real[3].With(t, nil)
	textBid["min_bid"] = json.RawMessage(`"cheap"`)
	book := []vastaitest.Offer{
		real[0],
		real[1].With(t, map[string]any{"gpu_name": "RTX 4090", "gpu_ram": 24564}),
		noPrice,
		textBid,
		real[4].With(t, map[string]any{"num_gpus": 0}),
		real[5], real[6], real[7],
	}
	fake := vastaitest.NewServer(t, book)
	// The fake filters on gpu_name as the real search does; an answer
	// holding another GPU anyway is the case to survive.
	fake.LeakOtherGPUs()
	core, logs := observer.New(zapcore.WarnLevel)
	f, err := New(Config{Endpoint: fake.URL, GPUModels: []string{"H100 SXM"}, RequestInterval: -1}, fetcherstest.QuickClient(), zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatalf("one odd offer failed the run: %v", err)
	}
	if got := decodeState(t, snap).Rentable["H100 SXM"]; got != 4 {
		t.Errorf("%d H100 offers counted, want the 4 readable ones", got)
	}
	for _, o := range snap.Offers {
		if o.GPUModel != "H100" {
			t.Errorf("an offer of another GPU was stored: %+v", o)
		}
	}
	w := logs.FilterMessageSnippet("offers skipped").All()
	if len(w) != 1 {
		t.Fatalf("%d warnings about skipped offers, want one", len(w))
	}
	fields := w[0].ContextMap()
	if fields["skipped_offers"] != int64(4) || fields["other_gpu"] != int64(1) || fields["no_gpus"] != int64(1) {
		t.Errorf("warning fields %v, want 4 skipped: 1 other GPU, 1 without GPUs, 2 unreadable or incomplete", fields)
	}
}
