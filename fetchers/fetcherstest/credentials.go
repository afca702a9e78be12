package fetcherstest

import (
	"os"
	"path/filepath"
	"testing"
)

// CredentialFiles writes each named secret, with the newline an editor
// leaves, readable by the owner only, into a new directory (as systemd's
// $CREDENTIALS_DIRECTORY holds them) and returns the directory.
func CredentialFiles(t testing.TB, secrets map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, v := range secrets {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
