package report

import (
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
)

// The parsers below read the values the CLI takes as flags and the API as
// query parameters, so both accept and refuse the same things. name is how
// the value was given ("--price-type" on the command line, "price_type" in a
// URL) and starts every error message.

// ParsePriceTypes reads price types; "any" (or nothing) means all.
func ParsePriceTypes(name string, vals []string) ([]pricewatch.PriceType, error) {
	var out []pricewatch.PriceType
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			p = strings.ToLower(strings.TrimSpace(strings.ReplaceAll(p, "-", "_")))
			switch {
			case p == "":
			case p == "any" || p == "all":
				return nil, nil
			case pricewatch.PriceType(p).Valid():
				out = append(out, pricewatch.PriceType(p))
			default:
				return nil, paramErr("%s %q: want on_demand, spot, reserved, savings_plan, capacity_block or any", name, p)
			}
		}
	}
	return out, nil
}

// CheckOS accepts linux (also ""), windows or any.
func CheckOS(name, os string) error {
	switch strings.ToLower(os) {
	case "", pricewatch.Linux, pricewatch.Windows, "any", "all":
		return nil
	}
	return paramErr("%s %q: want linux, windows or any", name, os)
}

// StorageOS turns an OS choice into the storage filter: "" is Linux, "any"
// is every OS.
func StorageOS(os string) string {
	switch strings.ToLower(os) {
	case "":
		return pricewatch.Linux
	case "any", "all":
		return ""
	}
	return strings.ToLower(os)
}

// Currency is the asked currency, else def (fx.currency), upper-cased and
// checked.
func Currency(name, asked, def string) (string, error) {
	c := strings.ToUpper(strings.TrimSpace(asked))
	if c == "" {
		c = strings.ToUpper(def)
	}
	if !pricewatch.IsCurrencyCode(c) {
		return "", paramErr("%s %q: want a three-letter ISO 4217 code such as USD or CNY", name, asked)
	}
	return c, nil
}

// ParseSince accepts a duration back from now ("30d", "12h", "2w") or a
// date ("2026-01-01") or an RFC 3339 time; "" is the zero time (no limit).
func ParseSince(name, s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := ParseDuration(s)
	if err != nil {
		return time.Time{}, paramErr("%s %q: want a duration like 30d, 12h, 2w or a date like 2026-01-01", name, s)
	}
	return now.Add(-d), nil
}

// ParseDuration reads durations with day and week units as well as Go's own.
func ParseDuration(s string) (time.Duration, error) {
	if n := len(s); n > 1 && (s[n-1] == 'd' || s[n-1] == 'w') {
		v, err := strconv.Atoi(s[:n-1])
		if err != nil || v < 0 {
			return 0, paramErr("bad duration %q", s)
		}
		day := 24 * time.Hour
		if s[n-1] == 'w' {
			day *= 7
		}
		return time.Duration(v) * day, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, paramErr("bad duration %q", s)
	}
	return d, nil
}

// ParseNow reads the moment a report is evaluated at; "" is the clock.
func ParseNow(name, s string) (time.Time, error) {
	if s == "" {
		return time.Now().UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, paramErr("%s %q: want an RFC 3339 time such as 2026-01-02T15:04:05Z", name, s)
	}
	return t.UTC(), nil
}

// ParseSeller reads a seller choice: cloud, marketplace or any ("" is
// any).
func ParseSeller(name, s string) (analysis.Seller, error) {
	v := analysis.Seller(strings.ToLower(strings.TrimSpace(s)))
	if !v.Valid() {
		return "", paramErr("%s %q: want cloud, marketplace or any", name, s)
	}
	if v == analysis.SellerAny {
		return "", nil
	}
	return v, nil
}

// ParseMaxPrice reads a price bound: "30" per instance-hour (also
// "30/hour"), "2.5/gpu-hour" per GPU-hour, in the answer's currency; ""
// is no bound.
func ParseMaxPrice(name, s string) (price decimal.NullDecimal, perGPU bool, err error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return decimal.NullDecimal{}, false, nil
	}
	num, unit, _ := strings.Cut(s, "/")
	switch strings.ReplaceAll(strings.TrimSpace(unit), "_", "-") {
	case "", "hour", "h", "hr":
	case "gpu-hour", "gpu-h", "gpu":
		perGPU = true
	default:
		return price, false, paramErr("%s %q: want a price per hour (30) or per GPU-hour (2.5/gpu-hour)", name, s)
	}
	d, err := decimal.NewFromString(strings.TrimSpace(num))
	if err != nil || !d.IsPositive() {
		return price, false, paramErr("%s %q: want a positive price per hour (30) or per GPU-hour (2.5/gpu-hour)", name, s)
	}
	return decimal.NewNullDecimal(d), perGPU, nil
}

// HardwareParams are the hardware bounds as given (flags or URL
// parameters, named as the names say), before parsing.
type HardwareParams struct {
	MinGPUMemory, MinVCPUs, MinMemory, Interconnect, MaxPrice string
}

// ParseHardware reads the hardware bounds; names maps each bound to how
// it was given ("--min-gpu-memory" or "min_gpu_memory").
func ParseHardware(p HardwareParams, names HardwareParams) (analysis.HardwareFilter, error) {
	var f analysis.HardwareFilter
	num := func(name, v string) (float64, error) {
		if strings.TrimSpace(v) == "" {
			return 0, nil
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || x < 0 {
			return 0, paramErr("%s %q: want a number of 0 or more", name, v)
		}
		return x, nil
	}
	var err error
	if f.MinGPUMemoryGB, err = num(names.MinGPUMemory, p.MinGPUMemory); err != nil {
		return f, err
	}
	vcpus, err := num(names.MinVCPUs, p.MinVCPUs)
	if err != nil {
		return f, err
	}
	if vcpus != float64(int(vcpus)) {
		return f, paramErr("%s %q: want a whole number of vCPUs", names.MinVCPUs, p.MinVCPUs)
	}
	f.MinVCPUs = int(vcpus)
	if f.MinMemoryGB, err = num(names.MinMemory, p.MinMemory); err != nil {
		return f, err
	}
	f.Interconnect = strings.TrimSpace(p.Interconnect)
	f.MaxPrice, f.MaxPricePerGPU, err = ParseMaxPrice(names.MaxPrice, p.MaxPrice)
	return f, err
}

// HardwareFlagNames and HardwareParamNames are how the CLI and the API
// name the hardware bounds.
var (
	HardwareFlagNames  = HardwareParams{"--min-gpu-memory", "--min-vcpus", "--min-memory", "--interconnect", "--max-price"}
	HardwareParamNames = HardwareParams{"min_gpu_memory", "min_vcpus", "min_memory", "interconnect", "max_price"}
)
