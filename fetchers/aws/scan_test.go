package aws

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
)

// readers feeds a document whole, one byte at a time (every token then
// spans refills) and in odd-sized pieces.
var readers = map[string]func([]byte) io.Reader{
	"whole":    func(b []byte) io.Reader { return bytes.NewReader(b) },
	"one-byte": func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
	"half":     func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
}

// TestScannerSkipsAndReads walks documents with strings that hold
// brackets, quotes and escapes, and checks that skipped values end where
// encoding/json says and read values come out unescaped.
func TestScannerSkipsAndReads(t *testing.T) {
	docs := []string{
		`{"skip": {"a": "}{][", "b": [1, {"c": "\"}\\"}], "d": {}, "e": "\\\\"}, "keep": "x\"y\u00e9\\", "n": -1.5e3, "t": true, "arr": [[], {}, "]"]}`,
		"{\n  \"skip\" : [ {\"x\":\"{\"} , \"[\\\"]\" ],\n  \"keep\" : \"plain\",\n  \"n\" : null, \"t\": false, \"arr\": []\n}\n",
	}
	for _, doc := range docs {
		var want map[string]any
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		for name, mk := range readers {
			s := newScanner(mk([]byte(doc)))
			got := map[string]string{}
			err := s.object("doc", func(k []byte) error {
				key := string(k)
				if key == "keep" {
					v, err := s.readString("keep")
					got[key] = string(v)
					return err
				}
				got[key] = "skipped"
				return s.skipValue("doc")
			})
			if err == nil {
				err = s.finish("doc")
			}
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if got["keep"] != want["keep"] || len(got) != len(want) {
				t.Errorf("%s: got %v, want keep=%q and %d keys", name, got, want["keep"], len(want))
			}
		}
	}
}

