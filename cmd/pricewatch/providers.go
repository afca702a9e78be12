package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"go.uber.org/zap"
	"slices"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/alibaba"
	"github.com/pricewatch/pricewatch/fetchers/aws"
	"github.com/pricewatch/pricewatch/fetchers/azure"
	"github.com/pricewatch/pricewatch/fetchers/lambda"
	"github.com/pricewatch/pricewatch/fetchers/oci"
	"github.com/pricewatch/pricewatch/fetchers/runpod"
	"github.com/pricewatch/pricewatch/fetchers/tencent"
	"github.com/pricewatch/pricewatch/fetchers/vastai"
	"github.com/pricewatch/pricewatch/guard"
	"github.com/pricewatch/pricewatch/hardware"
	"github.com/pricewatch/pricewatch/providers"
	"github.com/pricewatch/pricewatch/storage"
)

// providerNames in the order a cycle runs them (the registry's).
var providerNames = providers.Names()

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
	policy := fetchers.DefaultRetryPolicy()
	policy.MaxRetryAfter = a.cfg.Fetch.MaxRetryAfter
	client := fetchers.NewClient(policy)
	client.Log = a.log.Named("http")
	if want("aws", cfg.AWS.Enabled) {
		c := cfg.AWS
		f, err := aws.New(aws.Config{Endpoint: c.Endpoint, SpotEndpoint: c.SpotEndpoint, Regions: c.Regions,
			Spot: c.SpotEnabled, SavingsPlans: c.SavingsPlans, Progress: a.progress(), Now: clock}, client, a.log.Named("aws"))
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, providerJob{name: "aws", fetcher: f, timeout: c.Timeout, schedule: c.Schedule})
	}
	if want("azure", cfg.Azure.Enabled) {
		f, err := azure.New(azure.Config{Endpoint: cfg.Azure.Endpoint, Regions: cfg.Azure.Regions, Windows: cfg.Azure.Windows, Now: clock}, client, a.log.Named("azure"))
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, providerJob{name: "azure", fetcher: f, timeout: cfg.Azure.Timeout, schedule: cfg.Azure.Schedule})
	}
	if want("alibaba", cfg.Alibaba.Enabled) {
		c := cfg.Alibaba
		var f fetchers.Fetcher
		id, secret, err := alibaba.CredentialsFrom(c.AccessKeyIDFile, c.AccessKeySecretFile)
		if err == nil {
			a.addSecrets(id, secret)
			f, err = alibaba.New(alibaba.Config{Endpoint: c.Endpoint, Regions: c.Regions, AccessKeyID: id, AccessKeySecret: secret,
				MaxPriceCalls: c.MaxPriceCalls, Concurrency: c.Concurrency}, a.log.Named("alibaba"))
		}
		if f, err = skipWithoutCredentials(pricewatch.Alibaba, f, err); err != nil {
			return nil, err
		}
		jobs = append(jobs, providerJob{name: "alibaba", fetcher: f, timeout: c.Timeout, schedule: c.Schedule})
	}
	if want("tencent", cfg.Tencent.Enabled) {
		c := cfg.Tencent
		var f fetchers.Fetcher
		id, key, err := tencent.CredentialsFrom(c.SecretIDFile, c.SecretKeyFile)
		if err == nil {
			a.addSecrets(id, key)
			f, err = tencent.New(tencent.Config{Endpoint: c.Endpoint, Regions: c.Regions, SecretID: id, SecretKey: key, Currency: c.Currency,
				ImageID: c.ImageID, MaxPriceCalls: c.MaxPriceCalls, Concurrency: c.Concurrency}, a.log.Named("tencent"))
		}
		if f, err = skipWithoutCredentials(pricewatch.Tencent, f, err); err != nil {
			return nil, err
		}
		jobs = append(jobs, providerJob{name: "tencent", fetcher: f, timeout: c.Timeout, schedule: c.Schedule})
	}
	if want(pricewatch.Lambda, cfg.Lambda.Enabled) {
		c := cfg.Lambda
		var f fetchers.Fetcher
		key, err := lambda.APIKeyFrom(c.APIKeyFile)
		if err == nil {
			a.addSecrets(key)
			f, err = lambda.New(lambda.Config{Endpoint: c.Endpoint, APIKey: key}, client, a.log.Named("lambda"))
		}
		if f, err = skipWithoutCredentials(pricewatch.Lambda, f, err); err != nil {
			return nil, err
		}
		jobs = append(jobs, providerJob{name: pricewatch.Lambda, fetcher: f, timeout: c.Timeout, schedule: c.Schedule})
	}
	if want(pricewatch.RunPod, cfg.RunPod.Enabled) {
		c := cfg.RunPod
		// The key is optional: RunPod answers the price query without one.
		key, err := runpod.APIKeyFrom(c.APIKeyFile)
		if err != nil {
			return nil, err
		}
		a.addSecrets(key)
		f, err := runpod.New(runpod.Config{Endpoint: c.Endpoint, APIKey: key}, client, a.log.Named("runpod"))
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, providerJob{name: pricewatch.RunPod, fetcher: f, timeout: c.Timeout, schedule: c.Schedule})
	}
	if want(pricewatch.VastAI, cfg.VastAI.Enabled) {
		c := cfg.VastAI
		f, err := vastai.New(vastai.Config{Endpoint: c.Endpoint, GPUModels: c.GPUModels, MaxPages: c.MaxPages,
			RequestInterval: requestInterval(c.RequestInterval)}, client, a.log.Named("vastai"))
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, providerJob{name: pricewatch.VastAI, fetcher: f, timeout: c.Timeout, schedule: c.Schedule})
	}
	if want(pricewatch.OCI, cfg.OCI.Enabled) {
		f, err := oci.New(oci.Config{Endpoint: cfg.OCI.Endpoint}, client, a.log.Named("oci"))
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, providerJob{name: pricewatch.OCI, fetcher: f, timeout: cfg.OCI.Timeout, schedule: cfg.OCI.Schedule})
	}
	g, err := guard.New(a.cfg.Guard, a.log.Named("guard"))
	if err != nil {
		return nil, err
	}
	// Every job applies the same hardware.overrides; jobs are rebuilt on
	// a reload, so a changed override takes effect from the next run.
	overrides := hardware.NewOverrides(a.cfg.Hardware)
	for i := range jobs {
		jobs[i].guard = g
		jobs[i].hardware = overrides
		jobs[i].leaseWait = a.cfg.Fetch.LeaseWait
		jobs[i].scrub = a.redactor
	}
	return jobs, nil
}

// requestInterval maps the config's 0 ("no spacing") to the fetcher's
// "none", whose own 0 means its default.
func requestInterval(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// skipWithoutCredentials turns "no credentials" into a fetcher that reports
// it on every run, so the provider is skipped with one clear line instead
// of failing (or failing to start the daemon).
func skipWithoutCredentials(name string, f fetchers.Fetcher, err error) (fetchers.Fetcher, error) {
	if errors.Is(err, fetchers.ErrNoCredentials) {
		return unconfigured{name: name, err: err}, nil
	}
	return f, err
}

type unconfigured struct {
	name string
	err  error
}

func (u unconfigured) Provider() string { return u.name }
func (u unconfigured) Fetch(context.Context, fetchers.Previous) (*pricewatch.Snapshot, error) {
	return nil, u.err
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
