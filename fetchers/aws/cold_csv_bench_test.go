package aws

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
)

// blockSKUs are the repeated block's SKUs (blockSKU), repetition 0.
var blockSKUs = regexp.MustCompile(`BK[0-9]{6}0{8}`)

// csvTwin is the CSV form of a generated JSON region file: the same
// products and terms (written by awstest's converter, as the fake bucket
// does), the repeated block's rows repeated as often, SKUs patched alike.
func csvTwin(tb testing.TB, g *genFile) *genFile {
	tb.Helper()
	s := awstest.LoadSamples(tb)
	// The static segments alone are a whole JSON file (the block's
	// entries each start with a comma); with one repetition, another.
	var static, once bytes.Buffer
	for _, seg := range g.segs {
		if seg.repeat == 0 {
			static.Write(seg.data)
		}
		once.Write(seg.data)
	}
	a, err := s.EC2CSV(static.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	b, err := s.EC2CSV(once.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	have := map[string]bool{}
	for _, l := range bytes.SplitAfter(a, []byte("\n")) {
		have[string(l)] = true
	}
	var block bytes.Buffer
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(l) > 0 && !have[string(l)] {
			block.Write(l)
		}
	}
	reps := g.segs[1].repeat
	var patches []int
	for _, m := range blockSKUs.FindAllIndex(block.Bytes(), -1) {
		patches = append(patches, m[0]+8)
	}
	out := &genFile{want: g.want, segs: []genSeg{{data: a}, {data: block.Bytes(), repeat: reps, patches: patches}}}
	out.size = int64(len(a)) + int64(reps)*int64(block.Len())
	return out
}

// BenchmarkColdCycleCSV: the cold 8-region cycle of BenchmarkColdCycle
// (150 MB JSON files, every connection capped at 40 MB/s, 4 streams) in
// each form, then the warm cycle after a publication (every region at a
// new version: AWS republishes every region's file at once, so the same
// bytes are paid again). It reports the bytes fetched, the wall time and
// the floor, bytes ÷ (streams × per-stream cap), of each.
//
//	go test ./fetchers/aws -run '^$' -bench ColdCycleCSV -benchtime 1x -timeout 20m
func BenchmarkColdCycleCSV(b *testing.B) {
	const streams = 4
	const v2 = "20261202000000"
	files := map[string]*genFile{}
	var entries [2][]string
	want := 0
	for _, region := range coldRegionNames {
		j := newRegionFile(b, region, coldFileSize)
		c := csvTwin(b, j)
		for i, v := range []string{v1, v2} {
			p := awstest.EC2Path(v, region)
			files[p], files[awstest.CSVPath(p)] = j, c
			entries[i] = append(entries[i], indexEntry(region, p))
		}
		want += j.want
	}
	var published atomic.Int32
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == ec2RegionIndexPath {
			w.Write(regionIndex(entries[published.Load()]))
			return
		}
		sent.Add(serveCapped(w, r, files))
	}))
	b.Cleanup(srv.Close)
	// The CSV must say which version it is: the generated JSON says v1,
	// so the v2 CSV would be refused. Serve v2 with the Version line
	// rewritten (same length).
	for _, region := range coldRegionNames {
		p := awstest.CSVPath(awstest.EC2Path(v2, region))
		c := *files[p]
		c.segs = append([]genSeg{{data: bytes.Replace(c.segs[0].data, []byte(`"Version","`+v1+`"`), []byte(`"Version","`+v2+`"`), 1)}}, c.segs[1:]...)
		files[p] = &c
	}

	for _, format := range []string{FormatJSON, FormatCSV} {
		b.Run(format, func(b *testing.B) {
			f, err := New(Config{Endpoint: srv.URL, Concurrency: streams, Format: format}, fetchers.NewClient(fetchers.DefaultRetryPolicy()), nil)
			if err != nil {
				b.Fatal(err)
			}
			var cold, warm time.Duration
			var coldBytes, warmBytes int64
			for range b.N {
				published.Store(0)
				sent.Store(0)
				start := time.Now()
				snap, err := f.Fetch(context.Background(), fetchers.Previous{})
				if err != nil || len(snap.Offers) != want {
					b.Fatalf("cold: %v, offers %v (want %d)", err, snap != nil, want)
				}
				cold += time.Since(start)
				coldBytes += sent.Load()
				published.Store(1)
				sent.Store(0)
				start = time.Now()
				again, err := f.Fetch(context.Background(), fetchers.Previous{Versions: snap.Versions, State: snap.State})
				if err != nil || len(again.Offers) != want {
					b.Fatalf("warm: %v", err)
				}
				warm += time.Since(start)
				warmBytes += sent.Load()
			}
			n := float64(b.N)
			floor := func(bytes float64) float64 { return bytes / (streams * coldCap) }
			b.ReportMetric(float64(coldBytes)/n/1e6, "cold-MB")
			b.ReportMetric(cold.Seconds()/n, "cold-wall-s")
			b.ReportMetric(floor(float64(coldBytes)/n), "cold-floor-s")
			b.ReportMetric(float64(warmBytes)/n/1e6, "warm-MB")
			b.ReportMetric(warm.Seconds()/n, "warm-wall-s")
			b.ReportMetric(floor(float64(warmBytes)/n), "warm-floor-s")
		})
	}
}

// BenchmarkParseCSV is the CSV reader alone over the CSV twin of the
// 150 MB generated file (BenchmarkParse's counterpart).
func BenchmarkParseCSV(b *testing.B) {
	for _, format := range []string{FormatJSON, FormatCSV} {
		b.Run(format, func(b *testing.B) {
			g := newRegionFile(b, "us-east-1", coldFileSize)
			parse := func() (*regionPrices, error) { return parseOfferFile(g.reader(), "us-east-1") }
			if format == FormatCSV {
				g = csvTwin(b, g)
				parse = func() (*regionPrices, error) { return parseOfferCSVAt(g.reader(), "us-east-1", time.Now()) }
			}
			b.SetBytes(g.size)
			for range b.N {
				rp, err := parse()
				if err != nil || len(rp.Offers) != g.want {
					b.Fatalf("%v, want %d offers", err, g.want)
				}
			}
		})
	}
}
