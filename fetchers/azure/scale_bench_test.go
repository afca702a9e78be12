package azure

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/sharedtest"
	"github.com/pricewatch/pricewatch/internal/heappeak"
	"github.com/pricewatch/pricewatch/internal/testing/cputime"
)

// bigAnswer is a generated Retail Prices answer of any number of rows,
// 1,000 a page as the API pages it (with api-version 2023-01-01-preview),
// rendered as each page is asked for: nothing but a few row templates is
// held. The rows are the real-format rows of testdata/pages (Linux and
// Windows pay-as-you-go with savings plans, spot, 1- and 3-year
// reservations), with the size, region and ids filled in, so that every
// GPU row is a distinct offer; one row in gpuEvery is a GPU row, the rest
// are the verbatim B16als v2 row's kind (not a GPU size: skipped), as in
// the unfiltered global list (~10^6 rows).
type bigAnswer struct {
	rows     int
	gpuEvery int
	gpu      [][][]byte // templates split at the placeholders
	plain    [][]byte
	sizes    []string
	regions  []string
	srvURL   string
}

const pageRows = 1000

// Placeholders in the templates, in the order they are filled.
const (
	phSize   = "@@SIZE@@"
	phRegion = "@@REGION@@"
	phID     = "@@ID@@"
)

func newBigAnswer(tb testing.TB, rows, gpuEvery int) *bigAnswer {
	tb.Helper()
	load := func(name string) []map[string]any {
		b, err := os.ReadFile(filepath.Join("testdata", "pages", name))
		if err != nil {
			tb.Fatal(err)
		}
		var p struct{ Items []map[string]any }
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&p); err != nil {
			tb.Fatal(err)
		}
		return p.Items
	}
	p1, p2 := load("eastus-1.json"), load("eastus-2.json")
	render := func(it map[string]any, gpu bool) [][]byte {
		it = cloneRow(it)
		if gpu {
			it["armSkuName"] = phSize
			it["armRegionName"] = phRegion
		} else {
			it["armRegionName"] = phRegion
		}
		it["skuId"] = phID
		it["meterId"] = phID
		b, err := json.Marshal(it)
		if err != nil {
			tb.Fatal(err)
		}
		return split(b)
	}
	a := &bigAnswer{rows: rows, gpuEvery: gpuEvery}
	// Linux with savings plans, Windows, spot; 1- and 3-year reservations.
	for _, it := range []map[string]any{p1[0], p1[1], p1[2], p2[0], p2[1]} {
		a.gpu = append(a.gpu, render(it, true))
	}
	a.plain = render(p1[8], false)
	for _, s := range gpuSKUs {
		if !strings.Contains(s.name, "Standard_ND96asr_A100_v4") { // the page's spelling, not a price-list name
			a.sizes = append(a.sizes, s.name)
		}
	}
	for i := range 60 {
		a.regions = append(a.regions, fmt.Sprintf("region%02d", i))
	}
	return a
}

func cloneRow(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// split cuts a rendered row at its placeholders: parts alternate between
// literal bytes and a placeholder name.
func split(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.Index(b, []byte("@@"))
		if i < 0 {
			out = append(out, b)
			break
		}
		j := bytes.Index(b[i+2:], []byte("@@")) + i + 4
		out = append(out, b[:i], b[i:j])
		b = b[j:]
	}
	return out
}

// page renders page n (0-based).
func (a *bigAnswer) page(buf *bytes.Buffer, n int) {
	buf.WriteString(`{"BillingCurrency":"USD","CustomerEntityId":"Default","CustomerEntityType":"Retail","Items":[`)
	from, to := n*pageRows, min((n+1)*pageRows, a.rows)
	for i := from; i < to; i++ {
		if i > from {
			buf.WriteByte(',')
		}
		parts := a.plain
		var size, region string
		if i%a.gpuEvery == 0 {
			g := i / a.gpuEvery
			parts = a.gpu[g%len(a.gpu)]
			g /= len(a.gpu)
			size = a.sizes[g%len(a.sizes)]
			region = a.regions[(g/len(a.sizes))%len(a.regions)]
		} else {
			region = a.regions[i%len(a.regions)]
		}
		for _, p := range parts {
			switch string(p) {
			case phSize:
				buf.WriteString(size)
			case phRegion:
				buf.WriteString(region)
			case phID:
				buf.WriteString("ID")
				buf.WriteString(strconv.Itoa(i))
			default:
				buf.Write(p)
			}
		}
	}
	buf.WriteString(`],"NextPageLink":`)
	if to < a.rows {
		fmt.Fprintf(buf, "%q", a.srvURL+"?api-version="+APIVersion+"&$skip="+strconv.Itoa(to))
	} else {
		buf.WriteString("null")
	}
	fmt.Fprintf(buf, `,"Count":%d}`, to-from)
}

