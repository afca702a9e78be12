package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFindSearchOrder: --config, then $PRICEWATCH_CONFIG, then
// ./pricewatch.yaml, then $XDG_CONFIG_HOME (else ~/.config), then /etc;
// each rule is tested by removing the files of the rules before it.
func TestFindSearchOrder(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	xdg := filepath.Join(root, "xdg")
	etc := filepath.Join(root, "etc", "pricewatch")
	cwd := filepath.Join(root, "work")
	for _, d := range []string{home, xdg, etc, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	old := systemDir
	systemDir = etc
	t.Cleanup(func() { systemDir = old })
	t.Chdir(cwd)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv(EnvConfig, "")

	write := func(path string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	check := func(step string, flag string, want Found) {
		t.Helper()
		if got := Find(flag); got != want {
			t.Errorf("%s: Find(%q) = %+v, want %+v", step, flag, got, want)
		}
	}

	check("nothing anywhere", "", Found{Via: "built-in defaults"})
	etcFile := write(filepath.Join(etc, DefaultFile))
	check("only /etc", "", Found{Path: etcFile, Via: "system config directory"})
	homeFile := write(filepath.Join(home, ".config", "pricewatch", DefaultFile))
	check("~/.config beats /etc", "", Found{Path: homeFile, Via: "user config directory"})
	t.Setenv("XDG_CONFIG_HOME", xdg)
	check("$XDG_CONFIG_HOME replaces ~/.config; without a file there, /etc", "", Found{Path: etcFile, Via: "system config directory"})
	xdgFile := write(filepath.Join(xdg, "pricewatch", DefaultFile))
	check("$XDG_CONFIG_HOME", "", Found{Path: xdgFile, Via: "user config directory"})
	write(filepath.Join(cwd, DefaultFile))
	check("./pricewatch.yaml beats the user's", "", Found{Path: DefaultFile, Via: "current directory"})
	t.Setenv(EnvConfig, "/somewhere/env.yaml")
	check("$PRICEWATCH_CONFIG beats the files searched", "", Found{Path: "/somewhere/env.yaml", Via: "$PRICEWATCH_CONFIG"})
	check("--config beats everything", "flag.yaml", Found{Path: "flag.yaml", Via: "--config"})
}
