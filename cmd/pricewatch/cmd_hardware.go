package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/hardware"
	"github.com/pricewatch/pricewatch/internal/table"
	"github.com/pricewatch/pricewatch/storage"
)

func (a *app) hardwareCommand() *cobra.Command {
	return group("hardware", "Inspect the GPU hardware pricewatch stored for each instance type", "", a.hardwareUnknownCommand())
}

func (a *app) hardwareUnknownCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "unknown",
		Short: "List stored types whose GPU is unknown or not in the catalogue, with the hardware.overrides entry that would fix each",
		Example: `  pricewatch hardware unknown
  pricewatch hardware unknown --format json`,
		Args: cobra.NoArgs,
		RunE: withDB(a.openReader, func(ctx context.Context, db *storage.DB) error {
			stored, err := db.CurrentHardware(ctx)
			if err != nil {
				return err
			}
			types := make([]hardware.Stored, len(stored))
			for i, s := range stored {
				types[i] = hardware.Stored{Provider: s.Provider, InstanceType: s.InstanceType, Hardware: s.Hardware, Regions: s.Regions}
			}
			return writeUnknownHardware(a.stdout, format, hardware.Unknown(types))
		}),
	}
	formatFlag(cmd, &format, "output format: table, json or csv")
	return cmd
}

// writeUnknownHardware prints the report. JSON keys: provider,
// instance_type, gpu_model, gpu_count, gpu_memory_gb, regions, problem,
// override.
func writeUnknownHardware(w io.Writer, format string, rows []hardware.Entry) error {
	if done, err := writeUnlessTable(w, format, rows, "Every stored instance type has a GPU from the catalogue."); done {
		return err
	}
	t := table.New("PROVIDER", "INSTANCE TYPE", "GPU", "COUNT", "GB/GPU", "REGIONS", "PROBLEM")
	for _, r := range rows {
		// Escaped: stored names must not drive the terminal (issue 20 item 8).
		p := pricewatch.Printable
		t.Add(p(r.Provider), p(r.InstanceType), p(dash(r.GPUModel)), clitext.Float(r.GPUCount), clitext.Float(r.GPUMemoryGB), fmt.Sprint(r.Regions), r.Problem)
	}
	if err := writeTable(w, t); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\nTo fix them, add to the config (and check each value):\n\nhardware:\n  overrides:\n")
	for _, r := range rows {
		for _, line := range strings.Split(strings.TrimRight(r.Override, "\n"), "\n") {
			b.WriteString("    " + line + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
