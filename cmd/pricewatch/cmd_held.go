package main

import (
	"context"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/storage"
)

func (a *app) heldCommand() *cobra.Command {
	var format, since string
	var providers []string
	cmd := &cobra.Command{
		Use:   "held",
		Short: "List prices the guard held back as implausible: where, when and why",
		Long: `Held lists the prices the guard (guard.* in the config) did not store because
they lie far outside what the same GPU costs: below guard.floor_per_gpu_hour,
or at most 1/guard.implausible_ratio of the offer's stored price and of every
comparable offer. The stored price stayed current meanwhile. A price held in
guard.accept_after_runs consecutive complete runs is accepted and shows its
acceptance time. Newest first.`,
		Example: `  pricewatch held
  pricewatch held --provider azure --since 7d --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f := storage.HeldFilter{Providers: providers}
			if since != "" {
				t, err := parseSince(since, clock())
				if err != nil {
					return err
				}
				f.Since = t
			}
			return onDB(cmd.Context(), a.openReader, func(ctx context.Context, db *storage.DB) error {
				recs, err := db.HeldPrices(ctx, f)
				if err != nil {
					return err
				}
				return writeHeld(a.stdout, format, recs)
			})
		},
	}
	formatFlag(cmd, &format, "output format: table, json or csv")
	providerFlag(cmd, &providers, "only this provider")
	cmd.Flags().StringVar(&since, "since", "", "only holds seen since (30d, 2026-01-01)")
	return cmd
}

// heldRow is the JSON shape of `pricewatch held`; keep the names.
type heldRow struct {
	pricewatch.OfferKeyJSON
	GPUModel        string          `json:"gpu_model"`
	GPUCount        float64         `json:"gpu_count"`
	Currency        string          `json:"currency"`
	HourlyPrice     jsonDecimal     `json:"hourly_price"`
	Upfront         jsonDecimal     `json:"upfront"`
	EffectiveHourly jsonDecimal     `json:"effective_hourly"`
	StoredEffective jsonNullDecimal `json:"stored_effective_hourly"`
	Reason          string          `json:"reason"`
	Detail          string          `json:"detail"`
	FirstSeen       any             `json:"first_seen"`
	LastSeen        any             `json:"last_seen"`
	Runs            int             `json:"runs"`
	FirstRunID      int64           `json:"first_run_id"`
	LastRunID       int64           `json:"last_run_id"`
	AcceptedAt      any             `json:"accepted_at"`
}

func writeHeld(w io.Writer, format string, recs []storage.HeldRecord) error {
	rows := make([]heldRow, 0, len(recs))
	for _, r := range recs {
		rows = append(rows, heldRow{
			OfferKeyJSON: r.Key().JSON(), GPUModel: r.GPUModel, GPUCount: r.GPUCount,
			Currency: r.Currency, HourlyPrice: jsonDecimal(r.Hourly), Upfront: jsonDecimal(r.Upfront), EffectiveHourly: jsonDecimal(r.EffectiveHourly),
			StoredEffective: nullDecimal(r.Stored.Decimal, r.Stored.Valid), Reason: r.Reason, Detail: r.Detail,
			FirstSeen: jsonTime(&r.FirstSeen), LastSeen: jsonTime(&r.LastSeen), Runs: r.Runs, FirstRunID: r.FirstRunID, LastRunID: r.LastRunID,
			AcceptedAt: jsonTime(r.AcceptedAt),
		})
	}
	stored := func(r storage.HeldRecord) string {
		if !r.Stored.Valid {
			return ""
		}
		return r.Stored.Decimal.String()
	}
	if done, err := writeUnlessTable(w, format, rows, "No price has been held."); done {
		return err
	}
	t := table.New("PROVIDER", "REGION", "INSTANCE TYPE", "PRICE", ">HELD", ">STORED", "FIRST SEEN", "LAST SEEN", ">RUNS", "STATE", "WHY")
	for i, r := range rows {
		where := pricewatch.Place(r.Region, r.Zone)
		price := r.HowBought()
		if r.OS != "" && r.OS != "linux" {
			price += " " + r.OS
		}
		state := "held"
		if r.AcceptedAt != nil {
			state = "accepted " + tableTime(r.AcceptedAt)
		}
		t.Add(r.Provider, where, r.InstanceType, price, recs[i].EffectiveHourly.String()+" "+r.Currency, dash(stored(recs[i])),
			tableTime(r.FirstSeen), tableTime(r.LastSeen), strconv.Itoa(r.Runs), state, r.Detail)
	}
	return writeTable(w, t)
}
