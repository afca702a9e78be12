package storage

import (
	"context"
	"fmt"
)

// intervalChecks are the invariants of interval history, each a query
// returning one description per violation. Times are fixed-width text, so
// text comparison orders them.
var intervalChecks = []struct{ name, query string }{
	{"price ends before it starts", `SELECT 'price ' || id || ': valid_to ' || valid_to || ' before valid_from ' || valid_from
		FROM prices WHERE valid_to IS NOT NULL AND valid_to < valid_from`},
	{"price seen before it starts", `SELECT 'price ' || id || ': last_seen ' || last_seen || ' before valid_from ' || valid_from
		FROM prices WHERE last_seen < valid_from`},
	{"price seen after it ends", `SELECT 'price ' || id || ': last_seen ' || last_seen || ' after valid_to ' || valid_to
		FROM prices WHERE valid_to IS NOT NULL AND last_seen > valid_to`},
	{"prices overlap", `SELECT 'prices ' || a.id || ' and ' || b.id || ' of offer ' || a.offer_id || ' overlap'
		FROM prices a JOIN prices b ON a.offer_id = b.offer_id AND a.id < b.id
		WHERE a.valid_from < COALESCE(b.valid_to, '9999') AND b.valid_from < COALESCE(a.valid_to, '9999')`},
	{"more than one open price", `SELECT 'offer ' || offer_id || ': ' || COUNT(*) || ' open prices'
		FROM prices WHERE valid_to IS NULL GROUP BY offer_id HAVING COUNT(*) > 1`},
	{"availability ends before it starts", `SELECT 'availability ' || id || ': until ' || until || ' before since ' || since
		FROM availability WHERE until IS NOT NULL AND until < since`},
	{"availability seen before it starts", `SELECT 'availability ' || id || ': last_seen ' || last_seen || ' before since ' || since
		FROM availability WHERE last_seen < since`},
	{"availability overlaps", `SELECT 'availability ' || a.id || ' and ' || b.id || ' overlap'
		FROM availability a JOIN availability b ON a.provider = b.provider AND a.region = b.region AND a.zone = b.zone
		AND a.instance_type = b.instance_type AND a.id < b.id
		WHERE a.since < COALESCE(b.until, '9999') AND b.since < COALESCE(a.until, '9999')`},
	{"more than one open availability", `SELECT 'availability of ' || provider || ' ' || region || ' ' || zone || ' ' || instance_type || ': ' || COUNT(*) || ' open'
		FROM availability WHERE until IS NULL GROUP BY provider, region, zone, instance_type HAVING COUNT(*) > 1`},
}

// IntervalViolations checks the invariants of the stored history: no
// interval ends before it starts, none is seen outside itself, intervals of
// one offer or place never overlap, and each has at most one open interval.
// It returns one line per violation (none: the history is sound).
func (db *DB) IntervalViolations(ctx context.Context) ([]string, error) {
	var out []string
	for _, c := range intervalChecks {
		rows, err := db.read.QueryContext(ctx, c.query)
		if err != nil {
			return nil, fmt.Errorf("checking %s: %w", c.name, err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return nil, fmt.Errorf("checking %s: %w", c.name, err)
			}
			out = append(out, c.name+": "+s)
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("checking %s: %w", c.name, err)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("checking %s: %w", c.name, err)
		}
	}
	return out, nil
}
