package alibaba

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/gpu"
)

// Without an AccessKey, prices come from the public price file that
// Alibaba's pricing pages load from its CDN (shared/research/neoclouds.md
// §11):
//
//	https://g.alicdn.com/aliyun/ecs-price-info/<version>/price/download/instancePrice.json       China site, CNY
//	https://g.alicdn.com/aliyun/ecs-price-info-intl/<version>/price/download/instancePrice.json  international site, USD
//
// {currency, version, publicationDate, site, pricingInfo: {"<region>::<type>::<network>::<os>::<io>":
// {hours: [{price, period}], months: [...], years: [...]}}}, prices and
// periods as strings. hours is pay-as-you-go per instance-hour; months and
// years are subscription totals for the period. The path is versioned and
// old versions may stay online, so a pinned version would go on serving
// old prices: the current one is read from the pricing pages at run time.

// Defaults of PublicConfig.
const (
	DefaultPriceCDN = "https://g.alicdn.com"
	// priceFilePath follows the version in a price file's URL.
	priceFilePath = "/price/download/instancePrice.json"
	// maxPriceFile bounds one price file: every ECS type in every region
	// and OS; the 2018 file was some MB, and types have multiplied since.
	maxPriceFile = 512 << 20
	maxPricePage = 16 << 20
	// priceFileBodyTimeout bounds reading one file once it answers.
	priceFileBodyTimeout = 10 * time.Minute
)

// DefaultPricePages are the pricing pages that name the current price
// files: the China site's, then the international site's.
var DefaultPricePages = []string{
	"https://www.aliyun.com/price/ecs/ecs-pricing/zh",
	"https://www.alibabacloud.com/en/product/ecs/pricing",
}

// priceFileRef finds a price file's folder and version in a pricing page
// (https://g.alicdn.com/aliyun/ecs-price-info/2.0.421/…).
var priceFileRef = regexp.MustCompile(`/aliyun/(ecs-price-info(?:-intl)?)/([0-9]+(?:\.[0-9]+)+)\b`)

// PublicConfig is what the keyless fetcher needs from providers.alibaba.
type PublicConfig struct {
	// Files are the price files' URLs (providers.alibaba.price_files).
	// Empty: the current files named by Pages, read from CDN.
	Files []string
	// Pages and CDN: where the current files are found (empty:
	// DefaultPricePages, DefaultPriceCDN). Only a file's folder and
	// version are taken from a page; the file is read from CDN.
	Pages []string
	CDN   string
	// Regions to keep; empty keeps every region a file lists.
	Regions []string
}

// PublicFetcher reads Alibaba's public ECS price files: pay-as-you-go and
// subscription prices per region, with no stock (the file has none).
type PublicFetcher struct {
	cfg    PublicConfig
	client *fetchers.Client
	log    *zap.Logger
}

var _ fetchers.Fetcher = (*PublicFetcher)(nil)

// NewPublic checks cfg and returns the keyless fetcher.
func NewPublic(cfg PublicConfig, client *fetchers.Client, log *zap.Logger) (*PublicFetcher, error) {
	log, err := fetchers.Logger(pricewatch.Alibaba, client, log)
	if err != nil {
		return nil, err
	}
	for _, f := range cfg.Files {
		if u, err := url.Parse(f); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return nil, fmt.Errorf("providers.alibaba.price_files: %q is not an http(s) URL", fetchers.RedactURL(u))
		}
	}
	if len(cfg.Pages) == 0 {
		cfg.Pages = DefaultPricePages
	}
	if cfg.CDN == "" {
		cfg.CDN = DefaultPriceCDN
	}
	cfg.CDN = strings.TrimSuffix(cfg.CDN, "/")
	if cfg.Regions, err = fetchers.Distinct(cfg.Regions, strings.TrimSpace, func(int, string) error { return nil }); err != nil {
		return nil, err
	}
	return &PublicFetcher{cfg: cfg, client: client, log: log}, nil
}

// Provider implements fetchers.Fetcher.
func (f *PublicFetcher) Provider() string { return pricewatch.Alibaba }

// priceFile is one instancePrice.json.
type priceFile struct {
	Currency        string                     `json:"currency"`
	Version         string                     `json:"version"`
	PublicationDate string                     `json:"publicationDate"`
	Site            string                     `json:"site"`
	PricingInfo     map[string]json.RawMessage `json:"pricingInfo"`
}