func (a *bigAnswer) serve(tb testing.TB) *httptest.Server {
	var pool sync.Pool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		skip, _ := strconv.Atoi(r.URL.Query().Get("$skip"))
		buf, _ := pool.Get().(*bytes.Buffer)
		if buf == nil {
			buf = new(bytes.Buffer)
		}
		buf.Reset()
		a.page(buf, skip/pageRows)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
		w.Write(buf.Bytes())
		pool.Put(buf)
	}))
	a.srvURL = srv.URL
	tb.Cleanup(srv.Close)
	return srv
}

// BenchmarkLargeAnswer fetches generated answers of 10^5 and 10^6 rows
// (one row in 50 a GPU price, so ~20k distinct offers at 10^6) through
// the fetcher, and, with every row a GPU price, 10^5 rows (100k offers).
// It reports ns per row, peak heap and the offers kept.
//
//	go test ./fetchers/azure -run '^$' -bench LargeAnswer -benchtime 1x -timeout 20m
func BenchmarkLargeAnswer(b *testing.B) {
	for _, c := range []struct {
		name           string
		rows, gpuEvery int
	}{{"rows=1e5/gpu=1in50", 100_000, 50}, {"rows=1e6/gpu=1in50", 1_000_000, 50}, {"rows=1e5/gpu=all", 100_000, 1}} {
		b.Run(c.name, func(b *testing.B) {
			a := newBigAnswer(b, c.rows, c.gpuEvery)
			srv := a.serve(b)
			f, err := New(Config{Endpoint: srv.URL, Windows: true}, fetchers.NewClient(fetchers.DefaultRetryPolicy()), nil)
			if err != nil {
				b.Fatal(err)
			}
			stop := heappeak.Start()
			b.ResetTimer()
			cpu0 := cputime.Self()
			var offers int
			for range b.N {
				snap, err := f.Fetch(context.Background(), fetchers.Previous{})
				if err != nil {
					b.Fatal(err)
				}
				offers = len(snap.Offers)
			}
			b.StopTimer()
			b.ReportMetric((cputime.Self()-cpu0).Seconds()/float64(b.N), "cpu-s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.rows), "ns/row")
			b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(offers), "offers")
		})
	}
}

// TestServeLargeAnswer serves a generated answer for measuring the CLI
// (docs/scale.md): with PRICEWATCH_SERVE_ADDR (host:port) and
// PRICEWATCH_SERVE_ROWS set it serves the Retail Prices API there until
// GET /quit or the test's deadline (PRICEWATCH_SERVE_GPU_EVERY: one row in
// that many is a GPU price, default 50). Otherwise it is skipped.
func TestServeLargeAnswer(t *testing.T) {
	addr, rowsText := os.Getenv("PRICEWATCH_SERVE_ADDR"), os.Getenv("PRICEWATCH_SERVE_ROWS")
	if addr == "" || rowsText == "" {
		t.Skip("set PRICEWATCH_SERVE_ADDR and PRICEWATCH_SERVE_ROWS to serve a generated answer")
	}
	rows, err := strconv.Atoi(rowsText)
	if err != nil {
		t.Fatal(err)
	}
	every := 50
	if v, err := strconv.Atoi(os.Getenv("PRICEWATCH_SERVE_GPU_EVERY")); err == nil && v > 0 {
		every = v // one row in every is a GPU price
	}
	a := newBigAnswer(t, rows, every)
	a.srvURL = "http://" + addr + "/api/retail/prices"
	sharedtest.ServeUntilQuit(t, addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		skip, _ := strconv.Atoi(r.URL.Query().Get("$skip"))
		var buf bytes.Buffer
		a.page(&buf, skip/pageRows)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(buf.Bytes())
	}))
}
