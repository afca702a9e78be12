// Package chinacloudtest holds the checks the Chinese clouds' fetcher
// tests share.
package chinacloudtest

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/section"
)

// Pair is a cloud whose credential is a key pair (an ID and its secret),
// each read from its environment variable first, then from a file.
type Pair struct {
	// IDEnv and SecretEnv name the environment variables.
	IDEnv, SecretEnv string
	// From resolves the pair (the cloud's CredentialsFrom).
	From func(idFile, secretFile string) (id, secret section.Secret, err error)
	// Missing, IDMissing and SecretMissing are further words the error
	// must hold when neither half is set, when only the secret is and
	// when only the ID is; empty: only the variables' names are checked.
	Missing, IDMissing, SecretMissing string
}

// The values the check sets; none may show in an error.
const (
	envID      = "id-from-the-environment"
	envSecret  = "secret-from-the-environment"
	fileID     = "id-from-a-file"
	fileSecret = "secret-from-a-file"
)

// CheckPair checks p's resolution: the environment before the files,
// relative file names looked up in $CREDENTIALS_DIRECTORY (systemd's
// LoadCredential), absolute ones as they are; neither half set, or only
// one, is an error wrapping fetchers.ErrNoCredentials naming what to
// set; an unreadable file is an error of its own, naming the file. No
// error shows a value.
func CheckPair(t *testing.T, p Pair) {
	t.Helper()
	dir := fetcherstest.CredentialFiles(t, map[string]string{"id": fileID, "secret": fileSecret})
	cases := []struct {
		name               string
		envID, envSecret   string
		idFile, secretFile string
		wantID, wantSecret string
		wantNoCredentials  bool
		wantText           []string // in the error; none: no error
	}{
		{name: "environment first", envID: envID, envSecret: envSecret, idFile: "id", secretFile: "secret",
			wantID: envID, wantSecret: envSecret},
		{name: "systemd credential files", idFile: "id", secretFile: "secret", wantID: fileID, wantSecret: fileSecret},
		{name: "absolute paths", idFile: filepath.Join(dir, "id"), secretFile: filepath.Join(dir, "secret"),
			wantID: fileID, wantSecret: fileSecret},
		{name: "none", wantNoCredentials: true, wantText: []string{p.IDEnv, p.SecretEnv, p.Missing}},
		{name: "only the ID", envID: envID, wantNoCredentials: true, wantText: []string{p.SecretEnv, p.SecretMissing}},
		{name: "only the secret", envSecret: envSecret, wantNoCredentials: true, wantText: []string{p.IDEnv, p.IDMissing}},
		{name: "missing file", idFile: "id", secretFile: "nope", wantText: []string{"nope"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(p.IDEnv, tc.envID)
			t.Setenv(p.SecretEnv, tc.envSecret)
			t.Setenv("CREDENTIALS_DIRECTORY", dir)
			id, secret, err := p.From(tc.idFile, tc.secretFile)
			if tc.wantText == nil {
				if err != nil || id.Value() != tc.wantID || secret.Value() != tc.wantSecret {
					t.Errorf("got %q %q %v, want %q %q", id.Value(), secret.Value(), err, tc.wantID, tc.wantSecret)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, fetchers.ErrNoCredentials) != tc.wantNoCredentials {
				t.Errorf("%v: wraps ErrNoCredentials %v, want %v", err, !tc.wantNoCredentials, tc.wantNoCredentials)
			}
			for _, s := range tc.wantText {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%v: want it to say %q", err, s)
				}
			}
			for _, s := range []string{envID, envSecret, fileID, fileSecret} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("the error shows a credential: %v", err)
				}
			}
		})
	}
}
