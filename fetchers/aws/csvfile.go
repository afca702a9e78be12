package aws

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/pricewatch/pricewatch"
)

// The price list's CSV form (index.csv beside each index.json): a few
// metadata lines ("FormatVersion", "Disclaimer", "Publication Date",
// "Version", "OfferCode"), a header, then one row per price dimension
// (EC2) or per rate (savings plans) with every product attribute repeated
// on each row. The EC2 file quotes every field; the savings-plan file
// quotes none. It is about 45 % fewer bytes than the JSON (README.md).
//
// A CSV cut at a row boundary parses as a complete, shorter file, which
// storage would read as types withdrawn. So the reader insists on the last
// byte being a newline and on a Version line, and the download on a body
// framed by Content-Length or chunked encoding (download.go); the caller
// checks the version against the region index.

// errNoFinalNewline marks a CSV body that stops inside its last row.
var errNoFinalNewline = errors.New("CSV file ends without a final newline (cut off)")

// maxCSVRow bounds one row; a real row is under 2 kB.
const maxCSVRow = 4 << 20

// csvReader hands out rows of a CSV stream without allocating per row.
type csvReader struct {
	r          io.Reader
	buf        []byte
	start, end int
	eof        bool
	err        error
	fields     [][]byte
	unq        []byte // arena for fields with escaped quotes
}

func newCSVReader(r io.Reader) *csvReader {
	return &csvReader{r: r, buf: make([]byte, scanBufSize)}
}

// row returns the next row without its newline (nil at a clean end). The
// slice is valid until the next call.
func (c *csvReader) row() ([]byte, error) {
	from := 0 // where to look for the next newline within buf[start:end]
	for {
		if i := bytes.IndexByte(c.buf[c.start+from:c.end], '\n'); i >= 0 {
			nl := c.start + from + i
			// A newline inside quotes belongs to a field: the quotes
			// before it must pair up.
			if bytes.Count(c.buf[c.start:nl], []byte{'"'})%2 == 0 {
				line := c.buf[c.start:nl]
				c.start = nl + 1
				return bytes.TrimSuffix(line, []byte{'\r'}), nil
			}
			from = nl + 1 - c.start
			continue
		}
		if c.eof {
			if c.start != c.end {
				return nil, errNoFinalNewline
			}
			return nil, c.err
		}
		if c.start > 0 {
			n := copy(c.buf, c.buf[c.start:c.end])
			c.start, c.end = 0, n
		}
		if c.end == len(c.buf) {
			if len(c.buf) >= maxCSVRow {
				return nil, fmt.Errorf("%w: a CSV row longer than %d bytes", errLayout, maxCSVRow)
			}
			c.buf = append(c.buf, make([]byte, len(c.buf))...)
		}
		n, err := c.r.Read(c.buf[c.end:])
		c.end += n
		if err != nil {
			c.eof = true
			if !errors.Is(err, io.EOF) {
				c.err = err
				return nil, err
			}
		}
	}
}

// split cuts row into fields, stopping after upto fields (-1: all), and
// returns them. Quoted fields lose their quotes; "" inside one becomes ".
// Only the first upto fields are looked at: the skim over the EC2 file
// stops at the columns that tell a GPU row.
func (c *csvReader) split(row []byte, upto int) ([][]byte, error) {
	c.fields = c.fields[:0]
	c.unq = c.unq[:0]
	for upto < 0 || len(c.fields) < upto {
		if len(row) > 0 && row[0] == '"' {
			// Find the closing quote, passing over doubled ones.
			i, esc := 1, false
			for {
				j := bytes.IndexByte(row[i:], '"')
				if j < 0 {
					return nil, fmt.Errorf("%w: unterminated quoted CSV field", errLayout)
				}
				i += j
				if i+1 < len(row) && row[i+1] == '"' {
					esc, i = true, i+2
					continue
				}
				break
			}
			f := row[1:i]
			if esc {
				start := len(c.unq)
				c.unq = append(c.unq, bytes.ReplaceAll(f, []byte(`""`), []byte(`"`))...)
				f = c.unq[start:len(c.unq):len(c.unq)]
			}
			c.fields = append(c.fields, f)
			row = row[i+1:]
			if len(row) == 0 {
				return c.fields, nil
			}
			if row[0] != ',' {
				return nil, fmt.Errorf("%w: text after a quoted CSV field", errLayout)
			}
			row = row[1:]
			continue
		}
		j := bytes.IndexByte(row, ',')
		if j < 0 {
			c.fields = append(c.fields, row)
			return c.fields, nil
		}
		c.fields = append(c.fields, row[:j])
		row = row[j+1:]
	}
	return c.fields, nil
}

