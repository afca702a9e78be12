package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
)

// One row per machine (issue 31 item 3): `compare --by machine`, GET
// /api/v1/offers?by=machine, GET /api/v1/offer-table?by=machine and the
// offers page's machine view all group their priced offers with
// MachineRows, so that the same filters give the same rows everywhere.

// Views of the compare answer and the offers table.
const (
	ByPrice   = "price"   // one row per price (the default)
	ByMachine = "machine" // one row per instance type and region
)

// ParseBy reads a view name; "" is ByPrice.
func ParseBy(name, s string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "", ByPrice:
		return ByPrice, nil
	case ByMachine:
		return v, nil
	}
	return "", paramErr("%s %q: want price (one row per price) or machine (one row per instance type and region)", name, s)
}

// Per is the unit of time a machine row's prices are given for.
type Per string

// The units: a month is 730 hours and a year 8,760 (pricewatch.HoursPerMonth,
// HoursPerYear), as the clouds' own monthly figures count them.
const (
	PerHour  Per = "hour"
	PerDay   Per = "day"
	PerMonth Per = "month"
	PerYear  Per = "year"
)

// Pers are the units in the order the selectors list them.
var Pers = []Per{PerHour, PerDay, PerMonth, PerYear}

// Hours is how many hours the unit counts.
func (p Per) Hours() int64 {
	switch p {
	case PerDay:
		return pricewatch.HoursPerDay
	case PerMonth:
		return pricewatch.HoursPerMonth
	case PerYear:
		return pricewatch.HoursPerYear
	}
	return 1
}

// ParsePer reads a unit; "" is PerHour.
func ParsePer(name, s string) (Per, error) {
	v := Per(strings.ToLower(strings.TrimSpace(s)))
	if v == "" {
		return PerHour, nil
	}
	if slices.Contains(Pers, v) {
		return v, nil
	}
	return "", paramErr("%s %q: want hour, day, month (730 hours) or year (8,760 hours)", name, s)
}

// MachineKey names a machine: one instance type of one provider in one
// region, for one OS. A zonal price belongs to its region's machine.
type MachineKey struct {
	Provider, Region, InstanceType, OS string
}

// String is the key as the id parameter and the rows carry it:
// provider/region/instance_type/os.
func (k MachineKey) String() string {
	return k.Provider + "/" + k.Region + "/" + k.InstanceType + "/" + k.OS
}

// ParseMachineKey reads a MachineKey's String (an instance type may
// itself hold a slash: provider and region are the first two parts, the
// OS the last).
func ParseMachineKey(s string) (MachineKey, error) {
	parts := strings.SplitN(s, "/", 3)
	if len(parts) == 3 {
		if i := strings.LastIndexByte(parts[2], '/'); i > 0 && i < len(parts[2])-1 && parts[0] != "" && parts[1] != "" {
			return MachineKey{Provider: parts[0], Region: parts[1], InstanceType: parts[2][:i], OS: parts[2][i+1:]}, nil
		}
	}
	return MachineKey{}, paramErr("id %q: want provider/region/instance_type/os, as a machine row's id", s)
}

// MachineRow is one machine with its best price of each kind, as JSON
// and CSV carry it: on-demand, spot, and the best 1-year and 3-year
// commitment (reserved or savings plan), each for Per in Currency, with
// the option it is ("reserved 1y all upfront standard", "spot in
// cn-hangzhou-i"). A column the machine has no such price for is null, as
// is one whose currency has no rate into Currency (FXError says why).
type MachineRow struct {
	ID           string  `json:"id"`
	Provider     string  `json:"provider"`
	Region       string  `json:"region"`
	InstanceType string  `json:"instance_type"`
	OS           string  `json:"os"`
	GPUModel     string  `json:"gpu_model"`
	GPUCount     float64 `json:"gpu_count"`
	KnownHardware
	Marketplace bool `json:"marketplace"`
	// Available: true offered or in stock where its on-demand (else
	// first) price is, false sold out, null unknown.
	Available    *bool  `json:"available"`
	Availability string `json:"availability"`
	Currency     string `json:"currency"`
	Per          Per    `json:"per"`
	Hours        int64  `json:"hours"`
	// The effective price (upfront spread over the term) of the whole
	// machine for Per: effective hourly × Hours, exact.
	OnDemand       NullDecimal `json:"on_demand"`
	OnDemandOption *string     `json:"on_demand_option"`
	Spot           NullDecimal `json:"spot"`
	SpotOption     *string     `json:"spot_option"`
	Best1y         NullDecimal `json:"best_1y"`
	Best1yOption   *string     `json:"best_1y_option"`
	Best3y         NullDecimal `json:"best_3y"`
	Best3yOption   *string     `json:"best_3y_option"`
	// OnDemandPerGPU is OnDemand over the GPUs: what the rows are ordered
	// by (null without a GPU count or an on-demand price).
	OnDemandPerGPU NullDecimal `json:"on_demand_per_gpu"`
	NativeCurrency string      `json:"native_currency"`
	FXJSON
	FXError *string `json:"fx_error"`

	// offers are the offers each column's price is of (nil: none).
	offers [machineCols]*pricewatch.Offer
}

