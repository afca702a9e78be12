package main

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/storage"
)

// formatsOf lists the --format values each command accepts, for
// completion; commands not listed take table, json and csv.
var formatsOf = map[string][]string{
	"pricewatch digest":       {formatTable, "text", formatMarkdown, formatJSON, formatSlack},
	"pricewatch export":       {formatFocusCSV, formatCSV, formatJSONL},
	"pricewatch alerts rules": {formatTable, formatJSON},
}

// commonCurrencies are offered for --currency beside those stored: the
// clouds' own currencies and the ECB's most asked-for ones.
var commonCurrencies = []string{"USD", "EUR", "CNY", "GBP", "JPY", "INR", "CHF", "AUD", "CAD", "KRW", "SGD"}

// addCompletions registers shell completion for flag values (--format,
// --price-type, --provider, --currency, --os, --seller, and --gpu, --region from
// the database) and for instance-type arguments (from the database), on
// cmd and every subcommand.
func (a *app) addCompletions(cmd *cobra.Command) {
	static := func(vals ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return vals, cobra.ShellCompDirectiveNoFileComp
		}
	}
	stored := func(pick func(storage.Names) []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
			return a.storedNames(c, prefix, pick), cobra.ShellCompDirectiveNoFileComp
		}
	}
	register := func(name string, fn func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)) {
		if cmd.Flags().Lookup(name) != nil && cmd.LocalFlags().Lookup(name) != nil {
			_ = cmd.RegisterFlagCompletionFunc(name, fn)
		}
	}
	formats, ok := formatsOf[cmd.CommandPath()]
	if !ok {
		formats = []string{formatTable, formatJSON, formatCSV}
	}
	register("format", static(formats...))
	register("price-type", static("on_demand", "spot", "reserved", "savings_plan", "capacity_block", "any"))
	register("provider", static(providerNames...))
	register("os", static("linux", "windows", "any"))
	var sellers []string
	for _, s := range analysis.Sellers {
		sellers = append(sellers, string(s))
	}
	register("seller", static(sellers...))
	register("currency", func(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		return a.currencies(c), cobra.ShellCompDirectiveNoFileComp
	})
	register("gpu", stored(func(n storage.Names) []string { return gpuFilters(n.GPUModels) }))
	register("region", stored(func(n storage.Names) []string { return n.Regions }))
	if strings.Contains(cmd.Use, "INSTANCE_TYPE") && cmd.ValidArgsFunction == nil {
		cmd.ValidArgsFunction = func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return a.storedNames(c, prefix, func(n storage.Names) []string { return n.InstanceTypes }), cobra.ShellCompDirectiveNoFileComp
		}
	}
	for _, sub := range cmd.Commands() {
		a.addCompletions(sub)
	}
}

// storedNames reads names from the database the config names, filtered by
// prefix (ignoring case); nothing when there is no database yet.
func (a *app) storedNames(c *cobra.Command, prefix string, pick func(storage.Names) []string) []string {
	db, ctx, err := a.completionDB(c)
	if err != nil {
		return nil
	}
	names, err := db.StoredNames(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range pick(names) {
		if strings.HasPrefix(strings.ToLower(n), strings.ToLower(prefix)) {
			out = append(out, n)
		}
	}
	return out
}

// currencies are the stored rates' currencies and the common ones.
func (a *app) currencies(c *cobra.Command) []string {
	out := slices.Clone(commonCurrencies)
	if db, ctx, err := a.completionDB(c); err == nil {
		if days, err := db.FXDays(ctx); err == nil && len(days) > 0 {
			for cur := range days[len(days)-1].PerEUR {
				if !slices.Contains(out, cur) {
					out = append(out, cur)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// gpuFilters are the stored models and the families they belong to (H100
// for H100-NVL), as --gpu accepts them.
func gpuFilters(models []string) []string {
	var out []string
	for _, m := range models {
		out = append(out, m)
		if fam, _, ok := strings.Cut(m, "-"); ok && gpu.Matches(fam, m) && !slices.Contains(out, fam) {
			out = append(out, fam)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// completionDB opens the database for a completion. The completion
// command's own setup read the config before the completed command line's
// --config was parsed, so the config is looked up again here.
func (a *app) completionDB(c *cobra.Command) (*storage.DB, context.Context, error) {
	ctx := c.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if a.cfg == nil || config.Find(a.configFlag) != a.configFound {
		if a.db != nil {
			a.db.Close()
			a.db = nil
		}
		if err := a.loadConfig(); err != nil {
			return nil, ctx, err
		}
	}
	db, err := a.openReader(ctx)
	return db, ctx, err
}
