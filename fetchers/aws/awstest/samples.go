// Package awstest is a local stand-in for the AWS Price List Bulk API bucket
// and the spot price feed, for tests of fetchers/aws and of the CLI.
//
// Every file it serves is built from the real excerpts in samples/ (see
// samples/README.md for what is copied and what is set): region price files
// in the real layout and key order, savings-plan rate files, the two region
// indexes and spot.json. A Bucket serves them like S3 (version-pinned
// paths, ETag, Last-Modified, ranges), counts the body bytes sent per path,
// and lets a test publish a new version of a region, list a new type,
// change a price, cut a file short or drop a connection.
//
// The package must not import fetchers/aws: that package's own tests use it.
package awstest

import (
	"bytes"
	"embed"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
)

// The excerpts are embedded so that the bucket works from any package's
// test directory.
//
//go:embed samples/*.json samples/*.csv
var sampleFS embed.FS

// SampleFile returns a real excerpt as it is (for tests that parse one
// unchanged).
func SampleFile(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := sampleFS.ReadFile("samples/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Samples holds raw JSON objects cut out of the real excerpts: the
// templates every built file is made from.
type Samples struct {
	Disclaimer  string
	M5          []byte // m5.large Linux product (us-east-2, 2023)
	P3          []byte // p3.8xlarge Windows BYOL product: the GPU product template
	GP3         []byte // gp3 storage product
	P3OnDemand  []byte // the p3.8xlarge OnDemand term object
	C4Partial   []byte // Reserved term HU7G6KETJZ (1yr standard Partial Upfront)
	C4NoUpfront []byte // Reserved term 4NA7Y494T4 (1yr standard No Upfront)
	C5ad        []byte // an UnusedCapacityReservation product (af-south-1)
	SpotFeed    []byte // the spot feed excerpt (af-south-1)
	EC2Index    []byte // the 2019 EC2 region_index.json
	SPIndex     []byte // the savings-plan region index excerpt
	SPHeader    []string
	SPRows      [][]string // the ten real ap-east-2 savings-plan rates, in SPHeader's columns
	// ec2CSVHeader is the 91-column header of the real EC2 CSV excerpt.
	ec2CSVHeader []string
	advisor      map[string]advisorFacts
}

type advisorFacts struct {
	Cores int     `json:"cores"`
	RAM   float64 `json:"ram_gb"`
}

// SKUs of the real objects, replaced in every copy.
const (
	p3SKU = "9ZEEN7WWWQKAG292"
	c4SKU = "4C7N4APU9GEUZ6H6"
	m5SKU = "8D49XP354UEYTHGM"
	gpSKU = "M6UGCCQ3CDJQAA37"
	// C5adSKU is the SKU of the real capacity-reservation product.
	C5adSKU = "2257YY4K7BWZ4F46"
)

var (
	samplesOnce sync.Once
	samples     *Samples
	samplesErr  error
)

// LoadSamples reads the excerpts once per process.
func LoadSamples(tb testing.TB) *Samples {
	tb.Helper()
	samplesOnce.Do(func() { samples, samplesErr = readSamples() })
	if samplesErr != nil {
		tb.Fatal(samplesErr)
	}
	return samples
}

func readSamples() (*Samples, error) {
	read := func(name string) ([]byte, error) { return sampleFS.ReadFile("samples/" + name) }
	s := &Samples{}

	raw, err := read("ec2-offer-excerpt-us-east-2-p3-8xlarge.json")
	if err != nil {
		return nil, err
	}
	var p3 struct {
		Disclaimer string                     `json:"disclaimer"`
		Products   map[string]json.RawMessage `json:"products"`
		Terms      struct {
			OnDemand map[string]map[string]json.RawMessage `json:"OnDemand"`
		} `json:"terms"`
	}
	if err := json.Unmarshal(raw, &p3); err != nil {
		return nil, err
	}
	s.Disclaimer = p3.Disclaimer
	s.M5, s.P3, s.GP3 = p3.Products[m5SKU], p3.Products[p3SKU], p3.Products[gpSKU]
	s.P3OnDemand = p3.Terms.OnDemand[p3SKU][p3SKU+".JRTCKXETXF"]

	if raw, err = read("ec2-offer-excerpt-c4large-reserved-terms.json"); err != nil {
		return nil, err
	}
	var c4 struct {
		Terms struct {
			Reserved map[string]map[string]json.RawMessage `json:"Reserved"`
		} `json:"terms"`
	}
	if err := json.Unmarshal(raw, &c4); err != nil {
		return nil, err
	}
	s.C4Partial = c4.Terms.Reserved[c4SKU][c4SKU+".HU7G6KETJZ"]
	s.C4NoUpfront = c4.Terms.Reserved[c4SKU][c4SKU+".4NA7Y494T4"]

	if raw, err = read("pricing-GetProducts-PriceList-item-c5ad.json"); err != nil {
		return nil, err
	}
	var c5 struct {
		Product json.RawMessage `json:"product"`
	}
	if err := json.Unmarshal(raw, &c5); err != nil {
		return nil, err
	}
	s.C5ad = c5.Product

	if raw, err = read("spot-advisor-data-excerpt.json"); err != nil {
		return nil, err
	}
	var adv struct {
		InstanceTypes map[string]advisorFacts `json:"instance_types"`
	}
	if err := json.Unmarshal(raw, &adv); err != nil {
		return nil, err
	}
	s.advisor = adv.InstanceTypes

	if s.SpotFeed, err = read("spot-price-feed-spot.json-excerpt.json"); err != nil {
		return nil, err
	}
	if s.EC2Index, err = read("ec2-region_index-excerpt-2019.json"); err != nil {
		return nil, err
	}
	if s.SPIndex, err = read("computesavingsplan-region-index-excerpt-20250911.json"); err != nil {
		return nil, err
	}
	if raw, err = read("computesavingsplan-ap-east-2-excerpt-20250911.csv"); err != nil {
		return nil, err
	}
	r := csv.NewReader(bytes.NewReader(raw))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) < 7 {
		return nil, fmt.Errorf("savings plan CSV excerpt has %d lines", len(rows))
	}
	// Five preamble lines, then the header, then rates.
	s.SPHeader, s.SPRows = rows[5], rows[6:]
	if raw, err = read("ec2-offer-index-excerpt-20250912.csv"); err != nil {
		return nil, err
	}
	r = csv.NewReader(bytes.NewReader(raw))
	r.FieldsPerRecord = -1
	if rows, err = r.ReadAll(); err != nil || len(rows) < 6 {
		return nil, fmt.Errorf("EC2 CSV excerpt: %d lines, %v", len(rows), err)
	}
	s.ec2CSVHeader = rows[5]
	for _, b := range [][]byte{s.M5, s.P3, s.GP3, s.P3OnDemand, s.C4Partial, s.C4NoUpfront, s.C5ad} {
		if len(b) == 0 {
			return nil, fmt.Errorf("a sample object is missing from awstest/samples")
		}
	}
	return s, nil
}
