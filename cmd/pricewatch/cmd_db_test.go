package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDBStatsAndVacuum(t *testing.T) {
	az := newFakeAzure(t)
	cfg := writeConfig(t, t.TempDir(), az.URL)
	if _, errOut, code := runCLI(t, "--config", cfg, "fetch"); code != 0 {
		t.Fatalf("fetch exited %d: %s", code, errOut)
	}
	out, errOut, code := runCLI(t, "--config", cfg, "db", "stats", "--format", "json")
	if code != 0 {
		t.Fatalf("db stats exited %d: %s", code, errOut)
	}
	var st struct {
		PriceIntervals int64 `json:"price_intervals"`
		CurrentPrices  int64 `json:"current_prices"`
		FileBytes      int64 `json:"file_bytes"`
		Tables         []struct {
			Name string `json:"name"`
			Rows int64  `json:"rows"`
		} `json:"tables"`
		OldestPrice *string `json:"oldest_price"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("db stats JSON: %v\n%s", err, out)
	}
	if st.PriceIntervals == 0 || st.CurrentPrices != st.PriceIntervals || st.OldestPrice == nil || len(st.Tables) == 0 {
		t.Errorf("db stats after one fetch: %+v", st)
	}
	out, errOut, code = runCLI(t, "--config", cfg, "db", "stats")
	if code != 0 || !strings.Contains(out, "prices") || !strings.Contains(out, "Price intervals:") {
		t.Errorf("db stats table (exit %d): %s%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "--config", cfg, "db", "vacuum")
	if code != 0 || !strings.Contains(out, "Vacuumed") {
		t.Errorf("db vacuum (exit %d): %s%s", code, out, errOut)
	}
	if _, _, code := runCLI(t, "--config", cfg, "db", "stats", "--format", "csv"); code == 0 {
		t.Error("db stats --format csv succeeded")
	}
}
