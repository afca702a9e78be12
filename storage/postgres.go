package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pricewatch/pricewatch/leader"
	"github.com/pricewatch/pricewatch/secret"
)

// PostgreSQL is the second home of the same history: one schema, the same
// queries (written once, with SQLite's ? placeholders, rebound here), the
// same stored texts (times stay fixed-width TEXT, money exact decimal TEXT,
// so that ordering and output are byte for byte the same), and the few
// statements that differ chosen where they are used (db.pg).
//
// Where SQLite serialises every write on its one writer, PostgreSQL lets
// writers run at once, so the read-then-write transactions take what they
// need explicitly: a provider's run (its lease and its save) a
// transaction-level advisory lock on the provider, the outbox claim a row
// lock (FOR UPDATE SKIP LOCKED), migrations a session-level advisory lock.

//go:embed migrations/postgres/*.sql
var pgMigrations embed.FS

// pgPoolSize bounds the connections one process holds: the readers of
// readPoolSize and the writers (a run, deliveries, a lease renewal).
const pgPoolSize = readPoolSize + 4

// IsPostgresURL reports whether s names a PostgreSQL database
// (postgres:// or postgresql://) rather than an SQLite file.
func IsPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// OpenURL opens an SQLite file (a path) or a PostgreSQL database (a
// postgres:// URL), whichever target names.
func OpenURL(ctx context.Context, target string, opts Options) (*DB, error) {
	if IsPostgresURL(target) {
		return OpenPostgres(ctx, target, opts)
	}
	return Open(ctx, target, opts)
}

// OpenPostgres connects to the PostgreSQL database dsn names (a postgres://
// URL; search_path=<schema> in its query selects a schema other than the
// user's default) and applies any migrations it does not have yet, under
// an advisory lock so that replicas starting together migrate once. The
// DSN's password never appears in an error or in Path.
func OpenPostgres(ctx context.Context, dsn string, opts Options) (*DB, error) {
	shown := RedactDSN(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("opening PostgreSQL database %s: %w", shown, secret.Error(err, dsnPassword(dsn)))
	}
	pw := cfg.ConnConfig.Password
	cfg.MaxConns = pgPoolSize
	if opts.Replica != "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = leader.ApplicationName(opts.Replica)
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 5 * time.Second
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = opts.BusyTimeout
	}
	// pricewatch reads index ranges per offer over a working set that
	// stays cached; with PostgreSQL's stock random_page_cost (4, tuned for
	// spinning disks) the planner scans whole tables instead (a year of
	// prices for one type's history). A value a DBA set is left alone.
	// JIT compiling pays off for long analytic queries; these are many
	// short ones, to which it adds its compile time (0.1 s a query here).
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, `SELECT set_config('random_page_cost', '1.1', false) WHERE current_setting('random_page_cost') = '4';
			SET jit = off`)
		return err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening PostgreSQL database %s: %w", shown, secret.Error(err, pw))
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("opening PostgreSQL database %s: %w", shown, secret.Error(err, pw))
	}
	sqlDB := sql.OpenDB(pgConnector{inner: stdlib.GetPoolConnector(pool)})
	sqlDB.SetMaxOpenConns(pgPoolSize)
	sqlDB.SetMaxIdleConns(pgPoolSize)
	db := &DB{write: sqlDB, read: sqlDB, path: shown, pg: true, pool: pool, secrets: secret.New(pw),
		Now: func() time.Time { return time.Now().UTC() }, Replica: opts.Replica}
	if err := db.migratePostgres(ctx, opts.Progress); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// pgVersionTable records the PostgreSQL schema version and marks the
// schema as pricewatch's (SQLite's user_version and application_id).
const pgVersionTable = "pricewatch_schema"

