package fx

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func date(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestParseRealDailyFeed(t *testing.T) {
	r, err := Parse(strings.NewReader(readTestdata(t, "eurofxref-daily-2022-07-08.xml")))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Date.Equal(date("2022-07-08")) {
		t.Errorf("date = %s, want 2022-07-08", r.Date)
	}
	if r.Source != SourceECB {
		t.Errorf("source = %q", r.Source)
	}
	if len(r.PerEUR) != 31 {
		t.Errorf("got %d currencies, want the 31 of the document: %v", len(r.PerEUR), r.Currencies())
	}
	for cur, want := range map[string]string{"USD": "1.0163", "CNY": "6.8095", "JPY": "138.05", "IDR": "15210.73", "GBP": "0.84585"} {
		if got, ok := r.PerEUR[cur]; !ok || !got.Equal(dec(want)) {
			t.Errorf("%s = %s (present %v), want %s", cur, got, ok, want)
		}
	}
	if _, ok := r.PerEUR["EUR"]; ok {
		t.Error("EUR must be implied, not listed")
	}
}

func TestParseAllHistoryLayout(t *testing.T) {
	doc := readTestdata(t, "eurofxref-hist-two-days.xml")
	days, err := ParseAll(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 2 {
		t.Fatalf("got %d days, want 2", len(days))
	}
	if !days[0].Date.Equal(date("2018-09-12")) || !days[1].Date.Equal(date("2022-07-08")) {
		t.Errorf("days not oldest first: %s, %s", days[0].Date, days[1].Date)
	}
	if !days[0].PerEUR["CNY"].Equal(dec("7.9588")) || !days[0].PerEUR["RUB"].Equal(dec("80.1609")) {
		t.Errorf("2018 rates wrong: CNY %s RUB %s", days[0].PerEUR["CNY"], days[0].PerEUR["RUB"])
	}
	newest, err := Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !newest.Date.Equal(date("2022-07-08")) || !newest.PerEUR["USD"].Equal(dec("1.0163")) {
		t.Errorf("Parse should return the newest day, got %s USD %s", newest.Date, newest.PerEUR["USD"])
	}
}

func TestParseRejectsMalformed(t *testing.T) {
	real := readTestdata(t, "eurofxref-daily-2022-07-08.xml")
	const head = `<?xml version="1.0" encoding="UTF-8"?><gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><gesmes:subject>Reference rates</gesmes:subject>`
	const tail = `</gesmes:Envelope>`
	cases := map[string]string{
		"empty body":          ``,
		"html error page":     `<!DOCTYPE html><html><body>Service unavailable</body></html>`,
		"truncated":           real[:len(real)/2],
		"no cube":             head + tail,
		"no reference day":    head + `<Cube></Cube>` + tail,
		"day without rates":   head + `<Cube><Cube time='2022-07-08'></Cube></Cube>` + tail,
		"bad date":            head + `<Cube><Cube time='08.07.2022'><Cube currency='USD' rate='1.0163'/></Cube></Cube>` + tail,
		"placeholder rate":    head + `<Cube><Cube time='2022-07-08'><Cube currency='USD' rate='N/A'/></Cube></Cube>` + tail,
		"zero rate":           head + `<Cube><Cube time='2022-07-08'><Cube currency='USD' rate='0'/></Cube></Cube>` + tail,
		"negative rate":       head + `<Cube><Cube time='2022-07-08'><Cube currency='USD' rate='-1.0163'/></Cube></Cube>` + tail,
		"empty rate":          head + `<Cube><Cube time='2022-07-08'><Cube currency='USD' rate=''/></Cube></Cube>` + tail,
		"bad currency":        head + `<Cube><Cube time='2022-07-08'><Cube currency='usd' rate='1.0163'/></Cube></Cube>` + tail,
		"euro listed":         head + `<Cube><Cube time='2022-07-08'><Cube currency='EUR' rate='1'/></Cube></Cube>` + tail,
		"duplicate currency":  head + `<Cube><Cube time='2022-07-08'><Cube currency='USD' rate='1.0163'/><Cube currency='USD' rate='1.0200'/></Cube></Cube>` + tail,
		"duplicate day":       head + `<Cube><Cube time='2022-07-08'><Cube currency='USD' rate='1.0163'/></Cube><Cube time='2022-07-08'><Cube currency='USD' rate='1.0163'/></Cube></Cube>` + tail,
		"two outer cubes":     head + `<Cube><Cube time='2022-07-08'><Cube currency='USD' rate='1.0163'/></Cube></Cube><Cube></Cube>` + tail,
		"other namespace":     strings.Replace(real, `xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"`, `xmlns="http://example.com/other"`, 1),
		"not the envelope":    `<Envelope><Cube><Cube time='2022-07-08'><Cube currency='USD' rate='1.0163'/></Cube></Cube></Envelope>`,
		"json instead of xml": `{"rates":{"USD":1.0163}}`,
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := ParseAll(strings.NewReader(doc))
			if err == nil {
				t.Fatalf("accepted: %+v", r)
			}
			if !errors.Is(err, ErrIncomplete) {
				t.Errorf("error %v does not wrap ErrIncomplete", err)
			}
		})
	}
}

func testClient() *fetchers.Client {
	p := fetchers.DefaultRetryPolicy()
	p.MaxAttempts = 3
	c := fetchers.NewClient(p)
	c.SetSleep(func(context.Context, time.Duration) error { return nil })
	return c
}

func TestFetch(t *testing.T) {
	body := readTestdata(t, "eurofxref-daily-2022-07-08.xml")
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.URL.Path != "/stats/eurofxref/eurofxref-daily.xml" {
			http.NotFound(w, r)
			return
		}
		if !strings.Contains(r.Header.Get("Accept"), "xml") {
			t.Errorf("Accept header %q does not ask for XML", r.Header.Get("Accept"))
		}
		if n == 1 {
			// The first attempt fails the way an overloaded server does.
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/xml")
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()

	r, err := Fetch(context.Background(), testClient(), srv.URL+"/stats/eurofxref/eurofxref-daily.xml")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Date.Equal(date("2022-07-08")) || !r.PerEUR["CNY"].Equal(dec("6.8095")) {
		t.Errorf("got %s CNY %s", r.Date, r.PerEUR["CNY"])
	}
	if calls.Load() != 2 {
		t.Errorf("server saw %d requests, want 2 (one retry after 503)", calls.Load())
	}
}

func TestFetchFailures(t *testing.T) {
	real := readTestdata(t, "eurofxref-daily-2022-07-08.xml")
	cases := []struct {
		name     string
		handler  http.HandlerFunc
		sentinel error
	}{
		{"not found", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, nil},
		{"truncated body", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(real[:300])) }, ErrIncomplete},
		{"empty body", func(w http.ResponseWriter, r *http.Request) {}, ErrIncomplete},
		{"throttled", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTooManyRequests) }, fetchers.ErrThrottled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			r, err := Fetch(context.Background(), testClient(), srv.URL)
			if err == nil {
				t.Fatalf("accepted: %+v", r)
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Errorf("error %v does not wrap %v", err, tc.sentinel)
			}
		})
	}
}

func TestFetchStopsWithContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Fetch(ctx, testClient(), srv.URL); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
