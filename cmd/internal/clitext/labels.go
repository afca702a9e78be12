package clitext

import (
	"fmt"
	"strings"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/report"
)

// OSText names an --os value for a report's heading: "" is Linux, "any"
// every OS.
func OSText(os string) string {
	switch s := report.StorageOS(os); s {
	case "":
		return "any OS"
	case pricewatch.Linux:
		return "Linux"
	case pricewatch.Windows:
		return "Windows"
	default:
		return s
	}
}

// PriceTypes names the price types a report covers; none is all.
func PriceTypes(pts []pricewatch.PriceType) string {
	if len(pts) == 0 {
		return "every price type"
	}
	s := make([]string, len(pts))
	for i, p := range pts {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// GPUs is "8×H100"; "-" when the model is not known.
func GPUs(count float64, model string) string {
	if model == "" {
		return "-"
	}
	return Float(count) + "×" + model
}

// The abbreviations BuyLabel writes; WriteBuyLegend explains them.
var (
	buyKinds    = map[pricewatch.PriceType]string{pricewatch.Reserved: "RI", pricewatch.SavingsPlan: "SP"}
	buyPayments = map[string]string{pricewatch.AllUpfront: "all", pricewatch.PartialUpfront: "partial", pricewatch.NoUpfront: "none"}
	buyClasses  = map[string]string{pricewatch.Convertible: "conv", pricewatch.EC2InstanceSavingsPlan: "ec2"}
	// buyModels are classes that are another way to buy without a term
	// (GCP's flex-start and calendar mode): never shown as plain on-demand.
	buyModels = map[string]string{pricewatch.FlexStart: "flex-start", pricewatch.CalendarMode: "calendar mode"}
)

// BuyLabel names how an offer is bought, compactly enough for a table:
// "on-demand", "spot", "RI 3y all", "RI 1y partial conv", "SP 3y none ec2".
// WriteBuyLegend explains its abbreviations.
func BuyLabel(o pricewatch.Offer) string {
	if o.PriceType == pricewatch.CapacityBlockPrice {
		// Always one instance, paid all upfront: the length is what
		// tells blocks apart ("block 7d").
		return "block " + o.Term
	}
	kind, ok := buyKinds[o.PriceType]
	if !ok {
		if m, ok := buyModels[o.OfferingClass]; ok {
			return o.PriceType.Label() + " " + m
		}
		return o.PriceType.Label()
	}
	parts := []string{kind, o.Term}
	if p, ok := buyPayments[o.Payment]; ok {
		parts = append(parts, p)
	} else if o.Payment != "" {
		parts = append(parts, o.Payment)
	}
	if c, ok := buyClasses[o.OfferingClass]; ok {
		parts = append(parts, c)
	}
	return strings.Join(parts, " ")
}

// WriteBuyLegend explains the abbreviations BuyLabel used for these
// offers, if any, wrapped to width.
func WriteBuyLegend(b *strings.Builder, offers []pricewatch.Offer, width int) {
	var ri, sp, pay, conv, ec2, block bool
	for _, o := range offers {
		ri = ri || o.PriceType == pricewatch.Reserved
		sp = sp || o.PriceType == pricewatch.SavingsPlan
		block = block || o.PriceType == pricewatch.CapacityBlockPrice
		pay = pay || (o.Payment != "" && o.PriceType != pricewatch.CapacityBlockPrice)
		conv = conv || o.OfferingClass == pricewatch.Convertible
		ec2 = ec2 || o.OfferingClass == pricewatch.EC2InstanceSavingsPlan
	}
	var parts []string
	if ri {
		parts = append(parts, "RI = reserved instance or prepaid subscription")
	}
	if sp {
		parts = append(parts, "SP = savings plan")
	}
	if pay {
		parts = append(parts, "all/partial/none = upfront payment")
	}
	if conv {
		parts = append(parts, "conv = convertible")
	}
	if ec2 {
		parts = append(parts, "ec2 = EC2 instance savings plan")
	}
	if block {
		parts = append(parts, "block = EC2 Capacity Block of one instance for the days shown, its fee paid upfront and spread over the window's hours")
	}
	if len(parts) > 0 {
		b.WriteString(table.Wrap("BUY: "+strings.Join(parts, "; ")+".", width, "  "))
	}
}

// Avail is an availability cell: yes, no, or ? when not known.
func Avail(a *bool) string {
	switch {
	case a == nil:
		return "?"
	case *a:
		return "yes"
	}
	return "no"
}

// Plural prints "1 offer", "3 offers".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
