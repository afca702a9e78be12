package storage

import (
	"context"
	"database/sql"
	"fmt"
)

// Names is every distinct name the database has stored, for "did you mean"
// suggestions and shell completion.
type Names struct {
	InstanceTypes []string
	Regions       []string
	GPUModels     []string
}

// StoredNames lists the instance types, regions and GPU models of every
// stored offer and availability record (current or not), each sorted.
func (db *DB) StoredNames(ctx context.Context) (Names, error) {
	var n Names
	for _, q := range []struct {
		column string
		into   *[]string
	}{
		{"instance_type", &n.InstanceTypes},
		{"region", &n.Regions},
		{"gpu_model", &n.GPUModels},
	} {
		// The column names are the constants above, never input.
		doing := "listing stored " + q.column + " names"
		names, err := queryAll(ctx, db.read, doing, "SELECT "+q.column+" FROM offers WHERE "+q.column+" <> ''"+
			" UNION SELECT "+q.column+" FROM availability WHERE "+q.column+" <> '' ORDER BY 1", nil,
			func(rows *sql.Rows) (string, error) {
				var s string
				if err := rows.Scan(&s); err != nil {
					return "", fmt.Errorf("%s: %w", doing, err)
				}
				return s, nil
			})
		if err != nil {
			return Names{}, err
		}
		*q.into = names
	}
	return n, nil
}
