package azure

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
)

// Row is one retail price row in the fields Azure's price lists share: the
// Retail Prices API's items and the rows of the China price sheet
// (prices.azure.cn), a CSV whose columns carry the items' names. Values
// are the text as listed; Term is the reservation term ("1 Year"), which
// the API calls reservationTerm and the sheet term.
type Row struct {
	CurrencyCode, TierMinimumUnits, RetailPrice, UnitPrice string
	ArmRegionName, Location                                string
	EffectiveStartDate, EffectiveEndDate                   string
	MeterID, MeterName, ProductID, SkuID                   string
	ProductName, SkuName, ServiceName, ServiceFamily       string
	UnitOfMeasure, Type, ArmSkuName, Term                  string
	// IsPrimaryMeterRegion is nil when the list leaves it out.
	IsPrimaryMeterRegion *bool
}

// SheetConfig is what a Sheet maps rows for.
type SheetConfig struct {
	// Provider is the cloud the offers are stored under (azure-cn).
	Provider string
	// Regions are the region codes kept (case-folded); none keeps all.
	Regions []string
	// Windows also keeps Windows prices.
	Windows bool
	// Now decides which rows are in effect.
	Now time.Time
	// Log receives what is skipped and why; nil discards.
	Log *zap.Logger
}

// Sheet maps a whole price list, row by row, through the mapping the
// Retail Prices API's fetcher uses (GPU sizes, units, validity dates,
// region case, ties between rows) to one snapshot. It holds the offers
// kept, not the rows, so a list of any length is read in constant memory.
type Sheet struct {
	acc     *accumulator
	regions map[string]bool
	cfg     SheetConfig
	// Stats counts the rows left out, by reason.
	Stats map[string]int
	// Rows counts the rows added.
	Rows int
}

// NewSheet starts an empty sheet.
func NewSheet(cfg SheetConfig) *Sheet {
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	s := &Sheet{acc: newAccumulator(cfg.Provider, cfg.Log, cfg.Windows, cfg.Now.UTC()), cfg: cfg, Stats: map[string]int{}}
	if len(cfg.Regions) > 0 {
		s.regions = map[string]bool{}
		for _, r := range cfg.Regions {
			s.regions[foldRegion(r)] = true
		}
	}
	return s
}

// skipMalformed counts a row that could not be read as a price.
const skipMalformed = "malformed row (stored prices kept)"

// Add maps one row. A row that cannot be read (a price that is not a
// number, a date that is not a date, bytes that are not UTF-8) fails
// nothing: it is skipped, logged, and every stored price it could be stays
// current, as one odd row must never close or change a price.
func (s *Sheet) Add(r Row) {
	s.Rows++
	it := r.item()
	region := regionOf(it)
	if s.regions != nil && !it.badUTF8 && !s.regions[region] {
		s.Stats[skipRegion]++
		return
	}
	if err := s.acc.add(it, "", s.Stats); err != nil {
		s.Stats[skipMalformed]++
		s.cfg.Log.Warn("azure price row malformed; skipped, the stored prices it could be stay current", zap.Error(err),
			zap.String("meterName", strings.TrimSpace(it.MeterName)), zap.String("meterId", strings.TrimSpace(it.MeterID)),
			zap.String("armSkuName", strings.TrimSpace(it.ArmSkuName)), zap.String("region", region), zap.String("type", it.Type))
		if !pricewatch.IsRegionCode(region) {
			region = pricewatch.AllRegions
		}
		s.acc.keepOpenFor(it, region, func(...string) bool { return true })
	}
}

// Snapshot is what the rows describe; sourceVersion names the list read.
// It fails (wrapping fetchers.ErrIncomplete) when no region could be read
// in full.
func (s *Sheet) Snapshot(sourceVersion string) (*pricewatch.Snapshot, error) {
	return s.acc.snapshot(s.cfg.Regions, sourceVersion)
}

// item is the row as the mapping reads it. A field that is not UTF-8
// marks the row unreadable, with U+FFFD where each bad byte was, as the
// API's JSON decoding leaves it.
func (r Row) item() item {
	bad := false
	fix := func(v string) string {
		if utf8.ValidString(v) {
			return v
		}
		bad = true
		return strings.ToValidUTF8(v, string(utf8.RuneError))
	}
	it := item{
		CurrencyCode: fix(r.CurrencyCode), TierMinimumUnits: json.Number(fix(r.TierMinimumUnits)),
		RetailPrice: json.Number(fix(r.RetailPrice)), UnitPrice: json.Number(fix(r.UnitPrice)),
		ArmRegionName: fix(r.ArmRegionName), Location: fix(r.Location),
		EffectiveStartDate: fix(r.EffectiveStartDate), EffectiveEndDate: fix(r.EffectiveEndDate),
		MeterID: fix(r.MeterID), MeterName: fix(r.MeterName), ProductID: fix(r.ProductID), SkuID: fix(r.SkuID),
		ProductName: fix(r.ProductName), SkuName: fix(r.SkuName), ServiceName: fix(r.ServiceName), ServiceFamily: fix(r.ServiceFamily),
		UnitOfMeasure: fix(r.UnitOfMeasure), Type: fix(r.Type), ArmSkuName: fix(r.ArmSkuName), ReservationTerm: fix(r.Term),
		IsPrimaryMeterRegion: r.IsPrimaryMeterRegion,
	}
	it.badUTF8 = bad
	return it
}

// Unreadable counts a line of the list that could not be split into a
// row's fields but may be a GPU price of region (AllRegions when it
// cannot be told): it could be any of that region's, so every stored
// price there stays current (and, with nothing left that can be said
// complete, Snapshot refuses the run rather than close anything).
func (s *Sheet) Unreadable(region string) {
	s.Rows++
	s.Stats[skipUnreadable]++
	if region != pricewatch.AllRegions && s.regions != nil && !s.regions[region] {
		return // another region's line: nothing of this run
	}
	s.acc.keepOpen(region, pricewatch.ListedPriceTypes...)
	s.acc.unlisted[region] = true
}

// IsGPUSize reports whether name is a size of a GPU family (known to the
// hardware table or named like one).
func IsGPUSize(name string) bool {
	_, ok := lookupSKU(name)
	return ok || isGPUFamily(strings.TrimSpace(name))
}
