// Package azurecntest is a fake of Azure China's retail price sheet for
// tests: the download endpoint (prices.azure.cn's
// /api/retail/pricesheet/download) on one server, answering a signed
// DownloadUrl on a second server — another origin, as the real storage
// host is — that serves the CSV. The sheet is the documented-shape sample
// in testdata/ (see its README: which columns are documented, which values
// constructed) unless a test replaces it, edits a row's price, or streams
// a generated sheet of any size.
package azurecntest

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// Path is the download endpoint's path under the base URL.
const Path = "/api/retail/pricesheet/download"

// APIVersion is the version the endpoint answers.
const APIVersion = "2023-06-01-preview"

// SheetPath is where the storage fake serves the CSV (the documented
// example's container and name).
const SheetPath = "/retailpricesasync/2023060101/AzureRetailPrices.csv"

// Signature is the query of the DownloadUrl, standing in for the SAS
// token: tests check it shows in no log or error.
const Signature = "sv=2021-08-06&se=2026-12-01T12%3A00%3A00Z&sr=b&sp=r&sig=c2VjcmV0LXNhcy1zaWduYXR1cmU%3D"

//go:embed testdata/pricesheet-documented-shape.csv
var sample []byte

// Sample returns a copy of the sample sheet.
func Sample() []byte { return append([]byte(nil), sample...) }

// Server is the fake: API answers the download URL, Blob the sheet.
type Server struct {
	// API is the download endpoint; its URL is the provider's endpoint.
	API *httptest.Server
	// Blob is the storage host the DownloadUrl points to.
	Blob *httptest.Server
	// APIFaults and BlobFaults queue failures and count requests of each.
	APIFaults, BlobFaults fetcherstest.Faults

	mu        sync.Mutex
	sheet     []byte
	generate  func(w io.Writer) error
	link      string // DownloadUrl override ("" for the Blob's)
	refreshed string
}

// New starts both servers, serving Sample().
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{sheet: Sample(), refreshed: "2026-12-01T04:19:45Z"}
	s.Blob = fetcherstest.Start(t, s.serveSheet)
	s.API = fetcherstest.Start(t, s.serveAPI)
	return s
}

// URL is the provider's endpoint (the base URL).
func (s *Server) URL() string { return s.API.URL }

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.APIFaults.Accept(w, r, http.MethodGet, Path) {
		return
	}
	if r.URL.Query().Get("api-version") != APIVersion {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"Error":{"Code":"InvalidApiVersion","Message":"The api-version is not supported."}}`))
		return
	}
	link := s.link
	if link == "" {
		link = s.Blob.URL + SheetPath + "?" + Signature
	}
	// The documented example's ExpiryTime is not valid JSON (a stray
	// quote pair); the fake answers the evident intent.
	body := fmt.Sprintf(`{"DownloadUrl":%q,"LastRefreshedAt":%q,"ExpiryTime":"2026-12-01T06:54:57.1059946Z"}`, link, s.refreshed)
	if !fetcherstest.Write(w, s.APIFaults.Next(), []byte(body), "") {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}
}

func (s *Server) serveSheet(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	sheet, generate := s.sheet, s.generate
	mode := ""
	ok := s.BlobFaults.Accept(w, r, http.MethodGet, SheetPath)
	if ok {
		mode = s.BlobFaults.Next()
	}
	s.mu.Unlock()
	if !ok {
		return
	}
	if r.URL.RawQuery != Signature {
		// Azure Storage's answer to a missing or wrong SAS token.
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code></Error>`))
		return
	}
	w.Header().Set("Content-Type", "text/csv")
	if generate != nil && mode == "" {
		generate(w)
		return
	}
	if mode == fetcherstest.Truncated {
		// A body cut off in transit: the length announced, half sent.
		w.Header().Set("Content-Length", fmt.Sprint(len(sheet)))
		w.Write(sheet[:len(sheet)/2])
		return
	}
	if !fetcherstest.Write(w, mode, sheet, "") {
		// The storage host states every blob's length; a sheet cut at
		// the source is served whole, with its own.
		w.Header().Set("Content-Length", fmt.Sprint(len(sheet)))
		w.Write(sheet)
	}
}

// SetSheet replaces the CSV served.
func (s *Server) SetSheet(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sheet, s.generate = b, nil
}

// Generate makes the storage fake write each answer with gen, streamed as
// it is produced (a sheet of any size, never held whole).
func (s *Server) Generate(gen func(w io.Writer) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.generate = gen
}

// SetDownloadURL makes the endpoint answer link as the DownloadUrl.
func (s *Server) SetDownloadURL(link string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.link = link
}

// SetRefreshed sets the LastRefreshedAt answered.
func (s *Server) SetRefreshed(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refreshed = v
}

// SetPrice sets retailPrice and unitPrice of the row skuID (its skuId
// column) in the sheet.
func (s *Server) SetPrice(t testing.TB, skuID, price string) {
	t.Helper()
	s.edit(t, func(header []string, rec []string) {
		if rec[index(t, header, "skuId")] == skuID {
			rec[index(t, header, "retailPrice")] = price
			rec[index(t, header, "unitPrice")] = price
		}
	}, skuID)
}

// AddRow appends one CSV line (in the sample's column order).
func (s *Server) AddRow(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sheet = append(bytes.TrimRight(s.sheet, "\n"), []byte("\n"+strings.TrimRight(line, "\n")+"\n")...)
}

func index(t testing.TB, header []string, name string) int {
	for i, h := range header {
		if h == name {
			return i
		}
	}
	t.Fatalf("azurecntest: no column %s", name)
	return -1
}

func (s *Server) edit(t testing.TB, f func(header, rec []string), want string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := csv.NewReader(bytes.NewReader(s.sheet)).ReadAll()
	if err != nil {
		t.Fatalf("azurecntest: sheet: %v", err)
	}
	before := fmt.Sprint(recs)
	for _, rec := range recs[1:] {
		f(recs[0], rec)
	}
	if fmt.Sprint(recs) == before {
		t.Fatalf("azurecntest: no row changed for %s", want)
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	if err := cw.WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	s.sheet = b.Bytes()
}
