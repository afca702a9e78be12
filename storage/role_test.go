package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap/zaptest"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/leader"
	"github.com/pricewatch/pricewatch/leader/leadertest"
)

// Issue 24 item 5: contrib/postgres/role.sql is what an operator runs, so
// it is run here as written, into a database of its own, and pricewatch
// then works as that role and nothing more: the migrations create the
// schema's tables, a run stores prices, the leader election leads, and
// the role cannot create objects in public. Roles are the cluster's, not
// the database's, so the script's role names get a random suffix; the
// database name is the test's. Nothing else of the script is changed.
func TestLeastPrivilegeRoleScript(t *testing.T) {
	base := leadertest.DSN(t)
	script, err := os.ReadFile(filepath.Join("..", "contrib", "postgres", "role.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var b [5]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	suffix := hex.EncodeToString(b[:])
	dbName, role, reader := "pwrole_"+suffix, "pricewatch_"+suffix, "pricewatch_reader_"+suffix
	const password = "role-test-password"

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+dbName); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("cleaning up: %v", err)
			return
		}
		defer c.Close(ctx)
		for _, q := range []string{
			"DROP DATABASE IF EXISTS " + dbName + " WITH (FORCE)",
			"DROP ROLE IF EXISTS " + role,
			"DROP ROLE IF EXISTS " + reader,
		} {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Errorf("cleaning up: %s: %v", q, err)
			}
		}
	})

	// The script runs as psql would, connected to the new database as a
	// superuser, with -v password="'...'".
	sqlText := string(script)
	sqlText = regexp.MustCompile(`(?m)--.*$`).ReplaceAllString(sqlText, "")
	sqlText = strings.ReplaceAll(sqlText, ":password", "'"+password+"'")
	sqlText = regexp.MustCompile(`\bDATABASE pricewatch\b`).ReplaceAllString(sqlText, "DATABASE "+dbName)
	sqlText = regexp.MustCompile(`\bpricewatch_reader\b`).ReplaceAllString(sqlText, reader)
	sqlText = regexp.MustCompile(`\b(ROLE|TO|AUTHORIZATION) pricewatch\b([^_]|$)`).ReplaceAllString(sqlText, "${1} "+role+"${2}")
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + dbName
	super, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range strings.Split(sqlText, ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := super.Exec(ctx, stmt); err != nil {
			super.Close(ctx)
			t.Fatalf("role.sql: %s: %v", strings.TrimSpace(stmt), err)
		}
	}
	super.Close(ctx)

	// pricewatch as the role: its DSN names no schema, so the role's own
	// search_path (the script's ALTER ROLE … SET) must put it in
	// "pricewatch".
	u.User = url.UserPassword(role, password)
	dsn := u.String()
	db, err := OpenPostgres(ctx, dsn, Options{})
	if err != nil {
		t.Fatalf("opening as the least-privilege role: %v", err)
	}
	defer db.Close()
	var schema string
	if err := db.write.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if schema != "pricewatch" {
		t.Errorf("the role works in schema %q, want pricewatch", schema)
	}
	snap := &pricewatch.Snapshot{Provider: "azure", Offers: []pricewatch.Offer{offer("Standard_ND96isr_H100_v5", "eastus", pricewatch.OnDemand, "98.32")},
		Coverage: []pricewatch.Scope{{Region: pricewatch.AllRegions}}}
	if res, err := save(t, db, snap, SaveOptions{}); err != nil || res.New != 1 {
		t.Fatalf("a run as the role: %+v, %v", res, err)
	}
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE public.pricewatch_role_probe (x int)`); err == nil {
		t.Error("the role created a table in public")
	}

	// The election creates its heartbeat table in the role's schema and
	// leads.
	e, err := leader.NewPostgres(leader.Options{DSN: dsn, Config: leader.Config{Takeover: 6 * time.Second, Replica: "role-test"}, Log: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	electCtx, stop := context.WithCancel(ctx)
	led := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- e.Run(electCtx, func(lctx context.Context) {
			close(led)
			<-lctx.Done()
		})
	}()
	select {
	case <-led:
	case err := <-done:
		t.Fatalf("the election as the role ended: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the role never led")
	}
	stop()
	<-done
}
