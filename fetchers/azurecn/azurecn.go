// Package azurecn reads the retail prices of Azure operated by 21Vianet
// (Azure China) and stores its GPU virtual machine prices, in CNY, as a
// cloud of its own (azure-cn).
//
// Azure China has no paged price API like the global one: GET
// /api/retail/pricesheet/download?api-version=2023-06-01-preview on
// prices.azure.cn answers a short-lived signed DownloadUrl on a storage
// host (blob.core.chinacloudapi.cn) for one CSV of every retail rate of
// every service. That URL's host is the one foreign origin allowed, for
// that download only. The CSV is streamed row by row, never held whole,
// and its rows, whose columns carry the Retail Prices API's field names,
// are mapped through package azure's mapping (GPU sizes, units of
// measure, validity dates, region case, ties between rows): a price is
// read the same way whichever Azure lists it.
//
// No account or key is needed. The sheet says nothing of stock, so a size
// is "offered" wherever it has a price, as for Azure.
package azurecn

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/azure"
	"github.com/pricewatch/pricewatch/section"
)

const (
	// Name is the provider's key (providers.azure-cn, the provider column).
	Name = pricewatch.AzureChina
	// DefaultEndpoint is the China retail prices host; DownloadPath is
	// appended.
	DefaultEndpoint = "https://prices.azure.cn"
	// DownloadPath answers the price sheet's download URL.
	DownloadPath = "/api/retail/pricesheet/download"
	// APIVersion is the only version the China price sheet documents.
	APIVersion = "2023-06-01-preview"

	// maxAnswerBytes bounds the download-URL answer (a few hundred bytes).
	maxAnswerBytes = 1 << 20
	answerTimeout  = time.Minute
	// maxSheetBytes bounds the CSV: the whole retail price list of every
	// service is tens of MB; far beyond that is not the price sheet.
	maxSheetBytes = 4 << 30
	// defaultSheetTimeout bounds reading the CSV, after its headers came.
	defaultSheetTimeout = 20 * time.Minute
)

// Section is providers.azure-cn.
type Section struct {
	section.Common `yaml:",inline"`
	// Windows also stores Windows prices (kept apart from Linux).
	Windows bool `yaml:"windows"`
}

// Validate: the shared checks cover every key but windows, a boolean.
func (*Section) Validate(section.Checker) error { return nil }

// Provider registers Azure China (see package providers).
var Provider = fetchers.Provider{
	Name:  Name,
	Facts: section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		// The sheet is refreshed about daily (LastRefreshedAt); the
		// schedule is offset from azure's.
		return &Section{Common: section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "25 */6 * * *", Timeout: 30 * time.Minute},
			Windows: true}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		return New(Config{Endpoint: s.Endpoint, Regions: s.Regions, Windows: s.Windows, Now: env.Now}, env.Client, env.Log)
	}),
}

// Config is what New needs.
type Config struct {
	// Endpoint is the base URL; empty means DefaultEndpoint.
	Endpoint string
	// Regions are armRegionName codes ("chinanorth3"); empty means all.
	Regions []string
	// Windows also keeps Windows prices.
	Windows bool
	// Now decides which rows are in effect; nil means time.Now.
	Now func() time.Time
}

// Fetcher implements fetchers.Fetcher for Azure China.
type Fetcher struct {
	cfg      Config
	endpoint *url.URL
	client   *fetchers.Client
	log      *zap.Logger
	// sheetTimeout bounds reading the CSV; tests shorten it.
	sheetTimeout time.Duration
}

var _ fetchers.Fetcher = (*Fetcher)(nil)

// regionCode is what an armRegionName looks like.
var regionCode = regexp.MustCompile(`^[a-z0-9]+$`)

