package compose

import (
	"errors"
	"fmt"
	"io"
	"time"

	"go.uber.org/zap"

	"github.com/pricewatch/pricewatch/config"
)

// CheckConfig is `pricewatch config check`: it loads the config at path
// ("" for the built-in defaults; described names it and how it was found)
// and checks it as the daemon does before it takes effect (every section,
// cron specs, alert rules, every enabled provider's fetcher) and beyond
// what Load checks, reads every secret file it names. A valid config is
// written to w as the YAML in effect, secrets masked; otherwise the error
// names each problem's key and line.
func CheckConfig(path, described string, w io.Writer) error {
	cfg, err := config.Load(path)
	if err != nil {
		return err
	}
	errs := []error{cfg.CheckSecrets()}
	if _, err := config.ReadSecret(EnvSlackToken, config.Secret{}, ""); err != nil {
		errs = append(errs, err) // the environment's token: no key, no line
	}
	if err := errors.Join(errs...); err != nil {
		// The snapshot reads the same files: its errors would repeat these.
		return err
	}
	root := &Wiring{Log: zap.NewNop(), Now: time.Now}
	if _, err := Snapshot(root, cfg); err != nil {
		return err
	}
	out, err := cfg.Effective()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "# %s: valid. The config in effect, secrets masked:\n%s", described, out)
	return err
}
