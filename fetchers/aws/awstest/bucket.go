package awstest

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Paths of the bucket, as AWS lays it out.
const (
	EC2RegionIndexPath = "/offers/v1.0/aws/AmazonEC2/current/region_index.json"
	SPRegionIndexPath  = "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json"
	// SpotPath is where the bucket serves the spot feed (SpotURL).
	SpotPath = "/spot.json"
	// SpotAdvisorPath is where the bucket serves the Spot Advisor file
	// (SpotAdvisorURL), once a test puts it there.
	SpotAdvisorPath = "/spot-advisor-data.json"
)

// EC2Path is the version-pinned path of a region's price file.
func EC2Path(version, region string) string {
	return fmt.Sprintf("/offers/v1.0/aws/AmazonEC2/%s/%s/index.json", version, region)
}

// SPPath is the version-pinned path of a region's savings-plan rate file.
func SPPath(version, region string) string {
	return fmt.Sprintf("/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/%s/%s/index.json", version, region)
}

// Region is what a region's price file lists, at a version.
type Region struct {
	Version string
	Types   []GPUType
	Extra   []Product // added verbatim after the built products
}

// Versioned is a file at a version.
type Versioned struct {
	Version string
	Body    []byte
}

// object is a stored file.
type object struct {
	body    []byte
	modTime time.Time
}

// Bucket is a fake of the Price List Bulk API bucket and the spot feed:
// region indexes pointing at version-pinned files, served with ETags,
// Last-Modified and ranges like S3, counting the body bytes sent per path.
// Old versions stay in the bucket, as they do in AWS's.
type Bucket struct {
	tb      testing.TB
	s       *Samples
	mu      sync.Mutex
	objects map[string]object
	clock   time.Time // Last-Modified of the next object stored
	sent    map[string]int64
	gets    map[string]int
	status  map[string]int // path → HTTP status to answer with, always
	dropAt  map[string]int // path → drop the connection after this many body bytes
	stall   map[string]int // path → stop sending after this many bytes until the client gives up
	once    map[string]dropOnce
	ranges  map[string][]RangeRequest
	hook    func(*http.Request) (after func())
	regions map[string]Region
	sp      map[string]Versioned
	whole   map[string]int // JSON path → length of its last whole body
	srv     *httptest.Server
}

// NewBucket starts an empty bucket on a loopback port; it stops when the
// test ends.
func NewBucket(tb testing.TB) *Bucket {
	b := &Bucket{tb: tb, s: LoadSamples(tb), objects: map[string]object{},
		clock: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		sent:  map[string]int64{}, gets: map[string]int{}, status: map[string]int{}, dropAt: map[string]int{}, stall: map[string]int{},
		once: map[string]dropOnce{}, ranges: map[string][]RangeRequest{},
		regions: map[string]Region{}, sp: map[string]Versioned{}, whole: map[string]int{}}
	b.srv = httptest.NewServer(b)
	tb.Cleanup(b.srv.Close)
	return b
}

// URL is the Price List endpoint (providers.aws.endpoint).
func (b *Bucket) URL() string { return b.srv.URL }

// SpotURL is the spot feed's URL (providers.aws.spot_endpoint).
func (b *Bucket) SpotURL() string { return b.srv.URL + SpotPath }

// SpotAdvisorURL is the Spot Advisor file's URL
// (providers.aws.spot_advisor_endpoint).
func (b *Bucket) SpotAdvisorURL() string { return b.srv.URL + SpotAdvisorPath }

