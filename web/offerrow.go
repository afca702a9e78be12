package web

import (
	"html"
	"html/template"
	"net/url"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/report"
)

// offerRows renders the table's rows in Go rather than through the
// template: a thousand rows of a dozen cells each is most of the page's
// time otherwise. Each row carries what the browser's script filters on
// (data-p provider, data-r region, data-g GPU model, data-n GPU count,
// data-t price type, data-c currency, data-a available, data-m
// marketplace, data-b the interruption band's rank, data-s the search text, data-i the default order) and each
// cell its sort value (data-v; empty for unknown), the same values
// report.SortOfferRows compares.
func offerRows(rows []report.OfferTableRow, cols []tableColumn) template.HTML {
	var b strings.Builder
	b.Grow(len(rows) * 100 * (len(cols) + 4))
	attr := func(name, v string) {
		b.WriteString(" data-")
		b.WriteString(name)
		b.WriteString(`="`)
		b.WriteString(html.EscapeString(v))
		b.WriteByte('"')
	}
	for i := range rows {
		r := &rows[i]
		b.WriteString("<tr")
		attr("key", r.Key().String())
		attr("i", strconv.Itoa(r.Order()))
		attr("p", r.Provider)
		attr("r", strings.ToLower(r.Region))
		attr("g", r.GPUModel)
		attr("n", strconv.FormatFloat(r.GPUCount, 'f', -1, 64))
		attr("t", string(r.PriceType))
		attr("c", r.NativeCurrency)
		a := ""
		if r.Available != nil {
			a = "0"
			if *r.Available {
				a = "1"
			}
		}
		attr("a", a)
		attr("m", map[bool]string{true: "1", false: "0"}[r.Marketplace])
		band := ""
		if rank, ok := pricewatch.InterruptionBandRank(deref(r.InterruptionBand)); ok {
			band = strconv.Itoa(rank)
		}
		attr("b", band)
		attr("s", report.SearchText(pricewatch.Offer{Provider: r.Provider, Region: r.Region, Zone: r.Zone, InstanceType: r.InstanceType, Hardware: pricewatch.Hardware{GPUModel: r.GPUModel}}))
		b.WriteString(">")
		// The tick box names the offer's machine: the side-by-side view
		// compares machines (issue 31 item 3).
		b.WriteString(tickCell(report.MachineKey{Provider: r.Provider, Region: r.Region, InstanceType: r.InstanceType, OS: r.OS}.String(), r.InstanceType, r.Region))
		for _, c := range cols {
			v := report.OfferSortValue(r, c.ID)
			b.WriteString("<td")
			class, text, href, title := offerCell(r, c.ID)
			if c.Numeric {
				class = strings.TrimSpace("num " + class)
			}
			if class != "" {
				b.WriteString(` class="` + class + `"`)
			}
			if title != "" {
				b.WriteString(` title="` + html.EscapeString(title) + `"`)
			}
			b.WriteString(` data-label="` + html.EscapeString(c.Label) + `"`)
			val := ""
			if !v.Null {
				if c.Numeric {
					val = v.Num.String()
				} else {
					val = v.Text
				}
			}
			b.WriteString(` data-v="` + html.EscapeString(val) + `">`)
			if href != "" {
				b.WriteString(`<a href="` + html.EscapeString(href) + `">` + html.EscapeString(text) + "</a>")
			} else {
				b.WriteString(html.EscapeString(text))
			}
			b.WriteString("</td>")
		}
		b.WriteString("</tr>\n")
	}
	return template.HTML(b.String())
}

const unknownText = "unknown"

// offerCell is what a cell shows: its class, text, link and title.
func offerCell(r *report.OfferTableRow, col string) (class, text, href, title string) {
	num := func(f *float64) (string, string, string, string) {
		if f == nil {
			return "unknown", unknownText, "", ""
		}
		return "", trimFloat(*f), "", ""
	}
	switch col {
	case "provider":
		return "", r.Provider, "", ""
	case "region":
		return "", r.Region, "", ""
	case "zone":
		if r.Zone == "" {
			return "flat", "–", "", "priced per region"
		}
		return "", r.Zone, "", ""
	case "instance":
		return "", r.InstanceType, "/instance/" + url.PathEscape(r.InstanceType), ""
	case "gpu":
		if r.GPUModel == "" {
			return "unknown", unknownText, "", ""
		}
		return "", r.GPUModel, "/gpu/" + url.PathEscape(r.GPUModel), ""
	case "gpus":
		if r.GPUCount <= 0 {
			return "unknown", unknownText, "", ""
		}
		return "", trimFloat(r.GPUCount), "", ""
	case "gpu_mem":
		return num(r.GPUMemoryGB)
	case "vcpus":
		if r.VCPUs == nil {
			return "unknown", unknownText, "", ""
		}
		return "", strconv.Itoa(*r.VCPUs), "", ""
	case "memory":
		return num(r.MemoryGB)
	case "interconnect":
		if r.Interconnect == nil {
			return "unknown", unknownText, "", "no stored record says"
		}
		return "", *r.Interconnect, "", ""
	case "storage":
		if r.LocalStorage == nil {
			return "unknown", unknownText, "", "no stored record says"
		}
		return "", *r.LocalStorage, "", ""
	case "buy":
		return "", r.HowBought(), "", ""
	case "hourly":
		if !r.EffectiveHourly.Valid {
			return "unknown", "–", "", fxTitle(r)
		}
		return "", rateText(r.EffectiveHourly.D), "", ""
	case "native":
		return "", rateText(decimal.Decimal(r.NativeEffectiveHourly)) + " " + r.NativeCurrency, "", ""
	case "price":
		if !r.PricePerGPUHour.Valid {
			return "unknown", "–", "", fxTitle(r)
		}
		return "price", rateText(r.PricePerGPUHour.D), "", ""
	case "tflops":
		if !r.PricePerTFLOPS.Valid {
			return "unknown", "–", "", ""
		}
		return "", r.PricePerTFLOPS.D.StringFixed(5), "", ""
	case "gb":
		if !r.PricePerGB.Valid {
			return "unknown", "–", "", ""
		}
		return "", r.PricePerGB.D.StringFixed(4), "", ""
	case "avail":
		return "avail " + r.Availability, availText(r.Available, r.Availability), "", ""
	case "band":
		if r.InterruptionBand == nil {
			if r.PriceType == pricewatch.Spot {
				return "unknown", unknownText, "", "no interruption band stored for this type and region"
			}
			return "flat", "–", "", "only spot capacity is interrupted"
		}
		return "", *r.InterruptionBand, "", "AWS Spot Advisor: how often spot capacity was reclaimed over the trailing month"
	case "since":
		return "", strings.Replace(strings.TrimSuffix(r.Since, "Z"), "T", " ", 1)[:16], "", r.Since
	case "move":
		if !r.Move30d.Valid {
			return "flat", "–", "", "no price 30 days ago"
		}
		d := r.Move30d.D
		sign := ""
		if d.IsPositive() {
			sign = "+"
		}
		cls := "flat"
		switch {
		case d.IsPositive():
			cls = "up"
		case d.IsNegative():
			cls = "down"
		}
		return cls, sign + d.StringFixed(1) + "%", "", ""
	}
	return "", "", "", ""
}

func fxTitle(r *report.OfferTableRow) string {
	if r.FXError != nil {
		return *r.FXError
	}
	if r.GPUCount <= 0 {
		return "GPU count unknown: no per-GPU-hour price"
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