// New checks cfg and returns a Fetcher sending through client.
func New(cfg Config, client *fetchers.Client, log *zap.Logger) (*Fetcher, error) {
	u, log, err := fetchers.Endpoint(Name, client, log, cfg.Endpoint, DefaultEndpoint, DownloadPath)
	if err != nil {
		return nil, err
	}
	u.RawQuery = url.Values{"api-version": {APIVersion}}.Encode()
	fold := func(r string) string { return strings.ToLower(strings.TrimSpace(r)) }
	cfg.Regions, err = fetchers.Distinct(cfg.Regions, fold, func(_ int, r string) error {
		if !regionCode.MatchString(r) {
			return fmt.Errorf("%s: providers.%s.regions: %q is not an Azure region code such as chinanorth3", Name, Name, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Fetcher{cfg: cfg, endpoint: u, client: client, log: log, sheetTimeout: defaultSheetTimeout}, nil
}

// Provider returns Name.
func (f *Fetcher) Provider() string { return Name }

// answer is the download endpoint's answer. DownloadUrl is a pointer so
// that a missing one is told from an empty one.
type answer struct {
	DownloadURL     *string `json:"DownloadUrl"`
	LastRefreshedAt string  `json:"LastRefreshedAt"`
	ExpiryTime      string  `json:"ExpiryTime"`
}

// Fetch asks for the sheet's download URL, streams the CSV through the
// Azure mapping and returns its GPU VM prices.
func (f *Fetcher) Fetch(ctx context.Context, _ fetchers.Previous) (*pricewatch.Snapshot, error) {
	sheetURL, refreshed, err := f.downloadURL(ctx)
	if err != nil {
		return nil, err
	}
	sheet := azure.NewSheet(azure.SheetConfig{Provider: Name, Regions: f.cfg.Regions, Windows: f.cfg.Windows, Now: f.cfg.Now(), Log: f.log})
	n, err := f.stream(ctx, sheetURL, sheet)
	if err != nil {
		return nil, err
	}
	version := "LastRefreshedAt " + refreshed
	if refreshed == "" {
		version = "api-version=" + APIVersion
	}
	snap, err := sheet.Snapshot(version)
	if err != nil {
		return nil, err
	}
	if len(snap.Offers) == 0 && len(snap.Availability) == 0 {
		// The sheet lists every service; one without a single GPU VM
		// price is not the price sheet (or a broken one), not news that
		// every GPU size vanished.
		return nil, fmt.Errorf("%w: %s: %d rows but not one GPU virtual machine price: not believed", fetchers.ErrIncomplete, Name, sheet.Rows)
	}
	f.log.Info("azure-cn price sheet read", zap.Int64("bytes", n), zap.Int("rows", sheet.Rows), zap.String("last_refreshed_at", refreshed),
		zap.Int("offers", len(snap.Offers)), zap.Any("skipped", sheet.Stats))
	return snap, nil
}

// downloadURL asks for the sheet's download URL.
func (f *Fetcher) downloadURL(ctx context.Context) (*url.URL, string, error) {
	where := Name + " " + DownloadPath
	body, err := f.client.Read(ctx, fetchers.Request{Method: http.MethodGet, URL: f.endpoint.String(),
		Where: where, Answer: "the price sheet's download URL", Limit: maxAnswerBytes, Timeout: answerTimeout})
	if err != nil {
		return nil, "", err
	}
	var a answer
	if err := fetchers.DecodeWhole(body, "the price sheet's download URL", &a); err != nil {
		return nil, "", fmt.Errorf("%s: %w", where, err)
	}
	if a.DownloadURL == nil || strings.TrimSpace(*a.DownloadURL) == "" {
		return nil, "", fmt.Errorf("%w: %s: the answer has no DownloadUrl", fetchers.ErrIncomplete, where)
	}
	u, err := url.Parse(strings.TrimSpace(*a.DownloadURL))
	if err != nil {
		// url.Parse's error repeats the URL, signature and all.
		return nil, "", fmt.Errorf("%w: %s: DownloadUrl is not a URL", fetchers.ErrIncomplete, where)
	}
	if err := fetchers.CheckHandedOut(f.endpoint, u, "DownloadUrl"); err != nil {
		return nil, "", fmt.Errorf("%s: %w", where, err)
	}
	return u, strings.TrimSpace(a.LastRefreshedAt), nil
}

// Columns the mapping cannot do without; the others are read when present.
var requiredColumns = []string{"currencyCode", "retailPrice", "armRegionName", "armSkuName", "serviceName",
	"productName", "skuName", "meterName", "type", "unitOfMeasure"}

// stream downloads the CSV and adds each row to sheet, in constant
// memory. A row that cannot be read is skipped (see azure.Sheet.Add); a
// header without the price columns, a body cut off (in transit, or at the
// source: its last line without a newline), too slow or too large fails
// the run with fetchers.ErrIncomplete.
func (f *Fetcher) stream(ctx context.Context, u *url.URL, sheet *azure.Sheet) (int64, error) {
	where := Name + " price sheet " + fetchers.RedactURL(u)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := f.client.Do(rctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, errors.New("building the price sheet request")
		}
		req.Header.Set("Accept", "text/csv")
		return req, nil
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", where, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%w: %s: HTTP %d instead of the price sheet", fetchers.ErrIncomplete, where, resp.StatusCode)
	}
	var timedOut atomic.Bool
	timer := time.AfterFunc(f.sheetTimeout, func() { timedOut.Store(true); cancel() })
	defer timer.Stop()
	body := &counted{r: io.LimitReader(resp.Body, maxSheetBytes+1)}
	fail := func(err error) (int64, error) {
		switch {
		case ctx.Err() != nil:
			return body.n, fmt.Errorf("%s: %w", where, ctx.Err())
		case timedOut.Load():
			return body.n, fmt.Errorf("%w: %s: not read in full after %s", fetchers.ErrIncomplete, where, f.sheetTimeout)
		case body.n > maxSheetBytes:
			return body.n, fmt.Errorf("%w: %s: larger than %d bytes", fetchers.ErrIncomplete, where, int64(maxSheetBytes))
		}
		return body.n, fmt.Errorf("%w: %s: after %d bytes: %v", fetchers.ErrIncomplete, where, body.n, err)
	}
	r := csv.NewReader(body)
	r.ReuseRecord = true
	// A stray quote inside a field (a product name with an inch mark)
	// is read as text rather than lose the line.
	r.LazyQuotes = true
	header, err := r.Read()
	if err != nil {
		return fail(fmt.Errorf("reading the header: %w", err))
	}
	cols, err := readHeader(header)
	if err != nil {
		return fail(err)
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		var perr *csv.ParseError
		if errors.As(err, &perr) {
			// A line of the wrong field count is one odd row, skipped.
			// When it names a GPU size it could be any of that size's
			// prices, so every stored price stays current; else it is
			// no price of ours.
			gpu := rec == nil || slices.ContainsFunc(rec, azure.IsGPUSize)
			if gpu {
				sheet.Unreadable(lineRegion(rec))
			}
			f.log.Warn("azure-cn price sheet line unreadable; skipped", zap.Int("line", perr.Line), zap.Error(perr.Err),
				zap.Bool("may_be_gpu_price", gpu))
			continue
		}
		if err != nil {
			return fail(err)
		}
		sheet.Add(cols.row(rec))
	}
	if body.n > maxSheetBytes {
		return fail(nil)
	}
	if body.last != '\n' {
		// Every line of the sheet ends in a newline, the last one too. A
		// sheet cut at the source ends inside a line and is served whole,
		// with its own Content-Length, so the transport sees nothing
		// wrong; its lost rows must not read as withdrawn prices (a cut
		// that keeps most offers passes fetch.min_offer_ratio). The sheet
		// states no row count to check against: the newline is what tells.
		return fail(errors.New("the last line has no newline: the sheet was cut off at the source"))
	}
	return body.n, nil
}

// chinaRegion is an Azure China region code: every one starts with
// "china" (chinaeast, chinaeast2, chinanorth3, ...).
var chinaRegion = regexp.MustCompile(`^china[a-z]*[0-9]*$`)

// lineRegion is the one region code an unreadable line names, or
// AllRegions when it names none or several.
func lineRegion(rec []string) string {
	found := ""
	for _, v := range rec {
		v = strings.ToLower(strings.TrimSpace(v))
		if !chinaRegion.MatchString(v) || v == found {
			continue
		}
		if found != "" {
			return pricewatch.AllRegions
		}
		found = v
	}
	if found == "" {
		return pricewatch.AllRegions
	}
	return found
}

// columnIndex holds the header's column indexes by name (-1: absent).
type columnIndex map[string]int

// columnNames are the columns read, as the sheet's header names them.
var columnNames = []string{"currencyCode", "tierMinimumUnits", "retailPrice", "unitPrice", "armRegionName", "location",
	"effectiveStartDate", "effectiveEndDate", "meterId", "meterName", "productId", "skuId", "productName", "skuName",
	"serviceName", "serviceFamily", "unitOfMeasure", "type", "armSkuName", "term", "reservationTerm", "isPrimaryMeterRegion"}

func readHeader(header []string) (columnIndex, error) {
	byName := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		byName[strings.ToLower(h)] = i
	}
	c := columnIndex{}
	for _, name := range columnNames {
		i, ok := byName[strings.ToLower(name)]
		if !ok {
			i = -1
		}
		c[name] = i
	}
	var missing []string
	for _, name := range requiredColumns {
		if c[name] < 0 {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the header lacks %s: not the retail price sheet", strings.Join(missing, ", "))
	}
	return c, nil
}

// row reads one record; rec is reused by the reader, so every value is
// copied out by the string conversion the mapping makes of it.
func (c columnIndex) row(rec []string) azure.Row {
	get := func(name string) string {
		if i := c[name]; i >= 0 && i < len(rec) {
			return strings.Clone(rec[i])
		}
		return ""
	}
	term := get("term")
	if term == "" {
		term = get("reservationTerm")
	}
	r := azure.Row{
		CurrencyCode: get("currencyCode"), TierMinimumUnits: get("tierMinimumUnits"), RetailPrice: get("retailPrice"), UnitPrice: get("unitPrice"),
		ArmRegionName: get("armRegionName"), Location: get("location"),
		EffectiveStartDate: get("effectiveStartDate"), EffectiveEndDate: get("effectiveEndDate"),
		MeterID: get("meterId"), MeterName: get("meterName"), ProductID: get("productId"), SkuID: get("skuId"),
		ProductName: get("productName"), SkuName: get("skuName"), ServiceName: get("serviceName"), ServiceFamily: get("serviceFamily"),
		UnitOfMeasure: get("unitOfMeasure"), Type: get("type"), ArmSkuName: get("armSkuName"), Term: term,
	}
	switch strings.ToLower(strings.TrimSpace(get("isPrimaryMeterRegion"))) {
	case "true":
		t := true
		r.IsPrimaryMeterRegion = &t
	case "false":
		f := false
		r.IsPrimaryMeterRegion = &f
	}
	return r
}

// counted counts the bytes read through it and keeps the last one.
type counted struct {
	r    io.Reader
	n    int64
	last byte
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if n > 0 {
		c.last = p[n-1]
	}
	return n, err
}
