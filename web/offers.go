package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/report"
)

// offerTableParams are what /offers, /offers.csv and GET
// /api/v1/offer-table take: the same query string opens the same rows in
// each (col and limit shape only the page).
var offerTableParams = append(append([]string{"gpu", "gpus_min", "gpus_max", "price_type", "native_currency", "available_only",
	"marketplace", "seller", "max_band", "q", "sort", "col", "limit", "by", "per"}, hardwareParams...), scopeParams...)

// Rows the page renders by default and at most: past the default the
// page stays under its weight budget; the downloads always carry every
// matching row.
const (
	defaultTableRows = 1000
	maxTableRows     = 20000
)

var tableRowChoices = []int{100, 1000, 5000, 20000}

func (s *Server) offerTableQuery(p *params) (report.OfferTableQuery, error) {
	sc, err := s.scope(p)
	if err != nil {
		return report.OfferTableQuery{}, err
	}
	q := report.OfferTableQuery{Scope: sc, GPUs: p.list("gpu"), Search: p.str("q")}
	if q.MinGPUs, err = p.number("gpus_min"); err != nil {
		return q, err
	}
	if q.MaxGPUs, err = p.number("gpus_max"); err != nil {
		return q, err
	}
	if q.MaxGPUs > 0 && q.MinGPUs > q.MaxGPUs {
		return q, &report.ParamError{Msg: fmt.Sprintf("gpus_min %v is more than gpus_max %v", q.MinGPUs, q.MaxGPUs)}
	}
	if p.has("price_type") {
		if q.PriceTypes, err = report.ParsePriceTypes("price_type", p.list("price_type")); err != nil {
			return q, err
		}
	}
	for _, c := range p.list("native_currency") {
		if !pricewatch.IsCurrencyCode(strings.ToUpper(c)) {
			return q, &report.ParamError{Msg: fmt.Sprintf("native_currency %q: want an ISO 4217 code such as USD", c)}
		}
		q.NativeCurrencies = append(q.NativeCurrencies, strings.ToUpper(c))
	}
	if q.AvailableOnly, err = p.boolean("available_only"); err != nil {
		return q, err
	}
	switch m := p.str("marketplace"); m {
	case "", report.MarketplaceOnly, report.MarketplaceExclude:
		q.Marketplace = m
	default:
		return q, &report.ParamError{Msg: fmt.Sprintf("marketplace %q: want only or exclude (or leave it out for every seller)", m)}
	}
	// seller= is the name every other endpoint gives the same choice
	// (issue 31); the page's own select still writes marketplace=.
	seller, err := report.ParseSeller("seller", p.str("seller"))
	if err != nil {
		return q, err
	}
	if m := report.MarketplaceOf(seller); m != "" {
		if q.Marketplace != "" && q.Marketplace != m {
			return q, &report.ParamError{Msg: fmt.Sprintf("seller %q and marketplace %q disagree: give one", seller, q.Marketplace)}
		}
		q.Marketplace = m
	}
	if q.Hardware, err = hardwareFilter(p); err != nil {
		return q, err
	}
	// Checked against the bands by report.BuildOfferTable.
	q.MaxBand = p.str("max_band")
	if q.By, q.Per, err = report.ParseView("by", p.str("by"), "per", p.str("per")); err != nil {
		return q, err
	}
	q.Sort = strings.TrimPrefix(p.str("sort"), "-")
	q.Desc = strings.HasPrefix(p.str("sort"), "-")
	return q, nil
}

func (s *Server) offerTable(ctx context.Context, q report.OfferTableQuery) (report.OfferTable, error) {
	book, err := report.FXBook(ctx, s.Store, s.FX())
	if err != nil {
		return report.OfferTable{}, err
	}
	return report.BuildOfferTable(ctx, s.CurrentReads(ctx), book, q)
}

func (s *Server) apiOfferTable(w http.ResponseWriter, r *http.Request) {
	s.serveAPI(w, r, offerTableParams, func(ctx context.Context, p *params) (any, error) {
		q, err := s.offerTableQuery(p)
		if err != nil {
			return nil, err
		}
		t, err := s.offerTable(ctx, q)
		if err != nil {
			return nil, err
		}
		if q.By == report.ByMachine {
			return nonNil(t.Machines), nil
		}
		if t.Rows == nil {
			return []report.OfferTableRow{}, nil
		}
		return t.Rows, nil
	})
}

// offerPageQuery reads a page's offer-table parameters, answering the page
// with the error when they are wrong (ok false).
func (s *Server) offerPageQuery(w http.ResponseWriter, r *http.Request) (*params, report.OfferTableQuery, bool) {
	p, ok := s.pageParams(w, r, offerTableParams...)
	if !ok {
		return nil, report.OfferTableQuery{}, false
	}
	q, err := s.offerTableQuery(p)
	if err != nil {
		s.pageError(w, r, err)
		return nil, report.OfferTableQuery{}, false
	}
	return p, q, true
}