// Offer is the offer column c's price is of, nil for none: rows decoded
// from JSON (--server) have none.
func (r *MachineRow) Offer(c int) *pricewatch.Offer { return r.offers[c] }

// Key is the row's machine.
func (r MachineRow) Key() MachineKey {
	return MachineKey{Provider: r.Provider, Region: r.Region, InstanceType: r.InstanceType, OS: r.OS}
}

// Machine columns, in display order.
const (
	ColOnDemand = iota
	ColSpot
	ColBest1y
	ColBest3y
	machineCols
)

// MachineColumnLabels are the columns' headings.
var MachineColumnLabels = [machineCols]string{"on-demand", "spot", "best 1-year", "best 3-year"}

// Cell is column c's price and option (nil: none).
func (r *MachineRow) Cell(c int) (NullDecimal, *string) {
	switch c {
	case ColOnDemand:
		return r.OnDemand, r.OnDemandOption
	case ColSpot:
		return r.Spot, r.SpotOption
	case ColBest1y:
		return r.Best1y, r.Best1yOption
	}
	return r.Best3y, r.Best3yOption
}

func (r *MachineRow) setCell(c int, price NullDecimal, option *string) {
	switch c {
	case ColOnDemand:
		r.OnDemand, r.OnDemandOption = price, option
	case ColSpot:
		r.Spot, r.SpotOption = price, option
	case ColBest1y:
		r.Best1y, r.Best1yOption = price, option
	default:
		r.Best3y, r.Best3yOption = price, option
	}
}

// machineColumn is the column an offer's price belongs to, -1 for none:
// plain on-demand (not GCP's flex-start or calendar-mode capacity, which
// are bought apart), spot, and commitments of one or three years. A
// capacity block or a one-month commitment is in no column.
func machineColumn(o pricewatch.Offer) int {
	switch o.PriceType {
	case pricewatch.OnDemand:
		if o.OfferingClass == pricewatch.FlexStart || o.OfferingClass == pricewatch.CalendarMode {
			return -1
		}
		return ColOnDemand
	case pricewatch.Spot:
		return ColSpot
	}
	if !o.PriceType.IsCommitment() {
		return -1
	}
	switch h, err := pricewatch.TermHours(o.Term); {
	case err != nil:
		return -1
	case h == pricewatch.HoursPerYear:
		return ColBest1y
	case h == 3*pricewatch.HoursPerYear:
		return ColBest3y
	}
	return -1
}

// machineOption is how a chosen price is bought, and where when zonal.
func machineOption(o pricewatch.Offer) string {
	s := pricewatch.HowBought(o.PriceType, o.Term, o.Payment, o.OfferingClass)
	if o.Zone != "" {
		s += " in " + o.Zone
	}
	return s
}

// MachineRows groups priced offers into one row per machine: converted
// are rows priced in currency, unconverted rows without a rate into it.
// Each column takes its cheapest price (converted before unconverted,
// whose price is null and FXError set); a machine with no price in any
// column is left out. Rows are ordered by on-demand price per GPU,
// cheapest first; machines without one follow by their cheapest price per
// GPU, then those without any; ties by provider, region, instance type.
func MachineRows(currency string, per Per, converted, unconverted []analysis.CompareRow) []MachineRow {
	per = cmp.Or(per, PerHour)
	type pick struct {
		row       *analysis.CompareRow
		converted bool
	}
	type machine struct {
		first *analysis.CompareRow
		cols  [machineCols]pick
	}
	byKey := map[MachineKey]*machine{}
	var order []MachineKey
	better := func(cur pick, r *analysis.CompareRow, conv bool) bool {
		switch {
		case cur.row == nil:
			return true
		case conv != cur.converted:
			return conv
		}
		a, b := r.NativeEffectiveHourly, cur.row.NativeEffectiveHourly
		if conv {
			a, b = r.EffectiveHourly, cur.row.EffectiveHourly
		}
		if c := a.Cmp(b); c != 0 {
			return c < 0
		}
		// The same price twice: the first option in text order, so
		// that the answer does not depend on the read's order.
		return machineOption(r.Offer) < machineOption(cur.row.Offer)
	}
	add := func(rows []analysis.CompareRow, conv bool) {
		for i := range rows {
			r := &rows[i]
			c := machineColumn(r.Offer)
			if c < 0 {
				continue
			}
			k := MachineKey{Provider: r.Provider, Region: r.Region, InstanceType: r.InstanceType, OS: r.OS}
			m := byKey[k]
			if m == nil {
				m = &machine{first: r}
				byKey[k] = m
				order = append(order, k)
			}
			if better(m.cols[c], r, conv) {
				m.cols[c] = pick{row: r, converted: conv}
			}
		}
	}
	add(converted, true)
	add(unconverted, false)
	hours := decimal.NewFromInt(per.Hours())
	out := make([]MachineRow, 0, len(order))
	for _, k := range order {
		m := byKey[k]
		o := m.first.Offer
		row := MachineRow{ID: k.String(), Provider: k.Provider, Region: k.Region, InstanceType: k.InstanceType, OS: k.OS,
			GPUModel: o.GPUModel, GPUCount: o.GPUCount, Marketplace: m.first.Marketplace, Currency: strings.ToUpper(currency),
			Per: per, Hours: per.Hours(), NativeCurrency: o.Currency}
		row.KnownHardware = Known(o.Hardware)
		avail := m.first
		if p := m.cols[ColOnDemand].row; p != nil {
			avail = p
		}
		row.Available, row.Availability = avail.Available, AvailabilityName(avail.Availability)
		rated := false
		for c, p := range m.cols {
			if p.row == nil {
				continue
			}
			opt := machineOption(p.row.Offer)
			row.offers[c] = &p.row.Offer
			if !p.converted {
				row.setCell(c, NullDecimal{}, &opt)
				if row.FXError == nil {
					row.FXError = optString(cmp.Or(p.row.FXError, fmt.Sprintf("no rate from %s into %s", p.row.NativeCurrency, row.Currency)))
				}
				continue
			}
			row.setCell(c, NewNullDecimal(p.row.EffectiveHourly.Mul(hours), true), &opt)
			if !rated {
				row.FXJSON, rated = FXJSONOf(p.row.FXUsed), true
			}
		}
		if row.OnDemand.Valid && row.GPUCount > 0 {
			row.OnDemandPerGPU = NewNullDecimal(perGPU(row.OnDemand.D, row.GPUCount), true)
		}
		out = append(out, row)
	}
	sortMachines(out)
	return out
}

