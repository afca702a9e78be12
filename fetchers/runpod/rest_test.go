package runpod

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/runpod/runpodtest"
	"github.com/pricewatch/pricewatch/section"
)

// restExample is RunPod's documented example answer (runpodtest/testdata/README.md).
var restExample = runpodtest.RESTExample()

// restFake serves the catalogue to one bearer key.
type restFake struct {
	fetcherstest.Faults
	key  string
	mu   sync.Mutex
	body []byte
	url  string
}

func newRESTFake(t *testing.T, key string) *restFake {
	f := &restFake{key: key, body: restCatalogue(t, nil)}
	srv := fetcherstest.Start(t, func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.Seen(r)
		if r.URL.Path != RESTPath || r.URL.Query().Get("include") != "AVAILABILITY" || r.URL.Query().Get("product") != "POD" {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+f.key {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		if !fetcherstest.Write(w, f.Next(), f.body, `{"error":"rate limited"}`) {
			w.Write(f.body)
		}
	})
	f.url = srv.URL
	return f
}

func (f *restFake) set(b []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.body = b
}

// restCatalogue is the documented example plus an H100 built from its
// row (values made up: no real capture exists); edit changes the H100.
func restCatalogue(t *testing.T, edit func(map[string]any)) []byte {
	var doc map[string]any
	if err := json.Unmarshal(restExample, &doc); err != nil {
		t.Fatal(err)
	}
	gpus := doc["gpus"].([]any)
	row, _ := json.Marshal(gpus[0])
	var h100 map[string]any
	json.Unmarshal(row, &h100)
	h100["id"], h100["name"], h100["memory"], h100["pool"] = "NVIDIA H100 80GB HBM3", "H100 SXM", 80, "HOPPER_141"
	h100["price"] = map[string]any{"secure": json.Number("2.69"), "community": json.Number("0")}
	h100["community"] = false
	h100["availability"] = "LOW"
	h100["dataCenters"] = []any{map[string]any{"id": "EU-RO-1", "name": "EU Romania 1", "availability": "NONE"},
		map[string]any{"id": "US-KS-2", "name": "US Kansas 2", "availability": "LOW"}}
	if edit != nil {
		edit(h100)
	}
	doc["gpus"] = append(gpus, h100)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func buildREST(t *testing.T, url string, h fetcherstest.Harness) (fetchers.Fetcher, error) {
	t.Setenv(EnvAPIKey, "")
	return Provider.Build(&Section{Keyed: section.Keyed{Endpoint: url, APIKeyFile: h.KeyFile(t)}, API: APIREST}, h.Env)
}

// With api: rest the keyed catalogue is read: on-demand prices per cloud,
// exact, in "global", stock overall and per data centre.
func TestRESTCatalogue(t *testing.T) {
	const key = "rpa_RESTTESTKEY0123456789ABCDEF"
	fake := newRESTFake(t, key)
	f, err := buildREST(t, fake.url, fetcherstest.Harness{Env: fetchers.Env{Client: fetcherstest.QuickClient()}, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := f.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	var offers []string
	for _, o := range snap.Offers {
		offers = append(offers, o.InstanceType+"|"+o.OfferingClass+"|"+string(o.PriceType)+"|"+o.Hourly.String()+"|"+o.GPUModel)
	}
	want := "NVIDIA GeForce RTX 4090|community|on_demand|0.31|RTX-4090,NVIDIA GeForce RTX 4090|secure|on_demand|0.44|RTX-4090,NVIDIA H100 80GB HBM3|secure|on_demand|2.69|H100"
	if got := strings.Join(offers, ","); got != want {
		t.Errorf("offers\n got %s\nwant %s", got, want)
	}
	var avail []string
	for _, a := range snap.Availability {
		avail = append(avail, a.Region+"|"+a.InstanceType+"|"+string(a.State)+"|"+a.StockDetail)
	}
	wantAvail := "global|NVIDIA GeForce RTX 4090|in_stock|HIGH,US-KS-2|NVIDIA GeForce RTX 4090|in_stock|HIGH,global|NVIDIA H100 80GB HBM3|in_stock|LOW," +
		"EU-RO-1|NVIDIA H100 80GB HBM3|sold_out|NONE,US-KS-2|NVIDIA H100 80GB HBM3|in_stock|LOW"
	if got := strings.Join(avail, ","); got != wantAvail {
		t.Errorf("availability\n got %s\nwant %s", got, wantAvail)
	}
	if c := snap.Coverage[0]; c.CoversOffer(Region, pricewatch.Spot) || !c.CoversAvailability("EU-RO-1") {
		t.Errorf("coverage %+v: want on-demand (no spot) and availability", c)
	}
}

// Without a key the REST catalogue is skipped; GraphQL stays the default.
func TestRESTNeedsKey(t *testing.T) {
	t.Setenv(EnvAPIKey, "")
	f, err := Provider.New(&Section{Keyed: section.Keyed{Endpoint: "http://127.0.0.1:1"}, API: APIREST}, fetchers.Env{Client: fetcherstest.QuickClient()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Fetch(context.Background(), fetchers.Previous{}); !errors.Is(err, fetchers.ErrNoCredentials) {
		t.Errorf("error %v, want %v", err, fetchers.ErrNoCredentials)
	}
	if s := Provider.Section().(*Section); s.API != APIGraphQL {
		t.Errorf("default api %q", s.API)
	}
}

func TestRESTConformance(t *testing.T) {
	const key = "rpa_CONFORMANCEKEY0123456789AB"
	fetcherstest.Conformance(t, fetcherstest.Case[*restFake]{
		Provider: pricewatch.RunPod,
		Key:      key,
		Fake:     func(t *testing.T) *restFake { return newRESTFake(t, key) },
		New: func(t *testing.T, fake *restFake, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			return buildREST(t, fake.url, h)
		},
		Empty: func(_ *testing.T, fake *restFake) { fake.set([]byte(`{"gpus": []}`)) },
		Malformed: func(t *testing.T, fake *restFake) func(pricewatch.Offer) bool {
			fake.set(restCatalogue(t, func(h map[string]any) {
				h["price"] = map[string]any{"secure": json.Number("-2.69"), "community": json.Number("0")}
			}))
			return fetcherstest.InstanceType("NVIDIA H100 80GB HBM3")
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.RepeatedPage: "GET /v2/catalog/gpus answers every GPU type in one document; nothing is paged",
		},
	})
}
