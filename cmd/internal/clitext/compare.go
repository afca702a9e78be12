package clitext

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/internal/table"
)

// The compare table's column rules.

// AnyMarketplace reports whether any row is a marketplace host's machine
// (the MARKET column is shown then).
func AnyMarketplace(sets ...[]analysis.CompareRow) bool {
	for _, rows := range sets {
		for _, r := range rows {
			if r.Marketplace {
				return true
			}
		}
	}
	return false
}

// MarketShort is the MARKET cell.
func MarketShort(m bool) string {
	if m {
		return "yes"
	}
	return "-"
}

// MixedPriceTypes reports whether the rows buy in more than one way (the
// BUY column is shown then).
func MixedPriceTypes(sets ...[]analysis.CompareRow) bool {
	seen := map[string]bool{}
	for _, rows := range sets {
		for _, r := range rows {
			seen[BuyLabel(r.Offer)] = true
		}
	}
	return len(seen) > 1
}

// AnyBand reports whether any row has a spot interruption or eviction
// band (the BAND column is shown then).
func AnyBand(rows []analysis.CompareRow) bool {
	for _, r := range rows {
		if Band(r) != "" {
			return true
		}
	}
	return false
}

// Band is what a spot row's BAND cell says: the AWS Spot Advisor
// interruption band, else the Azure eviction band (a row has at most one:
// they come from different clouds), "" when none is stored.
func Band(r analysis.CompareRow) string {
	if r.InterruptionBand != "" {
		return r.InterruptionBand
	}
	return r.EvictionBand
}

// BuyerLines are the lines under a heading that state whose capacity
// and what hardware were asked for, wrapped to width ("" for neither).
func BuyerLines(s analysis.Seller, f analysis.HardwareFilter, currency string, width int) string {
	var b strings.Builder
	for _, line := range []string{SellerLine(s), HardwareLine(f, currency)} {
		if line != "" {
			b.WriteString(table.Wrap(line, width, "  "))
		}
	}
	return b.String()
}

// SellerLine says under a heading whose capacity is listed ("" for any).
func SellerLine(s analysis.Seller) string {
	switch s {
	case analysis.SellerCloud:
		return "Only the clouds' own capacity (--seller cloud): marketplace hosts are left out."
	case analysis.SellerMarketplace:
		return "Only marketplace hosts' machines (--seller marketplace)."
	}
	return ""
}

// HardwareLine states the hardware bounds asked ("" when none).
func HardwareLine(f analysis.HardwareFilter, currency string) string {
	var parts []string
	if f.MinGPUMemoryGB > 0 {
		parts = append(parts, fmt.Sprintf("at least %s GB per GPU", Float(f.MinGPUMemoryGB)))
	}
	if f.MinVCPUs > 0 {
		parts = append(parts, fmt.Sprintf("at least %d vCPUs", f.MinVCPUs))
	}
	if f.MinMemoryGB > 0 {
		parts = append(parts, fmt.Sprintf("at least %s GB of RAM", Float(f.MinMemoryGB)))
	}
	if i := strings.TrimSpace(f.Interconnect); i != "" {
		parts = append(parts, fmt.Sprintf("an interconnect stated as %q", i))
	}
	if f.MaxPrice.Valid {
		unit := "hour"
		if f.MaxPricePerGPU {
			unit = "GPU-hour"
		}
		parts = append(parts, fmt.Sprintf("at most %s %s per %s", f.MaxPrice.Decimal.String(), currency, unit))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Only machines with " + strings.Join(parts, ", ") + " (a figure the cloud does not state does not count as enough)."
}

// KnownFloat and KnownInt print a hardware figure, "?" where the cloud
// does not say.
func KnownFloat(v float64) string {
	if v <= 0 {
		return "?"
	}
	return Float(v)
}

func KnownInt(v int) string {
	if v <= 0 {
		return "?"
	}
	return strconv.Itoa(v)
}

// KnownString prints a stated hardware text, "?" where the cloud does not
// say; it is the cloud's own text, so Printable keeps a terminal safe.
func KnownString(s string) string {
	if s == "" {
		return "?"
	}
	return pricewatch.Printable(s)
}

// AnyWindow reports whether a row is a capacity block with its window.
func AnyWindow(rows []analysis.CompareRow) bool {
	return slices.ContainsFunc(rows, func(r analysis.CompareRow) bool { return !r.WindowStart.IsZero() })
}

// BlockWindow is a capacity block's window as "2026-12-14 11:30 → 12-21
// 11:30"; "-" for other rows (and a block whose window is not stored).
func BlockWindow(r analysis.CompareRow) string {
	if r.WindowStart.IsZero() {
		return "-"
	}
	return r.WindowStart.UTC().Format("2006-01-02 15:04") + " → " + r.WindowEnd.UTC().Format("01-02 15:04")
}

// OffersOf are the rows' offers.
func OffersOf(sets ...[]analysis.CompareRow) []pricewatch.Offer {
	var out []pricewatch.Offer
	for _, rows := range sets {
		for _, r := range rows {
			out = append(out, r.Offer)
		}
	}
	return out
}

// CompareWhat is what a compare heading is of: the GPU, and its count per
// instance when one was asked.
func CompareWhat(gpu string, count float64) string {
	if count > 0 {
		return fmt.Sprintf("%s × %s per instance", strings.TrimSpace(gpu), Float(count))
	}
	return strings.TrimSpace(gpu)
}