// Put stores a file. Each store gets a Last-Modified one second after the
// one before, so a changed file always reads as modified.
//
// A price or savings-plan file (…/<version>/<region>/index.json) is also
// stored in CSV form at index.csv, as AWS publishes both. A body that is
// not whole JSON (Truncate) cuts the CSV twin at the same fraction, so a
// test of either form sees the object cut.
func (b *Bucket) Put(path string, body []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.clock = b.clock.Add(time.Second)
	b.objects[path] = object{body: body, modTime: b.clock}
	if !strings.HasSuffix(path, "/index.json") || !(strings.HasPrefix(path, "/offers/") || strings.HasPrefix(path, "/savingsPlan/")) {
		return
	}
	conv := b.s.EC2CSV
	if strings.HasPrefix(path, "/savingsPlan/") {
		conv = b.s.SavingsPlanCSV
	}
	csvBody, err := conv(body)
	if err != nil {
		old, ok := b.objects[CSVPath(path)]
		if !ok {
			return
		}
		whole := len(old.body)
		if prev, ok := b.whole[path]; ok && prev > 0 {
			csvBody = slices.Clone(old.body[:min(whole, whole*len(body)/prev)])
		} else {
			return
		}
	} else {
		b.whole[path] = len(body)
	}
	b.objects[CSVPath(path)] = object{body: csvBody, modTime: b.clock}
}

// Object is a stored file's body (nil if there is none).
func (b *Bucket) Object(path string) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.objects[path].body
}

// PublishEC2 replaces every region: it writes each region's price file at
// its version and the EC2 region index listing them (the real 2019
// region_index.json with its one region replaced by these). It returns the
// products of each region's file.
func (b *Bucket) PublishEC2(regions map[string]Region) map[string][]Product {
	b.tb.Helper()
	b.mu.Lock()
	b.regions = map[string]Region{}
	b.mu.Unlock()
	built := map[string][]Product{}
	for _, name := range slices.Sorted(maps.Keys(regions)) {
		built[name] = b.writeRegion(name, regions[name])
	}
	b.writeEC2Index()
	return built
}

// PublishRegion publishes one region's file (a new version, or a region
// new to the index) and rewrites the index; other regions stay as they
// are.
func (b *Bucket) PublishRegion(name string, r Region) []Product {
	b.tb.Helper()
	ps := b.writeRegion(name, r)
	b.writeEC2Index()
	return ps
}

// RegionSpec is what a region lists now.
func (b *Bucket) RegionSpec(name string) Region {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.regions[name]
	if !ok {
		b.tb.Fatalf("bucket has no region %s", name)
	}
	r.Types = slices.Clone(r.Types)
	r.Extra = slices.Clone(r.Extra)
	return r
}

// AddType publishes a new version of a region that also lists t.
func (b *Bucket) AddType(region, version string, t GPUType) []Product {
	b.tb.Helper()
	r := b.RegionSpec(region)
	r.Version = version
	r.Types = append(r.Types, t)
	return b.PublishRegion(region, r)
}

// SetOnDemand publishes a new version of a region in which one type's
// Linux on-demand rate is price.
func (b *Bucket) SetOnDemand(region, version, itype, price string) []Product {
	b.tb.Helper()
	r := b.RegionSpec(region)
	found := false
	for i := range r.Types {
		if r.Types[i].Type == itype {
			r.Types[i].OnDemand, found = price, true
		}
	}
	if !found {
		b.tb.Fatalf("region %s lists no %s", region, itype)
	}
	r.Version = version
	return b.PublishRegion(region, r)
}

func (b *Bucket) writeRegion(name string, r Region) []Product {
	b.tb.Helper()
	ps := append(b.s.BuildRegion(b.tb, name, r.Types), r.Extra...)
	b.Put(EC2Path(r.Version, name), b.s.RegionFile(r.Version, ps))
	b.mu.Lock()
	b.regions[name] = r
	b.mu.Unlock()
	return ps
}

func (b *Bucket) writeEC2Index() {
	b.tb.Helper()
	var idx map[string]any
	if err := json.Unmarshal(b.s.EC2Index, &idx); err != nil {
		b.tb.Fatal(err)
	}
	entries := map[string]any{}
	b.mu.Lock()
	for name, r := range b.regions {
		entries[name] = map[string]string{"regionCode": name, "currentVersionUrl": EC2Path(r.Version, name)}
	}
	b.mu.Unlock()
	idx["regions"] = entries
	b.putIndex(EC2RegionIndexPath, idx)
}

