package azure

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
)

// Issue 21 item 8: the Retail Prices API page decoder and the row mapping
// behind it. A refused page is an incomplete page and yields nothing; an
// accepted page has its Items array and a Count that agrees; encoding the
// decoded page and decoding it again is a fixed point; and the offers the
// mapping keeps from an accepted page are Azure offers in a real region,
// with a positive price within the amount parser's magnitudes, a term the
// root package can spread an upfront over, one per key, in key order.
func FuzzDecodePage(f *testing.F) {
	pages, err := filepath.Glob(filepath.Join("testdata", "pages", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	responses, err := filepath.Glob(filepath.Join("testdata", "samples", "*.response.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, path := range append(pages, responses...) {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	// The real rows (arrays of items) as pages, as the API serves them.
	rows, err := filepath.Glob(filepath.Join("testdata", "realrows", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, path := range rows {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(`{"BillingCurrency": "USD", "Items": ` + string(b) + `, "NextPageLink": null}`))
	}
	if len(pages) == 0 || len(rows) == 0 {
		f.Fatal("no Azure captures found in testdata")
	}
	f.Add([]byte(`{"Items": [], "Count": 1}`))
	f.Add([]byte(`{"Items": null}`))
	// Shapes the fast row cut must leave to encoding/json or cut alike.
	f.Add([]byte(`{"items": [{"a": 1}], "Items": [{"b": "]\\\"}"}], "Count": 1}`))
	f.Add([]byte(`{"ITEMS": [ {"armSkuName": "x\"]}"} , [1, {"c": "}"}] ,"s"], "Count": 3, "NextPageLink": "n"}`))
	f.Add([]byte(`{"Items\u0073": [], "Items": []}`))
	f.Add([]byte(` {"BillingCurrency":"USD","Items":[],"Count":0} `))
	// The captures were taken in 2025-2026: rows are judged in effect then.
	now := time.Date(2026, 8, 22, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		// The fast cut of a page's rows (splitItems) gives what
		// encoding/json gives, envelope and rows, byte for byte.
		fast, ferr := readRawPage(body)
		slow, serr := readRawPageSlow(body)
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("fast cut: %v; encoding/json: %v", ferr, serr)
		}
		if ferr == nil {
			fi, si := fast.Items, slow.Items
			if (fi == nil) != (si == nil) || fast.BillingCurrency != slow.BillingCurrency ||
				!reflect.DeepEqual(fast.NextPageLink, slow.NextPageLink) || !reflect.DeepEqual(fast.Count, slow.Count) {
				t.Fatalf("envelopes differ: %+v, %+v", fast, slow)
			}
			if fi != nil && !reflect.DeepEqual(*fi, *si) {
				t.Fatalf("rows differ: %d and %d", len(*fi), len(*si))
			}
		}
		p, _, err := decodePage(body, false)
		if err != nil {
			if p != nil {
				t.Fatalf("decodePage failed (%v) but returned a page", err)
			}
			if !errors.Is(err, fetchers.ErrIncomplete) {
				t.Fatalf("a refused page is not an incomplete page: %v", err)
			}
			return
		}
		if p.Items == nil {
			t.Fatal("an accepted page has no Items array")
		}
		if p.Count != nil && *p.Count != len(*p.Items) {
			t.Fatalf("an accepted page says Count %d and holds %d items", *p.Count, len(*p.Items))
		}
		once, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("encoding a decoded page: %v", err)
		}
		back, _, err := decodePage(once, false)
		if err != nil {
			t.Fatalf("a decoded page, encoded again, is refused: %v", err)
		}
		twice, err := json.Marshal(back)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("encode → decode → encode is not a fixed point (%v):\n%s\n%s", err, once, twice)
		}

		acc := newAccumulator(pricewatch.Azure, zap.NewNop(), true, now)
		stats := map[string]int{}
		for _, it := range *p.Items {
			if err := acc.add(it, "", stats); err != nil {
				return // a malformed row fails the page; Fetch wraps it
			}
		}
		offers := acc.offers()
		for i, o := range offers {
			if o.Provider != pricewatch.Azure || o.Region == "" || o.Region != strings.TrimSpace(o.Region) || o.InstanceType == "" {
				t.Fatalf("offer %d is not an Azure offer in a region: %+v", i, o.Key())
			}
			if !o.PriceType.Valid() || (o.OS != pricewatch.Linux && o.OS != pricewatch.Windows) {
				t.Fatalf("offer %d: price type %q, os %q", i, o.PriceType, o.OS)
			}
			for _, a := range []struct {
				name string
				v    interface{ IsNegative() bool }
			}{{"hourly", o.Hourly}, {"upfront", o.Upfront}} {
				if a.v.IsNegative() {
					t.Fatalf("offer %d: negative %s", i, a.name)
				}
			}
			if err := pricewatch.CheckMagnitude(o.Hourly); err != nil {
				t.Fatalf("offer %d: hourly %v", i, err)
			}
			if err := pricewatch.CheckMagnitude(o.Upfront); err != nil {
				t.Fatalf("offer %d: upfront %v", i, err)
			}
			if !o.Hourly.IsPositive() && !o.Upfront.IsPositive() {
				t.Fatalf("offer %d: kept with no price (zero prices are left out)", i)
			}
			eff, err := pricewatch.EffectiveHourly(o.Hourly, o.Upfront, o.Term)
			if err != nil || !eff.IsPositive() {
				t.Fatalf("offer %d (%s term %q): effective hourly %s, %v", i, o.PriceType, o.Term, eff, err)
			}
			if i > 0 && o.Key().String() <= offers[i-1].Key().String() {
				t.Fatalf("offers %d and %d are out of key order or repeat a key: %s, %s", i-1, i, offers[i-1].Key(), o.Key())
			}
		}
	})
}