// csvHeader reads the metadata lines and the header, returning the
// version and the column index of each name.
func (c *csvReader) header(what string) (version string, cols map[string]int, err error) {
	for range 16 {
		row, err := c.row()
		if err != nil {
			return "", nil, fmt.Errorf("%s header: %w", what, err)
		}
		if row == nil {
			return "", nil, fmt.Errorf("%w: %s has no header", errLayout, what)
		}
		f, err := c.split(row, -1)
		if err != nil {
			return "", nil, err
		}
		if len(f) == 2 {
			if string(f[0]) == "Version" {
				version = string(f[1])
			}
			continue
		}
		if version == "" {
			return "", nil, fmt.Errorf("%w: %s has no Version line before its header", errLayout, what)
		}
		cols = map[string]int{}
		for i, name := range f {
			if _, dup := cols[string(name)]; !dup {
				cols[string(name)] = i
			}
		}
		return version, cols, nil
	}
	return "", nil, fmt.Errorf("%w: %s: no header in its first lines", errLayout, what)
}

// columns looks up names in cols, failing on a missing one.
func columns(cols map[string]int, what string, names ...string) ([]int, error) {
	out := make([]int, len(names))
	for i, n := range names {
		j, ok := cols[n]
		if !ok {
			return nil, fmt.Errorf("%w: %s has no %q column", errLayout, what, n)
		}
		out[i] = j
	}
	return out, nil
}

// csvAttrColumns are the CSV names of productAttrs' attributes.
var csvAttrColumns = [nAttrs]string{
	aInstanceType: "Instance Type", aInstanceFamily: "Instance Family", aGPU: "GPU", aGPUMemory: "GPU Memory",
	aVCPU: "vCPU", aMemory: "Memory", aNetwork: "Network Performance", aStorage: "Storage",
	aOS: "Operating System", aTenancy: "Tenancy", aPreInstalledSw: "Pre Installed S/W",
	aCapacityStatus: "CapacityStatus", aLicenseModel: "License Model", aMarketOption: "MarketOption",
	aOperation: "operation", aRegionCode: "Region Code", aLocation: "Location",
}

// EC2 CSV columns besides the attributes.
const (
	cSKU = iota
	cTermCode
	cRateCode
	cTermType
	cDescription
	cEffective
	cUnit
	cPrice
	cCurrency
	cLease
	cPurchase
	cClass
	cFamily
	nCols
)

var ec2Columns = [nCols]string{"SKU", "OfferTermCode", "RateCode", "TermType", "PriceDescription", "EffectiveDate",
	"Unit", "PricePerUnit", "Currency", "LeaseContractLength", "PurchaseOption", "OfferingClass", "Product Family"}

// csvTerm is a term gathered from its rows (one per price dimension).
type csvTerm struct {
	kind  termKind
	sku   string
	itype string
	t     term
}