// perGPU is price over count GPUs, rounded as per-GPU-hour figures are
// (pricewatch.PerGPUHour), so that a fractional count does not print
// endless digits.
func perGPU(price decimal.Decimal, count float64) decimal.Decimal {
	v, _ := pricewatch.PerGPUHour(price, count)
	return v
}

// cheapestPerGPU is the lowest converted price per GPU of a row's
// columns (invalid without a GPU count or any converted price).
func cheapestPerGPU(r *MachineRow) NullDecimal {
	var best NullDecimal
	if r.GPUCount <= 0 {
		return best
	}
	for c := range machineCols {
		if p, _ := r.Cell(c); p.Valid && (!best.Valid || p.D.LessThan(best.D)) {
			best = p
		}
	}
	if best.Valid {
		best.D = perGPU(best.D, r.GPUCount)
	}
	return best
}

func sortMachines(rows []MachineRow) {
	slices.SortStableFunc(rows, func(a, b MachineRow) int {
		tier := func(r *MachineRow) (int, NullDecimal) {
			if r.OnDemandPerGPU.Valid {
				return 0, r.OnDemandPerGPU
			}
			if c := cheapestPerGPU(r); c.Valid {
				return 1, c
			}
			return 2, NullDecimal{}
		}
		ta, va := tier(&a)
		tb, vb := tier(&b)
		if ta != tb {
			return ta - tb
		}
		if va.Valid && vb.Valid {
			if c := va.D.Cmp(vb.D); c != 0 {
				return c
			}
		}
		return cmp.Or(strings.Compare(a.Provider, b.Provider), strings.Compare(a.Region, b.Region),
			strings.Compare(a.InstanceType, b.InstanceType), strings.Compare(a.OS, b.OS))
	})
}

// ParseView reads the by and per parameters (or flags, named byName and
// perName) together: per is the machine rows' unit, so another unit than
// an hour asks for them.
func ParseView(byName, by, perName, per string) (string, Per, error) {
	v, err := ParseBy(byName, by)
	if err != nil {
		return "", "", err
	}
	p, err := ParsePer(perName, per)
	if err != nil {
		return "", "", err
	}
	if v != ByMachine && p != PerHour {
		return "", "", paramErr("%s %s: the unit applies to the machine rows (%s machine); one row per price is per hour", perName, p, byName)
	}
	return v, p, nil
}

// MachinesOf is a compare answer as machine rows.
func MachinesOf(res analysis.CompareResult, per Per) []MachineRow {
	return MachineRows(res.Currency, per, res.Rows, res.Unconverted)
}

// PickMachines keeps the rows of the asked ids, in the order asked (an id
// asked twice once); missing are the ids no row has.
func PickMachines(rows []MachineRow, ids []MachineKey) (picked []MachineRow, missing []MachineKey) {
	byKey := make(map[MachineKey]int, len(rows))
	for i := range rows {
		byKey[rows[i].Key()] = i
	}
	seen := map[MachineKey]bool{}
	for _, k := range ids {
		if seen[k] {
			continue
		}
		seen[k] = true
		if i, ok := byKey[k]; ok {
			picked = append(picked, rows[i])
		} else {
			missing = append(missing, k)
		}
	}
	return picked, missing
}
