package aws

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/internal/heappeak"
)

// genFile is a real-layout EC2 price file of any size, produced as it is
// read (nothing is held or written but about 2 MB of templates, shared
// by all readers). It is made of the same real objects as the test fixtures:
//
//   - once: the envelope and a Linux product per GPU type, each with its
//     OnDemand term and twelve Reserved terms (the prices to find);
//   - repeated until the size is reached: a block of decoys of every GPU
//     type (three of the nine variants each), non-GPU instance types in
//     all ten variants, and storage products, with their OnDemand terms
//     and, for half the Linux variants and the Windows GPU decoys, twelve
//     Reserved terms. SKUs carry the repetition number, so every SKU in
//     the file is distinct.
//
// GPU types are one in ten, and products average about 3 kB with their
// terms, as in real region files (ap-east-2 was 43 MB with 17,365
// products, 2.5 kB each, in 2026).
type genFile struct {
	segs []genSeg
	size int64
	want int // offers the fetcher must find
}

type genSeg struct {
	data    []byte
	repeat  int   // 0: static, once
	patches []int // offsets of the 8-digit repetition counter in data
}

// blockSKU leaves 8 digits for the repetition counter.
func blockSKU(i int) string { return fmt.Sprintf("BK%06d%08d", i, 0) }

var benchGPUTypes = []string{
	"p3.8xlarge", "p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge",
	"g4dn.xlarge", "g4dn.2xlarge", "g4dn.4xlarge", "g4dn.8xlarge", "g4dn.12xlarge", "g4dn.16xlarge", "g4dn.metal",
	"g5.48xlarge", "g6.xlarge",
}

// benchPlainTypes are non-GPU types. With three GPU decoys per GPU type
// in a block, about one product in ten is a GPU type, as in us-east-1
// (roughly 100 GPU and accelerator types among 900).
var benchPlainTypes = func() []string {
	var out []string
	for _, fam := range []string{"m5", "m6i", "m7i", "c5", "c6i", "c7i", "r5", "r6i", "r7i"} {
		for _, size := range []string{"large", "xlarge", "4xlarge", "12xlarge", "metal"} {
			out = append(out, fam+"."+size)
		}
	}
	return out
}()

func newGenFile(tb testing.TB, target int64) *genFile {
	tb.Helper()
	return newRegionFile(tb, "us-east-1", target)
}