// parseOfferCSVAt reads one region's EC2 price file in CSV form into the
// same regionPrices parseOfferFileAt builds from the JSON, judging terms
// at now. The skim splits each row only up to the columns that tell a GPU
// or accelerator row (GPU, Instance Family, Product Family) and jumps to
// the next row otherwise; GPU rows are split whole. A product's terms may
// lie anywhere in the file, so the GPU rows' terms are gathered and turned
// into offers at the end, as the JSON path's (few) terms are.
func parseOfferCSVAt(r io.Reader, region string, now time.Time) (*regionPrices, error) {
	c := newCSVReader(r)
	version, cols, err := c.header("price file")
	if err != nil {
		return nil, err
	}
	names := append(append([]string{}, ec2Columns[:]...), csvAttrColumns[:]...)
	idx, err := columns(cols, "price file", names...)
	if err != nil {
		return nil, err
	}
	col, attrCol := idx[:nCols], idx[nCols:]
	skim := max(attrCol[aGPU], attrCol[aInstanceFamily]) + 1

	out := &regionPrices{Version: version, Types: map[string]typeFacts{}, LinuxSKU: map[string]string{}}
	priced := map[string]string{}  // Linux SKU → instance type
	judged := map[string]bool{}    // GPU SKUs whose product was taken in
	terms := map[string]*csvTerm{} // SKU/type/term code → term
	var order []string
	var attrs productAttrs
	rows := 0
	for {
		row, err := c.row()
		if err != nil {
			return nil, err
		}
		if row == nil {
			break
		}
		rows++
		f, err := c.split(row, skim)
		if err != nil {
			return nil, err
		}
		if len(f) < skim {
			return nil, fmt.Errorf("%w: a price file row of %d fields", errLayout, len(f))
		}
		gpu, fam := f[attrCol[aGPU]], f[attrCol[aInstanceFamily]]
		if (len(gpu) == 0 || string(gpu) == "0") && string(fam) != "Machine Learning ASIC Instances" {
			continue
		}
		if f, err = c.split(row, -1); err != nil {
			return nil, err
		}
		if len(f) != len(cols) && len(f) < len(idx) {
			return nil, fmt.Errorf("%w: a price file row of %d fields, header %d", errLayout, len(f), len(cols))
		}
		get := func(i int) string {
			if i < len(f) {
				return string(f[i])
			}
			return ""
		}
		sku := get(col[cSKU])
		if !judged[sku] {
			judged[sku] = true
			attrs.reset()
			for a, j := range attrCol {
				if j < len(f) && len(f[j]) > 0 {
					attrs.put(a, f[j])
				}
			}
			if err := out.product(&attrs, get(col[cFamily]), sku, region, priced); err != nil {
				return nil, err
			}
		}
		itype, ok := priced[sku]
		if !ok {
			continue
		}
		var kind termKind
		switch get(col[cTermType]) {
		case "OnDemand":
			kind = onDemandTerms
		case "Reserved":
			kind = reservedTerms
		default:
			continue
		}
		code := get(col[cTermCode])
		key := sku + "/" + get(col[cTermType]) + "/" + code
		ct := terms[key]
		if ct == nil {
			ct = &csvTerm{kind: kind, sku: sku, itype: itype, t: term{effective: csvDate(get(col[cEffective])), code: code,
				lease: get(col[cLease]), class: get(col[cClass]), purch: get(col[cPurchase])}}
			terms[key] = ct
			order = append(order, key)
		}
		ct.t.dims = append(ct.t.dims, priceDimension{rateCode: get(col[cRateCode]), unit: get(col[cUnit]),
			description: get(col[cDescription]), currency: get(col[cCurrency]), price: get(col[cPrice])})
	}
	if rows == 0 {
		return nil, fmt.Errorf("%w: no products", errLayout)
	}
	seen := map[pricewatch.OfferKey]termSeen{}
	for _, key := range order {
		ct := terms[key]
		if err := out.addTerm(seen, ct.kind, region, ct.itype, ct.sku, ct.t, now); err != nil {
			return nil, err
		}
	}
	sort.Slice(out.Offers, func(i, j int) bool { return out.Offers[i].Key().String() < out.Offers[j].Key().String() })
	return out, nil
}

// csvDate turns the CSV's effective date (a day, "2025-09-12") into the
// JSON's form, so both paths judge it alike.
func csvDate(v string) string {
	if len(v) == len("2006-01-02") {
		return v + "T00:00:00Z"
	}
	return v
}

// parseSavingsPlanCSV reads a savings-plan rate file in CSV form (one row
// per rate, the plan's attributes on each) into what parseSavingsPlanFile
// returns for the JSON form.
func parseSavingsPlanCSV(r io.Reader, region string, now time.Time, want func(itype string) bool) (string, []pricewatch.Offer, error) {
	c := newCSVReader(r)
	version, cols, err := c.header("savings plan file")
	if err != nil {
		return "", nil, err
	}
	col, err := columns(cols, "savings plan file", "SKU", "RateCode", "Unit", "EffectiveDate", "DiscountedRate", "Currency",
		"DiscountedSKU", "DiscountedServiceCode", "DiscountedUsageType", "DiscountedOperation", "PurchaseOption",
		"LeaseContractLength", "LeaseContractLengthUnit", "Product Family", "DiscountedRegionCode", "DiscountedInstanceType")
	if err != nil {
		return "", nil, err
	}
	acc := newPlanRates(now)
	type termKey struct{ sku, effective, length string }
	rates := map[termKey][]planRate{}
	var order []termKey
	for {
		row, err := c.row()
		if err != nil {
			return "", nil, err
		}
		if row == nil {
			break
		}
		f, err := c.split(row, -1)
		if err != nil {
			return "", nil, err
		}
		if len(f) < len(cols) {
			return "", nil, fmt.Errorf("%w: a savings plan row of %d fields, header %d", errLayout, len(f), len(cols))
		}
		v := func(i int) string { return string(f[col[i]]) }
		sku := v(0)
		if _, ok := acc.plans[sku]; !ok {
			acc.plan(sku, v(13), v(10), "")
		}
		k := termKey{sku, v(3), leaseTerm(v(11), v(12))}
		if _, ok := rates[k]; !ok {
			rates[k] = nil
			order = append(order, k)
		}
		pr, keep := acceptRate(region, want, v(7), v(2), v(9), v(8), v(14), v(15), v(4), v(5), v(6), v(1))
		if keep {
			rates[k] = append(rates[k], pr)
		}
	}
	for _, k := range order {
		if err := acc.term(k.sku, k.effective, k.length, rates[k]); err != nil {
			return "", nil, err
		}
	}
	offers, err := acc.offers(region)
	return version, offers, err
}
