package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/logging"
	"github.com/pricewatch/pricewatch/storage"
)

// clock is the time the CLI stores runs at and fetchers judge validity
// fields by. Tests replaying dated captures set it; nothing else does.
var clock = time.Now

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

// app carries what every command shares: the config, the logger and the
// database, each set up on first use.
type app struct {
	stdout, stderr io.Writer
	configFlag     string
	cfg            *config.Config
	log            *zap.Logger
	db             *storage.DB
	level          zap.AtomicLevel
	// redactor masks configured secrets in every log line.
	redactor     *logging.Redactor
	secretValues []string
}

func newApp(stdout, stderr io.Writer) *app {
	return &app{stdout: stdout, stderr: stderr, log: zap.NewNop(), redactor: logging.NewRedactor()}
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "pricewatch",
		Short:         "Track GPU cloud prices and availability across AWS, Azure, Alibaba Cloud and Tencent Cloud",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Name() == "version" || cmd.Name() == "help" {
				return nil
			}
			return a.loadConfig()
		},
	}
	root.PersistentFlags().StringVar(&a.configFlag, "config", "", "config file (default $"+config.EnvConfig+", else ./"+config.DefaultFile+" when present, else built-in defaults)")
	root.AddCommand(
		a.fetchCommand(),
		a.historyCommand(),
		a.availabilityCommand(),
		a.versionCommand(),
		a.runCommand(),
		a.fxCommand(),
	)
	for _, extra := range extraCommands {
		root.AddCommand(extra(a))
	}
	return root
}

// extraCommands lets files add commands without editing rootCommand.
var extraCommands []func(*app) *cobra.Command

func (a *app) loadConfig() error {
	cfg, err := config.Load(config.Locate(a.configFlag))
	if err != nil {
		return err
	}
	a.cfg = cfg
	return a.setupLogger(cfg.Log)
}

// openDB opens the database once per process.
func (a *app) openDB(ctx context.Context) (*storage.DB, error) {
	if a.db != nil {
		return a.db, nil
	}
	db, err := storage.Open(ctx, a.cfg.Database.Path, storage.Options{BusyTimeout: a.cfg.Database.BusyTimeout,
		Progress: func(msg string) { fmt.Fprintln(a.stderr, msg) }})
	if err != nil {
		return nil, err
	}
	db.Now = func() time.Time { return clock().UTC() }
	a.db = db
	return db, nil
}

// openReader opens the database for a command that only reads: read-only,
// so that it works on read-only media, never takes the write lock and
// never migrates. A missing file or one with an older schema is opened for
// writing instead (created or upgraded), as before.
func (a *app) openReader(ctx context.Context) (*storage.DB, error) {
	if a.db != nil {
		return a.db, nil
	}
	db, err := storage.OpenReadOnly(ctx, a.cfg.Database.Path, storage.Options{BusyTimeout: a.cfg.Database.BusyTimeout})
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, storage.ErrSchemaBehind) {
		return a.openDB(ctx)
	}
	if err != nil {
		return nil, err
	}
	a.db = db
	return db, nil
}

func (a *app) close() {
	if a.db != nil {
		a.db.Close()
	}
	_ = a.log.Sync()
}

func (a *app) printError(err error) {
	fmt.Fprintf(a.stderr, "pricewatch: %v\n", err)
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(a.stdout, "pricewatch %s\n", buildVersion())
			return nil
		},
	}
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// exitCode carries a non-zero exit status for a command that already told
// the user what went wrong.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func asExitCode(err error, target *exitCode) bool { return errors.As(err, target) }

func (a *app) setupLogger(cfg config.Log) error {
	log, level, err := logging.New(cfg.Level, cfg.Format, a.stderr, logging.WithRedactor(a.redactor))
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	a.log, a.level = log, level
	return nil
}

// applyLogLevel changes the level of the running logger (SIGHUP reload).
func (a *app) applyLogLevel(level string) error {
	return a.level.UnmarshalText([]byte(level))
}