// putIndex publishes an index document, indented as AWS serves it.
func (b *Bucket) putIndex(path string, doc map[string]any) {
	b.tb.Helper()
	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		b.tb.Fatal(err)
	}
	b.Put(path, raw)
}

// PublishSavingsPlans replaces every region's savings-plan rate file and
// writes their index (an array, in the shape of the real one).
func (b *Bucket) PublishSavingsPlans(files map[string]Versioned) {
	b.tb.Helper()
	b.mu.Lock()
	b.sp = map[string]Versioned{}
	b.mu.Unlock()
	for _, region := range slices.Sorted(maps.Keys(files)) {
		b.putSavingsPlan(region, files[region])
	}
	b.writeSPIndex()
}

// SetSavingsPlans publishes one region's rate file at version, with the
// rates GPUSavingsPlanRows makes from prices; other regions stay.
func (b *Bucket) SetSavingsPlans(region, version string, prices map[string]float64) {
	b.tb.Helper()
	rows := GPUSavingsPlanRows(b.tb, b.s.SPHeader, region, prices)
	b.putSavingsPlan(region, Versioned{version, SavingsPlanFile(b.tb, version, region, b.s.SPHeader, rows)})
	b.writeSPIndex()
}

func (b *Bucket) putSavingsPlan(region string, f Versioned) {
	b.Put(SPPath(f.Version, region), f.Body)
	b.mu.Lock()
	b.sp[region] = f
	b.mu.Unlock()
}

func (b *Bucket) writeSPIndex() {
	b.tb.Helper()
	type entry struct {
		RegionCode string `json:"regionCode"`
		VersionURL string `json:"versionUrl"`
	}
	var shape map[string]any
	if err := json.Unmarshal(b.s.SPIndex, &shape); err != nil {
		b.tb.Fatal(err)
	}
	regions := []entry{}
	b.mu.Lock()
	for _, region := range slices.Sorted(maps.Keys(b.sp)) {
		regions = append(regions, entry{region, SPPath(b.sp[region].Version, region)})
	}
	b.mu.Unlock()
	shape["regions"] = regions
	b.putIndex(SPRegionIndexPath, shape)
}

// SetSpot publishes the spot feed built by Samples.SpotFeedFor.
func (b *Bucket) SetSpot(prices map[string]map[string]string) {
	b.tb.Helper()
	b.Put(SpotPath, b.s.SpotFeedFor(b.tb, prices))
}

// Truncate replaces a file by its first n bytes: the object itself is
// short, so every byte served is "complete" to HTTP.
func (b *Bucket) Truncate(path string, n int) {
	body := b.Object(path)
	if body == nil || n >= len(body) {
		b.tb.Fatalf("cannot cut %s (%d bytes) at %d", path, len(body), n)
	}
	b.Put(path, slices.Clone(body[:n]))
}

// DropAfter makes every request for path promise the whole object (or the
// requested range) and drop the connection after n bytes of it, as a
// network failure would. n < 0 stops dropping.
func (b *Bucket) DropAfter(path string, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n < 0 {
		delete(b.dropAt, path)
		return
	}
	b.dropAt[path] = n
}

type dropOnce struct {
	n    int
	then func()
}

// DropOnce drops the next request for path after n bytes, as DropAfter,
// and then calls then (nil: nothing), before the client can ask again:
// a test replaces the object there to see a resume meet a changed ETag.
func (b *Bucket) DropOnce(path string, n int, then func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.once[path] = dropOnce{n: n, then: then}
}

// RangeRequest is the Range and If-Range headers of a request.
type RangeRequest struct{ Range, IfRange string }

// Ranges lists the range requests for path so far, in order.
func (b *Bucket) Ranges(path string) []RangeRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.ranges[path])
}

// OnRequest calls hook as every request arrives, and the function it
// returns (if any) once the request was answered: tests count requests
// in flight with it, or hold them.
func (b *Bucket) OnRequest(hook func(*http.Request) (after func())) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.hook = hook
}

// Stall makes requests for path send n bytes and then nothing until the
// client gives up.
func (b *Bucket) Stall(path string, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stall[path] = n
}

