package storage

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
)

// A full disk in the middle of storing a run (SQLITE_FULL, here from a
// page limit on the writer, which fails the same way) rolls the whole run
// back: the stored history is what it was, and the next run, with room
// again, stores normally.
func TestFullDiskStoresNothing(t *testing.T) {
	ctx, db, clk := openTestDB(t)
	base := offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32")
	mustSave(t, db, snapshot(base))
	clk.tick()
	var pages int
	if err := db.write.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages+1)); err != nil {
		t.Fatal(err)
	}
	big := []pricewatch.Offer{offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "90.00")}
	for i := range 3000 {
		big = append(big, offer(fmt.Sprintf("Standard_NC%d_%s_v9", i, strings.Repeat("x", 40)), "eastus", pricewatch.OnDemand, "1.5"))
	}
	_, err := save(t, db, snapshot(big...), SaveOptions{})
	if err == nil || !strings.Contains(err.Error(), "full") {
		t.Fatalf("store on a full disk: %v, want database or disk is full", err)
	}
	got := allPrices(t, db)
	if len(got) != 1 || !got[0].Hourly.Equal(base.Hourly) || got[0].ValidTo != nil {
		t.Fatalf("history after the failed run: %+v, want the one baseline price, open", got)
	}
	if _, err := db.write.Exec("PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	clk.tick()
	res, err := save(t, db, snapshot(big...), SaveOptions{})
	if err != nil || res.New != 3000 || res.Changed != 1 {
		t.Fatalf("with room again: %+v, %v", res, err)
	}
	bad, err := db.IntervalViolations(ctx)
	if err != nil || len(bad) > 0 {
		t.Errorf("%v %v", bad, err)
	}
}

// A corrupted database file is refused with SQLite's reason and left as
// it is (nothing overwrites what might still be rescued).
func TestCorruptFileRefused(t *testing.T) {
	for name, body := range map[string][]byte{
		"garbage":        bytes.Repeat([]byte("not a database at all "), 400),
		"damaged header": append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{0xff}, 8192)...),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pw.db")
			if err := os.WriteFile(path, body, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := Open(context.Background(), path, Options{})
			if err == nil {
				db.Close()
				t.Fatal("a corrupted file opened")
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, body) {
				t.Error("the corrupted file was changed")
			}
		})
	}
}
