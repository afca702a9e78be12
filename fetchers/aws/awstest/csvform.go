package awstest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// The bucket serves every price and savings-plan file in both forms, as
// AWS does: index.csv beside index.json, the same price list. The CSV is
// written from the JSON here, in the real files' layout (the five
// metadata lines and the header of the real excerpts in samples/), so a
// test of the CSV path reads exactly the offers its JSON twin holds.

// CSVPath is the CSV form's path beside a JSON file's.
func CSVPath(jsonPath string) string { return strings.TrimSuffix(jsonPath, ".json") + ".csv" }

// csvKey folds a CSV column name and a JSON attribute key to one form:
// "Pre Installed S/W" and "preInstalledSw" both read "preinstalledsw".
func csvKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// EC2CSV writes a JSON price file (as RegionFile builds it, or a real
// excerpt) in CSV form: one row per price dimension, every product
// attribute on each, all fields quoted, effective dates as days (the real
// CSV's "2025-09-12"). A product with no terms has no row, as in AWS's
// CSV.
func (s *Samples) EC2CSV(jsonBody []byte) ([]byte, error) {
	var doc struct {
		FormatVersion   string `json:"formatVersion"`
		Disclaimer      string `json:"disclaimer"`
		OfferCode       string `json:"offerCode"`
		Version         string `json:"version"`
		PublicationDate string `json:"publicationDate"`
		Products        map[string]struct {
			SKU           string            `json:"sku"`
			ProductFamily string            `json:"productFamily"`
			Attributes    map[string]string `json:"attributes"`
		} `json:"products"`
		Terms map[string]map[string]map[string]struct {
			OfferTermCode   string `json:"offerTermCode"`
			EffectiveDate   string `json:"effectiveDate"`
			PriceDimensions map[string]struct {
				RateCode     string            `json:"rateCode"`
				Description  string            `json:"description"`
				BeginRange   string            `json:"beginRange"`
				EndRange     string            `json:"endRange"`
				Unit         string            `json:"unit"`
				PricePerUnit map[string]string `json:"pricePerUnit"`
			} `json:"priceDimensions"`
			TermAttributes map[string]string `json:"termAttributes"`
		} `json:"terms"`
	}
	if err := json.Unmarshal(jsonBody, &doc); err != nil {
		return nil, fmt.Errorf("EC2 price file to CSV: %w", err)
	}
	header := s.ec2CSVHeader
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	meta := [][]string{{"FormatVersion", doc.FormatVersion}, {"Disclaimer", doc.Disclaimer},
		{"Publication Date", doc.PublicationDate}, {"Version", doc.Version}, {"OfferCode", doc.OfferCode}}
	for _, m := range meta {
		b.WriteString(quoteAll(m))
	}
	b.WriteString(quoteAll(header))
	w.Flush()
	for _, termType := range []string{"OnDemand", "Reserved"} {
		bySKU := doc.Terms[termType]
		for _, sku := range slices.Sorted(maps.Keys(bySKU)) {
			p := doc.Products[sku]
			attrs := map[string]string{}
			for k, v := range p.Attributes {
				attrs[csvKey(k)] = v
			}
			terms := bySKU[sku]
			for _, code := range slices.Sorted(maps.Keys(terms)) {
				t := terms[code]
				day, _, _ := strings.Cut(t.EffectiveDate, "T")
				for _, rc := range slices.Sorted(maps.Keys(t.PriceDimensions)) {
					d := t.PriceDimensions[rc]
					var ccy, price string
					for c, v := range d.PricePerUnit {
						ccy, price = c, v
					}
					fixed := map[string]string{
						"SKU": sku, "OfferTermCode": t.OfferTermCode, "RateCode": d.RateCode, "TermType": termType,
						"PriceDescription": d.Description, "EffectiveDate": day, "StartingRange": d.BeginRange,
						"EndingRange": d.EndRange, "Unit": d.Unit, "PricePerUnit": price, "Currency": ccy,
						"LeaseContractLength": t.TermAttributes["LeaseContractLength"],
						"PurchaseOption":      t.TermAttributes["PurchaseOption"],
						"OfferingClass":       t.TermAttributes["OfferingClass"],
						"Product Family":      p.ProductFamily,
					}
					row := make([]string, len(header))
					for i, h := range header {
						if v, ok := fixed[h]; ok {
							row[i] = v
						} else {
							row[i] = attrs[csvKey(h)]
						}
					}
					b.WriteString(quoteAll(row))
				}
			}
		}
	}
	return b.Bytes(), nil
}

// quoteAll writes one row with every field quoted, as the EC2 CSV does.
func quoteAll(fields []string) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(f, `"`, `""`))
		b.WriteByte('"')
	}
	b.WriteByte('\n')
	return b.String()
}

// SavingsPlanCSV writes a JSON savings-plan rate file in the real CSV's
// layout (unquoted, one row per rate, the plan's attributes on each).
func (s *Samples) SavingsPlanCSV(jsonBody []byte) ([]byte, error) {
	var doc spFile
	if err := json.Unmarshal(jsonBody, &doc); err != nil {
		return nil, fmt.Errorf("savings plan file to CSV: %w", err)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.WriteAll([][]string{{"FormatVersion", "v1.0"}, {"Disclaimer", s.Disclaimer}, {"Publication Date", doc.PublicationDate},
		{"Version", doc.Version}, {"OfferCode", "AmazonComputeSavingsPlan"}, s.SPHeader})
	type plan struct{ family, svc, usage, op, purchase, term, location, locType, granularity, instFamily string }
	plans := map[string]plan{}
	for _, p := range doc.Products {
		a := p.Attributes
		plans[p.SKU] = plan{p.ProductFamily, p.ServiceCode, p.UsageType, p.Operation, a["purchaseOption"], a["purchaseTerm"],
			a["location"], a["locationType"], a["granularity"], a["instanceType"]}
	}
	for _, t := range doc.Terms.SavingsPlan {
		p := plans[t.SKU]
		length, unit := fmt.Sprint(t.LeaseContractLength["duration"]), fmt.Sprint(t.LeaseContractLength["unit"])
		if t.LeaseContractLength == nil {
			length, unit = strings.TrimSuffix(p.term, "yr"), "year"
		}
		for _, r := range t.Rates {
			fields := map[string]string{
				"SKU": t.SKU, "RateCode": r.RateCode, "Unit": r.Unit, "EffectiveDate": t.EffectiveDate,
				"DiscountedRate": r.DiscountedRate["price"], "Currency": r.DiscountedRate["currency"],
				"DiscountedSKU": r.DiscountedSku, "DiscountedServiceCode": r.DiscountedServiceCode,
				"DiscountedUsageType": r.DiscountedUsageType, "DiscountedOperation": r.DiscountedOperation,
				"PurchaseOption": p.purchase, "LeaseContractLength": length, "LeaseContractLengthUnit": unit,
				"ServiceCode": p.svc, "UsageType": p.usage, "Operation": p.op, "Description": t.Description,
				"Instance Family": p.instFamily, "Location": p.location, "Location Type": p.locType,
				"Granularity": p.granularity, "Product Family": p.family,
				"DiscountedRegionCode": r.DiscountedRegionCode, "DiscountedInstanceType": r.DiscountedInstanceType,
			}
			row := make([]string, len(s.SPHeader))
			for i, h := range s.SPHeader {
				row[i] = fields[h]
			}
			w.Write(row)
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}
