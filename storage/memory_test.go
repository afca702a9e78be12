package storage

import "testing"

// SQLite's soft heap limit is set when the file is opened, and is the
// whole process's: the read pool's connections, which fill their page
// caches reading history for pages, see it as the writer does.
func TestSQLiteSoftHeapLimit(t *testing.T) {
	ctx, db, _ := openTestDB(t)
	var limit int64
	if err := db.read.QueryRowContext(ctx, "PRAGMA soft_heap_limit").Scan(&limit); err != nil {
		t.Fatal(err)
	}
	if limit != SQLiteSoftHeapLimit {
		t.Errorf("a reader's soft heap limit is %d, want %d", limit, SQLiteSoftHeapLimit)
	}
}
