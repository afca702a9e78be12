package azure

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/sharedtest"
)

// b16als is a stand-in hardware row so that the real (non-GPU) B16als v2
// sample rows can go through the same mapping as GPU rows.
var b16als = sku{name: "Standard_B16als_v2", hw: pricewatch.Hardware{VCPUs: 16, MemoryGB: 32}, source: "test only"}

func readItems(t *testing.T, name string) []item {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	var items []item
	if strings.HasPrefix(strings.TrimSpace(string(body)), "[") {
		dec := json.NewDecoder(strings.NewReader(string(body)))
		dec.UseNumber()
		if err := dec.Decode(&items); err != nil {
			t.Fatal(err)
		}
		return items
	}
	p, _, err := decodePage(body, false)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return *p.Items
}

func mapOne(t *testing.T, it item, s sku) []pricewatch.Offer {
	t.Helper()
	pt, osName, skip := classify(it)
	if skip != "" {
		t.Fatalf("row skipped: %s", skip)
	}
	cands, skip, err := offersFor(pricewatch.Azure, it, pt, osName, s)
	if err != nil || skip != "" {
		t.Fatalf("offersFor: skip %q, err %v", skip, err)
	}
	var out []pricewatch.Offer
	for _, c := range cands {
		out = append(out, c.offer)
	}
	return out
}