// TestScannerRejectsBrokenDocuments: every proper prefix of a document is
// an error, as are unbalanced brackets and trailing data.
func TestScannerRejectsBrokenDocuments(t *testing.T) {
	doc := `{"a": {"b": ["}", {"c": "d\"{"}]}, "e": "f"}`
	walk := func(r io.Reader) error {
		s := newScanner(r)
		err := s.object("doc", func(k []byte) error {
			if string(k) == "e" {
				_, err := s.readString("e")
				return err
			}
			return s.skipValue("doc")
		})
		if err == nil {
			err = s.finish("doc")
		}
		return err
	}
	if err := walk(strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(doc); i++ {
		for name, mk := range readers {
			if err := walk(mk([]byte(doc[:i]))); err == nil {
				t.Errorf("%s: prefix %q accepted", name, doc[:i])
			}
		}
	}
	for _, bad := range []string{`{"a": {"b": 1}}}`, `{"a": {"b": 1]}`, `{"a" 1}`, `{"a": 1,}x`, `{"a": 1} {}`, `["a"]`} {
		if err := walk(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// A read error is reported as such, not as a malformed document.
	boom := errors.New("connection reset")
	err := walk(io.MultiReader(strings.NewReader(doc[:10]), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Errorf("read error lost: %v", err)
	}
}

// TestParseRealExcerpts parses the real price-file excerpts as they are.
func TestParseRealExcerpts(t *testing.T) {
	raw := awstest.SampleFile(t, "ec2-offer-excerpt-us-east-2-p3-8xlarge.json")
	rp, err := parseOfferFile(bytes.NewReader(raw), "us-east-2")
	if err != nil {
		t.Fatal(err)
	}
	// p3.8xlarge is listed (Windows BYOL only), so it is offered in the
	// region but has no Linux price; m5.large and gp3 are not GPU types.
	if f, ok := rp.Types["p3.8xlarge"]; !ok || len(rp.Types) != 1 || f != (typeFacts{VCPUs: 32, MemoryGB: 244, GPUs: 4, Network: "10 Gigabit", Storage: "EBS only"}) {
		t.Errorf("types %+v", rp.Types)
	}
	if len(rp.Offers) != 0 || len(rp.LinuxSKU) != 0 || rp.Version != "20230322145651" {
		t.Errorf("offers %v, linux SKUs %v, version %q", rp.Offers, rp.LinuxSKU, rp.Version)
	}
	if hw := hardware("p3.8xlarge", rp.Types["p3.8xlarge"]); hw != (pricewatch.Hardware{GPUModel: "V100", GPUCount: 4, GPUMemoryGB: 16, VCPUs: 32, MemoryGB: 244,
		Interconnect: "10 Gigabit", LocalStorage: "none (EBS only)"}) {
		t.Errorf("hardware %+v", hw)
	}

	raw = awstest.SampleFile(t, "ec2-offer-excerpt-c4large-reserved-terms.json")
	rp, err = parseOfferFile(bytes.NewReader(raw), "us-east-1")
	if err != nil || len(rp.Types) != 0 || len(rp.Offers) != 0 {
		t.Errorf("c4.large excerpt: %+v, %v", rp, err)
	}

	// The same c4.large product made a GPU product (gpu attribute added)
	// yields its real on-demand and four real reserved prices.
	gpu := bytes.Replace(raw, []byte(`"vcpu": "2",`), []byte(`"vcpu": "2", "gpu": "1",`), 1)
	rp, err = parseOfferFile(bytes.NewReader(gpu), "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	got := offerIndex(rp.Offers)
	for key, want := range map[string][2]string{
		"us-east-1/c4.large/on_demand///":                            {"0.1", "0"},
		"us-east-1/c4.large/reserved/1y/partial_upfront/standard":    {"0.03", "263"},
		"us-east-1/c4.large/reserved/3y/partial_upfront/standard":    {"0.021", "539"},
		"us-east-1/c4.large/reserved/3y/partial_upfront/convertible": {"0.027", "710"},
		"us-east-1/c4.large/reserved/1y/no_upfront/standard":         {"0.063", "0"},
	} {
		o, ok := got[key]
		if !ok || !o.Hourly.Equal(mustDec(t, want[0])) || !o.Upfront.Equal(mustDec(t, want[1])) {
			t.Errorf("%s = %+v, want %v", key, o, want)
		}
	}
	if len(rp.Offers) != 5 {
		t.Errorf("%d offers", len(rp.Offers))
	}
}

// TestParseRejectsBadLayouts: terms before products cannot be streamed;
// products without terms, or no products at all, are not a price file.
func TestParseRejectsBadLayouts(t *testing.T) {
	s := awstest.LoadSamples(t)
	good := s.RegionFile(v1, s.BuildRegion(t, "us-east-1", []awstest.GPUType{p5}))
	if _, err := parseOfferFile(bytes.NewReader(good), "us-east-1"); err != nil {
		t.Fatal(err)
	}
	pi, ti := bytes.Index(good, []byte(`"products"`)), bytes.Index(good, []byte(`"terms"`))
	ai := bytes.Index(good, []byte(`"attributesList"`))
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	swapped := cat(good[:pi], good[ti:ai], good[pi:ti], good[ai:])
	noTerms := cat(good[:ti], []byte(`"terms": {"OnDemand": {}, "Reserved": {}},`+"\n  "), good[ai:])
	noProducts := cat(good[:pi], []byte(`"products": {},`+"\n  "), good[ti:])
	corrupt := bytes.Replace(good, []byte(`"pricePerUnit"`), []byte(`"pricePerUnit" "`), 1)
	for name, doc := range map[string][]byte{"terms first": swapped, "no terms": noTerms, "no products": noProducts, "corrupt": corrupt} {
		if err := json.Unmarshal(doc, new(any)); (err != nil) != (name == "corrupt") {
			t.Fatalf("%s: fixture JSON validity %v", name, err)
		}
		if _, err := parseOfferFile(bytes.NewReader(doc), "us-east-1"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Every cut of a real-layout file fails.
	for cut := 1; cut < len(good); cut += len(good) / 97 {
		if _, err := parseOfferFile(bytes.NewReader(good[:cut]), "us-east-1"); err == nil {
			t.Errorf("cut at %d of %d accepted", cut, len(good))
		}
	}
}

func TestGPUTable(t *testing.T) {
	for _, c := range []struct {
		itype, family, gpu, gpuMem, vcpu, mem string
		accelerated                           bool
		want                                  pricewatch.Hardware
	}{
		// AWS reports L4 memory as ~22 GB; the table says 24.
		{"g6.xlarge", "GPU instance", "1", "22 GB", "4", "16 GiB", true, pricewatch.Hardware{GPUModel: "L4", GPUCount: 1, GPUMemoryGB: 24, VCPUs: 4, MemoryGB: 16}},
		// Fractional L4: the file says one GPU.
		{"g6f.large", "GPU instance", "1", "3 GB", "2", "8 GiB", true, pricewatch.Hardware{GPUModel: "L4", GPUCount: 0.125, GPUMemoryGB: 3, VCPUs: 2, MemoryGB: 8}},
		{"p5en.48xlarge", "GPU instance", "8", "NA", "192", "2,048 GiB", true, pricewatch.Hardware{GPUModel: "H200", GPUCount: 8, GPUMemoryGB: 141, VCPUs: 192, MemoryGB: 2048}},
		{"p4de.24xlarge", "GPU instance", "8", "640 GB", "96", "1152 GiB", true, pricewatch.Hardware{GPUModel: "A100-80GB", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 96, MemoryGB: 1152}},
		{"p3dn.24xlarge", "GPU instance", "8", "256 GB", "96", "768 GiB", true, pricewatch.Hardware{GPUModel: "V100-32GB", GPUCount: 8, GPUMemoryGB: 32, VCPUs: 96, MemoryGB: 768}},
		// Accelerators have no gpu attribute; counts come from the table.
		{"inf2.48xlarge", mlASICFamily, "", "NA", "192", "768 GiB", true, pricewatch.Hardware{GPUModel: "Inferentia2", GPUCount: 12, GPUMemoryGB: 32, VCPUs: 192, MemoryGB: 768}},
		{"trn1.32xlarge", mlASICFamily, "", "", "128", "512 GiB", true, pricewatch.Hardware{GPUModel: "Trainium", GPUCount: 16, GPUMemoryGB: 32, VCPUs: 128, MemoryGB: 512}},
		// A GPU family the table lacks keeps the file's numbers, no model.
		{"g9x.xlarge", "GPU instance", "2", "96 GB", "8", "64 GiB", true, pricewatch.Hardware{GPUCount: 2, GPUMemoryGB: 48, VCPUs: 8, MemoryGB: 64}},
		// Not accelerated: FPGA, plain, and an ML ASIC family not in the table.
		{"f1.2xlarge", "FPGA Instances", "", "NA", "8", "122 GiB", false, pricewatch.Hardware{}},
		{"m5.large", "General purpose", "", "NA", "2", "8 GiB", false, pricewatch.Hardware{}},
		{"xyz1.large", mlASICFamily, "", "", "2", "8 GiB", false, pricewatch.Hardware{}},
	} {
		f, ok := acceleratedFacts(c.itype, c.family, c.gpu, c.gpuMem, c.vcpu, c.mem)
		if ok != c.accelerated {
			t.Errorf("%s: accelerated %v", c.itype, ok)
			continue
		}
		if !ok {
			continue
		}
		if hw := hardware(c.itype, f); hw != c.want {
			t.Errorf("%s: %+v, want %+v", c.itype, hw, c.want)
		}
	}
	for fam, row := range gpuFamilies {
		if row.Model == "" || row.Source == "" {
			t.Errorf("family %s lacks model or source", fam)
		}
	}
}
