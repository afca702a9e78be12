// Package sheet reads price sheets: the prices of a cloud that publishes
// them only on a web page or in a quote (CoreWeave, Crusoe), written down
// as a CSV or YAML file, local or at a URL, one row per instance type,
// region and price type. A sheet is read like a cloud's answer: a row that
// cannot be read is left out and counted, a file that is malformed or cut
// fails the whole read (and so closes nothing), and the offers it yields
// are stored as the priced cloud's history, so an edit of the sheet is a
// price change that alerts like any other.
//
// The package is not package pricesheet (the sheet `pricewatch export`
// writes); this one is read, that one written.
package sheet

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"
	"go.yaml.in/yaml/v3"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/section"
)

// Columns are the CSV header (in any order) and the YAML keys of a row.
// price_type is optional (on_demand when empty); every other is required.
var Columns = []string{"instance_type", "gpu", "gpu_count", "region", "price", "currency", "unit", "source"}

// Units a price may be given in.
const (
	// PerInstanceHour: the price of the whole instance for an hour.
	PerInstanceHour = "instance-hour"
	// PerGPUHour: the price of one of its GPUs for an hour (what both
	// CoreWeave's and Crusoe's pages state); stored times gpu_count.
	PerGPUHour = "gpu-hour"
)

// maxSheetBytes bounds a sheet: thousands of rows fit in 1 MiB.
const maxSheetBytes = 4 << 20

// Row is one line of a sheet, as written.
type Row struct {
	InstanceType string `yaml:"instance_type"`
	GPU          string `yaml:"gpu"`
	GPUCount     string `yaml:"gpu_count"`
	Region       string `yaml:"region"`
	Price        string `yaml:"price"`
	Currency     string `yaml:"currency"`
	Unit         string `yaml:"unit"`
	PriceType    string `yaml:"price_type"`
	Source       string `yaml:"source"`
}

// document is a YAML sheet: its rows under one key, so that a file that
// is not a sheet (a list of anything) is refused.
type document struct {
	Rows *[]yamlRow `yaml:"rows"`
}

// yamlRow takes numbers unquoted (price: 4.29) exactly: yaml.Node keeps
// the scalar's text, so no float ever holds a price.
type yamlRow map[string]yaml.Node

// Result is what one sheet gave.
type Result struct {
	Offers []pricewatch.Offer
	// Skipped names each row left out (its line and why).
	Skipped []string
}

// Read reads the sheet at src (a file name, or an http(s) URL read
// through client) as provider's prices. A malformed or cut file, an
// answer other than 200, or a sheet without one good row fails with
// fetchers.ErrIncomplete; rows that cannot be read are left out and named
// in Result.Skipped.
func Read(ctx context.Context, client *fetchers.Client, provider, src string) (Result, error) {
	body, err := load(ctx, client, provider, src)
	if err != nil {
		return Result{}, err
	}
	res, err := Parse(provider, src, body)
	if err != nil {
		return Result{}, fmt.Errorf("%s price sheet %s: %w", provider, Name(src), err)
	}
	return res, nil
}

// Name is src as errors and logs show it: a URL without its query and
// user info (a signed link's token stays out of every line).
func Name(src string) string {
	if u, err := url.Parse(src); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		return u.String()
	}
	return src
}

// IsURL reports whether src is read over HTTP.
func IsURL(src string) bool {
	return strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://")
}

