package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"
	"golang.org/x/term"

	"github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/compose"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/logging"
	"github.com/pricewatch/pricewatch/secret"
	"github.com/pricewatch/pricewatch/storage"
)

// clock is the time the CLI stores runs at and fetchers judge validity
// fields by. Tests replaying dated captures set it; nothing else does.
var clock = time.Now

// app carries what every command shares: the config, the logger and the
// database, each set up on first use.
type app struct {
	// stdin is read by `pricewatch mcp` (its MCP client's requests).
	stdin          io.Reader
	stdout, stderr io.Writer
	configFlag     string
	configFound    config.Found
	// verbose, quiet and logLevel are the logging flags; daemon is set for
	// `pricewatch run`, which keeps the structured log of log.*.
	verbose  int
	quiet    bool
	logLevel string
	daemon   bool
	wide     bool
	cfg      *config.Config
	log      *zap.Logger
	db       *storage.DB
	level    zap.AtomicLevel
	// secrets is the set every secret read is added to; every log line
	// is masked of it.
	secrets *secret.Set
}

func newApp(stdout, stderr io.Writer) *app {
	return &app{stdin: os.Stdin, stdout: stdout, stderr: stderr, log: zap.NewNop(), secrets: secret.New()}
}

// envSlackToken names the environment variable holding the bot token.
const envSlackToken = compose.EnvSlackToken

// wiring composes the loaded config for a command.
func (a *app) wiring() *compose.Wiring {
	return &compose.Wiring{Config: a.cfg, Log: a.log, Secrets: a.secrets, Now: clock, Progress: a.progress()}
}

// providerNames in the order a cycle runs them (the registry's).
var providerNames = clouds.Names()

// progress is where long downloads report bytes and rate: the terminal
// when stderr is one (a person is waiting), else nowhere (logs say enough).
func (a *app) progress() io.Writer {
	if f, ok := a.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return f
	}
	return nil
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "pricewatch",
		Short:         "Track GPU cloud prices and availability across " + clouds.DisplayList(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Name() == "version" || cmd.Name() == "help" {
				return nil
			}
			a.daemon = cmd.Name() == "run"
			if a.wide {
				width.Store(0) // every column, whatever the terminal
			}
			return a.loadConfig()
		},
	}
	root.PersistentFlags().CountVarP(&a.verbose, "verbose", "v", "log more: -v adds info lines, -vv debug lines (commands log only warnings and errors by default)")
	root.PersistentFlags().BoolVar(&a.wide, "wide", false, "tables keep every column, whatever the terminal's width ($COLUMNS, else the terminal's, at least 60)")
	root.PersistentFlags().BoolVarP(&a.quiet, "quiet", "q", false, "log errors only")
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", "", "log level: debug, info, warn or error (overrides -v and -q; for the daemon it overrides log.level)")
	root.PersistentFlags().StringVar(&a.configFlag, "config", "", "config file (default $"+config.EnvConfig+", else ./"+config.DefaultFile+", else $XDG_CONFIG_HOME/pricewatch/, else /etc/pricewatch/; see: pricewatch config path)")
	root.AddCommand(a.commands()...)
	// `pricewatch --version` as well as `pricewatch version`.
	root.Version = buildDescription()
	root.SetVersionTemplate("pricewatch {{.Version}}\n")
	a.addCompletions(root)
	return root
}

func (a *app) loadConfig() error {
	a.configFound = config.Find(a.configFlag)
	cfg, err := config.Load(a.configFound.Path)
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
	target, err := a.cfg.DatabaseTarget() // database.path, or PostgreSQL's database.url
	if err != nil {
		return nil, err
	}
	db, err := storage.OpenURL(ctx, target, storage.Options{BusyTimeout: a.cfg.Database.BusyTimeout, Replica: a.cfg.HA.ReplicaName(),
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
// never migrates. A missing file is an error naming the path (nothing is
// created); one with an older schema is opened for writing and upgraded.
func (a *app) openReader(ctx context.Context) (*storage.DB, error) {
	if a.db != nil || a.cfg.Database.UsesPostgres() {
		return a.openDB(ctx) // PostgreSQL: no file to keep from being written
	}
	path := a.cfg.Database.Path
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		// A read never creates a database: an empty new file in the
		// current directory would read as "no prices" while the real
		// history sits where the daemon's config points.
		return nil, fmt.Errorf("no database at %s (config: %s): run `pricewatch fetch` to create it, or pass --config with the config that names the database", absPath(path), describeConfig(a.configFound))
	}
	db, err := storage.OpenReadOnly(ctx, path, storage.Options{BusyTimeout: a.cfg.Database.BusyTimeout})
	if errors.Is(err, storage.ErrSchemaBehind) {
		// An older schema is upgraded once, as before.
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

// exitCode carries a non-zero exit status for a command that already told
// the user what went wrong.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func asExitCode(err error, target *exitCode) bool { return errors.As(err, target) }

func (a *app) setupLogger(cfg config.Log) error {
	if a.daemon {
		if a.logLevel != "" {
			cfg.Level = a.logLevel
		}
		log, level, err := logging.New(cfg.Level, cfg.Format, a.stderr, logging.WithSecrets(a.secrets))
		if err != nil {
			return fmt.Errorf("log: %w", err)
		}
		a.log, a.level = log, level
		return nil
	}
	// A command someone typed: its output is the answer, and its log only
	// what needs attention, as plain lines on stderr.
	level := "warn"
	switch {
	case a.logLevel != "":
		level = a.logLevel
	case a.verbose >= 2:
		level = "debug"
	case a.verbose == 1:
		level = "info"
	case a.quiet:
		level = "error"
	}
	log, lvl, err := logging.NewPlain(level, a.stderr, logging.WithSecrets(a.secrets))
	if err != nil {
		return usageError{fmt.Errorf("--log-level: %w", err)}
	}
	a.log, a.level = log, lvl
	return nil
}

// applyLogLevel changes the level of the running logger (SIGHUP reload).
func (a *app) applyLogLevel(level string) error {
	return a.level.UnmarshalText([]byte(level))
}