// offersCSV is the current view as CSV: every matching row, every field.
func (s *Server) offersCSV(w http.ResponseWriter, r *http.Request) {
	_, q, ok := s.offerPageQuery(w, r)
	if !ok {
		return
	}
	t, err := s.offerTable(r.Context(), q)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	var buf bytes.Buffer
	if q.By == report.ByMachine {
		err = report.WriteRowsCSV(&buf, nonNil(t.Machines))
	} else {
		header, rows := report.OfferTableCSV(t.Rows)
		err = report.WriteCSV(&buf, header, rows)
	}
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="pricewatch-offers.csv"`)
	w.Header().Set("Cache-Control", CacheControl)
	writeMaybeGzip(w, r, buf.Bytes())
}

// nonNil is rows, or an empty list for none (JSON [] rather than null).
func nonNil[T any](rows []T) []T {
	if rows == nil {
		return []T{}
	}
	return rows
}

// offersData is what offers.html shows.
type offersData struct {
	Table   report.OfferTable
	Rows    []report.OfferTableRow // the rendered ones (at most Limit)
	Columns []tableColumn          // the chosen ones, in display order
	All     []columnChoice
	Limit   int
	Limits  []int
	// DefaultLimit is left out of the addresses the script writes.
	DefaultLimit int
	// Complete: every matching row is rendered, so the browser may filter
	// and sort them itself.
	Complete bool
	Query    string // the view's query string (no sort), for links
	// CSVHref and JSONHref download the view, sort included: whole
	// addresses, built as the sort links are (a query string put after
	// "?" in the template was escaped a second time).
	CSVHref, JSONHref string
	Form              offerForm
	Sort              string
	Desc              bool
	// ByMachine: the view is one row per machine (Machines, at most
	// Limit), in Per; MachineHeads are its columns.
	ByMachine    bool
	Machines     []report.MachineRow
	MachineHeads any
	Per          string // the unit's value (month)
	PerLabel     string // and its words (per month (730 h))
	Pers         []perChoice
}

type tableColumn struct {
	report.OfferColumn
	SortHref string
	AriaSort string
}

type columnChoice struct {
	report.OfferColumn
	Chosen bool
}

// offerForm is the form's state, as the query set it.
type offerForm struct {
	Providers, Currencies, PriceTypes map[string]bool
	Region, GPU, MinGPUs, MaxGPUs     string
	Search, Marketplace, Currency     string
	MaxBand                           string
	Bands                             []string
	AvailableOnly                     bool
	OS, Now                           string
}

func (s *Server) pageOffers(w http.ResponseWriter, r *http.Request) {
	p, q, ok := s.offerPageQuery(w, r)
	if !ok {
		return
	}
	limit := defaultTableRows
	if p.has("limit") {
		var err error
		if limit, err = strconv.Atoi(p.str("limit")); err != nil || limit < 1 || limit > maxTableRows {
			s.pageError(w, r, &report.ParamError{Msg: fmt.Sprintf("limit %q: want a number of rows from 1 to %d", p.str("limit"), maxTableRows)})
			return
		}
	}
	chosen := map[string]bool{}
	for _, c := range p.list("col") {
		if _, ok := report.OfferColumnByID(c); !ok {
			s.pageError(w, r, &report.ParamError{Msg: fmt.Sprintf("col %q: not a column of the table", c)})
			return
		}
		chosen[c] = true
	}
	// Only the rows shown are ordered and completed (report.OfferTableQuery.Limit).
	q.Limit = limit
	t, err := s.offerTable(r.Context(), q)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	d := offersData{Table: t, Rows: t.Rows, Limit: limit, Limits: tableRowChoices, DefaultLimit: defaultTableRows, Complete: t.Matching <= limit, Sort: q.Sort, Desc: q.Desc,
		ByMachine: q.By == report.ByMachine, Machines: t.Machines, MachineHeads: machineHeads, Per: string(q.Per), PerLabel: perLabel(q.Per), Pers: perChoices}
	if len(d.Rows) > limit {
		d.Rows = d.Rows[:limit]
	}
	if len(d.Machines) > limit {
		d.Machines, d.Complete = d.Machines[:limit], false
	}
	// The view's own query, without sort, in a stable order: the sort
	// links add theirs.
	view := url.Values{}
	for _, k := range offerTableParams {
		if k != "sort" {
			for _, v := range p.v[k] {
				if strings.TrimSpace(v) != "" {
					view.Add(k, v)
				}
			}
		}
	}
	d.Query = view.Encode()
	download := url.Values{}
	for k, v := range view {
		download[k] = v
	}
	if q.Sort != "" && q.Desc {
		download.Set("sort", "-"+q.Sort)
	} else if q.Sort != "" {
		download.Set("sort", q.Sort)
	}
	d.CSVHref, d.JSONHref = "/offers.csv?"+download.Encode(), APIPrefix+"offer-table?"+download.Encode()
	for _, c := range report.OfferColumns {
		on := chosen[c.ID] || (len(chosen) == 0 && c.Default)
		d.All = append(d.All, columnChoice{OfferColumn: c, Chosen: on})
		if !on {
			continue
		}
		tc := tableColumn{OfferColumn: c, AriaSort: "none"}
		next := c.ID
		if q.Sort == c.ID {
			if q.Desc {
				tc.AriaSort = "descending"
			} else {
				tc.AriaSort = "ascending"
				next = "-" + c.ID
			}
		}
		link := url.Values{}
		for k, v := range view {
			link[k] = v
		}
		link.Set("sort", next)
		tc.SortHref = "?" + link.Encode()
		d.Columns = append(d.Columns, tc)
	}
	set := func(vals []string, upper bool) map[string]bool {
		m := map[string]bool{}
		for _, v := range vals {
			if upper {
				v = strings.ToUpper(v)
			}
			m[v] = true
		}
		return m
	}
	d.Form = offerForm{Providers: set(p.list("provider"), false), Currencies: set(p.list("native_currency"), true), PriceTypes: set(p.list("price_type"), false),
		Region: strings.Join(p.list("region"), ","), GPU: strings.Join(p.list("gpu"), ","), MinGPUs: p.str("gpus_min"), MaxGPUs: p.str("gpus_max"),
		Search: p.str("q"), Marketplace: q.Marketplace, MaxBand: q.MaxBand, Bands: pricewatch.InterruptionBands, Currency: p.str("currency"), AvailableOnly: q.AvailableOnly, OS: p.str("os"), Now: p.str("now")}
	s.render(w, r, "offers", page{Title: "Offers", Nav: "offers", Now: q.At, Currency: t.Currency, Script: "/static/offers.js", Data: d})
}

// writeMaybeGzip sends body compressed when the client takes gzip: a
// table of a thousand rows is mostly repeated markup.
func writeMaybeGzip(w http.ResponseWriter, r *http.Request, body []byte) {
	w.Header().Add("Vary", "Accept-Encoding")
	if len(body) < 1024 || !acceptsGzip(r) {
		w.Write(body)
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	zw.Write(body)
	zw.Close()
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// gpuIndexData is what gpus.html shows.
type gpuIndexData struct {
	Rows       []report.GPUIndexRow
	PriceTypes []pricewatch.PriceType
}

// pageGPUIndex is /gpu/: every GPU model with a current offer.
func (s *Server) pageGPUIndex(w http.ResponseWriter, r *http.Request) {
	p, ok := s.pageParams(w, r, "currency", "provider", "region", "os", "now")
	if !ok {
		return
	}
	q, err := s.offerTableQuery(p)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	ctx := r.Context()
	book, err := report.FXBook(ctx, s.Store, s.FX())
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	rows, t, err := s.gpuIndex(r, p, q, book)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	s.render(w, r, "gpus", page{Title: "GPU models", Nav: "gpu", Now: q.At, Currency: t.Currency,
		Data: gpuIndexData{Rows: rows, PriceTypes: pricewatch.PriceTypes}})
}

// gpuIndex is the GPU index of q: of every provider, merged from one
// part per provider (providerParts) when the current state tells when
// each provider's rows were read, else computed whole.
func (s *Server) gpuIndex(r *http.Request, p *params, q report.OfferTableQuery, book *fx.Book) ([]report.GPUIndexRow, report.OfferTable, error) {
	ctx := r.Context()
	cur := s.CurrentReads(ctx)
	st, ok := cur.(providerReads)
	if !ok || len(q.Providers) > 0 || p.str("now") != "" {
		return report.GPUIndex(ctx, cur, book, q)
	}
	parts, err := s.gpuIndexParts.get(ctx, st, partKey(latestRates(book), s.answerKey(r), fmt.Sprint(s.now().Unix()/60)), func(provider string) (report.GPUIndexPart, error) {
		pq := q
		pq.Providers = []string{provider}
		return report.GPUIndexOf(ctx, st, book, pq)
	})
	if err != nil {
		return nil, report.OfferTable{}, err
	}
	if len(parts) == 0 {
		return report.GPUIndex(ctx, st, book, q) // nothing ever ran
	}
	return report.MergeGPUIndex(parts), parts[0].Table(), nil
}
