package storage

import (
	"context"
	"database/sql"
	"strings"
)

// InstanceTypeStoredBy tells whether any of providers has stored an
// offer, an availability record or a signal of instanceType, in any case
// of its letters (as an instance page resolves the name it is asked for).
// A run of a provider that has none changed nothing an instance type's
// page or history shows: the dashboard keeps those answers through it
// (issue 30).
func (db *DB) InstanceTypeStoredBy(ctx context.Context, instanceType string, providers []string) (bool, error) {
	if len(providers) == 0 {
		return false, nil
	}
	in := "provider IN (?" + strings.Repeat(", ?", len(providers)-1) + ") AND LOWER(instance_type) = LOWER(?)"
	var args []any
	for range 3 {
		for _, p := range providers {
			args = append(args, p)
		}
		args = append(args, instanceType)
	}
	found, err := queryAll(ctx, db.read, "looking for an instance type's rows of providers",
		"SELECT 1 FROM offers WHERE "+in+" UNION ALL SELECT 1 FROM availability WHERE "+in+
			" UNION ALL SELECT 1 FROM signals WHERE "+in+" LIMIT 1", args,
		func(rows *sql.Rows) (int, error) {
			var n int
			err := rows.Scan(&n)
			return n, err
		})
	return len(found) > 0, err
}
