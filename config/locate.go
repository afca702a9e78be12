package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// systemDir holds the system-wide config (`make install` puts the daemon's
// there). A variable so that tests can point it at a fake /etc.
var systemDir = "/etc/pricewatch"

// Found says which config file is in use and how it was chosen.
type Found struct {
	// Path is the file; "" means the built-in defaults.
	Path string
	// Via names the rule that chose it: "--config", "$PRICEWATCH_CONFIG",
	// "current directory", "user config directory", "system config
	// directory", or "built-in defaults".
	Via string
}

// Find applies the search order every command uses, first match wins:
// the --config flag, $PRICEWATCH_CONFIG, ./pricewatch.yaml,
// $XDG_CONFIG_HOME/pricewatch/pricewatch.yaml (default ~/.config), then
// /etc/pricewatch/pricewatch.yaml. The flag and the variable name a file
// that must exist (Load reports it missing); the three places searched are
// used only when a file is there.
func Find(flagValue string) Found {
	if flagValue != "" {
		return Found{Path: flagValue, Via: "--config"}
	}
	if v := os.Getenv(EnvConfig); v != "" {
		return Found{Path: v, Via: "$" + EnvConfig}
	}
	candidates := []Found{{Path: DefaultFile, Via: "current directory"}}
	if dir, err := os.UserConfigDir(); err == nil {
		candidates = append(candidates, Found{Path: filepath.Join(dir, "pricewatch", DefaultFile), Via: "user config directory"})
	}
	candidates = append(candidates, Found{Path: filepath.Join(systemDir, DefaultFile), Via: "system config directory"})
	for _, c := range candidates {
		if _, err := os.Stat(c.Path); err == nil || !errors.Is(err, fs.ErrNotExist) {
			// A file that exists but cannot be read is still the one
			// meant: Load says why it cannot be read rather than
			// silently falling through to another config.
			return c
		}
	}
	return Found{Via: "built-in defaults"}
}
