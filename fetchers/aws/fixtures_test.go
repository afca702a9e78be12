package aws

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// This file builds real-layout price files from the real excerpts in
// testdata/ (see testdata/README.md for what is copied and what is set).

// realSamples holds raw JSON objects cut out of the real excerpts.
type realSamples struct {
	disclaimer   string
	m5, p3, gp3  []byte // product objects (us-east-2, 2023)
	p3OnDemand   []byte // the p3.8xlarge OnDemand term object
	c4Partial    []byte // Reserved term HU7G6KETJZ (1yr standard Partial Upfront)
	c4NoUpfront  []byte // Reserved term 4NA7Y494T4 (1yr standard No Upfront)
	c5ad         []byte // an UnusedCapacityReservation product (af-south-1)
	advisor      map[string]advisorFacts
	spotFeed     []byte
	spIndexShape []byte
	spCSV        [][]string // header + rows of the savings-plan CSV excerpt
}

type advisorFacts struct {
	Cores int     `json:"cores"`
	RAM   float64 `json:"ram_gb"`
}

const (
	p3SKU = "9ZEEN7WWWQKAG292"
	c4SKU = "4C7N4APU9GEUZ6H6"
)

var (
	samplesOnce sync.Once
	samples     *realSamples
	samplesErr  error
)

func loadSamples(tb testing.TB) *realSamples {
	tb.Helper()
	samplesOnce.Do(func() { samples, samplesErr = readSamples() })
	if samplesErr != nil {
		tb.Fatal(samplesErr)
	}
	return samples
}

