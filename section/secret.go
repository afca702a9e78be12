package section

import (
	"errors"
	"fmt"
	"os"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Secret holds a token or key. It prints as "<secret>" in every format so
// that a config dumped to a log, an error or a test failure never shows it.
type Secret struct{ v string }

// NewSecret wraps a value.
func NewSecret(v string) Secret { return Secret{v: v} }

// Value returns the secret itself, for the one place that sends it.
func (s Secret) Value() string { return s.v }

// Empty reports whether no secret is set.
func (s Secret) Empty() bool { return s.v == "" }

func (s Secret) String() string {
	if s.v == "" {
		return ""
	}
	return "<secret>"
}

// Values are the values of the secrets that are set, for a set of secret
// values to mask (package secret).
func Values(secrets ...Secret) []string {
	out := make([]string, 0, len(secrets))
	for _, s := range secrets {
		if s.v != "" {
			out = append(out, s.v)
		}
	}
	return out
}

// GoString keeps %#v from printing the value.
func (s Secret) GoString() string { return s.String() }

// MarshalText keeps JSON and YAML encoders from printing the value.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalYAML reads a plain string.
func (s *Secret) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("want a string")
	}
	s.v = strings.TrimSpace(n.Value)
	return nil
}

// MinSecretLen is the shortest secret pricewatch accepts. Every error and
// log line is scrubbed of the configured secrets as substrings, so a
// secret of a letter or two ("s") would be cut out of every word that
// holds it: the messages turn unreadable, and the gaps spell the secret.
const MinSecretLen = 8

// tooShort says what is wrong with a secret of n characters, never the
// secret itself.
func tooShort(n int) string {
	return fmt.Sprintf("is %d characters long: a secret needs at least %d "+
		"(pricewatch masks secrets wherever they appear in its messages, which a shorter one would garble and so reveal)", n, MinSecretLen)
}

// Secret wants s to be unset or at least MinSecretLen characters long.
func (c Checker) Secret(key string, s Secret) error {
	if n := len([]rune(s.v)); n > 0 && n < MinSecretLen {
		return c.Errorf(key, "%s", tooShort(n))
	}
	return nil
}

// ReadSecret resolves a secret from, in order: the environment variable env,
// the inline value, the file (trailing newline trimmed; works with systemd
// LoadCredential, whose files live in $CREDENTIALS_DIRECTORY). A relative
// file name is looked up in $CREDENTIALS_DIRECTORY first when that is set.
// A secret shorter than MinSecretLen from the environment or a file is
// refused (an inline one is refused when the file is loaded, by
// Checker.Secret). Errors never include the secret.
func ReadSecret(env string, inline Secret, file string) (Secret, error) {
	if env != "" {
		if v := strings.TrimSpace(os.Getenv(env)); v != "" {
			if n := len([]rune(v)); n < MinSecretLen {
				return Secret{}, fmt.Errorf("$%s %s", env, tooShort(n))
			}
			return Secret{v: v}, nil
		}
	}
	if !inline.Empty() {
		return inline, nil
	}
	if file == "" {
		return Secret{}, nil
	}
	path := secretPath(file)
	b, err := os.ReadFile(path)
	if err != nil {
		return Secret{}, fmt.Errorf("reading secret file %s: %w", path, err)
	}
	v := strings.TrimSpace(string(b))
	if n := len([]rune(v)); n > 0 && n < MinSecretLen {
		return Secret{}, fmt.Errorf("secret file %s %s", path, tooShort(n))
	}
	return Secret{v: v}, nil
}

// secretPath is where a secret file is read from: a relative name is
// looked up in $CREDENTIALS_DIRECTORY when that is set (systemd's
// LoadCredential).
func secretPath(file string) string {
	if dir := os.Getenv("CREDENTIALS_DIRECTORY"); dir != "" && !strings.HasPrefix(file, "/") {
		return dir + "/" + file
	}
	return file
}

// SecretFile wants a key naming a secret file (api_key_file, ak_file, …)
// to name a file that is there, looked up as ReadSecret will: a missing
// one otherwise failed each run, long after the file was loaded. It is
// not read: the secret is read when it is used, and an error never holds
// it.
func (c Checker) SecretFile(key, file string) error {
	if file == "" {
		return nil
	}
	path := secretPath(file)
	fi, err := os.Stat(path)
	if err != nil {
		return c.Errorf(key, "secret file %s: %v", path, errors.Unwrap(err))
	}
	if fi.IsDir() {
		return c.Errorf(key, "secret file %s is a directory", path)
	}
	return nil
}