// newRegionFile is a generated file of region's products.
func newRegionFile(tb testing.TB, region string, target int64) *genFile {
	tb.Helper()
	s := awstest.LoadSamples(tb)
	entry := func(sku string, obj []byte) []byte { return []byte(fmt.Sprintf(",\n    %q: %s", sku, obj)) }

	// Once: the GPU types' Linux products.
	var head, od1, ri1 bytes.Buffer
	fmt.Fprintf(&head, "{\n  \"formatVersion\": \"v1.0\",\n  \"disclaimer\": %s,\n  \"offerCode\": \"AmazonEC2\",\n  \"version\": %q,\n  \"publicationDate\": \"2026-11-01T00:00:00Z\",\n  \"products\": {",
		strconv.Quote(s.Disclaimer), v1)
	want := 0
	for i, t := range benchGPUTypes {
		sku := awstest.SKU("bench" + t)
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&head, "%s\n    %q: %s", sep, sku, s.GPUProduct(tb, sku, region, t, awstest.VariantNamed("linux")))
		fmt.Fprintf(&od1, "%s\n      %q: %s", sep, sku, s.OnDemand(tb, sku, fmt.Sprintf("%.10f", 1+float64(i))))
		fmt.Fprintf(&ri1, "%s\n      %q: %s", sep, sku, s.ReservedTerms(tb, sku, t, awstest.SixByClass(1+float64(i))))
		want += 1 + 12
	}

	// Repeated: decoys and other types.
	var bp, bod, bri bytes.Buffer
	n := 0
	add := func(product []byte, sku string, reserved bool, itype string) {
		bp.Write(entry(sku, product))
		bod.Write(entry(sku, s.OnDemand(tb, sku, "1.2345000000")))
		if reserved {
			bri.Write(entry(sku, s.ReservedTerms(tb, sku, itype, awstest.SixByClass(1.2345))))
		}
		n++
	}
	for i, t := range benchGPUTypes {
		for k := 0; k < 3; k++ { // three decoys each; all nine kinds appear
			name := awstest.AllDecoys[(3*i+k)%len(awstest.AllDecoys)]
			sku := blockSKU(n)
			add(s.GPUProduct(tb, sku, region, t, awstest.VariantNamed(name)), sku, name == "windows", t)
		}
	}
	for ti, t := range benchPlainTypes {
		for _, v := range awstest.Variants {
			sku := blockSKU(n)
			p := awstest.Replace(s.M5Product(tb, sku, region), "m5.large", t)
			for _, kv := range [][2]string{{"operatingSystem", v.OS}, {"licenseModel", v.License}, {"tenancy", v.Tenancy},
				{"preInstalledSw", v.Software}, {"capacitystatus", v.Capacity}, {"operation", v.Operation}, {"usagetype", v.Usage + ":" + t}} {
				p = awstest.SetStr(tb, p, kv[0], kv[1])
			}
			// Reserved terms for every other type's Linux variant keep
			// products near the real 2.5 kB each (see genFile).
			add(p, sku, v.Name == "linux" && ti%2 == 0, t)
		}
	}
	for i := 0; i < 20; i++ {
		sku := blockSKU(n)
		add(s.GP3Product(tb, sku, region), sku, false, "")
	}

	patches := func(b []byte) []int {
		var out []int
		for i := 0; i < n; i++ {
			sku := []byte(blockSKU(i))
			for off := 0; ; {
				j := bytes.Index(b[off:], sku)
				if j < 0 {
					break
				}
				out = append(out, off+j+8)
				off += j + len(sku)
			}
		}
		return out
	}
	mid1 := append([]byte("\n  },\n  \"terms\": {\n    \"OnDemand\": {"), od1.Bytes()...)
	mid2 := append([]byte("\n    },\n    \"Reserved\": {"), ri1.Bytes()...)
	tail := []byte("\n    }\n  },\n  \"attributesList\": {}\n}\n")
	static := int64(head.Len() + len(mid1) + len(mid2) + len(tail))
	perRep := int64(bp.Len() + bod.Len() + bri.Len())
	reps := int((target - static + perRep - 1) / perRep)
	g := &genFile{want: want, segs: []genSeg{
		{data: head.Bytes()},
		{data: bp.Bytes(), repeat: reps, patches: patches(bp.Bytes())},
		{data: mid1},
		{data: bod.Bytes(), repeat: reps, patches: patches(bod.Bytes())},
		{data: mid2},
		{data: bri.Bytes(), repeat: reps, patches: patches(bri.Bytes())},
		{data: tail},
	}}
	g.size = static + int64(reps)*perRep
	return g
}

// reader returns a fresh stream of the file. Readers share the templates
// and patch SKUs as they copy out, so several can run at once.
func (g *genFile) reader() *genReader { return &genReader{g: g} }

type genReader struct {
	g       *genFile
	seg     int // current segment
	rep     int // repetitions of it done
	off     int // offset within the current repetition
	digits  [8]byte
	scratch [256 << 10]byte
	pending []byte // the rest of the last chunk
}

// next copies the next bytes of the file into dst (at most len(dst)) and
// returns how many; 0 at the end. Static segments are returned without a
// copy through static instead.
func (r *genReader) next(dst []byte) (n int, static []byte) {
	for r.seg < len(r.g.segs) {
		s := &r.g.segs[r.seg]
		reps := max(s.repeat, 1)
		if r.rep < reps && r.off < len(s.data) {
			if s.repeat == 0 {
				out := s.data[r.off:]
				r.off = len(s.data)
				return 0, out
			}
			if r.off == 0 {
				copy(r.digits[:], fmt.Sprintf("%08d", r.rep))
			}
			n = copy(dst, s.data[r.off:])
			// Patches are sorted; patch those overlapping [off, off+n).
			lo := sort.SearchInts(s.patches, r.off-7)
			for _, p := range s.patches[lo:] {
				at := p - r.off
				if at >= n {
					break
				}
				if at >= 0 && at+8 <= n {
					copy(dst[at:at+8], r.digits[:])
					continue
				}
				for k := 0; k < 8; k++ {
					if at+k >= 0 && at+k < n {
						dst[at+k] = r.digits[k]
					}
				}
			}
			r.off += n
			return n, nil
		}
		if r.rep+1 < reps {
			r.rep++
			r.off = 0
			continue
		}
		r.seg++
		r.rep, r.off = 0, 0
	}
	return 0, nil
}