func readSamples() (*realSamples, error) {
	read := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", name)) }
	s := &realSamples{}

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
	s.disclaimer = p3.Disclaimer
	s.m5, s.p3, s.gp3 = p3.Products["8D49XP354UEYTHGM"], p3.Products[p3SKU], p3.Products["M6UGCCQ3CDJQAA37"]
	s.p3OnDemand = p3.Terms.OnDemand[p3SKU][p3SKU+".JRTCKXETXF"]

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
	s.c4Partial = c4.Terms.Reserved[c4SKU][c4SKU+".HU7G6KETJZ"]
	s.c4NoUpfront = c4.Terms.Reserved[c4SKU][c4SKU+".4NA7Y494T4"]

	if raw, err = read("pricing-GetProducts-PriceList-item-c5ad.json"); err != nil {
		return nil, err
	}
	var c5 struct {
		Product json.RawMessage `json:"product"`
	}
	if err := json.Unmarshal(raw, &c5); err != nil {
		return nil, err
	}
	s.c5ad = c5.Product

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

	if s.spotFeed, err = read("spot-price-feed-spot.json-excerpt.json"); err != nil {
		return nil, err
	}
	if s.spIndexShape, err = read("computesavingsplan-region-index-excerpt-20250911.json"); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join("testdata", "computesavingsplan-ap-east-2-excerpt-20250911.csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	s.spCSV = rows[5:] // after the five preamble lines: header, then rates
	for _, b := range [][]byte{s.m5, s.p3, s.gp3, s.p3OnDemand, s.c4Partial, s.c4NoUpfront, s.c5ad} {
		if len(b) == 0 {
			return nil, fmt.Errorf("a sample object is missing from testdata")
		}
	}
	return s, nil
}

// setStr replaces the value of every "key": "…" member in a raw JSON text.
func setStr(tb testing.TB, raw []byte, key, val string) []byte {
	tb.Helper()
	re := regexp.MustCompile(`("` + regexp.QuoteMeta(key) + `"\s*:\s*)"(?:[^"\\]|\\.)*"`)
	if !re.Match(raw) {
		tb.Fatalf("template has no %q", key)
	}
	q, _ := json.Marshal(val)
	return re.ReplaceAllFunc(raw, func(m []byte) []byte {
		sub := re.FindSubmatch(m)
		return append(append([]byte{}, sub[1]...), q...)
	})
}

// addAttr inserts an attribute the template lacks.
func addAttr(raw []byte, key, val string) []byte {
	re := regexp.MustCompile(`"attributes"\s*:\s*\{`)
	loc := re.FindIndex(raw)
	q, _ := json.Marshal(val)
	ins := fmt.Sprintf("\n        %q: %s,", key, q)
	return append(append(append([]byte{}, raw[:loc[1]]...), ins...), raw[loc[1]:]...)
}

func replace(raw []byte, old, new string) []byte {
	return bytes.ReplaceAll(raw, []byte(old), []byte(new))
}

// regionInfo is what differs between regions in a product's attributes.
type regionInfo struct{ usagePrefix, location string }

var regionInfos = map[string]regionInfo{
	"us-east-1":  {"", "US East (N. Virginia)"},
	"us-east-2":  {"USE2-", "US East (Ohio)"},
	"us-west-2":  {"USW2-", "US West (Oregon)"},
	"af-south-1": {"AFS1-", "Africa (Cape Town)"},
	"eu-west-1":  {"EU-", "EU (Ireland)"},
}

// variant is one of the several products AWS lists per instance type.
// Only "linux" is the plain Linux on-demand product; the others are decoys
// whose prices must never be taken for it.
type variant struct {
	name                                                 string
	os, license, tenancy, sw, capacity, operation, usage string
}

var variants = []variant{
	{"linux", "Linux", "No License required", "Shared", "NA", "Used", "RunInstances", "BoxUsage"},
	{"windows", "Windows", "No License required", "Shared", "NA", "Used", "RunInstances:0002", "BoxUsage"},
	{"windows-byol", "Windows", "Bring your own license", "Shared", "NA", "Used", "RunInstances:0800", "BoxUsage"},
	{"rhel", "RHEL", "No License required", "Shared", "NA", "Used", "RunInstances:0010", "BoxUsage"},
	{"suse", "SUSE", "No License required", "Shared", "NA", "Used", "RunInstances:000g", "BoxUsage"},
	{"linux-sql-web", "Linux", "No License required", "Shared", "SQL Web", "Used", "RunInstances:0200", "BoxUsage"},
	{"dedicated", "Linux", "No License required", "Dedicated", "NA", "Used", "RunInstances", "DedicatedUsage"},
	{"host", "Linux", "No License required", "Host", "NA", "Used", "RunInstances", "HostBoxUsage"},
	{"unused-reservation", "Linux", "No License required", "Shared", "NA", "UnusedCapacityReservation", "RunInstances", "UnusedBox"},
	{"allocated-reservation", "Linux", "No License required", "Shared", "NA", "AllocatedCapacityReservation", "RunInstances", "Reservation"},
}

func variantNamed(name string) variant {
	for _, v := range variants {
		if v.name == name {
			return v
		}
	}
	panic("no variant " + name)
}

// gpuAttrs are the price file's GPU attributes for built GPU products
// (counts from AWS's accelerated-instance table; gpuMemory as the file
// gives it, often "NA").
var gpuAttrs = map[string][2]string{
	"p3.8xlarge":       {"4", "NA"},
	"p4d.24xlarge":     {"8", "320 GB"},
	"p4de.24xlarge":    {"8", "640 GB"},
	"p5.48xlarge":      {"8", "640 GB"},
	"p5en.48xlarge":    {"8", "1128 GB"},
	"p6-b200.48xlarge": {"8", "1432 GB"},
	"g4dn.xlarge":      {"1", "16 GB"},
	"g4dn.2xlarge":     {"1", "16 GB"},
	"g4dn.4xlarge":     {"1", "16 GB"},
	"g4dn.8xlarge":     {"1", "16 GB"},
	"g4dn.12xlarge":    {"4", "64 GB"},
	"g4dn.16xlarge":    {"1", "16 GB"},
	"g4dn.metal":       {"8", "128 GB"},
	"g6.xlarge":        {"1", "22 GB"},
	"g5.48xlarge":      {"8", "192 GB"},
}

// gpuProduct derives a GPU product from the real p3.8xlarge one.
func (s *realSamples) gpuProduct(tb testing.TB, sku, region, itype string, v variant) []byte {
	tb.Helper()
	facts, ok := s.advisor[itype]
	g, ok2 := gpuAttrs[itype]
	ri, ok3 := regionInfos[region]
	if !ok || !ok2 || !ok3 {
		tb.Fatalf("no facts for %s in %s", itype, region)
	}
	p := replace(s.p3, p3SKU, sku)
	for _, kv := range [][2]string{
		{"instanceType", itype}, {"vcpu", strconv.Itoa(facts.Cores)},
		{"memory", strconv.FormatFloat(facts.RAM, 'f', -1, 64) + " GiB"},
		{"gpu", g[0]}, {"gpuMemory", g[1]},
		{"usagetype", ri.usagePrefix + v.usage + ":" + itype}, {"operation", v.operation},
		{"operatingSystem", v.os}, {"licenseModel", v.license}, {"tenancy", v.tenancy},
		{"preInstalledSw", v.sw}, {"capacitystatus", v.capacity},
		{"regionCode", region}, {"location", ri.location},
	} {
		p = setStr(tb, p, kv[0], kv[1])
	}
	if strings.HasSuffix(v.capacity, "CapacityReservation") {
		p = addAttr(p, "instancesku", "Q7GDF95MM7MZ7Y5Q")
	}
	return p
}

// m5Product moves the real m5.large product to another region.
func (s *realSamples) m5Product(tb testing.TB, sku, region string) []byte {
	ri := regionInfos[region]
	p := replace(s.m5, "8D49XP354UEYTHGM", sku)
	p = setStr(tb, p, "regionCode", region)
	p = setStr(tb, p, "location", ri.location)
	return setStr(tb, p, "usagetype", ri.usagePrefix+"BoxUsage:m5.large")
}

// onDemand is the OnDemand terms object of one SKU, from the real p3 term.
func (s *realSamples) onDemand(tb testing.TB, sku, price string) []byte {
	t := replace(s.p3OnDemand, p3SKU, sku)
	t = replace(t, `"12.2400000000"`, strconv.Quote(price))
	return []byte(fmt.Sprintf("{\n        %q: %s\n      }", sku+".JRTCKXETXF", t))
}

// ri is one reserved offering of a built product.
type ri struct {
	lease, class, purchase string
	hourly, upfront        string // upfront "" for No Upfront
}

var riCodes = map[[3]string]string{
	{"1yr", "standard", "No Upfront"}:         "4NA7Y494T4",
	{"1yr", "standard", "Partial Upfront"}:    "HU7G6KETJZ",
	{"1yr", "standard", "All Upfront"}:        "6QCMYABX3D",
	{"3yr", "standard", "No Upfront"}:         "BPH4J8HBKS",
	{"3yr", "standard", "Partial Upfront"}:    "38NPMPTW36",
	{"3yr", "standard", "All Upfront"}:        "NQ3QZPMQV9",
	{"1yr", "convertible", "No Upfront"}:      "7NE97W5U4E",
	{"1yr", "convertible", "Partial Upfront"}: "CUZHX8X6JH",
	{"1yr", "convertible", "All Upfront"}:     "VJWZNREJX2",
	{"3yr", "convertible", "No Upfront"}:      "Z2E3P23VKM",
	{"3yr", "convertible", "Partial Upfront"}: "R5XV2EPZQZ",
	{"3yr", "convertible", "All Upfront"}:     "MZU6U2429S",
}

// reserved is the Reserved terms object of one SKU, from the real c4.large
// terms.
func (s *realSamples) reserved(tb testing.TB, sku, itype string, offers []ri) []byte {
	tb.Helper()
	var parts []string
	for _, o := range offers {
		code := riCodes[[3]string{o.lease, o.class, o.purchase}]
		var t []byte
		if o.purchase == "No Upfront" {
			t = replace(s.c4NoUpfront, "4NA7Y494T4", code)
			t = replace(t, `"0.0630000000"`, strconv.Quote(o.hourly))
		} else {
			t = replace(s.c4Partial, "HU7G6KETJZ", code)
			t = replace(t, `"0.0300000000"`, strconv.Quote(o.hourly))
			t = replace(t, `"263"`, strconv.Quote(o.upfront))
		}
		t = replace(t, c4SKU, sku)
		t = replace(t, "c4.large", itype)
		t = setStr(tb, t, "LeaseContractLength", o.lease)
		t = setStr(tb, t, "OfferingClass", o.class)
		t = setStr(tb, t, "PurchaseOption", o.purchase)
		parts = append(parts, fmt.Sprintf("%q: %s", sku+"."+code, t))
	}
	return []byte("{\n        " + strings.Join(parts, ",\n        ") + "\n      }")
}

// builtProduct is one product with its terms.
type builtProduct struct {
	sku      string
	product  []byte
	onDemand []byte
	reserved []byte // nil when the product has no Reserved terms
}

// regionFile assembles a price file in the real layout and key order.
func (s *realSamples) regionFile(version string, products []builtProduct) []byte {
	var b bytes.Buffer
	pub := version
	if len(version) == 14 {
		pub = fmt.Sprintf("%s-%s-%sT%s:%s:%sZ", version[0:4], version[4:6], version[6:8], version[8:10], version[10:12], version[12:14])
	}
	q := func(v string) string { j, _ := json.Marshal(v); return string(j) }
	fmt.Fprintf(&b, "{\n  \"formatVersion\": \"v1.0\",\n  \"disclaimer\": %s,\n  \"offerCode\": \"AmazonEC2\",\n  \"version\": %q,\n  \"publicationDate\": %q,\n  \"products\": {\n",
		q(s.disclaimer), version, pub)
	for i, p := range products {
		sep := ","
		if i == len(products)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "    %q: %s%s\n", p.sku, p.product, sep)
	}
	b.WriteString("  },\n  \"terms\": {\n    \"OnDemand\": {\n")
	writeTerms := func(get func(builtProduct) []byte) {
		var ps []builtProduct
		for _, p := range products {
			if get(p) != nil {
				ps = append(ps, p)
			}
		}
		for i, p := range ps {
			sep := ","
			if i == len(ps)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "      %q: %s%s\n", p.sku, get(p), sep)
		}
	}
	writeTerms(func(p builtProduct) []byte { return p.onDemand })
	b.WriteString("    },\n    \"Reserved\": {\n")
	writeTerms(func(p builtProduct) []byte { return p.reserved })
	b.WriteString("    }\n  },\n  \"attributesList\": {}\n}\n")
	return b.Bytes()
}

