package metrics

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	providerrun "github.com/pricewatch/pricewatch/run"

	"github.com/VictoriaMetrics/metricsql"
	dto "github.com/prometheus/client_model/go"
	yaml "go.yaml.in/yaml/v3"

	"github.com/pricewatch/pricewatch/internal/testing/promtool"
	"github.com/pricewatch/pricewatch/storage"
)

const (
	dashboardFile = "../../contrib/grafana/pricewatch.json"
	alertsFile    = "../../contrib/prometheus/alerts.yml"
	alertsTests   = "../../contrib/prometheus/alerts_test.yml"
)

// exportedNames are the metric names a scrape of pricewatch can hold, taken
// from the daemon's own registry over the fixture database (per-offer
// series on, runs of each result observed): histograms as their _bucket,
// _sum and _count series.
func exportedNames(t *testing.T) map[string]bool {
	t.Helper()
	db := fixtureDB(t)
	m := New(db, "test")
	m.AddPriceSeries(db, func() PriceSettings {
		return PriceSettings{Currency: "USD", Offers: Offers{GPUModels: []string{"H100"}}}
	})
	m.Observe(providerrun.Summary{Provider: "azure", Status: providerrun.StatusOK, Duration: time.Second, Result: &storage.Result{At: time.Now()}})
	m.Observe(providerrun.Summary{Provider: "aws", Status: providerrun.StatusFailed, Duration: time.Second})
	m.OffersTracked("azure", 1)
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, mf := range mfs {
		switch mf.GetType() {
		case dto.MetricType_HISTOGRAM:
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				names[mf.GetName()+s] = true
			}
		case dto.MetricType_SUMMARY:
			names[mf.GetName()+"_sum"], names[mf.GetName()+"_count"] = true, true
		}
		names[mf.GetName()] = true
	}
	// Written by the digest, absent until one is queued.
	names["pricewatch_digest_last_success_timestamp_seconds"] = true
	return names
}

// grafanaVars are Grafana's own interval variables, replaced by a duration
// so that the PromQL parses.
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$__range", "1h")

// metricNames parses a PromQL expression and returns the metric names it
// selects.
func metricNames(t *testing.T, expr string) []string {
	t.Helper()
	e, err := metricsql.Parse(grafanaVars.Replace(expr))
	if err != nil {
		t.Errorf("%q does not parse: %v", expr, err)
		return nil
	}
	var out []string
	metricsql.VisitAll(e, func(x metricsql.Expr) {
		me, ok := x.(*metricsql.MetricExpr)
		if !ok {
			return
		}
		for _, group := range me.LabelFilterss {
			for _, f := range group {
				if f.Label == "__name__" {
					out = append(out, f.Value)
				}
			}
		}
	})
	return out
}

var labelValues = regexp.MustCompile(`^label_values\((.+),\s*[a-zA-Z_][a-zA-Z0-9_]*\)$`)