// FailWith makes every request for path answer with an HTTP status
// (0 serves the file again).
func (b *Bucket) FailWith(path string, status int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if status == 0 {
		delete(b.status, path)
		return
	}
	b.status[path] = status
}

// Gets counts the requests for path so far.
func (b *Bucket) Gets(path string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gets[path]
}

// BytesSent reports the body bytes sent since the last call, by path
// (paths with requests answered without a body, such as 304, are absent).
func (b *Bucket) BytesSent() map[string]int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]int64{}
	for p, n := range b.sent {
		if n > 0 {
			out[p] = n
		}
	}
	b.sent = map[string]int64{}
	return out
}

// WriteDir writes every stored file under dir at its path, with its
// Last-Modified as the file's time, so that any static file server
// replays the bucket (without ETags).
func (b *Bucket) WriteDir(dir string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for p, o := range b.objects {
		full := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "/")))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, o.body, 0o644); err != nil {
			return err
		}
		if err := os.Chtimes(full, o.modTime, o.modTime); err != nil {
			return err
		}
	}
	return nil
}

// ServeHTTP answers like S3: ETag (a hash of the body), Last-Modified,
// conditional requests (304), ranges and If-Range.
func (b *Bucket) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	obj, ok := b.objects[r.URL.Path]
	status, drop, stall := b.status[r.URL.Path], -1, -1
	if n, ok := b.dropAt[r.URL.Path]; ok {
		drop = n
	}
	if n, ok := b.stall[r.URL.Path]; ok {
		stall = n
	}
	b.gets[r.URL.Path]++
	if rg := r.Header.Get("Range"); rg != "" {
		b.ranges[r.URL.Path] = append(b.ranges[r.URL.Path], RangeRequest{Range: rg, IfRange: r.Header.Get("If-Range")})
	}
	once, dropNow := b.once[r.URL.Path]
	if dropNow {
		delete(b.once, r.URL.Path)
		drop = once.n
	}
	hook := b.hook
	b.mu.Unlock()
	if hook != nil {
		if after := hook(r); after != nil {
			defer after()
		}
	}
	var beforeClose func()
	if dropNow {
		beforeClose = once.then
	}
	if status != 0 {
		http.Error(w, http.StatusText(status), status)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	body := obj.body
	sum := sha256.Sum256(body)
	w.Header().Set("ETag", fmt.Sprintf(`"%x"`, sum[:8]))
	cw := &countingWriter{ResponseWriter: w, count: func(n int64) {
		b.mu.Lock()
		b.sent[r.URL.Path] += n
		b.mu.Unlock()
	}}
	switch {
	case stall >= 0:
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		cw.Write(body[:stall])
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	case drop >= 0:
		serveDropped(cw, r, body, drop, beforeClose)
	default:
		http.ServeContent(cw, r, "", obj.modTime, bytes.NewReader(body))
	}
}

// serveDropped promises the whole object (or the requested range) and
// drops the connection after cut bytes of it, calling beforeClose (if
// any) just before: the client cannot ask again until it has run.
func serveDropped(w *countingWriter, r *http.Request, body []byte, cut int, beforeClose func()) {
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
	http.NewResponseController(w.ResponseWriter).Flush()
	if beforeClose != nil {
		beforeClose()
	}
	if conn, _, err := http.NewResponseController(w.ResponseWriter).Hijack(); err == nil {
		if tcp, ok := conn.(*net.TCPConn); ok {
			tcp.SetLinger(0)
		}
		conn.Close()
	}
}

// countingWriter counts body bytes as the handler writes them. The count
// is taken before the bytes are handed on, never after: a client reads
// the last byte, returns and a test reads the count, while the handler
// goroutine may not have run again yet. (Counting once the handler
// returned did exactly that: under load the bytes of one fetch showed up
// in the next fetch's count.)
type countingWriter struct {
	http.ResponseWriter
	count func(n int64)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.count(int64(len(p)))
	n, err := c.ResponseWriter.Write(p)
	if n < len(p) {
		c.count(int64(n - len(p))) // not sent after all
	}
	return n, err
}