func (r *genReader) Read(p []byte) (int, error) {
	if len(r.pending) > 0 {
		n := copy(p, r.pending)
		r.pending = r.pending[n:]
		return n, nil
	}
	n, static := r.next(p)
	if static != nil {
		k := copy(p, static)
		r.pending = static[k:]
		return k, nil
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// WriteTo hands chunks straight to the writer (the HTTP server).
func (r *genReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		b := r.pending
		r.pending = nil
		if len(b) == 0 {
			n, static := r.next(r.scratch[:])
			switch {
			case static != nil:
				b = static
			case n > 0:
				b = r.scratch[:n]
			default:
				return total, nil
			}
		}
		n, err := w.Write(b)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
}

var benchSizes = []struct {
	name string
	size int64
}{{"100MB", 100 << 20}, {"1GB", 1 << 30}}

// BenchmarkIngest measures a fetch end to end: an httptest server streams a
// generated region file, and the fetcher downloads, parses and turns it
// into offers. MB/s is over the file's bytes; peak-heap-MB is the largest
// heap in use during the runs (server and client share the process).
func BenchmarkIngest(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			gen := newGenFile(b, sz.size)
			s := awstest.LoadSamples(b)
			index := []byte(fmt.Sprintf(`{"formatVersion":"v1.0","disclaimer":%q,"publicationDate":"2026-11-01T00:00:00Z","regions":{"us-east-1":{"regionCode":"us-east-1","currentVersionUrl":%q}}}`,
				s.Disclaimer, awstest.EC2Path(v1, "us-east-1")))
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case ec2RegionIndexPath:
					w.Write(index)
				case awstest.EC2Path(v1, "us-east-1"):
					w.Header().Set("Content-Length", strconv.FormatInt(gen.size, 10))
					io.Copy(w, gen.reader())
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			f, err := New(Config{Endpoint: srv.URL, Format: FormatJSON}, fetchers.NewClient(fetchers.DefaultRetryPolicy()), nil)
			if err != nil {
				b.Fatal(err)
			}
			measure(b, gen, func() (int, error) {
				snap, err := f.Fetch(context.Background(), fetchers.Previous{})
				if err != nil {
					return 0, err
				}
				return len(snap.Offers), nil
			})
		})
	}
}

// measure runs op, which reads gen's file whole, b.N times, checking that
// it yields gen.want offers, and reports MB/s over the file's bytes,
// allocations and the peak heap.
func measure(b *testing.B, gen *genFile, op func() (offers int, err error)) {
	b.SetBytes(gen.size)
	b.ReportAllocs()
	stop := heappeak.Start()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n, err := op()
		if err != nil {
			b.Fatal(err)
		}
		if n != gen.want {
			b.Fatalf("%d offers, want %d", n, gen.want)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MB")
}

// BenchmarkParse measures the parser alone over the generated stream.
func BenchmarkParse(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			gen := newGenFile(b, sz.size)
			measure(b, gen, func() (int, error) {
				rp, err := parseOfferFile(gen.reader(), "us-east-1")
				if err != nil {
					return 0, err
				}
				return len(rp.Offers), nil
			})
		})
	}
}

// TestGeneratedFileIsRealLayout checks the benchmark's generator against
// the parser and encoding/json on a small size, so that the benchmark
// measures a valid file.
func TestGeneratedFileIsRealLayout(t *testing.T) {
	gen := newGenFile(t, 8<<20)
	raw, err := io.ReadAll(gen.reader())
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(raw)) != gen.size {
		t.Fatalf("generated %d bytes, promised %d", len(raw), gen.size)
	}
	var doc struct {
		Products map[string]struct {
			Attributes map[string]string `json:"attributes"`
		} `json:"products"`
		Terms map[string]map[string]map[string]any `json:"terms"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes, %d products (%.0f bytes each), products section %.0f%%", len(raw), len(doc.Products),
		float64(len(raw))/float64(len(doc.Products)), 100*float64(bytes.Index(raw, []byte(`"terms"`)))/float64(len(raw)))
	if len(doc.Products) < 1500 || len(doc.Terms["OnDemand"]) != len(doc.Products) {
		t.Errorf("%d products, %d with on-demand terms", len(doc.Products), len(doc.Terms["OnDemand"]))
	}
	rp, err := parseOfferFile(bytes.NewReader(raw), "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rp.Offers) != gen.want || len(rp.Types) != len(benchGPUTypes) {
		t.Errorf("%d offers (want %d), %d types", len(rp.Offers), gen.want, len(rp.Types))
	}
}
