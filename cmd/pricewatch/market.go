package main

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/cmd/internal/clitext"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/storage"
)

// scopeFlags are the flags every analysis command shares: which offers, in
// which currency, printed how, as of when.
type scopeFlags struct {
	providers []string
	regions   []string
	os        string
	currency  string
	format    string
	now       string
	server    string // --server, on the commands the API answers
}

// scopeQuery is the scope as API parameters, for --server.
func (f scopeFlags) query() query {
	q := query{}
	q.list("provider", f.providers)
	q.list("region", f.regions)
	q.set("os", f.os)
	q.set("currency", f.currency)
	q.set("now", f.now)
	return q
}

// scopedCommand is cmd with the scope flags of an analysis command;
// currencyHelp says what --currency is the currency of.
func scopedCommand(f *scopeFlags, currencyHelp string, cmd *cobra.Command) *cobra.Command {
	addScopeFlags(cmd, f, currencyHelp)
	return cmd
}

// analysisCommand is an analysis command the API answers: the scope flags
// and --server.
func analysisCommand(f *scopeFlags, currencyHelp string, cmd *cobra.Command) *cobra.Command {
	cmd.Flags().StringVar(&f.server, "server", "", serverHelp)
	return scopedCommand(f, currencyHelp, cmd)
}

func addScopeFlags(cmd *cobra.Command, f *scopeFlags, currencyHelp string) {
	cmd.Flags().StringVar(&f.currency, "currency", "", currencyHelp+" (default fx.currency from the config)")
	providerFlag(cmd, &f.providers, "only this provider")
	cmd.Flags().StringSliceVar(&f.regions, "region", nil, "only this region code; repeatable")
	cmd.Flags().StringVar(&f.os, "os", "", "operating system: linux (default), windows or any")
	cmd.Flags().StringVar(&f.format, "format", formatTable, "output format: table, json or csv")
	addNowFlag(cmd, &f.now)
}

// market is what an analysis command computes over: the database, the
// exchange rates, the target currency and the time of the question.
type market struct {
	db       *storage.DB
	now      time.Time
	currency string
	fx       *fx.Book
	scope    scopeFlags
}

// openMarket checks the shared flags and opens the database and the rates.
func (a *app) openMarket(ctx context.Context, f scopeFlags) (*market, error) {
	if err := checkFormat(f.format); err != nil {
		return nil, err
	}
	if err := checkOS(f.os); err != nil {
		return nil, err
	}
	now, err := evalTime(f.now)
	if err != nil {
		return nil, err
	}
	currency, err := a.targetCurrency(f.currency)
	if err != nil {
		return nil, err
	}
	db, err := a.openReader(ctx)
	if err != nil {
		return nil, err
	}
	book, err := report.FXBook(ctx, db, reportFX(a.cfg.FX))
	if err != nil {
		return nil, err
	}
	if f.currency != "" && !book.Knows(currency) {
		return nil, usagef("--currency %s: no rate can reach it (the ECB's reference currencies, EUR and fx.fixed_rates can)", currency)
	}
	return &market{db: db, now: now, currency: currency, fx: book, scope: f}, nil
}

// reportScope is the scope as the report package takes it.
func (m *market) reportScope() report.Scope {
	return report.Scope{Providers: m.scope.providers, Regions: m.scope.regions, OS: m.scope.os, Currency: m.currency, At: m.now}
}

// rateNotes starts the exchange-rate notes of a report over the market.
func (m *market) rateNotes() *clitext.RateNotes {
	return clitext.NewRateNotes(m.currency, m.now, m.fx.MaxAge())
}

// noteIfUnquoted notes currency as missing when it has no rate into the
// market's currency.
func (m *market) noteIfUnquoted(notes *clitext.RateNotes, currency string) {
	if _, err := m.fx.Quote(currency, m.currency, m.now); err != nil {
		notes.Missing(currency)
	}
}

// noteConversions notes the rate each converted row used and the currency
// of each row left unconverted; of gives a row's currency and rate.
func noteConversions[R any](notes *clitext.RateNotes, converted, unconverted []R, of func(R) (string, analysis.FXUsed)) {
	for _, r := range converted {
		notes.Used(of(r))
	}
	for _, r := range unconverted {
		cur, _ := of(r)
		notes.Missing(cur)
	}
}

// reportOutput is an analysis report in the formats it prints in.
type reportOutput struct {
	json func() any
	// csv is nil where the CSV is the JSON rows' (writeRowsCSV).
	csv   func(io.Writer) error
	table func(io.Writer) error
	// warn adds its lines to stderr beside the rate notes' for JSON and CSV.
	warn func(io.Writer)
}

// writeReport prints out in format. The rate notes go under the table, and
// to stderr for JSON and CSV, whose stdout scripts parse.
func (a *app) writeReport(format string, notes *clitext.RateNotes, out reportOutput) error {
	switch format {
	case formatJSON, formatCSV:
		notes.Warn(a.stderr)
		if out.warn != nil {
			out.warn(a.stderr)
		}
		switch {
		case format == formatJSON:
			return writeJSON(a.stdout, out.json())
		case out.csv == nil:
			return writeRowsCSV(a.stdout, out.json())
		}
		return out.csv(a.stdout)
	}
	return out.table(a.stdout)
}

// addNowFlag adds the hidden --now flag: the moment the command evaluates
// "current" prices, exchange-rate dates and windows at. Tests pin it so
// that golden outputs do not move with the clock.
func addNowFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "now", "", "evaluate as of this RFC 3339 time instead of the clock")
	_ = cmd.Flags().MarkHidden("now")
}

func evalTime(s string) (time.Time, error) { return report.ParseNow("--now", s) }

// targetCurrency is --currency, else fx.currency from the config.
func (a *app) targetCurrency(flag string) (string, error) {
	return report.Currency("--currency", flag, a.cfg.FX.Currency)
}

// parsePriceTypes reads --price-type values; "any" (or nothing) means all.
func parsePriceTypes(vals []string) ([]pricewatch.PriceType, error) {
	return report.ParsePriceTypes("--price-type", vals)
}

// sqlOS turns --os into the storage filter: "" is Linux, "any" is every OS.
func sqlOS(os string) string { return report.StorageOS(os) }

func checkOS(os string) error { return report.CheckOS("--os", os) }
