package gcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/gcp/gcptest"
	"github.com/pricewatch/pricewatch/section"
)

// BenchmarkFetchFullPages: a catalogue of the real size's order (four
// pages of 5,000 SKUs, most of them parts of no machine, as Compute
// Engine's are) read and priced once per iteration. The SKUs are copies
// of the captured ones with other ids.
func BenchmarkFetchFullPages(b *testing.B) {
	var doc struct {
		SKUs []map[string]any `json:"skus"`
	}
	for _, name := range []string{"cloudbilling-v1-skus-page-A100-A2-us-20230324.json", "cloudbilling-v1-skus-GPU-Americas-H100-H200-commit-spot-20260518.json"} {
		var d struct {
			SKUs []map[string]any `json:"skus"`
		}
		if err := json.Unmarshal(gcptest.Sample(b, name), &d); err != nil {
			b.Fatal(err)
		}
		doc.SKUs = append(doc.SKUs, d.SKUs...)
	}
	const pages = 4
	bodies := make([][]byte, pages)
	for p := range pages {
		skus := make([]map[string]any, PageSize)
		for i := range skus {
			s := map[string]any{}
			for k, v := range doc.SKUs[i%len(doc.SKUs)] {
				s[k] = v
			}
			s["skuId"] = fmt.Sprintf("BE%02d-%04d-0000", p, i)
			skus[i] = s
		}
		page := map[string]any{"skus": skus}
		if p+1 < pages {
			page["nextPageToken"] = fmt.Sprint(p + 1)
		}
		bodies[p], _ = json.Marshal(page)
	}
	srv := fetcherstest.Start(b, func(w http.ResponseWriter, r *http.Request) {
		i := 0
		fmt.Sscan(r.URL.Query().Get("pageToken"), &i)
		w.Write(bodies[i])
	})
	b.SetBytes(int64(len(bodies[0]) * pages))
	f, err := New(Config{Endpoint: srv.URL, APIKey: section.NewSecret("bench")}, fetcherstest.QuickClient(), nil, now)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		snap, err := f.Fetch(context.Background(), fetchers.Previous{})
		if err != nil || len(snap.Offers) == 0 {
			b.Fatalf("%v", err)
		}
	}
}
