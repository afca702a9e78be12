package aws

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/sharedtest"
	"github.com/pricewatch/pricewatch/internal/heappeak"
	"github.com/pricewatch/pricewatch/internal/testing/cputime"
)

// Issue 26: a cold cycle over many regions is bounded by the schedule of
// its downloads, not by parsing, when one stream from the price-list CDN
// is capped below the link.
const (
	coldRegions  = 8
	coldFileSize = 150 << 20
	coldCap      = 40 << 20 // bytes per second per connection
)

var coldRegionNames = [coldRegions]string{"us-east-1", "us-east-2", "us-west-2", "af-south-1", "eu-west-1", "eu-central-1", "ap-northeast-1", "ap-south-1"}

// rateCapped writes at most perSecond bytes a second to one connection,
// as a CDN's per-stream cap does.
type rateCapped struct {
	w   io.Writer
	lim *rate.Limiter
	ctx context.Context
}

func (c *rateCapped) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), c.lim.Burst())
		if err := c.lim.WaitN(c.ctx, k); err != nil {
			return n, err
		}
		m, err := c.w.Write(p[:k])
		n += m
		if err != nil {
			return n, err
		}
		p = p[k:]
	}
	return n, nil
}

// coldBucket serves coldRegions generated region files, each connection
// capped at coldCap bytes a second.
func coldBucket(b *testing.B) (*httptest.Server, map[string]*genFile, int) {
	files := map[string]*genFile{}
	entries := []string{}
	want := 0
	for _, region := range coldRegionNames {
		files[awstest.EC2Path(v1, region)] = newRegionFile(b, region, coldFileSize)
		entries = append(entries, indexEntry(region, awstest.EC2Path(v1, region)))
		want += files[awstest.EC2Path(v1, region)].want
	}
	index := regionIndex(entries)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == ec2RegionIndexPath {
			w.Write(index)
			return
		}
		serveCapped(w, r, files)
	}))
	b.Cleanup(srv.Close)
	return srv, files, want
}

// indexEntry is a region's entry in an EC2 region index: its current
// price file is at path.
func indexEntry(region, path string) string {
	return fmt.Sprintf("%q:{\"regionCode\":%q,\"currentVersionUrl\":%q}", region, region, path)
}

// regionIndex is an EC2 region index of entries (indexEntry).
func regionIndex(entries []string) []byte {
	return []byte(`{"formatVersion":"v1.0","publicationDate":"2026-11-01T00:00:00Z","regions":{` + strings.Join(entries, ",") + `}}`)
}

// serveCapped writes the generated file at r's path, capped at coldCap
// bytes a second, and returns the bytes sent; another path is not found.
func serveCapped(w http.ResponseWriter, r *http.Request, files map[string]*genFile) int64 {
	g, ok := files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return 0
	}
	w.Header().Set("Content-Length", strconv.FormatInt(g.size, 10))
	n, _ := g.reader().WriteTo(&rateCapped{w: w, lim: rate.NewLimiter(coldCap, 256<<10), ctx: r.Context()})
	return n
}

// BenchmarkColdCycle reads 8 generated region files of 150 MB from a fake
// bucket whose every connection is capped at 40 MB/s, one region at a time
// and providers.aws.concurrency at a time. It reports the wall time of the
// cycle, the bound the issue sets (1.3 × total bytes ÷ (streams × cap),
// plus the parse time, measured here on the same files without a
// network), the peak heap and the process's peak RSS (VmHWM, reset first;
// server and generator included).
//
//	go test ./fetchers/aws -run '^$' -bench ColdCycle -benchtime 1x -timeout 20m
func BenchmarkColdCycle(b *testing.B) {
	srv, files, want := coldBucket(b)
	var total int64
	for _, g := range files {
		total += g.size
	}
	// Parse time of the whole set, no network: the part of the bound the
	// link does not set.
	start := time.Now()
	for _, region := range coldRegionNames {
		if _, err := parseOfferFile(files[awstest.EC2Path(v1, region)].reader(), region); err != nil {
			b.Fatal(err)
		}
	}
	parse := time.Since(start)
	for _, streams := range []int{1, 4} {
		b.Run(fmt.Sprintf("concurrency-%d", streams), func(b *testing.B) {
			f, err := New(Config{Endpoint: srv.URL, Concurrency: streams, Format: FormatJSON}, fetchers.NewClient(fetchers.DefaultRetryPolicy()), nil)
			if err != nil {
				b.Fatal(err)
			}
			bound := 1.3*float64(total)/float64(streams*coldCap) + parse.Seconds()
			b.SetBytes(total)
			resetPeakRSS()
			stop := heappeak.Start()
			b.ResetTimer()
			cpu0 := cputime.Self()
			for range b.N {
				snap, err := f.Fetch(context.Background(), fetchers.Previous{})
				if err != nil {
					b.Fatal(err)
				}
				if len(snap.Offers) != want {
					b.Fatalf("%d offers, want %d", len(snap.Offers), want)
				}
			}
			b.StopTimer()
			b.ReportMetric((cputime.Self()-cpu0).Seconds()/float64(b.N), "cpu-s")
			wall := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(wall, "wall-s")
			b.ReportMetric(bound, "bound-s")
			b.ReportMetric(parse.Seconds(), "parse-s")
			b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MB")
			b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
			if wall > bound {
				b.Logf("over the bound: %.1f s against %.1f s", wall, bound)
			}
		})
	}
}

// resetPeakRSS makes VmHWM start again from the current RSS (Linux).
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSSMB is the process's peak resident set since the last reset.
func peakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}

// TestServeLargeFile serves a generated us-east-1 price file for measuring
// the CLI (docs/scale.md): with PRICEWATCH_SERVE_ADDR (host:port) and
// PRICEWATCH_SERVE_BYTES set it serves the region index and the file
// there until GET /quit or the test's deadline.
func TestServeLargeFile(t *testing.T) {
	addr, sizeText := os.Getenv("PRICEWATCH_SERVE_ADDR"), os.Getenv("PRICEWATCH_SERVE_BYTES")
	if addr == "" || sizeText == "" {
		t.Skip("set PRICEWATCH_SERVE_ADDR and PRICEWATCH_SERVE_BYTES to serve a generated price file")
	}
	size, err := strconv.ParseInt(sizeText, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	g := newRegionFile(t, "us-east-1", size)
	c := csvTwin(t, g) // providers.aws.format csv (the default) reads this
	index := regionIndex([]string{indexEntry("us-east-1", awstest.EC2Path(v1, "us-east-1"))})
	t.Logf("serving %d bytes, %d offers to find", g.size, g.want)
	sharedtest.ServeUntilQuit(t, addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case ec2RegionIndexPath:
			w.Write(index)
		case awstest.EC2Path(v1, "us-east-1"):
			w.Header().Set("Content-Length", strconv.FormatInt(g.size, 10))
			w.Header().Set("ETag", `"generated"`)
			g.reader().WriteTo(w)
		case awstest.CSVPath(awstest.EC2Path(v1, "us-east-1")):
			w.Header().Set("Content-Length", strconv.FormatInt(c.size, 10))
			w.Header().Set("ETag", `"generated-csv"`)
			c.reader().WriteTo(w)
		default:
			http.NotFound(w, r)
		}
	}))
}
