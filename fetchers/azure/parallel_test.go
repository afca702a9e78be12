package azure

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// Issue 26 item 1: configured regions' request chains run
// providers.azure.concurrency at a time, never more, and give the
// snapshot a sequential fetch gives. The first `c` chains are held until
// c have started, so a fetch running fewer at once stalls (and fails by
// its deadline) instead of passing by luck of timing.
func TestChainsRunInParallelBounded(t *testing.T) {
	fake := newFake(t)
	regions := []string{"eastus", "westeurope", "northeurope", "japaneast", "brazilsouth"} // the last three answer an empty page
	seqF, _ := newTestFetcher(t, Config{Endpoint: fake.srv.URL, Regions: regions, Windows: true, Concurrency: 1}, nil)
	want, err := seqF.Fetch(context.Background(), fetchers.Previous{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			var mu sync.Mutex
			now, most, got := 0, 0, 0
			all := make(chan struct{})
			// Every page comes here, the fake's NextPageLinks rewritten to lead back.
			var front *httptest.Server
			front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				first := r.URL.Query().Get("$skip") == ""
				mu.Lock()
				now++
				most = max(most, now)
				wait := false
				if first {
					got++
					if got == c {
						close(all)
					}
					wait = got <= c
				}
				mu.Unlock()
				if wait {
					select {
					case <-all:
					case <-r.Context().Done():
					}
				}
				rec := httptest.NewRecorder()
				fake.serve(rec, r)
				w.WriteHeader(rec.Code)
				w.Write(bytes.ReplaceAll(rec.Body.Bytes(), []byte(fake.srv.URL), []byte(front.URL)))
				mu.Lock()
				now--
				mu.Unlock()
			}))
			defer front.Close()
			f, _ := newTestFetcher(t, Config{Endpoint: front.URL, Regions: regions, Windows: true, Concurrency: c}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			snap, err := f.Fetch(ctx, fetchers.Previous{})
			if err != nil {
				t.Fatalf("concurrency %d: %v (a fetch running fewer chains at once stalls here)", c, err)
			}
			if most != c || got != len(regions) {
				t.Errorf("concurrency %d: %d chains at once (want %d), %d first pages (want %d)", c, most, c, got, len(regions))
			}
			if !reflect.DeepEqual(snap, want) {
				t.Errorf("concurrency %d: the snapshot differs from the sequential one", c)
			}
		})
	}
}

// providers.azure.concurrency is checked, naming the key and its line.
func TestConcurrencyKey(t *testing.T) {
	s := Provider.Section().(*Section)
	if s.Concurrency != DefaultConcurrency {
		t.Errorf("default concurrency %d", s.Concurrency)
	}
	k := section.NewChecker("pw.yaml", map[string]int{"providers.azure.concurrency": 7}).Under("providers.azure")
	for v, want := range map[int]string{1: "", 32: "", 0: "pw.yaml:line 7: providers.azure.concurrency: 0: want 1 to 32",
		33: "pw.yaml:line 7: providers.azure.concurrency: 33: want 1 to 32"} {
		s.Concurrency = v
		err := s.Validate(k)
		if got := fmt.Sprint(err); (want == "" && err != nil) || (want != "" && got != want) {
			t.Errorf("concurrency %d: %v, want %q", v, err, want)
		}
	}
	if _, err := New(Config{Concurrency: -1}, nil, nil); err == nil {
		t.Error("New accepted concurrency -1")
	}
}

// Rows are decoded only when they may be a GPU size; the test is on the
// row's bytes and errs toward decoding.
func TestGPURow(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"armSkuName":"Standard_ND96isr_H100_v5"}`:          true,
		`{"armSkuName" : "Standard_NC24ads_A100_v4"}`:        true,
		`{"armSkuName":"  standard_nv36ads_A10_v5 "}`:        true,
		`{"armSkuName":"Standard_B16als_v2"}`:                false,
		`{"armSkuName":"  Standard_D8_v4"}`:                  false,
		`{"armSkuName":""}`:                                  true, // too short to judge: decoded
		`{"armSkuName":"\u0053tandard_D8_v4"}`:               true, // an escape: decoded
		`{"armSkuName":"Standard_D8","armSkuName":"Std_NC"}`: true, // two names: decoded
		`{"meterName":"D8 v4"}`:                              true, // no name: decoded
		`{"armSkuName":null}`:                                true,
	} {
		if got := gpuRow([]byte(raw)); got != want {
			t.Errorf("gpuRow(%s) = %v, want %v", raw, got, want)
		}
	}
	for _, s := range gpuSKUs {
		if !gpuRow([]byte(`{"armSkuName":"` + s.name + `"}`)) {
			t.Errorf("tracked size %s would not be decoded", s.name)
		}
	}
}

// Decoding only the rows that may be GPU sizes keeps exactly the rows
// whose armSkuName is in a GPU family or a tracked size, on every page
// of the tests and on the verbatim B16als v2 and D8 v4 answers.
func TestPageFilterKeepsEveryGPURow(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "pages", "*.json"))
	files = append(files, filepath.Join("testdata", "samples", "retail-prices-meterId-D8v4-westeurope.response.json"))
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		all, _, err := decodePage(body, false)
		if err != nil {
			t.Fatal(err)
		}
		some, notGPU, err := decodePage(body, true)
		if err != nil {
			t.Fatal(err)
		}
		var want []item
		for _, it := range *all.Items {
			if _, tracked := lookupSKU(it.ArmSkuName); tracked || isGPUFamily(strings.TrimSpace(it.ArmSkuName)) {
				want = append(want, it)
			}
		}
		if !reflect.DeepEqual(*some.Items, want) && !(len(want) == 0 && len(*some.Items) == 0) || notGPU != len(*all.Items)-len(want) {
			t.Errorf("%s: %d rows decoded, %d not GPU; want %d and %d", file, len(*some.Items), notGPU, len(want), len(*all.Items)-len(want))
		}
	}
}
