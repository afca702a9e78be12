package storagetest

import (
	"testing"

	"github.com/pricewatch/pricewatch/leader/leadertest"
)

// PostgresEnv names the environment variable holding the DSN of the
// PostgreSQL database tests may use (leadertest.EnvPostgres, which .ci/run
// sets). Without it the PostgreSQL tests skip.
const PostgresEnv = leadertest.EnvPostgres

// PostgresDSN returns a DSN for a fresh, empty schema of the test
// database, created now and dropped with everything in it when the test
// ends, so PostgreSQL tests are isolated and may run in parallel. Without
// PRICEWATCH_TEST_POSTGRES the test is skipped. Open it with
// storage.OpenPostgres (or storage.OpenURL); two opens of one DSN share
// the schema, like two replicas. The schema is leadertest's: the leader
// election, the lowest floor that runs on PostgreSQL, owns the test
// database's helpers.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	return leadertest.Schema(t, leadertest.DSN(t))
}
