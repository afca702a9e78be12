package sheet

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
)

func TestParseRealSheets(t *testing.T) {
	for _, tc := range []struct {
		file    string
		offers  int
		skipped int
		want    map[string]string // instance type/region/price type -> hourly
		gpus    map[string]float64
	}{
		{"testdata/coreweave.csv", 7, 1, map[string]string{
			"b200-8x/north-america/on_demand": "68.8", "b200-8x/europe/spot": "34.87", "gb200-4x/north-america/on_demand": "42",
			"b300-8x/north-america/spot": "35.84", "b300-8x/europe/spot": "36.7", "h200-8x/europe/spot": "20.64",
		}, map[string]float64{"gb200-4x": 4, "gh200-1x": 1}},
		{"testdata/crusoe.yaml", 4, 0, map[string]string{
			"h200-141gb-sxm-ib.8x/us-east1-a/on_demand": "34.32", "h100-80gb-sxm-ib.8x/us-east1-a/on_demand": "31.2",
			"mi300x-192gb.8x/us-east1-a/on_demand": "27.6", "l40s-48gb.1x/us-east1-a/on_demand": "1.5",
		}, map[string]float64{"mi300x-192gb.8x": 8}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			body, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Parse("cloud", tc.file, body)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Offers) != tc.offers || len(res.Skipped) != tc.skipped {
				t.Fatalf("%d offers, skipped %q; want %d and %d", len(res.Offers), res.Skipped, tc.offers, tc.skipped)
			}
			got := map[string]pricewatch.Offer{}
			for _, o := range res.Offers {
				got[o.InstanceType+"/"+o.Region+"/"+string(o.PriceType)] = o
				if o.Provider != "cloud" || o.Currency != "USD" || o.OS != pricewatch.Linux {
					t.Errorf("%+v", o)
				}
				if n, ok := tc.gpus[o.InstanceType]; ok && o.GPUCount != n {
					t.Errorf("%s: %v GPUs, want %v", o.InstanceType, o.GPUCount, n)
				}
			}
			for k, v := range tc.want {
				if o, ok := got[k]; !ok || o.Hourly.String() != v {
					t.Errorf("%s: %v (found %v), want %s", k, o.Hourly, ok, v)
				}
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	const header = "instance_type,gpu,gpu_count,region,price,currency,unit,source\n"
	const good = "h100-8x,H100,8,r1,31.20,USD,instance-hour,quote 2026-11\n"
	for name, tc := range map[string]struct {
		file, body string
		whole      bool // the whole sheet fails
		skipped    string
	}{
		"cut inside the last line":  {"s.csv", header + good + "h200-8x,H200,8,r1,4", true, ""},
		"cut inside a row's fields": {"s.csv", header + good + "h200-8x,H200,8\n", true, ""},
		"no header column":          {"s.csv", "instance_type,gpu,gpu_count,region,price,currency,unit\n" + "a,H100,1,r,1,USD,gpu-hour\n", true, ""},
		"unknown column":            {"s.csv", strings.TrimSuffix(header, "\n") + ",discount\n" + strings.TrimSuffix(good, "\n") + ",5\n", true, ""},
		"empty":                     {"s.csv", "", true, ""},
		"only a header":             {"s.csv", header, true, ""},
		"no good row":               {"s.csv", header + "x,H100,8,r1,free,USD,instance-hour,q\n", true, ""},
		"not a sheet extension":     {"s.txt", header + good, true, ""},
		"yaml without rows":         {"s.yaml", "prices: []\n", true, ""},
		"yaml cut mid-document":     {"s.yaml", "rows:\n  - {instance_type: a, gpu: H100", true, ""},
		"price not a number":        {"s.csv", header + good + "b,H100,8,r2,Contact sales,USD,instance-hour,q\n", false, "line 3: price"},
		"negative price":            {"s.csv", header + good + "b,H100,8,r2,-1,USD,instance-hour,q\n", false, "line 3: price"},
		"fractional count":          {"s.csv", header + good + "b,H100,0.5,r2,1,USD,instance-hour,q\n", false, "gpu_count"},
		"not a GPU":                 {"s.csv", header + good + "b,Xilinx VU9P,1,r2,1,USD,instance-hour,q\n", false, "not a GPU"},
		"bad unit":                  {"s.csv", header + good + "b,H100,1,r2,1,USD,month,q\n", false, "unit"},
		"bad currency":              {"s.csv", header + good + "b,H100,1,r2,1,$,instance-hour,q\n", false, "currency"},
		"no source":                 {"s.csv", header + good + "b,H100,1,r2,1,USD,instance-hour,\n", false, "no source"},
		"twice":                     {"s.csv", header + good + good, false, "again"},
		"yaml unknown key":          {"s.yaml", "rows:\n  - {instance_type: a, gpu: H100, gpu_count: 1, region: r, price: 1, currency: USD, unit: gpu-hour, source: q}\n  - {instance_type: b, gpu: H100, gpu_count: 1, region: r, price: 1, currency: USD, unit: gpu-hour, source: q, note: x}\n", false, "unknown key"},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := Parse("cloud", tc.file, []byte(tc.body))
			if tc.whole {
				if err == nil {
					t.Fatalf("read %d offers; want the sheet refused", len(res.Offers))
				}
				if tc.file != "s.txt" && !errors.Is(err, fetchers.ErrIncomplete) {
					t.Errorf("%v: want ErrIncomplete", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Offers) != 1 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], tc.skipped) {
				t.Fatalf("%d offers, skipped %q; want 1 and one naming %q", len(res.Offers), res.Skipped, tc.skipped)
			}
		})
	}
}

func TestFractionalGPUIsAShare(t *testing.T) {
	body := "instance_type,gpu,gpu_count,region,price,currency,unit,source\nvcg-a100-1-c,A100/4,1,r,2.40,USD,gpu-hour,q\n"
	res, err := Parse("cloud", "s.csv", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	o := res.Offers[0]
	if o.GPUCount != 0.25 || o.Hourly.String() != "0.6" {
		t.Fatalf("%v GPUs at %v; want a quarter card at 0.6", o.GPUCount, o.Hourly)
	}
}

func TestNameHidesQuery(t *testing.T) {
	if got := Name("https://user:pw@example.com/s.csv?token=abc"); got != "https://example.com/s.csv" {
		t.Fatal(got)
	}
}
