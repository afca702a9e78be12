package main

import (
	"encoding/csv"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/report"
)

func TestMachineGolden(t *testing.T) {
	now := "--now=" + analysisNow
	runGoldens(t, []goldenCase{
		{name: "compare_machine_a100_month.txt", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--per", "month", now}},
		{name: "compare_machine_a100_month.json", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--per", "month", "--format", "json", now}},
		{name: "compare_machine_a100_month.csv", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--per", "month", "--format", "csv", now}},
		{name: "compare_machine_a100_month_wide.txt", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--per", "month", "--wide", now}},
		{name: "compare_machine_a100_hour_cny.txt", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--currency", "CNY", now}},
		{name: "compare_machine_missing_rate.txt", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--per", "year", now}, noRates: true},
		{name: "compare_machine_per_without_by.txt", args: []string{"compare", "--gpu", "A100", "--per", "month", now}, code: exitUsage},
		{name: "compare_machine_bad_per.txt", args: []string{"compare", "--gpu", "A100", "--by", "machine", "--per", "week", now}, code: exitUsage},
	})
}

// Issue 31 (must show): the API, the dashboard and the CLI give the same
// machine rows for the same filters. `compare --by machine` (locally and
// with --server), GET /api/v1/offers?by=machine, GET
// /api/v1/offer-table?by=machine, the offers page's machine view and its
// CSV name the same machines in the same order with the same prices.
func TestSameMachineRowsForSameFilters(t *testing.T) {
	cfg := analysisConfig(t, true)
	ts, _, _ := apiServer(t, cfg)
	now := analysisNow
	// A machine row's identity and prices, as text.
	type row struct {
		ID                         string
		OnDemand, Spot, Y1, Y3     string
		Opt1y, Opt3y, CurrencyUnit string
	}
	fromJSON := func(raw string) []row {
		t.Helper()
		var rows []report.MachineRow
		decodeJSON(t, raw, &rows)
		out := make([]row, 0, len(rows))
		for _, r := range rows {
			out = append(out, row{r.ID, r.OnDemand.Text(), r.Spot.Text(), r.Best1y.Text(), r.Best3y.Text(),
				deref(r.Best1yOption), deref(r.Best3yOption), r.Currency + "/" + string(r.Per)})
		}
		return out
	}
	for _, c := range []struct {
		name   string
		cli    []string
		filter string // the same filters as URL parameters
	}{
		{"A100 per month", []string{"--gpu", "A100", "--per", "month"}, "gpu=A100&per=month"},
		{"A100 cloud, 80 GB per GPU, per year in CNY", []string{"--gpu", "A100", "--per", "year", "--seller", "cloud", "--min-gpu-memory", "80", "--currency", "CNY"},
			"gpu=A100&per=year&seller=cloud&min_gpu_memory=80&currency=CNY"},
		{"A100 alibaba per day, spot and reserved", []string{"--gpu", "A100", "--per", "day", "--provider", "alibaba", "--price-type", "spot,reserved"},
			"gpu=A100&per=day&provider=alibaba&price_type=spot&price_type=reserved"},
		{"A100-40GB per hour", []string{"--gpu", "A100-40GB"}, "gpu=A100-40GB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"--config", cfg, "compare", "--by", "machine", "--format", "json", "--now=" + now}, c.cli...)
			out, errOut, code := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("CLI exit %d: %s", code, errOut)
			}
			want := fromJSON(out)
			if len(want) == 0 {
				t.Fatal("the filters keep no machine: the test compares nothing")
			}
			remote, errOut, code := runCLI(t, append(args, "--server", ts.URL)...)
			if code != 0 || remote != out {
				t.Errorf("--server: exit %d %s\n%s\nlocal:\n%s", code, errOut, clipText(remote), clipText(out))
			}
			q := "by=machine&now=" + now + "&" + c.filter
			for _, path := range []string{"/api/v1/offers?" + q, "/api/v1/offer-table?" + q} {
				resp, got := apiGet(t, ts.URL+path)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("GET %s: %d %s", path, resp.StatusCode, got)
				}
				if g := fromJSON(got); !reflect.DeepEqual(g, want) {
					t.Errorf("GET %s:\n%v\nCLI:\n%v", path, g, want)
				}
			}
			// The dashboard: its CSV download and the page's rows.
			resp, csvText := apiGet(t, ts.URL+"/offers.csv?"+q)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /offers.csv: %d %s", resp.StatusCode, csvText)
			}
			recs, err := csv.NewReader(strings.NewReader(csvText)).ReadAll()
			if err != nil || len(recs) < 1 {
				t.Fatalf("offers.csv: %v", err)
			}
			col := map[string]int{}
			for i, h := range recs[0] {
				col[h] = i
			}
			var page []row
			for _, r := range recs[1:] {
				page = append(page, row{r[col["id"]], r[col["on_demand"]], r[col["spot"]], r[col["best_1y"]], r[col["best_3y"]],
					r[col["best_1y_option"]], r[col["best_3y_option"]], r[col["currency"]] + "/" + r[col["per"]]})
			}
			if !reflect.DeepEqual(page, want) {
				t.Errorf("the dashboard's offers.csv:\n%v\nCLI:\n%v", page, want)
			}
			resp, html := apiGet(t, ts.URL+"/offers?"+q)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /offers: %d %s", resp.StatusCode, clipText(html))
			}
			ids := regexp.MustCompile(`<tr data-machine="([^"]+)"`).FindAllStringSubmatch(html, -1)
			var got []string
			for _, m := range ids {
				got = append(got, m[1])
			}
			var wantIDs []string
			for _, r := range want {
				wantIDs = append(wantIDs, r.ID)
			}
			if !reflect.DeepEqual(got, wantIDs) {
				t.Errorf("the offers page's machine rows %v, CLI %v", got, wantIDs)
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
