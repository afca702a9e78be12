package storage

import (
	"context"
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
		rows, err := db.read.QueryContext(ctx, "SELECT "+q.column+" FROM offers WHERE "+q.column+" <> ''"+
			" UNION SELECT "+q.column+" FROM availability WHERE "+q.column+" <> '' ORDER BY 1")
		if err != nil {
			return Names{}, fmt.Errorf("listing stored %s names: %w", q.column, err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return Names{}, fmt.Errorf("listing stored %s names: %w", q.column, err)
			}
			*q.into = append(*q.into, s)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return Names{}, fmt.Errorf("listing stored %s names: %w", q.column, err)
		}
	}
	return n, nil
}