type filePrice struct {
	Price  num `json:"price"`
	Period num `json:"period"`
}

type fileEntry struct {
	Hours  []filePrice `json:"hours"`
	Months []filePrice `json:"months"`
	Years  []filePrice `json:"years"`
}

// siteIntl names the international site's file, "china" the China site's.
const siteIntl = "intl"

// site tells the two files apart: the international one says "site":
// "Intl" and prices in USD; the China site's prices in CNY (the value of
// its "site" is not known here, so the currency decides).
func (p *priceFile) site() string {
	if strings.EqualFold(strings.TrimSpace(p.Site), "intl") || p.Currency != "CNY" {
		return siteIntl
	}
	return "china"
}

// homeSite is the site that sells region natively: the China site for
// mainland regions, the international one for the rest. Where both files
// list a region, its prices come from its home site (the China file
// prices overseas regions in CNY too, the international file mainland
// ones in USD: the same offer twice, in two currencies).
func homeSite(region string) string {
	if strings.HasPrefix(region, "cn-") && region != "cn-hongkong" {
		return "china"
	}
	return siteIntl
}

// Fetch implements fetchers.Fetcher.
func (f *PublicFetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	urls := f.cfg.Files
	if len(urls) == 0 {
		var err error
		if urls, err = f.discover(ctx); err != nil {
			return nil, err
		}
	}
	files := make([]*priceFile, len(urls))
	for i, u := range urls {
		body, err := f.client.Read(ctx, fetchers.Request{Method: http.MethodGet, URL: u,
			Where: "alibaba price file " + redact(u), Answer: "the price file", Limit: maxPriceFile, Timeout: priceFileBodyTimeout})
		if err != nil {
			return nil, err
		}
		var pf priceFile
		if err := fetchers.DecodeWhole(body, "a price file", &pf); err != nil {
			return nil, fmt.Errorf("alibaba price file %s: %w", redact(u), err)
		}
		if !pricewatch.IsCurrencyCode(pf.Currency) || len(pf.PricingInfo) == 0 {
			return nil, fmt.Errorf("alibaba price file %s: %w: no currency code or no pricingInfo", redact(u), fetchers.ErrIncomplete)
		}
		files[i] = &pf
	}
	return f.snapshot(files)
}

// redact is a URL as errors show it (no query or user info).
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return fetchers.RedactURL(u)
}

// discover reads the pricing pages and returns the current price file of
// each site they name, the newest version where a page names several.
func (f *PublicFetcher) discover(ctx context.Context) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, page := range f.cfg.Pages {
		body, err := f.client.Read(ctx, fetchers.Request{Method: http.MethodGet, URL: page,
			Where: "alibaba pricing page " + redact(page), Answer: "the pricing page", Limit: maxPricePage, Timeout: time.Minute})
		if err != nil {
			return nil, err
		}
		newest := map[string]string{}
		for _, m := range priceFileRef.FindAllStringSubmatch(string(body), -1) {
			if v, ok := newest[m[1]]; !ok || newerVersion(m[2], v) {
				newest[m[1]] = m[2]
			}
		}
		if len(newest) == 0 {
			return nil, fmt.Errorf("alibaba pricing page %s names no price file (…/aliyun/ecs-price-info/<version>): set providers.alibaba.price_files: %w", redact(page), fetchers.ErrIncomplete)
		}
		for _, dir := range slices.Sorted(func(yield func(string) bool) {
			for k := range newest {
				if !yield(k) {
					return
				}
			}
		}) {
			u := f.cfg.CDN + "/aliyun/" + dir + "/" + newest[dir] + priceFilePath
			if !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	return out, nil
}

// newerVersion compares dotted versions number by number (2.0.421 > 2.0.99).
func newerVersion(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x > y
		}
	}
	return len(as) > len(bs)
}

// fileTerms are the subscriptions read, as the API path asks them.
var fileTerms = []struct {
	years  bool
	period int
	term   string
}{{false, 1, "1m"}, {true, 1, "1y"}, {true, 3, "3y"}}

