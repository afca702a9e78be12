package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/storage"
)

func (a *app) dbCommand() *cobra.Command {
	var format string
	stats := &cobra.Command{
		Use:   "stats",
		Short: "Show the database's size per table, its intervals and its oldest data",
		Args:  cobra.NoArgs,
		RunE: withDB(a.openDB, func(ctx context.Context, db *storage.DB) error {
			st, err := db.Stats(ctx)
			if err != nil {
				return err
			}
			if format == formatJSON {
				return writeJSON(a.stdout, st)
			}
			return writeDBStats(a.stdout, st)
		}),
	}
	formatFlag(stats, &format, "table or json", formatTable, formatJSON)
	vacuum := &cobra.Command{
		Use:   "vacuum",
		Short: "Rebuild the database file without free pages and truncate the WAL",
		Long: `Rebuild the database file without its free pages (space left by pruned
changes or thinned spot history) and truncate the WAL. It needs free disk
space about the size of the database and blocks writers while it runs; the
daemon's fetches wait for it (database.busy_timeout) or fail and retry at
their next tick.`,
		Args: cobra.NoArgs,
		RunE: withDB(a.openDB, func(ctx context.Context, db *storage.DB) error {
			before, err := db.Stats(ctx)
			if err != nil {
				return err
			}
			began := time.Now()
			if err := db.Vacuum(ctx); err != nil {
				return err
			}
			after, err := db.Stats(ctx)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Vacuumed %s in %s: %s → %s (WAL %s → %s).\n", db.Path(), time.Since(began).Round(time.Millisecond),
				megabytes(before.FileBytes), megabytes(after.FileBytes), megabytes(before.WALBytes), megabytes(after.WALBytes))
			return nil
		}),
	}
	var to string
	cp := &cobra.Command{
		Use:   "copy --to <postgres://… | SQLite file>",
		Short: "Copy the whole history into another database (SQLite ↔ PostgreSQL), verified, resumable",
		Long: `Copy every table into the database --to names (empty, or a copy this command
left unfinished, which it continues), then compare row counts and checksums.
Stop the daemon first. A password is best left to PGPASSWORD or ~/.pgpass.`,
		Args: cobra.NoArgs,
		RunE: withDB(a.openDB, func(ctx context.Context, db *storage.DB) error {
			dst, err := storage.OpenURL(ctx, to, storage.Options{BusyTimeout: a.cfg.Database.BusyTimeout})
			if err != nil {
				return err
			}
			defer dst.Close()
			tables, err := storage.Copy(ctx, db, dst, storage.CopyOptions{Progress: func(m string) { fmt.Fprintln(a.stderr, m) }})
			for _, t := range tables {
				fmt.Fprintf(a.stdout, "%-16s %9d rows (%d copied now)  sha256 %.16s\n", t.Name, t.Rows, t.Copied, t.Checksum)
			}
			return err
		}),
	}
	cp.Flags().StringVar(&to, "to", "", "the destination: a postgres:// URL or an SQLite file")
	_ = cp.MarkFlagRequired("to")
	return group("db", "Inspect, compact and copy the database", "", stats, vacuum, cp)
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func writeDBStats(w io.Writer, st storage.Stats) error {
	fmt.Fprintf(w, "Database %s: %s (%d pages of %d bytes, %d free), WAL %s\n\n", st.Path, megabytes(st.FileBytes),
		st.Pages, st.PageSize, st.FreePages, megabytes(st.WALBytes))
	t := table.New("TABLE", ">ROWS", ">DATA")
	for _, ts := range st.Tables {
		t.Add(ts.Name, fmt.Sprint(ts.Rows), megabytes(ts.PayloadBytes))
	}
	if err := writeTable(w, t); err != nil {
		return err
	}
	when := func(p *time.Time) string {
		if p == nil {
			return "none"
		}
		return p.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(w, "\nPrice intervals: %d (%d current) over %d offers; availability intervals: %d; runs: %d\n",
		st.PriceIntervals, st.CurrentPrices, st.Offers, st.AvailabilityRows, st.Runs)
	fmt.Fprintf(w, "Oldest price: %s; oldest change: %s; runs from %s to %s\n",
		when(st.OldestPrice), when(st.OldestChange), when(st.OldestRun), when(st.NewestRun))
	fmt.Fprintln(w, "DATA is the bytes of the stored values, without indexes and page overhead.")
	return nil
}
