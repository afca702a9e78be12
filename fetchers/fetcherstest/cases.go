package fetcherstest

import (
	"maps"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// KeyedCase is the start of the Case of a cloud registered with
// fetchers.KeyedProvider (p), built as KeyedNew builds it (env names the
// key's environment variable). Its fake is started by start with key, the
// one key it accepts, and serves at url. The caller adds the hooks and
// Lacks only its own API can say.
func KeyedCase[F any](p fetchers.Provider, env, key string, start func(testing.TB, string) F, url func(F) string) Case[F] {
	return Case[F]{Provider: p.Name, Key: key, Fake: func(t *testing.T) F { return start(t, key) }, New: KeyedNew(p, env, url)}
}

// KeyedNew is Case.New for a cloud registered with
// fetchers.KeyedProvider, built as the program builds it: from its
// section, with the fake's address (url) as the endpoint and the key in
// api_key_file, the key's environment variable env cleared.
func KeyedNew[F any](p fetchers.Provider, env string, url func(F) string) func(*testing.T, F, Harness) (fetchers.Fetcher, error) {
	return func(t *testing.T, fake F, h Harness) (fetchers.Fetcher, error) {
		t.Setenv(env, "")
		return p.Build(&section.Keyed{Endpoint: url(fake), APIKeyFile: h.KeyFile(t)}, h.Env)
	}
}

// EmptyNext is Case.Empty for a fake whose failure queue (Faults.FailNext)
// answers the mode Empty with a well-formed list of nothing.
func EmptyNext[F interface{ FailNext(modes ...string) }](_ *testing.T, fake F) {
	fake.FailNext(Empty)
}

// Keyless is Case.Lacks of a public API, which pricewatch reads without a
// key (why says so), with more the checks it lacks for other reasons.
func Keyless(why string, more map[Check]string) map[Check]string {
	out := map[Check]string{NoKey: why, RefusedKey: why}
	maps.Copy(out, more)
	return out
}

// ReplaceOnce returns doc (a fake's sample) with old replaced by new: how
// a case's Malformed spoils one row. old must stand in doc exactly once;
// otherwise the sample changed under the test, and t fails.
func ReplaceOnce[S ~string | ~[]byte](t testing.TB, doc S, old, new string) S {
	t.Helper()
	if n := strings.Count(string(doc), old); n != 1 {
		t.Fatalf("the sample holds %q %d times, want once: it changed under the test", old, n)
	}
	return S(strings.Replace(string(doc), old, new, 1))
}
