package main

import (
	"context"
	"slices"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/azure"
	"github.com/pricewatch/pricewatch/storage"
)

// providerNames in the order a cycle runs them.
var providerNames = []string{"aws", "azure", "alibaba", "tencent"}

// buildJobs builds the enabled providers' fetchers (only those named, when
// only is not empty). Adding a cloud means adding its case here.
func (a *app) buildJobs(only []string) ([]providerJob, error) {
	cfg := a.cfg.Providers
	var jobs []providerJob
	want := func(name string, enabled bool) bool {
		if len(only) > 0 {
			return slices.Contains(only, name)
		}
		return enabled
	}
	client := fetchers.NewClient(fetchers.DefaultRetryPolicy())
	if want("azure", cfg.Azure.Enabled) {
		f, err := azure.New(azure.Config{Endpoint: cfg.Azure.Endpoint, Regions: cfg.Azure.Regions, Windows: cfg.Azure.Windows}, client, a.log.Named("azure"))
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, providerJob{name: "azure", fetcher: f, timeout: cfg.Azure.Timeout, schedule: cfg.Azure.Schedule})
	}
	return jobs, nil
}

// saveOptions are the storage settings every run uses.
func (a *app) saveOptions() storage.SaveOptions {
	return storage.SaveOptions{
		MinOfferRatio:     a.cfg.Fetch.MinOfferRatio,
		WithdrawAfterRuns: a.cfg.Alerts.WithdrawAfterRuns,
	}
}

// afterCycle runs once after every provider of a cycle has been fetched.
func (a *app) afterCycle(ctx context.Context, db *storage.DB) {}
