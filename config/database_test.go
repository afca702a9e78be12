package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDatabaseURLOrPath(t *testing.T) {
	urlFile := filepath.Join(t.TempDir(), "database-url")
	if err := os.WriteFile(urlFile, []byte("postgres://pw:s3cret-pass@db:5432/pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, yaml string
		target     string // DatabaseTarget's answer, when valid
		wantErr    string // else the error
	}{
		{"path by default", "", "pricewatch.db", ""},
		{"path", "database:\n  path: /var/lib/pw.db\n", "/var/lib/pw.db", ""},
		{"url", "database:\n  url: postgres://pw:s3cret-pass@db:5432/pw\n", "postgres://pw:s3cret-pass@db:5432/pw", ""},
		{"url_file", "database:\n  url_file: " + urlFile + "\n", "postgres://pw:s3cret-pass@db:5432/pw", ""},
		{"both path and url", "database:\n  path: pw.db\n  url: postgres://pw:s3cret-pass@db/pw\n", "",
			"line 2: database.path: set database.path (SQLite) or database.url / database.url_file (PostgreSQL), not both"},
		{"url and url_file", "database:\n  url: postgres://pw:s3cret-pass@db/pw\n  url_file: " + urlFile + "\n", "",
			"line 3: database.url_file: set database.url or database.url_file, not both"},
		{"not a postgres URL", "database:\n  url: mysql://pw:s3cret-pass@db/pw\n", "",
			"line 2: database.url: must be a postgres:// (or postgresql://) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(strings.NewReader(tt.yaml), "pw.yaml")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "s3cret-pass") {
					t.Errorf("error shows the URL's password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := cfg.DatabaseTarget()
			if err != nil || got != tt.target {
				t.Errorf("DatabaseTarget = %q, %v; want %q", got, err, tt.target)
			}
		})
	}
}

func TestDatabaseURLFileErrorsNameTheKey(t *testing.T) {
	dir := t.TempDir()
	notPG := filepath.Join(dir, "url")
	if err := os.WriteFile(notPG, []byte("sqlite:///tmp/s3cret-pass.db"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{filepath.Join(dir, "missing"), notPG} {
		cfg, err := Parse(strings.NewReader("database:\n  url_file: "+file+"\n"), "pw.yaml")
		if err != nil {
			t.Fatal(err)
		}
		_, err = cfg.DatabaseTarget()
		if err == nil || !strings.Contains(err.Error(), "line 2: database.url_file") || strings.Contains(err.Error(), "s3cret-pass") {
			t.Errorf("url_file %s: %v, want an error naming database.url_file without the value", file, err)
		}
	}
}
