// Package datasetflags is export's --dataset, --since and --until: the
// dataset to write and, for the SKU Price dataset, its window. It lives
// beside the binary, not in it, as buyflags does, to keep the command line
// within its size.
package datasetflags

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/pricesheet"
)

// Flags are the flags' values and, once the command's flags are checked,
// the window they give.
type Flags struct {
	Dataset, Since, Until string
	Window                pricesheet.Window
}

// SKUPriceWindow is the SKU Price dataset's window when it was asked
// for, else nil (the price sheet).
func (f *Flags) SKUPriceWindow() *pricesheet.Window {
	if f.Dataset != pricesheet.SKUPriceDataset {
		return nil
	}
	return &f.Window
}

// Add registers the flags on cmd and checks them before cmd runs (a usage
// error, before the store is opened); focusCSVNow says whether the other
// flags ask a FOCUS CSV without --at, the only form of the SKU Price
// dataset.
func Add(cmd *cobra.Command, f *Flags, focusCSVNow func() bool) {
	cmd.Flags().StringVar(&f.Dataset, "dataset", "price-sheet", "price-sheet (the prices at a time) or sku-price (every stored price interval, FOCUS draft SKU Price: docs/focus.md)")
	cmd.Flags().StringVar(&f.Since, "since", "", "sku-price: intervals in force since a duration ago (30d) or a date (default all)")
	cmd.Flags().StringVar(&f.Until, "until", "", "sku-price: intervals begun before this duration ago or date (default now)")
	next := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		w, err := pricesheet.ParseWindow(f.Dataset, focusCSVNow(), f.Since, f.Until, time.Now())
		if err != nil {
			return err
		}
		f.Window = w
		if next != nil {
			return next(c, args)
		}
		return nil
	}
}
