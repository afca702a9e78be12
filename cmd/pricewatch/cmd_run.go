package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/compose"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/daemon"
	"github.com/pricewatch/pricewatch/storage"
)

func (a *app) runCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "run",
		Short: "Run the daemon: scheduled fetches, alerts, the weekly digest, metrics",
		Long: `Run fetches each enabled provider on its schedule (providers.<name>.schedule,
UTC), stores and diffs every run, delivers alerts continuously and posts the
weekly digest (digest.schedule in digest.timezone). It serves /metrics,
/healthz, /readyz, the read-only JSON API under /api/v1/ and the dashboard
at / on http.listen (beyond loopback only with http.token_file or
http.allow_unauthenticated) and speaks sd_notify under systemd. Replicas on
one PostgreSQL database (database.url) all serve HTTP; only the elected
leader (ha:) fetches, delivers and posts the digest.

SIGHUP reloads the config (an invalid config keeps the running one);
SIGTERM stops scheduling, cancels runs in flight and waits for them (they
store nothing and are recorded failed), delivers pending alerts within the
stop timeout, stops metrics, closes the database and exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runDaemon(cmd.Context())
		},
	}
}

// newDaemon is the daemon over a's database and config: each snapshot is
// composed (by root) from its config with a secret set of its own, and
// every secret any snapshot held is masked in a's log.
func (a *app) newDaemon(db *storage.DB, root *compose.Wiring) *daemon.Daemon {
	return daemon.New(daemon.Options{
		Build:        func() (*daemon.Snapshot, error) { return compose.Snapshot(root, a.cfg) },
		DB:           db,
		Log:          a.log,
		Secrets:      a.secrets,
		SetLogLevel:  a.applyLogLevel,
		Version:      buildVersion(),
		AlertSummary: digest.AlertSummary,
		Elect:        root.Elector,
	})
}

// runDaemon is `pricewatch run`: start, reload on SIGHUP, stop (in the
// daemon's written order) when ctx ends (SIGTERM, SIGINT).
func (a *app) runDaemon(ctx context.Context) error {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)

	db, err := a.openDB(ctx)
	if err != nil {
		return err
	}
	root := a.wiring()
	d := a.newDaemon(db, root)
	if err := d.Start(ctx); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			err := d.Stop(context.WithoutCancel(ctx))
			a.db = nil // closed by Stop
			return err
		case <-hup:
			cfg, err := config.Load(config.Locate(a.configFlag))
			if err != nil {
				d.ReloadFailed(err)
				continue
			}
			d.Reload(func() (*daemon.Snapshot, error) { return compose.Snapshot(root, cfg) })
		}
	}
}
