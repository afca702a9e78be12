// Command pricewatch-load is the shipped load test (issue 30 item 5,
// `make loadtest`): it serves the scale database with a pricewatch binary
// and runs internal/loadgen's profiles against it on loopback, printing
// docs/scale.md's results table.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch/internal/loadgen"
)

func main() {
	o := loadgen.BenchOptions{Log: os.Stderr}
	backends := flag.String("backends", "sqlite,postgres", "backends to run on, comma-separated (sqlite, postgres)")
	flag.StringVar(&o.Binary, "binary", "bin/pricewatch", "the pricewatch binary to serve with")
	flag.Float64Var(&o.Share, "share", 0.25, "share of a simulated year in the scale database (internal/scalegen)")
	flag.StringVar(&o.PostgresURL, "postgres", os.Getenv("PRICEWATCH_TEST_POSTGRES"), "PostgreSQL URL for the postgres backend (a schema pricewatch_loadtest is made in it)")
	flag.DurationVar(&o.Duration, "duration", time.Minute, "length of the team and 200-client profiles (the others a quarter of it)")
	flag.DurationVar(&o.WriteEvery, "write-every", 5*time.Second, "how often a run is stored during the load")
	flag.StringVar(&o.MemoryLimit, "memory-limit", "", "the daemon's GOMEMLIMIT (default: the unit's, systemd/pricewatch.service)")
	flag.StringVar(&o.LogLevel, "log-level", "", "the daemon's log.level (debug: its log in -dir says what the refresher computed and when)")
	flag.StringVar(&o.Dir, "dir", "", "working directory for the database copies, configs and daemon logs (default: a new temporary one)")
	flag.Parse()
	o.Backends = strings.Split(*backends, ",")
	if o.Dir == "" {
		dir, err := os.MkdirTemp("", "pricewatch-load-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		o.Dir = dir
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	table, err := loadgen.Bench(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pricewatch-load:", err)
		os.Exit(1)
	}
	fmt.Print(table)
}