// gpuType describes a GPU type of a built region: the Linux prices the
// fetcher must find, and decoys (other variants) with other prices.
type gpuType struct {
	itype    string
	onDemand string
	reserved []ri
	decoys   []string // variant names
}

// sixByClass gives the six common reserved options of both classes, priced
// from a base so that every offering differs.
func sixByClass(base float64) []ri {
	var out []ri
	i := 0
	for _, class := range []string{"standard", "convertible"} {
		for _, lease := range []string{"1yr", "3yr"} {
			for _, pur := range []string{"No Upfront", "Partial Upfront", "All Upfront"} {
				i++
				h := base * (0.5 + float64(i)/100)
				o := ri{lease: lease, class: class, purchase: pur, hourly: fmt.Sprintf("%.10f", h)}
				hours := 8760.0
				if lease == "3yr" {
					hours *= 3
				}
				switch pur {
				case "Partial Upfront":
					o.hourly = fmt.Sprintf("%.10f", h/2)
					o.upfront = strconv.Itoa(int(h / 2 * hours))
				case "All Upfront":
					o.hourly = "0.0000000000"
					o.upfront = strconv.Itoa(int(h * hours))
				}
				out = append(out, o)
			}
		}
	}
	return out
}

// skuFor makes a 16-character SKU in AWS's alphabet from a name.
func skuFor(name string) string {
	const alpha = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	h := uint64(14695981039346656037)
	for _, c := range []byte(name) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	b := make([]byte, 16)
	for i := range b {
		b[i] = alpha[h%32]
		h = h/32 ^ (h * 0x9E3779B97F4A7C15)
	}
	return string(b)
}

