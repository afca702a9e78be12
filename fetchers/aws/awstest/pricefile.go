package awstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// SetStr replaces the value of every "key": "…" member in a raw JSON text.
func SetStr(tb testing.TB, raw []byte, key, val string) []byte {
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

// Replace replaces every occurrence of old in a raw text.
func Replace(raw []byte, old, new string) []byte {
	return bytes.ReplaceAll(raw, []byte(old), []byte(new))
}

// regionInfo is what differs between regions in a product's attributes:
// the usage-type prefix and the location name, as AWS writes them.
type regionInfo struct{ usagePrefix, location string }

var regionInfos = map[string]regionInfo{
	"us-east-1":      {"", "US East (N. Virginia)"},
	"us-east-2":      {"USE2-", "US East (Ohio)"},
	"us-west-2":      {"USW2-", "US West (Oregon)"},
	"af-south-1":     {"AFS1-", "Africa (Cape Town)"},
	"eu-west-1":      {"EU-", "EU (Ireland)"},
	"ap-northeast-1": {"APN1-", "Asia Pacific (Tokyo)"},
	"eu-central-1":   {"EUC1-", "EU (Frankfurt)"},
	"ap-south-1":     {"APS3-", "Asia Pacific (Mumbai)"},
}

func regionFacts(tb testing.TB, region string) regionInfo {
	tb.Helper()
	ri, ok := regionInfos[region]
	if !ok {
		tb.Fatalf("awstest knows no usage prefix and location for region %s", region)
	}
	return ri
}

// Variant is one of the several products AWS lists per instance type.
// Only "linux" is the plain Linux on-demand product; the others are decoys
// whose prices must never be taken for it.
type Variant struct {
	Name                                                string
	OS, License, Tenancy, Software, Capacity, Operation string
	Usage                                               string // usage-type stem: BoxUsage, DedicatedUsage, …
}

// Variants lists the plain Linux product first, then every decoy.
var Variants = []Variant{
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

// AllDecoys names every variant but the plain Linux one.
var AllDecoys = []string{"windows", "windows-byol", "rhel", "suse", "linux-sql-web", "dedicated", "host", "unused-reservation", "allocated-reservation"}

// VariantNamed finds a variant; an unknown name is a bug in the test.
func VariantNamed(name string) Variant {
	for _, v := range Variants {
		if v.Name == name {
			return v
		}
	}
	panic("awstest: no variant " + name)
}

// builtAttrs are the price file's attributes for built GPU products: gpu
// and gpuMemory (counts from AWS's accelerated-instance table; gpuMemory
// as the file gives it, often "NA"), and networkPerformance and storage,
// read off the ec2instances.info reference (which copies
// networkPerformance and splits storage into devices and size; its null
// storage for p3 is the file's "EBS only", as the real p3.8xlarge product
// says).
var builtAttrs = map[string]struct{ gpu, gpuMemory, network, storage string }{
	"p3.8xlarge":       {"4", "NA", "10 Gigabit", "EBS only"},
	"p4d.24xlarge":     {"8", "320 GB", "4x 100 Gigabit", "8 x 1000 NVMe SSD"},
	"p4de.24xlarge":    {"8", "640 GB", "4x 100 Gigabit", "8 x 1000 NVMe SSD"},
	"p5.48xlarge":      {"8", "640 GB", "3200 Gigabit", "8 x 3800 NVMe SSD"},
	"p5en.48xlarge":    {"8", "1128 GB", "3200 Gigabit", "8 x 3800 NVMe SSD"},
	"p6-b200.48xlarge": {"8", "1432 GB", "3200 Gigabit", "8 x 3800 NVMe SSD"},
	"g4dn.xlarge":      {"1", "16 GB", "Up to 25 Gigabit", "1 x 125 NVMe SSD"},
	"g4dn.2xlarge":     {"1", "16 GB", "Up to 25 Gigabit", "1 x 225 NVMe SSD"},
	"g4dn.4xlarge":     {"1", "16 GB", "Up to 25 Gigabit", "1 x 225 NVMe SSD"},
	"g4dn.8xlarge":     {"1", "16 GB", "50 Gigabit", "1 x 900 NVMe SSD"},
	"g4dn.12xlarge":    {"4", "64 GB", "50 Gigabit", "1 x 900 NVMe SSD"},
	"g4dn.16xlarge":    {"1", "16 GB", "50 Gigabit", "1 x 900 NVMe SSD"},
	"g4dn.metal":       {"8", "128 GB", "100 Gigabit", "2 x 900 NVMe SSD"},
	"g6.xlarge":        {"1", "22 GB", "Up to 10 Gigabit", "1 x 250 NVMe SSD"},
	"g5.48xlarge":      {"8", "192 GB", "100 Gigabit", "2 x 3800 NVMe SSD"},
}

// GPUProduct derives a GPU product from the real p3.8xlarge one.
func (s *Samples) GPUProduct(tb testing.TB, sku, region, itype string, v Variant) []byte {
	tb.Helper()
	facts, ok := s.advisor[itype]
	a, ok2 := builtAttrs[itype]
	if !ok || !ok2 {
		tb.Fatalf("awstest has no facts for %s", itype)
	}
	ri := regionFacts(tb, region)
	p := Replace(s.P3, p3SKU, sku)
	for _, kv := range [][2]string{
		{"instanceType", itype}, {"vcpu", strconv.Itoa(facts.Cores)},
		{"memory", strconv.FormatFloat(facts.RAM, 'f', -1, 64) + " GiB"},
		{"gpu", a.gpu}, {"gpuMemory", a.gpuMemory}, {"networkPerformance", a.network}, {"storage", a.storage},
		{"usagetype", ri.usagePrefix + v.Usage + ":" + itype}, {"operation", v.Operation},
		{"operatingSystem", v.OS}, {"licenseModel", v.License}, {"tenancy", v.Tenancy},
		{"preInstalledSw", v.Software}, {"capacitystatus", v.Capacity},
		{"regionCode", region}, {"location", ri.location},
	} {
		p = SetStr(tb, p, kv[0], kv[1])
	}
	if strings.HasSuffix(v.Capacity, "CapacityReservation") {
		p = addAttr(p, "instancesku", "Q7GDF95MM7MZ7Y5Q")
	}
	return p
}

// M5Product moves the real m5.large product to another region.
func (s *Samples) M5Product(tb testing.TB, sku, region string) []byte {
	tb.Helper()
	ri := regionFacts(tb, region)
	p := Replace(s.M5, m5SKU, sku)
	p = SetStr(tb, p, "regionCode", region)
	p = SetStr(tb, p, "location", ri.location)
	return SetStr(tb, p, "usagetype", ri.usagePrefix+"BoxUsage:m5.large")
}

// GP3Product moves the real gp3 storage product to another region.
func (s *Samples) GP3Product(tb testing.TB, sku, region string) []byte {
	tb.Helper()
	return SetStr(tb, Replace(s.GP3, gpSKU, sku), "regionCode", region)
}

// OnDemand is the OnDemand terms object of one SKU, from the real p3 term.
func (s *Samples) OnDemand(tb testing.TB, sku, price string) []byte {
	t := Replace(s.P3OnDemand, p3SKU, sku)
	t = Replace(t, `"12.2400000000"`, strconv.Quote(price))
	return []byte(fmt.Sprintf("{\n        %q: %s\n      }", sku+".JRTCKXETXF", t))
}

// Reserved is one reserved offering of a built product, in the file's
// words: Lease "1yr"/"3yr", Class "standard"/"convertible", Purchase "No
// Upfront"/"Partial Upfront"/"All Upfront". Upfront is "" for No Upfront.
type Reserved struct {
	Lease, Class, Purchase string
	Hourly, Upfront        string
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

// ReservedTerms is the Reserved terms object of one SKU, from the real
// c4.large terms.
func (s *Samples) ReservedTerms(tb testing.TB, sku, itype string, offers []Reserved) []byte {
	tb.Helper()
	var parts []string
	for _, o := range offers {
		code, ok := riCodes[[3]string{o.Lease, o.Class, o.Purchase}]
		if !ok {
			tb.Fatalf("no reserved offering %s %s %s", o.Lease, o.Class, o.Purchase)
		}
		var t []byte
		if o.Purchase == "No Upfront" {
			t = Replace(s.C4NoUpfront, "4NA7Y494T4", code)
			t = Replace(t, `"0.0630000000"`, strconv.Quote(o.Hourly))
		} else {
			t = Replace(s.C4Partial, "HU7G6KETJZ", code)
			t = Replace(t, `"0.0300000000"`, strconv.Quote(o.Hourly))
			t = Replace(t, `"263"`, strconv.Quote(o.Upfront))
		}
		t = Replace(t, c4SKU, sku)
		t = Replace(t, "c4.large", itype)
		t = SetStr(tb, t, "LeaseContractLength", o.Lease)
		t = SetStr(tb, t, "OfferingClass", o.Class)
		t = SetStr(tb, t, "PurchaseOption", o.Purchase)
		parts = append(parts, fmt.Sprintf("%q: %s", sku+"."+code, t))
	}
	return []byte("{\n        " + strings.Join(parts, ",\n        ") + "\n      }")
}

// Product is one product of a price file with its terms.
type Product struct {
	SKU      string
	Product  []byte
	OnDemand []byte
	Reserved []byte // nil when the product has no Reserved terms
}

// RegionFile assembles a price file in the real layout and key order.
func (s *Samples) RegionFile(version string, products []Product) []byte {
	var b bytes.Buffer
	pub := version
	if len(version) == 14 {
		pub = fmt.Sprintf("%s-%s-%sT%s:%s:%sZ", version[0:4], version[4:6], version[6:8], version[8:10], version[10:12], version[12:14])
	}
	q := func(v string) string { j, _ := json.Marshal(v); return string(j) }
	fmt.Fprintf(&b, "{\n  \"formatVersion\": \"v1.0\",\n  \"disclaimer\": %s,\n  \"offerCode\": \"AmazonEC2\",\n  \"version\": %q,\n  \"publicationDate\": %q,\n  \"products\": {\n",
		q(s.Disclaimer), version, pub)
	for i, p := range products {
		sep := ","
		if i == len(products)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "    %q: %s%s\n", p.SKU, p.Product, sep)
	}
	b.WriteString("  },\n  \"terms\": {\n    \"OnDemand\": {\n")
	writeTerms := func(get func(Product) []byte) {
		var ps []Product
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
			fmt.Fprintf(&b, "      %q: %s%s\n", p.SKU, get(p), sep)
		}
	}
	writeTerms(func(p Product) []byte { return p.OnDemand })
	b.WriteString("    },\n    \"Reserved\": {\n")
	writeTerms(func(p Product) []byte { return p.Reserved })
	b.WriteString("    }\n  },\n  \"attributesList\": {}\n}\n")
	return b.Bytes()
}

// GPUType describes a GPU type of a built region: the Linux prices the
// fetcher must find, and decoys (other variants) with other prices.
type GPUType struct {
	Type     string // instance type, e.g. p5.48xlarge
	OnDemand string // Linux on-demand hourly rate as the file writes it
	Reserved []Reserved
	Decoys   []string // variant names
}

// SixByClass gives the six common reserved options of both classes, priced
// from a base so that every offering differs.
func SixByClass(base float64) []Reserved {
	var out []Reserved
	i := 0
	for _, class := range []string{"standard", "convertible"} {
		for _, lease := range []string{"1yr", "3yr"} {
			for _, pur := range []string{"No Upfront", "Partial Upfront", "All Upfront"} {
				i++
				h := base * (0.5 + float64(i)/100)
				o := Reserved{Lease: lease, Class: class, Purchase: pur, Hourly: fmt.Sprintf("%.10f", h)}
				hours := 8760.0
				if lease == "3yr" {
					hours *= 3
				}
				switch pur {
				case "Partial Upfront":
					o.Hourly = fmt.Sprintf("%.10f", h/2)
					o.Upfront = strconv.Itoa(int(h / 2 * hours))
				case "All Upfront":
					o.Hourly = "0.0000000000"
					o.Upfront = strconv.Itoa(int(h * hours))
				}
				out = append(out, o)
			}
		}
	}
	return out
}

// SKU makes a 16-character SKU in AWS's alphabet from a name.
func SKU(name string) string {
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

// SKUOf is the SKU BuildRegion gives a type's variant in a region.
func SKUOf(region, itype, variant string) string { return SKU(region + itype + variant) }

// BuildRegion makes a region's product list: each GPU type's Linux product
// and its decoys (decoys priced 1.5× and up, with reserved terms for the
// Windows and dedicated ones as AWS has), the real m5.large product, and
// the real gp3 storage product.
func (s *Samples) BuildRegion(tb testing.TB, region string, types []GPUType) []Product {
	tb.Helper()
	var out []Product
	for _, g := range types {
		sku := SKUOf(region, g.Type, "linux")
		out = append(out, Product{
			SKU: sku, Product: s.GPUProduct(tb, sku, region, g.Type, VariantNamed("linux")),
			OnDemand: s.OnDemand(tb, sku, g.OnDemand), Reserved: s.ReservedTerms(tb, sku, g.Type, g.Reserved),
		})
		base, err := strconv.ParseFloat(g.OnDemand, 64)
		if err != nil {
			tb.Fatalf("%s on-demand %q: %v", g.Type, g.OnDemand, err)
		}
		for i, name := range g.Decoys {
			dsku := SKUOf(region, g.Type, name)
			price := fmt.Sprintf("%.10f", base*(1.5+float64(i)/10))
			p := Product{SKU: dsku, Product: s.GPUProduct(tb, dsku, region, g.Type, VariantNamed(name)), OnDemand: s.OnDemand(tb, dsku, price)}
			if name == "windows" || name == "dedicated" {
				p.Reserved = s.ReservedTerms(tb, dsku, g.Type, SixByClass(base*3))
			}
			out = append(out, p)
		}
	}
	m5 := SKU(region + "m5.large")
	out = append(out, Product{SKU: m5, Product: s.M5Product(tb, m5, region), OnDemand: s.OnDemand(tb, m5, "0.0960000000"),
		Reserved: s.ReservedTerms(tb, m5, "m5.large", SixByClass(0.096))})
	gp3 := SKU(region + "gp3")
	out = append(out, Product{SKU: gp3, Product: s.GP3Product(tb, gp3, region), OnDemand: s.OnDemand(tb, gp3, "0.0800000000")})
	return out
}

// C5adProduct is the real capacity-reservation product (af-south-1),
// verbatim, with an on-demand rate.
func (s *Samples) C5adProduct(tb testing.TB) Product {
	return Product{SKU: C5adSKU, Product: s.C5ad, OnDemand: s.OnDemand(tb, C5adSKU, "0.4680000000")}
}
