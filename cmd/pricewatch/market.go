package main

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/storage"
)

// scopeFlags are the flags every analysis command shares: which offers, in
// which currency, printed how, as of when.
type scopeFlags struct {
	providers []string
	regions   []string
	os        string
	currency  string
	format    string
	now       string
}

func addScopeFlags(cmd *cobra.Command, f *scopeFlags, currencyHelp string) {
	cmd.Flags().StringVar(&f.currency, "currency", "", currencyHelp+" (default fx.currency from the config)")
	cmd.Flags().StringSliceVar(&f.providers, "provider", nil, "only this provider (aws, azure, alibaba, tencent); repeatable")
	cmd.Flags().StringSliceVar(&f.regions, "region", nil, "only this region code; repeatable")
	cmd.Flags().StringVar(&f.os, "os", "", "operating system: linux (default), windows or any")
	cmd.Flags().StringVar(&f.format, "format", formatTable, "output format: table, json or csv")
	addNowFlag(cmd, &f.now)
}

// market is what an analysis command computes over: the database, the
// exchange rates, the target currency and the time of the question.
type market struct {
	db       *storage.DB
	now      time.Time
	currency string
	fx       *fx.Book
	scope    scopeFlags
}

// openMarket checks the shared flags and opens the database and the rates.
func (a *app) openMarket(ctx context.Context, f scopeFlags) (*market, error) {
	if err := checkFormat(f.format); err != nil {
		return nil, err
	}
	if err := checkOS(f.os); err != nil {
		return nil, err
	}
	now, err := evalTime(f.now)
	if err != nil {
		return nil, err
	}
	currency, err := a.targetCurrency(f.currency)
	if err != nil {
		return nil, err
	}
	db, err := a.openDB(ctx)
	if err != nil {
		return nil, err
	}
	book, err := a.fxBook(ctx, db)
	if err != nil {
		return nil, err
	}
	return &market{db: db, now: now, currency: currency, fx: book, scope: f}, nil
}

// offers are the current prices in scope.
func (m *market) offers(ctx context.Context) ([]pricewatch.Offer, error) {
	return currentOffers(ctx, m.db, m.scope.providers, m.scope.regions, m.scope.os)
}

// offersOfGPU are the current prices in scope of one GPU model or family
// (every GPU when gpu is empty), filtered in SQL.
func (m *market) offersOfGPU(ctx context.Context, gpu string) ([]pricewatch.Offer, error) {
	models, err := storedGPUModels(ctx, m.db, gpu)
	if err != nil {
		return nil, err
	}
	return loadCurrentOffers(ctx, m.db, storage.PriceFilter{Providers: m.scope.providers, Regions: m.scope.regions,
		OS: sqlOS(m.scope.os), GPUModels: models, CurrentOnly: true})
}

// offersOfType are the current prices in scope of one instance type.
func (m *market) offersOfType(ctx context.Context, instanceType string) ([]pricewatch.Offer, error) {
	return loadCurrentOffers(ctx, m.db, storage.PriceFilter{Providers: m.scope.providers, Regions: m.scope.regions,
		OS: sqlOS(m.scope.os), InstanceType: instanceType, CurrentOnly: true})
}

// storedGPUModels resolves a GPU model or family ("A100" covers A100-40GB
// and A100-80GB, with analysis.MatchGPU's spellings) to the models stored
// on offers, so that SQL can filter by them; nil when gpu is empty (every
// model), empty when nothing matches.
func storedGPUModels(ctx context.Context, db *storage.DB, gpu string) ([]string, error) {
	if strings.TrimSpace(gpu) == "" {
		return nil, nil
	}
	all, err := db.GPUModels(ctx)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, m := range all {
		if analysis.MatchGPU(gpu, m) {
			out = append(out, m)
		}
	}
	return out, nil
}

func loadCurrentOffers(ctx context.Context, db *storage.DB, f storage.PriceFilter) ([]pricewatch.Offer, error) {
	var out []pricewatch.Offer
	err := db.EachPrice(ctx, f, func(p *storage.PriceInterval) error {
		out = append(out, p.Offer)
		return nil
	})
	return out, err
}

// availability is the current availability in scope.
func (m *market) availability(ctx context.Context) ([]pricewatch.Availability, error) {
	return currentAvailability(ctx, m.db, m.scope.providers, m.scope.regions)
}
