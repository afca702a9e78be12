package aws

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/pricewatch/pricewatch/fetchers"
)

// bucket is a fake of the Price List Bulk API bucket and the spot feed:
// region indexes pointing at version-pinned files, served with ETags and
// ranges like S3, counting the body bytes sent per path.
type bucket struct {
	t      testing.TB
	mu     sync.Mutex
	files  map[string][]byte
	sent   map[string]int64
	gets   map[string]int
	status map[string]int // path → HTTP status to answer with, always
	cutAt  map[string]int // path → drop the connection after this many body bytes
	stall  map[string]int // path → stop sending after this many bytes until the client gives up
	srv    *httptest.Server
}

const spotPath = "/spot.json"

func newBucket(t testing.TB) *bucket {
	b := &bucket{t: t, files: map[string][]byte{}, sent: map[string]int64{}, gets: map[string]int{},
		status: map[string]int{}, cutAt: map[string]int{}, stall: map[string]int{}}
	b.srv = httptest.NewServer(b)
	t.Cleanup(b.srv.Close)
	return b
}

func (b *bucket) put(path string, body []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.files[path] = body
}

func ec2Path(version, region string) string {
	return fmt.Sprintf("/offers/v1.0/aws/AmazonEC2/%s/%s/index.json", version, region)
}

func spPath(version, region string) string {
	return fmt.Sprintf("/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/%s/%s/index.json", version, region)
}

// publish writes region files and the EC2 region index listing them: the
// real 2019 region_index.json with its one region replaced by these.
func (b *bucket) publish(files map[string]versioned) {
	raw, err := os.ReadFile(filepath.Join("testdata", "ec2-region_index-excerpt-2019.json"))
	if err != nil {
		b.t.Fatal(err)
	}
	var idx map[string]any
	if err := json.Unmarshal(raw, &idx); err != nil {
		b.t.Fatal(err)
	}
	regions := map[string]any{}
	for region, f := range files {
		p := ec2Path(f.version, region)
		b.put(p, f.body)
		regions[region] = map[string]string{"regionCode": region, "currentVersionUrl": p}
	}
	idx["regions"] = regions
	raw, _ = json.MarshalIndent(idx, "", "  ")
	b.put(ec2RegionIndexPath, raw)
}

// publishSavingsPlans writes rate files and their index (an array).
func (b *bucket) publishSavingsPlans(files map[string]versioned) {
	type entry struct {
		RegionCode string `json:"regionCode"`
		VersionURL string `json:"versionUrl"`
	}
	var shape map[string]any
	if err := json.Unmarshal(loadSamples(b.t).spIndexShape, &shape); err != nil {
		b.t.Fatal(err)
	}
	regions := []entry{}
	names := make([]string, 0, len(files))
	for r := range files {
		names = append(names, r)
	}
	sort.Strings(names)
	for _, region := range names {
		p := spPath(files[region].version, region)
		b.put(p, files[region].body)
		regions = append(regions, entry{region, p})
	}
	shape["regions"] = regions
	raw, _ := json.MarshalIndent(shape, "", "  ")
	b.put(spRegionIndexPath, raw)
}

type versioned struct {
	version string
	body    []byte
}

func (b *bucket) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	body, ok := b.files[r.URL.Path]
	status, cut, stall := b.status[r.URL.Path], -1, -1
	if n, ok := b.cutAt[r.URL.Path]; ok {
		cut = n
	}
	if n, ok := b.stall[r.URL.Path]; ok {
		stall = n
	}
	b.gets[r.URL.Path]++
	b.mu.Unlock()
	if status != 0 {
		http.Error(w, http.StatusText(status), status)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	sum := sha256.Sum256(body)
	w.Header().Set("ETag", fmt.Sprintf(`"%x"`, sum[:8]))
	cw := &countingWriter{ResponseWriter: w}
	if stall >= 0 {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		cw.Write(body[:stall])
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
		return
	}
	if cut >= 0 {
		b.serveCut(cw, r, body, cut)
	} else {
		http.ServeContent(cw, r, "", time.Time{}, bytes.NewReader(body))
	}
	b.mu.Lock()
	b.sent[r.URL.Path] += cw.n
	b.mu.Unlock()
}

// serveCut promises the whole object (or the requested range) and drops
// the connection after cut bytes of it, as a network failure would.
func (b *bucket) serveCut(w *countingWriter, r *http.Request, body []byte, cut int) {
	start := 0
	if rg := r.Header.Get("Range"); strings.HasPrefix(rg, "bytes=") {
		start, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(body)-1, len(body)))
		w.Header().Set("Accept-Ranges", "bytes")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)-start))
		w.WriteHeader(http.StatusPartialContent)
	} else {
		w.Header().Set("Accept-Ranges", "bytes")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
	}
	end := min(start+cut, len(body))
	w.Write(body[start:end])
	w.ResponseWriter.(http.Flusher).Flush()
	if conn, _, err := http.NewResponseController(w.ResponseWriter).Hijack(); err == nil {
		conn.(*net.TCPConn).SetLinger(0)
		conn.Close()
	}
}

type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

// bytesSent reports body bytes sent since the last call, by path.
func (b *bucket) bytesSent() map[string]int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.sent
	b.sent = map[string]int64{}
	return out
}

// fetcher makes a Fetcher pointed at the bucket, with retries that do not
// sleep.
func (b *bucket) fetcher(t testing.TB, cfg Config) *Fetcher {
	t.Helper()
	cfg.Endpoint = b.srv.URL
	cfg.SpotEndpoint = b.srv.URL + spotPath
	policy := fetchers.DefaultRetryPolicy()
	policy.MaxAttempts = 3
	client := fetchers.NewClient(policy)
	client.SetSleep(func(context.Context, time.Duration) error { return nil })
	f, err := New(cfg, client, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