// migratePostgres applies the embedded PostgreSQL migrations in order, each
// in its own transaction, all under a session advisory lock on the schema.
func (db *DB) migratePostgres(ctx context.Context, progress func(string)) error {
	names, err := fs.Glob(pgMigrations, "migrations/postgres/*.sql")
	if err != nil {
		return fmt.Errorf("listing migrations: %w", err)
	}
	sort.Strings(names)
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return fmt.Errorf("opening PostgreSQL database %s: %w", db.path, db.scrub(err))
	}
	defer conn.Close()
	// Two replicas starting together: the second waits here, then finds
	// the version the first recorded.
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(hashtextextended('pricewatch/migrate/' || current_schema(), 0))`); err != nil {
		return fmt.Errorf("locking %s for migration: %w", db.path, db.scrub(err))
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtextextended('pricewatch/migrate/' || current_schema(), 0))`) //nolint:errcheck // the session's end frees it too
	var schema string
	var marked, tables int
	// pg_class, not information_schema: its views cost a CLI command
	// tenths of a second.
	if err := conn.QueryRowContext(ctx, `SELECT current_schema(),
		(SELECT COUNT(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname = ?),
		(SELECT COUNT(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p'))`, pgVersionTable).Scan(&schema, &marked, &tables); err != nil {
		return fmt.Errorf("reading database %s: %w", db.path, db.scrub(err))
	}
	current := 0
	switch {
	case marked == 1:
		if err := conn.QueryRowContext(ctx, `SELECT version FROM `+pgVersionTable).Scan(&current); err != nil {
			return fmt.Errorf("reading schema version of %s: %w", db.path, db.scrub(err))
		}
	case tables > 0:
		return fmt.Errorf("%s schema %s: %w (it holds %d tables but no %s): point database.url at a pricewatch database or an empty schema",
			db.path, schema, ErrNotPricewatch, tables, pgVersionTable)
	}
	todo, err := pending(pgMigrations, names, current, db.path)
	if err != nil {
		return err
	}
	for _, m := range todo {
		name, version := m.name, m.version
		if progress != nil && current > 0 {
			progress(fmt.Sprintf("migrating %s to schema %d with %s", db.path, version, name))
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("applying migration %s: %w", name, db.scrub(err))
		}
		if _, err := tx.ExecContext(ctx, m.body); err != nil {
			tx.Rollback()
			return fmt.Errorf("applying migration %s: %w", name, db.scrub(err))
		}
		if err := runMigrationHook(ctx, tx, name); err != nil {
			tx.Rollback()
			return fmt.Errorf("applying migration %s: %w", name, db.scrub(err))
		}
		if _, err := tx.ExecContext(ctx, `UPDATE `+pgVersionTable+` SET version = ?`, version); err != nil {
			tx.Rollback()
			return fmt.Errorf("recording migration %s: %w", name, db.scrub(err))
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("committing migration %s: %w", name, db.scrub(err))
		}
	}
	return nil
}

// lockProvider serialises tx with every other transaction of the provider's
// runs (BeginRun, SaveSnapshot, CloseAbandonedRuns) across processes, until
// tx ends. SQLite's single writer does this already.
func (db *DB) lockProvider(ctx context.Context, tx *sql.Tx, provider string) error {
	return db.lockKey(ctx, tx, "run/"+provider)
}

// lockKey takes a transaction-level advisory lock on key within this
// schema (PostgreSQL only).
func (db *DB) lockKey(ctx context.Context, tx *sql.Tx, key string) error {
	if !db.pg {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('pricewatch/' || current_schema() || '/' || ?, 0))`, key); err != nil {
		return fmt.Errorf("locking %s: %w", key, err)
	}
	return nil
}

// scrub takes the password (and any credential shape) out of an error's
// text; a SQLite database has no password and leaves it as it is.
func (db *DB) scrub(err error) error {
	if db.secrets == nil {
		return err
	}
	return db.secrets.Error(err)
}

// RedactDSN is dsn fit for logs and errors: a URL's password replaced by
// "xxxxx" (and a password= parameter likewise).
func RedactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.Redacted()
	}
	return passwordParam.ReplaceAllString(dsn, "${1}xxxxx")
}

var passwordParam = regexp.MustCompile(`(password\s*=\s*)('[^']*'|\S+)`)

func dsnPassword(dsn string) string {
	if u, err := url.Parse(dsn); err == nil {
		if pw, ok := u.User.Password(); ok {
			return pw
		}
		if pw := u.Query().Get("password"); pw != "" {
			return pw
		}
	}
	if m := passwordParam.FindStringSubmatch(dsn); m != nil {
		return strings.Trim(m[2], "'")
	}
	return ""
}

// pgConnector hands database/sql pgx connections that speak SQLite's
// placeholders: each query is rebound once (see rebind) and cached.
type pgConnector struct{ inner driver.Connector }

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(*stdlib.Conn)
	if !ok {
		conn.Close()
		return nil, errors.New("pgx stdlib returned an unexpected connection type")
	}
	return &pgConn{Conn: sc}, nil
}

func (c pgConnector) Driver() driver.Driver { return c.inner.Driver() }

// pgConn is a pgx connection whose queries are rebound. Everything else
// (transactions, pings, argument checks, session resets) is pgx's own.
type pgConn struct{ *stdlib.Conn }

func (c *pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

var rebound sync.Map // query → PostgreSQL text

// pgFragments are the SQLite spellings the shared queries use and their
// PostgreSQL equivalents: the only dialect differences inside shared SQL.
// Planner hints (INDEXED BY, NOT INDEXED) go: PostgreSQL's planner picks
// the same indexes by itself.
var pgFragments = strings.NewReplacer(
	// A list of offer ids passed as one JSON array.
	"SELECT value FROM json_each(?)", "SELECT value::bigint FROM json_array_elements_text(?::json)",
	"NOT INDEXED", "",
)

var indexedBy = regexp.MustCompile(`\s+INDEXED BY \w+`)

// rebind turns a query written for SQLite into PostgreSQL's: the fragments
// above, and each ? outside a string literal becomes $1, $2, ….
func rebind(q string) string {
	if v, ok := rebound.Load(q); ok {
		return v.(string)
	}
	s := indexedBy.ReplaceAllString(pgFragments.Replace(q), "")
	var b strings.Builder
	b.Grow(len(s) + 16)
	n, quoted := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			quoted = !quoted
		case c == '?' && !quoted:
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteByte(c)
	}
	out := b.String()
	rebound.Store(q, out)
	return out
}