// TestReservationTotalsFromRealRows: the real reservation rows carry the
// price of the whole term under a "1 Hour" unit.
func TestReservationTotalsFromRealRows(t *testing.T) {
	b := readItems(t, "retail-prices-B16als_v2-australiacentral-items.json")
	d8 := readItems(t, "retail-prices-meterId-D8v4-westeurope.response.json")
	tests := []struct {
		name      string
		it        item
		term      string
		upfront   string
		effective string
	}{
		// 3478.0 / 8760
		{"B16als v2 1 Year", b[2], "1y", "3478", "0.3970319635"},
		// 2377.0 / 8760 and 4594.0 / 26280
		{"D8 v4 1 Year", d8[0], "1y", "2377", "0.271347032"},
		{"D8 v4 3 Years", d8[2], "3y", "4594", "0.1748097412"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			offers := mapOne(t, tt.it, b16als)
			if len(offers) != 1 {
				t.Fatalf("%d offers, want 1", len(offers))
			}
			o := offers[0]
			if o.PriceType != pricewatch.Reserved || o.Term != tt.term || o.Payment != pricewatch.AllUpfront || !o.Hourly.IsZero() || o.Upfront.String() != tt.upfront {
				t.Errorf("offer %s hourly %s upfront %s", o.Key(), o.Hourly, o.Upfront)
			}
			eff, err := o.EffectiveHourly()
			if err != nil {
				t.Fatal(err)
			}
			if eff.String() != tt.effective {
				t.Errorf("effective hourly %s, want %s", eff, tt.effective)
			}
			if err := o.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestSavingsPlanFromRealRow(t *testing.T) {
	b := readItems(t, "retail-prices-B16als_v2-australiacentral-items.json")
	offers := mapOne(t, b[1], b16als)
	got := map[string]string{}
	for _, o := range offers {
		got[string(o.PriceType)+"/"+o.Term+"/"+o.Payment] = o.Hourly.String()
		if o.OS != pricewatch.Linux || o.Currency != "USD" || o.Region != "australiacentral" || !o.Upfront.IsZero() {
			t.Errorf("offer %s currency %s upfront %s", o.Key(), o.Currency, o.Upfront)
		}
	}
	want := map[string]string{
		"on_demand//":                "0.673",
		"savings_plan/1y/no_upfront": "0.49129",
		"savings_plan/3y/no_upfront": "0.34323",
	}
	sharedtest.WantMap(t, "offers", got, want)
}

// TestClassifyRealProjection replays the 13 rows one real size returned
// (productName, skuName, type, reservationTerm, retailPrice), each laid onto
// the real Linux Consumption item, and checks which become prices.
func TestClassifyRealProjection(t *testing.T) {
	template := readItems(t, "retail-prices-B16als_v2-australiacentral-items.json")[1]
	template.SavingsPlan = nil
	fh, err := os.Open(filepath.Join("testdata", "samples", "retail-prices-B16als_v2-australiacentral-13rows-projection.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	cols := regexp.MustCompile(`\s{2,}`)
	var got []string
	sc := bufio.NewScanner(fh)
	sc.Scan() // header
	for sc.Scan() {
		f := cols.Split(strings.TrimSpace(sc.Text()), -1)
		if len(f) != 6 {
			t.Fatalf("projection line %q: %d columns", sc.Text(), len(f))
		}
		it := template
		it.ProductName, it.SkuName, it.MeterName, it.Type = f[0], f[1], f[1], f[2]
		it.ReservationTerm = ""
		if f[3] != "-" {
			it.ReservationTerm = f[3]
		}
		it.RetailPrice = json.Number(f[4])
		if _, _, skip := classify(it); skip != "" {
			continue
		}
		for _, o := range mapOne(t, it, b16als) {
			eff, _ := o.EffectiveHourly()
			got = append(got, string(o.PriceType)+"/"+o.Term+"/"+o.OS+"="+eff.String())
		}
	}
	want := []string{
		"on_demand//linux=0.673",
		"reserved/1y/linux=0.3970319635",
		"reserved/3y/linux=0.2557458143",
		"on_demand//windows=0.747",
		"spot//linux=0.6057",
		"spot//windows=0.6723",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("kept\n %v\nwant\n %v", got, want)
	}
}

func TestClassifyExclusions(t *testing.T) {
	base := readItems(t, "retail-prices-meterId-D8v4-westeurope.response.json")[1] // D8 v4 Consumption, verbatim
	tests := []struct {
		name   string
		change func(*item)
		pt     pricewatch.PriceType
		os     string
		skip   string
	}{
		{"real consumption row", func(*item) {}, pricewatch.OnDemand, pricewatch.Linux, ""},
		{"spot by meter name", func(it *item) { it.MeterName += " Spot" }, pricewatch.Spot, pricewatch.Linux, ""},
		{"spot by sku name", func(it *item) { it.SkuName += " Spot" }, pricewatch.Spot, pricewatch.Linux, ""},
		{"windows", func(it *item) { it.ProductName += " Windows" }, pricewatch.OnDemand, pricewatch.Windows, ""},
		{"windows with stray spaces", func(it *item) { it.ProductName = " " + it.ProductName + " Windows " }, pricewatch.OnDemand, pricewatch.Windows, ""},
		{"reservation", func(it *item) { it.Type = "Reservation"; it.ReservationTerm = "1 Year" }, pricewatch.Reserved, pricewatch.Linux, ""},
		{"low priority meter", func(it *item) { it.MeterName += " Low Priority" }, "", "", skipLowPriority},
		{"low priority sku", func(it *item) { it.SkuName += " Low Priority" }, "", "", skipLowPriority},
		{"dev/test", func(it *item) { it.Type = "DevTestConsumption" }, "", "", skipDevTest},
		{"cloud services", func(it *item) { it.ProductName = "Dv4 Series Cloud Services" }, "", "", skipCloudService},
		// Issue 20 item 1: the unit is priced (offersFor), not a reason to drop the row.
		{"monthly unit", func(it *item) { it.UnitOfMeasure = "1/Month" }, pricewatch.OnDemand, pricewatch.Linux, ""},
		{"tiered", func(it *item) { it.TierMinimumUnits = "100.0" }, "", "", skipTiered},
		{"other service", func(it *item) { it.ServiceName = "Storage" }, "", "", skipNotVM},
		{"unknown type", func(it *item) { it.Type = "Promotion" }, "", "", skipType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := base
			tt.change(&it)
			pt, osName, skip := classify(it)
			if pt != tt.pt || osName != tt.os || skip != tt.skip {
				t.Errorf("classify = %q %q %q, want %q %q %q", pt, osName, skip, tt.pt, tt.os, tt.skip)
			}
		})
	}
}

func TestOffersForRejectsMalformedRows(t *testing.T) {
	base := readItems(t, "retail-prices-meterId-D8v4-westeurope.response.json")
	tests := []struct {
		name   string
		it     item
		change func(*item)
		skip   string
		err    bool
	}{
		{"zero price is skipped", base[1], func(it *item) { it.RetailPrice = "0.0" }, skipNoPrice, false},
		{"negative price", base[1], func(it *item) { it.RetailPrice = "-1" }, "", true},
		{"missing price", base[1], func(it *item) { it.RetailPrice = "" }, "", true},
		{"no currency", base[1], func(it *item) { it.CurrencyCode = " " }, "", true},
		{"bad term", base[0], func(it *item) { it.ReservationTerm = "forever" }, "", true},
		{"bad savings-plan price", base[1], func(it *item) { it.SavingsPlan = []savingsPlan{{RetailPrice: "x", Term: "1 Year"}} }, "", true},
		{"bad savings-plan term", base[1], func(it *item) { it.SavingsPlan = []savingsPlan{{RetailPrice: "0.3", Term: ""}} }, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := tt.it
			tt.change(&it)
			pt, osName, skip := classify(it)
			if skip != "" {
				t.Fatalf("classified as %s", skip)
			}
			_, skip, err := offersFor(pricewatch.Azure, it, pt, osName, b16als)
			if skip != tt.skip || (err != nil) != tt.err {
				t.Errorf("skip %q err %v, want skip %q err %t", skip, err, tt.skip, tt.err)
			}
		})
	}
}

func TestParseTerm(t *testing.T) {
	for in, want := range map[string]string{"1 Year": "1y", "3 Years": "3y", " 5 Years ": "5y", "1 Month": "1m"} {
		if got, err := parseTerm(in); err != nil || got != want {
			t.Errorf("parseTerm(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "Year", "0 Years", "1 Decade", "one Year"} {
		if got, err := parseTerm(in); err == nil {
			t.Errorf("parseTerm(%q) = %q, want an error", in, got)
		}
	}
}

func TestDecodeRealResponses(t *testing.T) {
	for name, n := range map[string]int{
		"retail-prices-meterId-D8v4-westeurope.response.json":       3,
		"retail-prices-meterId-or-E16v3-E32v3-eastus.response.json": 8,
	} {
		body, err := os.ReadFile(filepath.Join("testdata", "samples", name))
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := decodePage(body, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(*p.Items) != n || p.NextPageLink != nil {
			t.Errorf("%s: %d items, next %v", name, len(*p.Items), p.NextPageLink)
		}
		if _, _, err := decodePage(body[:len(body)-2], false); !errors.Is(err, fetchers.ErrIncomplete) {
			t.Errorf("%s cut short: %v, want ErrIncomplete", name, err)
		}
	}
}

// TestRealH100Rows maps the four observed ND96isr H100 v5 rows as they were
// published: trimmed by their author to eight fields, without serviceName.
// A missing field must not drop a row.
func TestRealH100Rows(t *testing.T) {
	s, ok := lookupSKU("Standard_ND96isr_H100_v5")
	if !ok {
		t.Fatal("ND96isr H100 v5 missing from the table")
	}
	var got []string
	for _, it := range readItems(t, "retail-prices-ND96isr_H100_v5-eastus-items-trimmed.json") {
		pt, osName, skip := classify(it)
		if skip != "" {
			got = append(got, "skip:"+skip)
			continue
		}
		cands, skip, err := offersFor(pricewatch.Azure, it, pt, osName, s)
		if err != nil || skip != "" {
			t.Fatalf("%+v: skip %q err %v", it, skip, err)
		}
		for _, c := range cands {
			got = append(got, c.offer.Key().String()+"="+c.offer.Hourly.String())
		}
	}
	want := []string{
		"azure/eastus//Standard_ND96isr_H100_v5/on_demand////linux=98.32",
		"azure/eastus//Standard_ND96isr_H100_v5/on_demand////windows=102.736",
		"azure/eastus//Standard_ND96isr_H100_v5/spot////linux=18.169536",
		"skip:" + skipLowPriority,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