// snapshot turns the files into offers: Linux, VPC, I/O-optimised rows
// of the GPU types in the catalogue, each region from one file.
func (f *PublicFetcher) snapshot(files []*priceFile) (*pricewatch.Snapshot, error) {
	want := map[string]bool{}
	for _, r := range f.cfg.Regions {
		want[r] = true
	}
	// Which file prices each region: its home site's where several list it.
	from := map[string]int{}
	for i, pf := range files {
		for key := range pf.PricingInfo {
			region, _, _ := strings.Cut(key, "::")
			if len(want) > 0 && !want[region] {
				continue
			}
			if j, ok := from[region]; !ok || (files[j].site() != homeSite(region) && pf.site() == homeSite(region)) {
				from[region] = i
			}
		}
	}
	if len(from) == 0 {
		return nil, fmt.Errorf("alibaba: the price files list none of the regions %s", strings.Join(f.cfg.Regions, ", "))
	}
	for _, r := range f.cfg.Regions {
		if _, ok := from[r]; !ok {
			// Not covered: what is stored for it stays as it is.
			f.log.Warn("alibaba price file: a configured region is in no file", zap.String("region", r))
		}
	}
	types := catalogue()
	snap := &pricewatch.Snapshot{Provider: pricewatch.Alibaba, Versions: map[string]string{}}
	odd, notCatalogued := 0, 0
	var oddExample string
	for i, pf := range files {
		for key, raw := range pf.PricingInfo {
			parts := strings.Split(key, "::")
			if len(parts) != 5 {
				odd++
				oddExample = key
				continue
			}
			region, typ := parts[0], parts[1]
			if j, ok := from[region]; !ok || j != i || parts[2] != "vpc" || parts[3] != "linux" || parts[4] != "optimized" {
				continue
			}
			hw, isGPU := types[typ]
			if !isGPU {
				if gpuFamilyName(typ) {
					notCatalogued++
				}
				continue
			}
			offers, err := entryOffers(raw, pf.Currency, region, typ, hw)
			if err != nil {
				odd++
				oddExample = key + ": " + err.Error()
				continue
			}
			if len(offers) == 0 {
				continue
			}
			snap.Offers = append(snap.Offers, offers...)
			snap.Availability = append(snap.Availability, pricewatch.Availability{Provider: pricewatch.Alibaba,
				Region: region, InstanceType: typ, State: pricewatch.Offered, StockDetail: "listed in the price file", Hardware: hw})
		}
	}
	if len(snap.Offers) == 0 {
		// A file listing the regions but no GPU type at all is not Alibaba's
		// catalogue: read as "everything withdrawn" it would close it all.
		return nil, fmt.Errorf("alibaba price files: %w: no GPU type priced in %d region(s)", fetchers.ErrIncomplete, len(from))
	}
	if odd > 0 {
		// One odd row never fails the run: it is left out, and said.
		f.log.Warn("alibaba price file: rows left out", zap.Int("rows", odd), zap.String("example", pricewatch.Printable(oddExample)))
	}
	if notCatalogued > 0 {
		f.log.Info("alibaba price file: GPU-family types not in the hardware catalogue left out", zap.Int("rows", notCatalogued))
	}
	var parts []string
	for i, pf := range files {
		used := false
		for _, j := range from {
			used = used || j == i
		}
		if used {
			snap.Versions["price-file:"+pf.site()] = pf.Version
			parts = append(parts, fmt.Sprintf("%s %s %s", pf.site(), pf.Version, pf.Currency))
		}
	}
	// The run record names the source: a keyless run is the public file,
	// never the API (see docs/clouds.md).
	snap.SourceVersion = "public price file (" + strings.Join(parts, "; ") + ")"
	for _, region := range slices.Sorted(func(yield func(string) bool) {
		for r := range from {
			if !yield(r) {
				return
			}
		}
	}) {
		// Spot is not in the file: a spot price stored by a keyed run is
		// outside this scope and left as it is.
		snap.Coverage = append(snap.Coverage, pricewatch.Scope{Region: region,
			PriceTypes: []pricewatch.PriceType{pricewatch.OnDemand, pricewatch.Reserved}, Availability: true})
	}
	sortSnapshot(snap)
	return snap, nil
}