// buildRegion makes a region's product list: each GPU type's Linux product
// and its decoys (decoys priced 1.5× and up, with reserved terms for the
// Windows and dedicated ones as AWS has), the real m5.large product, and
// the real gp3 storage product.
func (s *realSamples) buildRegion(tb testing.TB, region string, types []gpuType) []builtProduct {
	tb.Helper()
	var out []builtProduct
	for _, g := range types {
		sku := skuFor(region + g.itype + "linux")
		out = append(out, builtProduct{
			sku: sku, product: s.gpuProduct(tb, sku, region, g.itype, variantNamed("linux")),
			onDemand: s.onDemand(tb, sku, g.onDemand), reserved: s.reserved(tb, sku, g.itype, g.reserved),
		})
		base, _ := strconv.ParseFloat(g.onDemand, 64)
		for i, name := range g.decoys {
			dsku := skuFor(region + g.itype + name)
			price := fmt.Sprintf("%.10f", base*(1.5+float64(i)/10))
			p := builtProduct{sku: dsku, product: s.gpuProduct(tb, dsku, region, g.itype, variantNamed(name)), onDemand: s.onDemand(tb, dsku, price)}
			if name == "windows" || name == "dedicated" {
				p.reserved = s.reserved(tb, dsku, g.itype, sixByClass(base*3))
			}
			out = append(out, p)
		}
	}
	m5 := skuFor(region + "m5.large")
	out = append(out, builtProduct{sku: m5, product: s.m5Product(tb, m5, region), onDemand: s.onDemand(tb, m5, "0.0960000000"),
		reserved: s.reserved(tb, m5, "m5.large", sixByClass(0.096))})
	gp3 := skuFor(region + "gp3")
	out = append(out, builtProduct{sku: gp3, product: setStr(tb, replace(s.gp3, "M6UGCCQ3CDJQAA37", gp3), "regionCode", region),
		onDemand: s.onDemand(tb, gp3, "0.0800000000")})
	return out
}

