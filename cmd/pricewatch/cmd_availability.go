package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/storage"
)

func (a *app) availabilityCommand() *cobra.Command {
	var (
		gpuFilter string
		all       bool
		format    string
		providers []string
		regions   []string
	)
	cmd := &cobra.Command{
		Use:   "availability [INSTANCE_TYPE]",
		Short: "List where each GPU type is offered (or in stock) now, and since when",
		Example: `  pricewatch availability --gpu H100
  pricewatch availability HCCPNV5.24XLARGE384 --all`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			db, err := a.openReader(cmd.Context())
			if err != nil {
				return err
			}
			// --gpu is matched as compare does (A100 covers A100-40GB and
			// A100-80GB), not by exact name in SQL.
			f := storage.AvailabilityFilter{All: all, Providers: providers, Regions: regions}
			if len(args) == 1 {
				f.InstanceType = args[0]
			}
			rows, err := db.Availability(cmd.Context(), f)
			if err != nil {
				return err
			}
			if gpuFilter != "" {
				kept := rows[:0]
				for _, r := range rows {
					if gpu.Matches(gpuFilter, r.GPUModel) {
						kept = append(kept, r)
					}
				}
				rows = kept
			}
			return writeAvailability(a.stdout, format, rows)
		},
	}
	cmd.Flags().StringVar(&gpuFilter, "gpu", "", "only this GPU model or family (H100, A100 for any A100, A100-80GB, …)")
	cmd.Flags().BoolVar(&all, "all", false, "include closed intervals (withdrawn, or a stock state that ended)")
	cmd.Flags().StringSliceVar(&providers, "provider", nil, "only this provider; repeatable")
	cmd.Flags().StringSliceVar(&regions, "region", nil, "only this region; repeatable")
	cmd.Flags().StringVar(&format, "format", formatTable, "output format: table, json or csv")
	return cmd
}

// availabilityRow is the JSON shape scripts rely on; keep the names.
type availabilityRow struct {
	Provider     string  `json:"provider"`
	Region       string  `json:"region"`
	Zone         string  `json:"zone"`
	InstanceType string  `json:"instance_type"`
	GPUModel     string  `json:"gpu_model"`
	GPUCount     float64 `json:"gpu_count"`
	State        string  `json:"state"`
	Since        any     `json:"since"`
	Until        any     `json:"until"`
}

func writeAvailability(w io.Writer, format string, rows []storage.AvailabilityInterval) error {
	switch format {
	case formatJSON:
		out := make([]availabilityRow, 0, len(rows))
		for _, r := range rows {
			since := r.Since
			out = append(out, availabilityRow{Provider: r.Provider, Region: r.Region, Zone: r.Zone, InstanceType: r.InstanceType,
				GPUModel: r.GPUModel, GPUCount: r.GPUCount, State: string(r.State),
				Since: jsonTime(&since), Until: jsonTime(r.Until)})
		}
		return writeJSON(w, out)
	case formatCSV:
		var out [][]string
		for _, r := range rows {
			until := ""
			if r.Until != nil {
				until = r.Until.UTC().Format(time.RFC3339)
			}
			out = append(out, []string{r.Provider, r.Region, r.Zone, r.InstanceType, r.GPUModel, formatFloat(r.GPUCount), string(r.State), r.StockDetail,
				r.Since.UTC().Format(time.RFC3339), until})
		}
		return writeCSV(w, []string{"provider", "region", "zone", "instance_type", "gpu_model", "gpu_count", "state", "stock_detail", "since", "until"}, out)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "Nothing offered matches (has `pricewatch fetch` run?).")
		return err
	}
	t := newTable("PROVIDER", "REGION", "ZONE", "INSTANCE TYPE", "GPU", "STATE", "SINCE", "UNTIL")
	for _, r := range rows {
		until := "-"
		if r.Until != nil {
			until = r.Until.UTC().Format("2006-01-02 15:04")
		}
		t.add(r.Provider, r.Region, dash(r.Zone), r.InstanceType, fmt.Sprintf("%s×%s", formatFloat(r.GPUCount), r.GPUModel),
			string(r.State), r.Since.UTC().Format("2006-01-02 15:04"), until)
	}
	return t.write(w)
}
