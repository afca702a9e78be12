package main

import (
	"context"
	"fmt"
	providerrun "github.com/pricewatch/pricewatch/run"
	"io"
	"os"

	"golang.org/x/term"

	"go.uber.org/zap"
	"slices"

	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/guard"
	"github.com/pricewatch/pricewatch/hardware"
	"github.com/pricewatch/pricewatch/providers"
	"github.com/pricewatch/pricewatch/storage"
)

// providerNames in the order a cycle runs them (the registry's).
var providerNames = providers.Names()

// buildJobs builds the enabled providers' fetchers (only those named, when
// only is not empty), asking the registry: each provider's package builds
// its fetcher from its own config section.
func (a *app) buildJobs(only []string) ([]providerJob, error) {
	policy := fetchers.DefaultRetryPolicy()
	policy.MaxRetryAfter = a.cfg.Fetch.MaxRetryAfter
	client := fetchers.NewClient(policy)
	client.Log = a.log.Named("http")
	var jobs []providerJob
	for _, p := range providers.All() {
		sec := a.cfg.Providers.Section(p.Name)
		shared := sec.Shared()
		if len(only) > 0 && !slices.Contains(only, p.Name) || len(only) == 0 && !shared.Enabled {
			continue
		}
		f, err := p.New(sec, fetchers.Env{Client: client, Log: a.log.Named(p.Name), Now: clock, Progress: a.progress(), AddSecrets: a.addSecrets})
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, providerJob{Job: providerrun.Job{Name: p.Name, Fetcher: f, Timeout: shared.Timeout}, schedule: shared.Schedule})
	}
	g, err := guard.New(a.cfg.Guard, a.log.Named("guard"))
	if err != nil {
		return nil, err
	}
	// Every job applies the same hardware.overrides; jobs are rebuilt on
	// a reload, so a changed override takes effect from the next run.
	overrides := hardware.NewOverrides(a.cfg.Hardware)
	for i := range jobs {
		jobs[i].Guard = g
		jobs[i].Hardware = overrides
		jobs[i].LeaseWait = a.cfg.Fetch.LeaseWait
		jobs[i].Scrub = a.redactor
	}
	return jobs, nil
}

// addSecrets adds configured secret values to the app's one secret set,
// which its redactor masks. The set only grows, and the redactor is told
// only when a value is new, so that an app whose secrets were all read up
// front (a daemon snapshot, see buildState) is never written again.
func (a *app) addSecrets(s ...config.Secret) {
	vals := make([]string, 0, len(s))
	for _, v := range s {
		if !v.Empty() {
			vals = append(vals, v.Value())
		}
	}
	a.addSecretValues(vals...)
}

func (a *app) addSecretValues(vals ...string) {
	grown := false
	for _, v := range vals {
		if v != "" && !slices.Contains(a.secretValues, v) {
			a.secretValues = append(a.secretValues, v)
			grown = true
		}
	}
	if grown {
		a.redactor.SetSecrets(a.secretValues...)
	}
}

// saveOptions are the storage settings every run uses.
func (a *app) saveOptions() storage.SaveOptions {
	return storage.SaveOptions{
		MinOfferRatio:     a.cfg.Fetch.MinOfferRatio,
		WithdrawAfterRuns: a.cfg.Alerts.WithdrawAfterRuns,
		Outbox:            a.alertOutbox(),
		ConfirmChangePct:  a.cfg.Alerts.ConfirmChangePct,
	}
}

// afterCycle runs once after the providers of a cycle have been fetched:
// it refreshes exchange rates (a failure there is reported, never fatal:
// stored rates and the fixed fallback still apply, flagged when stale).
func (a *app) afterCycle(ctx context.Context, db *storage.DB) []string {
	var lines []string
	if a.cfg.FX.Enabled && ctx.Err() == nil {
		line, err := a.updateFX(ctx, db)
		if err != nil {
			a.log.Warn("exchange rates not updated", zap.Error(err))
			line = fmt.Sprintf("%-8s failed   %v (stored rates still apply)", "fx", err)
		}
		lines = append(lines, line)
	}
	return lines
}

// progress is where long downloads report bytes and rate: the terminal
// when stderr is one (a person is waiting), else nowhere (logs say enough).
func (a *app) progress() io.Writer {
	if f, ok := a.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return f
	}
	return nil
}

// providerJob is a provider run and the daemon's schedule for it.
type providerJob struct {
	providerrun.Job
	schedule string
}