var allDecoys = []string{"windows", "windows-byol", "rhel", "suse", "linux-sql-web", "dedicated", "host", "unused-reservation", "allocated-reservation"}

// savingsPlanRow is a rate in the 24 columns of the real savings-plan CSV.
type savingsPlanRow map[string]string

// savingsPlanFile converts savings-plan CSV rows (the real excerpt's and
// rows written in the same columns) to the JSON layout AWS documents.
func savingsPlanFile(tb testing.TB, version, region string, header []string, rows [][]string) []byte {
	tb.Helper()
	type rate struct {
		DiscountedSku          string            `json:"discountedSku"`
		DiscountedUsageType    string            `json:"discountedUsageType"`
		DiscountedOperation    string            `json:"discountedOperation"`
		DiscountedServiceCode  string            `json:"discountedServiceCode"`
		RateCode               string            `json:"rateCode"`
		Unit                   string            `json:"unit"`
		DiscountedRate         map[string]string `json:"discountedRate"`
		DiscountedRegionCode   string            `json:"discountedRegionCode"`
		DiscountedInstanceType string            `json:"discountedInstanceType"`
	}
	type term struct {
		SKU                 string         `json:"sku"`
		Description         string         `json:"description"`
		EffectiveDate       string         `json:"effectiveDate"`
		LeaseContractLength map[string]any `json:"leaseContractLength"`
		Rates               []rate         `json:"rates"`
	}
	type product struct {
		SKU           string            `json:"sku"`
		ProductFamily string            `json:"productFamily"`
		ServiceCode   string            `json:"serviceCode"`
		UsageType     string            `json:"usageType"`
		Operation     string            `json:"operation"`
		Attributes    map[string]string `json:"attributes"`
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	get := func(row []string, name string) string {
		i, ok := col[name]
		if !ok {
			tb.Fatalf("savings plan CSV has no column %q", name)
		}
		return row[i]
	}
	var products []product
	terms := map[string]*term{}
	var order []string
	for _, row := range rows {
		sku := get(row, "SKU")
		if _, ok := terms[sku]; !ok {
			dur, _ := strconv.Atoi(get(row, "LeaseContractLength"))
			terms[sku] = &term{SKU: sku, Description: get(row, "Description"), EffectiveDate: get(row, "EffectiveDate"),
				LeaseContractLength: map[string]any{"duration": dur, "unit": get(row, "LeaseContractLengthUnit")}}
			order = append(order, sku)
			attrs := map[string]string{
				"purchaseOption": get(row, "PurchaseOption"),
				"productFamily":  get(row, "Product Family"),
				"serviceCode":    get(row, "ServiceCode"),
				"granularity":    get(row, "Granularity"),
				"locationType":   get(row, "Location Type"),
				"purchaseTerm":   get(row, "LeaseContractLength") + "yr",
				"location":       get(row, "Location"),
				"usageType":      get(row, "UsageType"),
			}
			if fam := get(row, "Instance Family"); fam != "" {
				attrs["instanceType"] = fam
			}
			products = append(products, product{SKU: sku, ProductFamily: get(row, "Product Family"), ServiceCode: get(row, "ServiceCode"),
				UsageType: get(row, "UsageType"), Operation: get(row, "Operation"), Attributes: attrs})
		}
		terms[sku].Rates = append(terms[sku].Rates, rate{
			DiscountedSku: get(row, "DiscountedSKU"), DiscountedUsageType: get(row, "DiscountedUsageType"),
			DiscountedOperation: get(row, "DiscountedOperation"), DiscountedServiceCode: get(row, "DiscountedServiceCode"),
			RateCode: get(row, "RateCode"), Unit: get(row, "Unit"),
			DiscountedRate:       map[string]string{"price": get(row, "DiscountedRate"), "currency": get(row, "Currency")},
			DiscountedRegionCode: get(row, "DiscountedRegionCode"), DiscountedInstanceType: get(row, "DiscountedInstanceType"),
		})
	}
	var ts []*term
	for _, sku := range order {
		ts = append(ts, terms[sku])
	}
	doc := struct {
		Version         string `json:"version"`
		PublicationDate string `json:"publicationDate"`
		RegionCode      string `json:"regionCode"`
		Products        []product
		Terms           map[string][]*term `json:"terms"`
	}{version, "2025-09-11T18:44:47Z", region, products, map[string][]*term{"savingsPlan": ts}}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	// encoding/json names the field from Go; the file says "products".
	return bytes.Replace(out, []byte(`"Products"`), []byte(`"products"`), 1)
}

// spRow writes a rate as a row of the real CSV's columns.
func spRow(header []string, v savingsPlanRow) []string {
	row := make([]string, len(header))
	for i, h := range header {
		row[i] = v[h]
	}
	return row
}

// gpuSavingsPlanRows are Compute and EC2 Instance Savings Plan rates for
// a region's Linux GPU products, plus decoy rates (Windows, dedicated,
// unused reservation, Fargate, another region) that must not be taken.
// prices maps an instance type to its Compute 1yr No Upfront rate; other
// plans are derived.
func gpuSavingsPlanRows(header []string, region string, linuxSKU map[string]string, prices map[string]float64) [][]string {
	ri := regionInfos[region]
	plans := []struct {
		sku, family, usage, purchase, length, desc string
		factor                                     float64
	}{
		// Real Compute Savings Plan SKUs and usage types (a public client quotes them).
		{"BB7BKBSC6NZW7P5B", "ComputeSavingsPlans", "ComputeSP:1yrNoUpfront", "No Upfront", "1", "1 year No Upfront Compute Savings Plan", 1},
		{"RQRC4CUNT9HUG9WC", "ComputeSavingsPlans", "ComputeSP:3yrAllUpfront", "All Upfront", "3", "3 year All Upfront Compute Savings Plan", 0.62},
	}
	var types []string
	for t := range prices {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		fam, _, _ := strings.Cut(t, ".")
		plans = append(plans, struct {
			sku, family, usage, purchase, length, desc string
			factor                                     float64
		}{skuFor("ec2sp" + fam), "EC2InstanceSavingsPlans", ri.usagePrefix + "EC2SP:" + fam + ".1yrPartialUpfront", "Partial Upfront", "1",
			"1 year Partial Upfront " + fam + " EC2 Instance Savings Plan in " + region, 0.83})
	}
	var rows [][]string
	for _, p := range plans {
		for _, t := range types {
			fam, _, _ := strings.Cut(t, ".")
			if p.family == "EC2InstanceSavingsPlans" && !strings.Contains(p.usage, ":"+fam+".") {
				continue
			}
			price := prices[t] * p.factor
			add := func(usage, op, svc, sku, itype, regionCode string, rate float64) {
				rows = append(rows, spRow(header, savingsPlanRow{
					"SKU": p.sku, "RateCode": p.sku + "." + sku, "Unit": "Hrs", "EffectiveDate": "2025-06-05T18:51:13Z",
					"DiscountedRate": strconv.FormatFloat(rate, 'f', 4, 64), "Currency": "USD", "DiscountedSKU": sku,
					"DiscountedServiceCode": svc, "DiscountedUsageType": usage, "DiscountedOperation": op,
					"PurchaseOption": p.purchase, "LeaseContractLength": p.length, "LeaseContractLengthUnit": "year",
					"ServiceCode": "ComputeSavingsPlans", "UsageType": p.usage, "Description": p.desc,
					"Instance Family": map[bool]string{true: fam}[p.family == "EC2InstanceSavingsPlans"],
					"Location":        ri.location, "Location Type": "AWS Region", "Granularity": "hourly",
					"Product Family": p.family, "DiscountedRegionCode": regionCode, "DiscountedInstanceType": itype,
				}))
			}
			add(ri.usagePrefix+"BoxUsage:"+t, "RunInstances", "AmazonEC2", linuxSKU[t], t, region, price)
			add(ri.usagePrefix+"BoxUsage:"+t, "RunInstances:0002", "AmazonEC2", skuFor(region+t+"windows"), t, region, price*1.9)
			add(ri.usagePrefix+"DedicatedUsage:"+t, "RunInstances", "AmazonEC2", skuFor(region+t+"dedicated"), t, region, price*1.1)
			add(ri.usagePrefix+"UnusedBox:"+t, "RunInstances", "AmazonEC2", skuFor(region+t+"unused-reservation"), t, region, price*1.2)
			add(ri.usagePrefix+"BoxUsage:"+t, "RunInstances", "AmazonEC2", skuFor("us-west-2-lax-1"+t), t, "us-west-2-lax-1", price*1.3)
		}
		if p.family == "ComputeSavingsPlans" {
			rows = append(rows, spRow(header, savingsPlanRow{
				"SKU": p.sku, "RateCode": p.sku + ".FARGATE0000VCPU0", "Unit": "hour", "EffectiveDate": "2025-06-05T18:51:13Z",
				"DiscountedRate": "0.0320", "Currency": "USD", "DiscountedSKU": "FARGATE0000VCPU0", "DiscountedServiceCode": "AmazonECS",
				"DiscountedUsageType": ri.usagePrefix + "Fargate-vCPU-Hours:perCPU", "DiscountedOperation": "",
				"PurchaseOption": p.purchase, "LeaseContractLength": p.length, "LeaseContractLengthUnit": "year",
				"ServiceCode": "ComputeSavingsPlans", "UsageType": p.usage, "Description": p.desc, "Location": "Any",
				"Location Type": "AWS Region", "Granularity": "hourly", "Product Family": p.family, "DiscountedRegionCode": region,
			}))
		}
	}
	return rows
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