func load(ctx context.Context, client *fetchers.Client, provider, src string) ([]byte, error) {
	if IsURL(src) {
		if client == nil {
			return nil, fmt.Errorf("%s price sheet %s: an HTTP client is required", provider, Name(src))
		}
		return client.Read(ctx, fetchers.Request{Method: http.MethodGet, URL: src, Where: provider + " price sheet " + Name(src),
			Answer: "the price sheet", Limit: maxSheetBytes})
	}
	f, err := os.Open(src)
	if err != nil {
		return nil, fmt.Errorf("%s price sheet: %w", provider, err)
	}
	defer f.Close()
	body, err := io.ReadAll(io.LimitReader(f, maxSheetBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s price sheet %s: %w", provider, src, err)
	}
	if len(body) > maxSheetBytes {
		return nil, fmt.Errorf("%w: %s price sheet %s: larger than %d bytes", fetchers.ErrIncomplete, provider, src, maxSheetBytes)
	}
	return body, nil
}

// Parse reads a sheet's body; name tells CSV (.csv) from YAML (.yaml,
// .yml) by its extension (a URL's path).
func Parse(provider, name string, body []byte) (Result, error) {
	// Every sheet ends with a newline: one that does not was cut inside
	// its last line ("4.29" cut to "4.2" would read as a price).
	if len(bytes.TrimSpace(body)) == 0 {
		return Result{}, fmt.Errorf("%w: the sheet is empty", fetchers.ErrIncomplete)
	}
	if body[len(body)-1] != '\n' {
		return Result{}, fmt.Errorf("%w: the sheet does not end with a newline: cut off", fetchers.ErrIncomplete)
	}
	var rows []numbered
	var err error
	switch ext := strings.ToLower(filepath.Ext(pathOf(name))); ext {
	case ".csv":
		rows, err = parseCSV(body)
	case ".yaml", ".yml":
		rows, err = parseYAML(body)
	default:
		return Result{}, fmt.Errorf("%q: want a .csv, .yaml or .yml sheet", ext)
	}
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", fetchers.ErrIncomplete, err)
	}
	var res Result
	seen := map[pricewatch.OfferKey]int{}
	for _, r := range rows {
		o, err := offer(provider, r.Row)
		if r.bad != "" {
			err = errors.New(r.bad)
		}
		if err == nil {
			if first, dup := seen[o.Key()]; dup {
				err = fmt.Errorf("prices %s %s %s again (first on line %d)", o.InstanceType, o.Region, o.PriceType, first)
			}
		}
		if err != nil {
			res.Skipped = append(res.Skipped, fmt.Sprintf("line %d: %v", r.line, err))
			continue
		}
		seen[o.Key()] = r.line
		res.Offers = append(res.Offers, o)
	}
	if len(res.Offers) == 0 {
		first := ""
		if len(res.Skipped) > 0 {
			first = " (" + res.Skipped[0] + ")"
		}
		return Result{}, fmt.Errorf("%w: %d row(s) and not one that can be read%s", fetchers.ErrIncomplete, len(rows), first)
	}
	return res, nil
}

func pathOf(name string) string {
	if u, err := url.Parse(name); err == nil && IsURL(name) {
		return u.Path
	}
	return name
}

type numbered struct {
	Row
	line int
	// bad is why the row cannot be read before its values are checked
	// (a YAML key that is no column).
	bad string
}

func parseCSV(body []byte) ([]numbered, error) {
	r := csv.NewReader(bytes.NewReader(body))
	r.Comment = '#'
	// Every line has the header's columns: a line cut short fails the
	// file, not only its row.
	r.FieldsPerRecord = 0
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("reading the header: %v", err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains(Columns, h) && h != "price_type" {
			return nil, fmt.Errorf("unknown column %q (want %s, price_type)", h, strings.Join(Columns, ", "))
		}
		if _, dup := col[h]; dup {
			return nil, fmt.Errorf("column %q twice", h)
		}
		col[h] = i
	}
	for _, c := range Columns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("no column %q", c)
		}
	}
	get := func(rec []string, c string) string {
		if i, ok := col[c]; ok {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var out []numbered
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		line, _ := r.FieldPos(0)
		out = append(out, numbered{line: line, Row: Row{
			InstanceType: get(rec, "instance_type"), GPU: get(rec, "gpu"), GPUCount: get(rec, "gpu_count"),
			Region: get(rec, "region"), Price: get(rec, "price"), Currency: get(rec, "currency"),
			Unit: get(rec, "unit"), PriceType: get(rec, "price_type"), Source: get(rec, "source"),
		}})
	}
	return out, nil
}

func parseYAML(body []byte) ([]numbered, error) {
	var d document
	dec := yaml.NewDecoder(bytes.NewReader(body))
	dec.KnownFields(true)
	if err := dec.Decode(&d); err != nil {
		return nil, err
	}
	if d.Rows == nil {
		return nil, errors.New("no rows key")
	}
	out := make([]numbered, 0, len(*d.Rows))
	for _, m := range *d.Rows {
		n := numbered{}
		fields := map[string]*string{"instance_type": &n.InstanceType, "gpu": &n.GPU, "gpu_count": &n.GPUCount, "region": &n.Region,
			"price": &n.Price, "currency": &n.Currency, "unit": &n.Unit, "price_type": &n.PriceType, "source": &n.Source}
		for k, v := range m {
			p, ok := fields[k]
			if !ok {
				n.bad = "unknown key " + strconv.Quote(k)
				continue
			}
			if v.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: %s is not a single value", v.Line, k)
			}
			*p = strings.TrimSpace(v.Value)
			if n.line == 0 || v.Line < n.line {
				n.line = v.Line
			}
		}
		out = append(out, n)
	}
	return out, nil
}