// entryOffers reads one row's pay-as-you-go price and its 1-month,
// 1-year and 3-year subscription totals. A price of 0 (some rows have
// one) is a price not offered, left out.
func entryOffers(raw json.RawMessage, currency, region, typ string, hw pricewatch.Hardware) ([]pricewatch.Offer, error) {
	var e fileEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, err
	}
	find := func(list []filePrice, period int) (decimal.Decimal, bool, error) {
		for _, p := range list {
			n, err := p.Period.int()
			if err != nil || n != period {
				continue
			}
			d, err := p.Price.price("price")
			if err != nil {
				return decimal.Decimal{}, false, err
			}
			return d, !d.IsZero(), nil
		}
		return decimal.Decimal{}, false, nil
	}
	base := pricewatch.Offer{Provider: pricewatch.Alibaba, Region: region, InstanceType: typ,
		OS: pricewatch.Linux, Currency: currency, Hardware: hw}
	var out []pricewatch.Offer
	if d, ok, err := find(e.Hours, 1); err != nil {
		return nil, fmt.Errorf("hours: %w", err)
	} else if ok {
		o := base
		o.PriceType, o.Hourly = pricewatch.OnDemand, d
		out = append(out, o)
	}
	for _, t := range fileTerms {
		list := e.Months
		if t.years {
			list = e.Years
		}
		d, ok, err := find(list, t.period)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.term, err)
		}
		if ok {
			o := base
			o.PriceType, o.Term, o.Payment, o.Upfront = pricewatch.Reserved, t.term, pricewatch.AllUpfront, d
			out = append(out, o)
		}
	}
	for _, o := range out {
		if err := o.Validate(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// gpuFamilyName reports whether a type's family reads as a GPU family
// (gn…, ebmgn…, vgn…, sgn…), so that one missing from the catalogue is
// counted rather than silently passed over.
func gpuFamilyName(typ string) bool {
	fam := strings.TrimPrefix(typ, "ecs.")
	if i := strings.IndexAny(fam, "-."); i > 0 {
		fam = fam[:i]
	}
	for _, p := range []string{"gn", "ebmgn", "vgn", "sgn", "sccgn"} {
		if strings.HasPrefix(fam, p) {
			return true
		}
	}
	return false
}

// catalogueJSON is what DescribeInstanceTypes said of every GPU type, as
// SpareCores' crawler saved it (catalogue.json names its source): the
// price file carries no hardware, and without a key the API cannot be
// asked.
//
//go:embed catalogue.json
var catalogueJSON []byte

type catalogueServer struct {
	Name      string   `json:"name"`
	Family    string   `json:"family"`
	VCPUs     int      `json:"vcpus"`
	MemoryMiB float64  `json:"memory_amount"`
	GPUCount  float64  `json:"gpu_count"`
	GPUModel  string   `json:"gpu_model"`
	GPUMemMiB *float64 `json:"gpu_memory_min"`
	GPUVendor *string  `json:"gpu_manufacturer"`
}

// catalogue is the hardware of every GPU type of the embedded catalogue,
// read through the same rules as the API's answer (hardware): FPGAs and
// NPUs are left out, vGPU shares keep their fraction.
var catalogue = sync.OnceValue(func() map[string]pricewatch.Hardware {
	var doc struct {
		Servers []catalogueServer `json:"servers"`
	}
	if err := json.Unmarshal(catalogueJSON, &doc); err != nil {
		panic(fmt.Sprintf("alibaba: embedded catalogue.json: %v", err)) // a build defect, caught by every test
	}
	out := make(map[string]pricewatch.Hardware, len(doc.Servers))
	for _, s := range doc.Servers {
		hw, kind, err := hardware(s.instanceType())
		if err != nil || kind != gpu.KindGPU {
			continue
		}
		out[s.Name] = hw
	}
	return out
})

// instanceType is the DescribeInstanceTypes row the catalogue entry was
// derived from (memory in GiB, the vendor word put back).
func (s catalogueServer) instanceType() instanceTypeJSON {
	it := instanceTypeJSON{InstanceTypeID: s.Name, InstanceTypeFamily: s.Family, GPUSpec: s.GPUModel,
		GPUAmount: numOf(s.GPUCount), CPUCoreCount: numOf(float64(s.VCPUs)), MemorySize: numOf(s.MemoryMiB / 1024)}
	if s.GPUVendor != nil {
		it.GPUSpec = *s.GPUVendor + " " + s.GPUModel
	}
	if s.GPUMemMiB != nil {
		it.GPUMemorySize = numOf(*s.GPUMemMiB / 1024)
	}
	return it
}

// numOf is f as the API would have written it.
func numOf(f float64) num { return num{text: strconv.FormatFloat(f, 'f', -1, 64), set: true} }
