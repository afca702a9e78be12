// Package leadertest holds what tests of the leader election share: a TCP
// proxy in front of PostgreSQL that can stop forwarding while it keeps
// every socket open (the network partition in which the server never
// learns that a client is gone), and the test database's DSN and a fresh
// schema of it per test, which every PostgreSQL test of the module uses
// (storage's through storagetest).
package leadertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvPostgres names the environment variable holding the DSN of the
// PostgreSQL database tests may use (.ci/run sets it), e.g.
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable. Without it the
// PostgreSQL tests skip. Every PostgreSQL test of the module reads it here
// (storagetest.PostgresEnv names it too).
const EnvPostgres = "PRICEWATCH_TEST_POSTGRES"

// DSN is the test database's connection string, or skips t saying why.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvPostgres)
	if dsn == "" {
		t.Skip(EnvPostgres + " is not set: no PostgreSQL to run against")
	}
	return dsn
}

// Proxy forwards TCP connections to a target until Block, after which it
// forwards nothing in either direction but keeps every connection open,
// accepts new ones and holds them too; Unblock lets the bytes through
// again.
type Proxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	cond    *sync.Cond
	blocked bool
	closed  bool
	conns   []net.Conn
	wg      sync.WaitGroup
}

// NewProxy listens on a loopback port and forwards to target (host:port);
// it closes when t ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Via rewrites a postgres:// URL to connect through the proxy.
func (p *Proxy) Via(t testing.TB, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Fatalf("the test DSN must be a postgres:// URL with a host")
	}
	u.Host = p.Addr()
	return u.String()
}

// Block stops forwarding; connections stay open.
func (p *Proxy) Block() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blocked = true
}

// Unblock forwards again, what was held included.
func (p *Proxy) Unblock() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blocked = false
	p.cond.Broadcast()
}

// Close closes the listener and every connection.
func (p *Proxy) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.blocked = false
	p.cond.Broadcast()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.ln.Close()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go p.serve(c)
	}
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns = append(p.conns, c)
	return true
}

func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	if !p.track(client) {
		return
	}
	// A connection made while blocked is held before it reaches the
	// server, as a partitioned network would.
	if !p.wait() {
		return
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	if !p.track(server) {
		client.Close()
		return
	}
	p.wg.Add(2)
	go p.pipe(server, client)
	go p.pipe(client, server)
}

// wait holds the caller while the proxy is blocked; false once closed.
func (p *Proxy) wait() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.blocked && !p.closed {
		p.cond.Wait()
	}
	return !p.closed
}

// pipe copies from src to dst, holding each chunk while blocked; the
// bytes read while blocked are delivered after Unblock, as TCP would once
// a partition heals.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.wait() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.Close()
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				dst.Close()
				return
			}
			// Half-close: tell the other side, as the kernel would.
			if tc, ok := dst.(*net.TCPConn); ok {
				tc.CloseWrite()
			} else {
				dst.Close()
			}
			return
		}
	}
}

// Schema creates a fresh, empty schema for t in the database dsn names
// (DSN) and returns dsn with search_path set to it; the schema is dropped
// with everything in it when t ends. Tests in schemas of their own are
// isolated and may run in parallel: each has an election of its own, and
// storage's tests (storagetest.PostgresDSN) a history of their own. Two
// opens of the returned DSN share the schema, like two replicas.
func Schema(t testing.TB, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("%s must be a postgres:// URL", EnvPostgres)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema := "pwtest_" + strings.ToLower(sanitize(t.Name())) + "_" + hex.EncodeToString(b[:])
	if len(schema) > 63 {
		schema = "pwtest_" + hex.EncodeToString(b[:])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connecting to %s: %v", EnvPostgres, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("creating test schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("dropping test schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("dropping test schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// sanitize keeps a test's name as far as a schema name may hold it.
func sanitize(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()[:min(b.Len(), 30)]
}

// Terminate ends every session whose application_name is application
// (leader.ApplicationName of a replica) from outside, as a database
// restart or an operator's pg_terminate_backend would, and returns how
// many it ended.
func Terminate(t testing.TB, dsn, application string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid, 1000)) FROM pg_stat_activity WHERE application_name = $1`,
		application).Scan(&n); err != nil {
		t.Fatalf("terminating the sessions of %s: %v", application, err)
	}
	return n
}