// offer checks one row and makes its offer.
func offer(provider string, r Row) (pricewatch.Offer, error) {
	for _, req := range [][2]string{{"instance_type", r.InstanceType}, {"gpu", r.GPU}, {"gpu_count", r.GPUCount}, {"region", r.Region},
		{"price", r.Price}, {"currency", r.Currency}, {"unit", r.Unit}, {"source", r.Source}} {
		if req[1] == "" {
			return pricewatch.Offer{}, fmt.Errorf("no %s", req[0])
		}
	}
	if strings.ContainsAny(r.Region, " /,") || r.Region == pricewatch.AllRegions {
		return pricewatch.Offer{}, fmt.Errorf("region %q", r.Region)
	}
	count, err := strconv.ParseFloat(r.GPUCount, 64)
	if err != nil || count <= 0 || math.IsInf(count, 0) || count != math.Trunc(count) {
		// A slice of a card is written as the card's share in gpu
		// ("A100/4"), never as a fractional count.
		return pricewatch.Offer{}, fmt.Errorf("gpu_count %q: want a whole number of GPUs", r.GPUCount)
	}
	price, err := decimal.NewFromString(r.Price)
	if err != nil || !price.IsPositive() {
		// "Contact sales" and "N/A" cells are not prices.
		return pricewatch.Offer{}, fmt.Errorf("price %q: want a positive decimal", r.Price)
	}
	cur := strings.ToUpper(r.Currency)
	if len(cur) != 3 || strings.IndexFunc(cur, func(c rune) bool { return c < 'A' || c > 'Z' }) >= 0 {
		return pricewatch.Offer{}, fmt.Errorf("currency %q: want an ISO 4217 code", r.Currency)
	}
	pt := pricewatch.OnDemand
	switch r.PriceType {
	case "", string(pricewatch.OnDemand):
	case string(pricewatch.Spot):
		pt = pricewatch.Spot
	default:
		return pricewatch.Offer{}, fmt.Errorf("price_type %q: want on_demand or spot", r.PriceType)
	}
	id := gpu.Resolve(r.GPU, gpu.Hint{})
	if id.Kind != gpu.KindGPU {
		return pricewatch.Offer{}, fmt.Errorf("gpu %q is not a GPU", r.GPU)
	}
	gpus := count * id.Fraction
	hourly := price
	switch r.Unit {
	case PerInstanceHour:
	case PerGPUHour:
		// Exact: a whole count times the per-GPU price. A slice priced per
		// GPU-hour is priced for the whole card, so its share is taken.
		hourly = price.Mul(decimal.NewFromFloat(gpus))
	default:
		return pricewatch.Offer{}, fmt.Errorf("unit %q: want %s or %s", r.Unit, PerInstanceHour, PerGPUHour)
	}
	return pricewatch.Offer{
		Provider: provider, Region: r.Region, InstanceType: r.InstanceType, PriceType: pt, OS: pricewatch.Linux,
		Currency: cur, Hourly: hourly,
		Hardware: pricewatch.Hardware{GPUModel: id.Name(), GPUCount: gpus, GPUMemoryGB: id.MemoryGB},
	}, nil
}

// ReadAll reads every sheet of a provider (providers.<name>.price_sheets)
// and returns their offers. Any sheet failing fails the whole read: a
// price left out because its sheet was cut must not read as withdrawn.
// Rows left out are logged per sheet (counted and the first named); an
// offer priced by two sheets is kept from the first and counted too.
func ReadAll(ctx context.Context, client *fetchers.Client, log *zap.Logger, provider string, sources []string) ([]pricewatch.Offer, error) {
	var out []pricewatch.Offer
	from := map[pricewatch.OfferKey]string{}
	for _, src := range sources {
		res, err := Read(ctx, client, provider, src)
		if err != nil {
			return nil, err
		}
		for _, o := range res.Offers {
			if first, dup := from[o.Key()]; dup {
				res.Skipped = append(res.Skipped, fmt.Sprintf("%s %s %s is priced by %s already", o.InstanceType, o.Region, o.PriceType, first))
				continue
			}
			from[o.Key()] = Name(src)
			out = append(out, o)
		}
		if len(res.Skipped) > 0 {
			log.Warn("price sheet rows left out; the others are stored", zap.String("sheet", Name(src)),
				zap.Int("skipped", len(res.Skipped)), zap.String("first", res.Skipped[0]))
		}
	}
	return out, nil
}

// CheckSources checks a price_sheets key: each entry an http(s) URL or
// the name of a .csv, .yaml or .yml file that is there.
func CheckSources(k section.Checker, key string, sources []string) error {
	var errs []error
	for i, src := range sources {
		ik := fmt.Sprintf("%s[%d]", key, i)
		ext := strings.ToLower(filepath.Ext(pathOf(src)))
		switch {
		case ext != ".csv" && ext != ".yaml" && ext != ".yml":
			errs = append(errs, k.Errorf(ik, "%q: want a .csv, .yaml or .yml sheet", Name(src)))
		case IsURL(src):
			// Named without its query: a signed link's token stays out.
			if u, err := url.Parse(src); err != nil || u.Host == "" {
				errs = append(errs, k.Errorf(ik, "%q is not an http(s) URL", Name(src)))
			}
		default:
			if fi, err := os.Stat(src); err != nil || fi.IsDir() {
				errs = append(errs, k.Errorf(ik, "%q is not a readable sheet file", src))
			}
		}
	}
	return errors.Join(errs...)
}