// TestGrafanaDashboard: contrib/grafana/pricewatch.json is valid JSON, each
// panel has a unique id and a place, and every query of a panel or a
// variable is PromQL that selects only metrics pricewatch exports (and
// promtool, where installed, accepts each as PromQL).
func TestGrafanaDashboard(t *testing.T) {
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	type target struct {
		Expr  string `json:"expr"`
		RefID string `json:"refId"`
	}
	type panel struct {
		ID      int             `json:"id"`
		Type    string          `json:"type"`
		Title   string          `json:"title"`
		GridPos *map[string]int `json:"gridPos"`
		Targets []target        `json:"targets"`
		Panels  []panel         `json:"panels"`
	}
	var dash struct {
		Title      string  `json:"title"`
		UID        string  `json:"uid"`
		Panels     []panel `json:"panels"`
		Templating struct {
			List []struct {
				Name  string          `json:"name"`
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&dash); err != nil {
		t.Fatalf("%s is not a dashboard: %v", dashboardFile, err)
	}
	if dash.Title == "" || dash.UID == "" || len(dash.Panels) == 0 {
		t.Fatalf("dashboard title %q uid %q, %d panels", dash.Title, dash.UID, len(dash.Panels))
	}
	exported := exportedNames(t)
	used := map[string]bool{}
	var exprs []string
	check := func(where, expr string) {
		names := metricNames(t, expr)
		if len(names) == 0 {
			t.Errorf("%s: %q selects no metric", where, expr)
		}
		for _, n := range names {
			used[n] = true
			if !exported[n] {
				t.Errorf("%s: %q uses %s, which pricewatch does not export", where, expr, n)
			}
		}
	}
	ids := map[int]bool{}
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			where := fmt.Sprintf("panel %d %q", p.ID, p.Title)
			if ids[p.ID] || p.GridPos == nil {
				t.Errorf("%s: duplicate id or no gridPos", where)
			}
			ids[p.ID] = true
			if p.Type != "row" && len(p.Targets) == 0 {
				t.Errorf("%s has no query", where)
			}
			for _, tg := range p.Targets {
				check(where, tg.Expr)
				exprs = append(exprs, tg.Expr)
			}
			walk(p.Panels)
		}
	}
	walk(dash.Panels)
	for _, v := range dash.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			t.Errorf("variable %s: query %s: %v", v.Name, v.Query, err)
			continue
		}
		m := labelValues.FindStringSubmatch(q.Query)
		if m == nil {
			t.Errorf("variable %s: %q is not label_values(selector, label)", v.Name, q.Query)
			continue
		}
		check("variable "+v.Name, m[1])
	}
	for _, want := range []string{"pricewatch_cheapest_price_per_gpu_hour", "pricewatch_cheapest_offer_info",
		"pricewatch_fetch_last_success_timestamp_seconds", "pricewatch_outbox_pending", "pricewatch_outbox_failed"} {
		if !used[want] {
			t.Errorf("the dashboard shows no %s", want)
		}
	}

	// promtool parses real PromQL (the parser above also takes
	// MetricsQL): every panel query, as a recording rule.
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("PRICEWATCH_REQUIRE_PROMTOOL") != "" {
			t.Fatal("promtool not found, and PRICEWATCH_REQUIRE_PROMTOOL is set")
		}
		return
	}
	type rule struct {
		Record string `yaml:"record"`
		Expr   string `yaml:"expr"`
	}
	var rules []rule
	for i, e := range exprs {
		rules = append(rules, rule{Record: fmt.Sprintf("dashboard:query_%d", i), Expr: grafanaVars.Replace(regexp.MustCompile(`\$[a-z_]+`).ReplaceAllString(e, ".*"))})
	}
	body, err := yaml.Marshal(map[string]any{"groups": []map[string]any{{"name": "dashboard", "rules": rules}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dashboard-rules.yml")
	if err := os.WriteFile(path, body, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "rules", path).CombinedOutput(); err != nil {
		t.Errorf("promtool rejects a dashboard query: %v\n%s", err, out)
	}
}

// TestPrometheusAlertRules: contrib/prometheus/alerts.yml selects only
// metrics pricewatch exports, has the stale-provider, outbox-backlog and
// failed-delivery alerts, and passes `promtool check rules` and its unit
// tests (`promtool test rules`).
func TestPrometheusAlertRules(t *testing.T) {
	raw, err := os.ReadFile(alertsFile)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	exported := exportedNames(t)
	var alerts []string
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			for _, n := range metricNames(t, r.Expr) {
				if !exported[n] {
					t.Errorf("alert %s uses %s, which pricewatch does not export", r.Alert, n)
				}
			}
		}
	}
	for _, want := range []string{"PricewatchProviderStale", "PricewatchOutboxBacklog", "PricewatchDeliveriesFailed"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("no alert %s among %v", want, alerts)
		}
	}
	promtool := promtool.Path(t)
	for _, args := range [][]string{{"check", "rules", alertsFile}, {"test", "rules", alertsTests}} {
		if out, err := exec.Command(promtool, args...).CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}
