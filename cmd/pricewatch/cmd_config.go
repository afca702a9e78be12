package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/compose"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/storage"
)

func (a *app) configCommand() *cobra.Command {
	var format string
	path := &cobra.Command{
		Use:   "path",
		Short: "Print the config file in use (and how it was found) and the database it names",
		Long: `Print the config file every command would use and the database it names.
The config is the first of: --config, $PRICEWATCH_CONFIG, ./pricewatch.yaml,
$XDG_CONFIG_HOME/pricewatch/pricewatch.yaml (default ~/.config), and
/etc/pricewatch/pricewatch.yaml; without any, the built-in defaults.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			db := absPath(a.cfg.Database.Path)
			_, statErr := os.Stat(db)
			exists := statErr == nil
			if target, err := a.cfg.DatabaseTarget(); err == nil && a.cfg.Database.UsesPostgres() {
				db, exists, statErr = storage.RedactDSN(target), false, errors.New("PostgreSQL, not contacted by this command")
			}
			row := configPathRow{Config: nullString(a.configFound.Path != "", absPath(a.configFound.Path)), ConfigSource: a.configFound.Via,
				Database: db, DatabaseExists: exists}
			switch format {
			case formatJSON:
				return writeJSON(a.stdout, row)
			case formatCSV:
				return writeRowsCSV(a.stdout, []configPathRow{row})
			}
			state := "exists"
			if !exists {
				state = "not created yet: `pricewatch fetch` creates it"
				if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) {
					state = statErr.Error()
				}
			}
			_, err := fmt.Fprintf(a.stdout, "config:   %s\ndatabase: %s (%s)\n", describeConfig(a.configFound), db, state)
			return err
		},
	}
	formatFlag(path, &format, "output format: table, json or csv")
	check := &cobra.Command{
		Use:   "check [FILE]",
		Short: "Check a config (default: the one in use) as the daemon would; print it in effect, secrets masked",
		Long: `Check validates every section, cron spec and alert rule, reads every secret
file the config names and builds every enabled provider, as ` + "`pricewatch run`" + ` and a
reload do; it exits 0 and prints the config in effect (secrets masked), or
exits 1 naming each problem's key and line.`,
		Args: cobra.MaximumNArgs(1),
		// Not loaded before it runs: a broken config is the answer here.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			if found := config.Find(a.configFlag); len(args) == 0 {
				return compose.CheckConfig(found.Path, describeConfig(found), a.stdout)
			}
			return compose.CheckConfig(args[0], args[0], a.stdout)
		},
	}
	return group("config", "Show which config file and database the commands use, or check one", "", path, check)
}

// configPathRow is `config path --format json`.
type configPathRow struct {
	Config         *string `json:"config"`
	ConfigSource   string  `json:"config_source"`
	Database       string  `json:"database"`
	DatabaseExists bool    `json:"database_exists"`
}

func nullString(ok bool, s string) *string {
	if !ok {
		return nil
	}
	return &s
}

// describeConfig names the config file and the rule that chose it.
func describeConfig(f config.Found) string {
	if f.Path == "" {
		return "none found, built-in defaults (searched ./pricewatch.yaml, the user config directory, /etc/pricewatch)"
	}
	return absPath(f.Path) + " (from " + f.Via + ")"
}

// absPath makes a relative path absolute for messages, so that the user
// sees where a file is, whatever the current directory.
func absPath(p string) string {
	if p == "" {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
