package storage

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/pricewatch/pricewatch"
)

// A fetcher's state is stored with a successful run, in its transaction,
// and handed back; a run that stores no state leaves it, a failed run
// changes nothing.
func TestFetcherStateSavedWithTheRun(t *testing.T) {
	backends(t, func(t *testing.T) {
		ctx, db, _ := openTestDB(t)
		if st, err := db.FetcherState(ctx, "azure"); err != nil || st != nil {
			t.Fatalf("state before any run: %q, %v", st, err)
		}
		snap := snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32"))
		snap.State = []byte(`{"version":1,"data":{"n":1}}`)
		mustSave(t, db, snap)
		snap.State = nil
		mustSave(t, db, snap)
		// A run refused by the drop check (no offers where one is stored).
		failed := snapshot()
		failed.State = []byte(`{"version":1,"data":{"n":2}}`)
		if _, err := save(t, db, failed, SaveOptions{}); err == nil {
			t.Fatal("an empty run where offers are stored was stored")
		}
		st, err := db.FetcherState(ctx, "azure")
		if err != nil || string(st) != `{"version":1,"data":{"n":1}}` {
			t.Errorf("state %q, %v; want the first run's", st, err)
		}
	})
}

// TestFetcherStateMigration applies the migration's own SQL to a database
// laid out as before it (the state kept among the versions): each
// fetcher's state moves to fetcher_state in the shape the fetcher reads,
// and only version tokens stay in source_versions.
func TestFetcherStateMigration(t *testing.T) {
	ctx, db, _ := openTestDB(t)
	if _, err := db.write.ExecContext(ctx, `DROP TABLE fetcher_state`); err != nil {
		t.Fatal(err)
	}
	seedVersions(ctx, t, db, "2026-11-30T00:00:00Z", [][3]string{
		{"aws", "ec2/us-east-1", "20261201"}, {"aws", "gpu-types", `{"p5.48xlarge":{"model":"H100"}}`}, {"aws", "spot/etag", `"abc"`},
		{"alibaba", "next_region", "ap-southeast-1"},
		{"lambda", "capacity_regions", `{"gpu_1x_h100_sxm5":["us-east-1"]}`},
		{"vastai", "stock_seen", `{"US|1x H100 SXM":{"gpu_name":"H100 SXM"}}`}, {"vastai", "rentable/H100 SXM", "8"}, {"vastai", "rentable/B200", "0"},
		{"azure", "offers/eastus", "12"},
	})
	runMigrationFile(ctx, t, db, "*_fetcher_state.sql")
	want := map[string]string{
		"aws":     `{"version":1,"data":{"gpu_types":{"p5.48xlarge":{"model":"H100"}}}}`,
		"alibaba": `{"version":1,"data":{"next_region":"ap-southeast-1"}}`,
		"lambda":  `{"version":1,"data":{"capacity_regions":{"gpu_1x_h100_sxm5":["us-east-1"]}}}`,
		"vastai":  `{"version":1,"data":{"rentable":{"B200":0,"H100 SXM":8},"stock_seen":{"US|1x H100 SXM":{"gpu_name":"H100 SXM"}}}}`,
	}
	for p, w := range want {
		got, err := db.FetcherState(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, got, []byte(w)) {
			t.Errorf("%s state %s, want %s", p, got, w)
		}
	}
	if got, _ := db.FetcherState(ctx, "azure"); got != nil {
		t.Errorf("azure has state %s; it kept none", got)
	}
	versions := map[string]map[string]string{}
	for _, p := range []string{"aws", "alibaba", "lambda", "vastai", "azure"} {
		v, err := db.Versions(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		versions[p] = v
	}
	if w := map[string]string{"ec2/us-east-1": "20261201", "spot/etag": `"abc"`}; !maps.Equal(versions["aws"], w) {
		t.Errorf("aws versions %v, want %v", versions["aws"], w)
	}
	if len(versions["alibaba"])+len(versions["lambda"])+len(versions["vastai"]) != 0 || len(versions["azure"]) != 1 {
		t.Errorf("versions left: %v", versions)
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}
