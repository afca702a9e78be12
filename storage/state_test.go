package storage

import (
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"testing"

	"github.com/pricewatch/pricewatch"
)

// A fetcher's state is stored with a successful run, in its transaction,
// and handed back; a run that stores no state leaves it, a failed run
// changes nothing.
func TestFetcherStateSavedWithTheRun(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	if st, err := db.FetcherState(ctx, "azure"); err != nil || st != nil {
		t.Fatalf("state before any run: %q, %v", st, err)
	}
	snap := snapshot(offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32"))
	snap.State = []byte(`{"version":1,"data":{"n":1}}`)
	if _, err := save(t, db, snap, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	snap.State = nil
	if _, err := save(t, db, snap, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
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
}

// TestFetcherStateMigration applies the migration's own SQL to a database
// laid out as before it (the state kept among the versions): each
// fetcher's state moves to fetcher_state in the shape the fetcher reads,
// and only version tokens stay in source_versions.
func TestFetcherStateMigration(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	if _, err := db.write.ExecContext(ctx, `DROP TABLE fetcher_state`); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][3]string{
		{"aws", "ec2/us-east-1", "20261201"}, {"aws", "gpu-types", `{"p5.48xlarge":{"model":"H100"}}`}, {"aws", "spot/etag", `"abc"`},
		{"alibaba", "next_region", "ap-southeast-1"},
		{"lambda", "capacity_regions", `{"gpu_1x_h100_sxm5":["us-east-1"]}`},
		{"vastai", "stock_seen", `{"US|1x H100 SXM":{"gpu_name":"H100 SXM"}}`}, {"vastai", "rentable/H100 SXM", "8"}, {"vastai", "rentable/B200", "0"},
		{"azure", "offers/eastus", "12"},
	} {
		if _, err := db.write.ExecContext(ctx, `INSERT INTO source_versions (provider, key, version, updated_at) VALUES (?, ?, ?, '2026-11-30T00:00:00Z')`, kv[0], kv[1], kv[2]); err != nil {
			t.Fatal(err)
		}
	}
	names, err := fs.Glob(migrations, "migrations/*_fetcher_state.sql")
	if err != nil || len(names) != 1 {
		t.Fatalf("migration file: %v %v", names, err)
	}
	body, err := migrations.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, string(body)); err != nil {
		t.Fatalf("applying %s: %v", names[0], err)
	}
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
		if versions[p], err = db.Versions(ctx, p); err != nil {
			t.Fatal(err)
		}
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
