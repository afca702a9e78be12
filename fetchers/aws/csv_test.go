package aws

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/fetchers/sharedtest"
)

// snapJSON is a snapshot as bytes, so two are compared byte for byte.
func snapJSON(t *testing.T, snap *pricewatch.Snapshot) []byte {
	t.Helper()
	b, err := json.MarshalIndent(snap, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCSVAndJSONGiveTheSameSnapshots: over the same price list the CSV
// path and the JSON path store the same offers, prices, hardware,
// identifiers, coverage and versions, on a first run and on the warm run
// after a publication (one region repriced, another listing a new type).
func TestCSVAndJSONGiveTheSameSnapshots(t *testing.T) {
	trees := map[string]func(t *testing.T, b *awstest.Bucket){
		"standard (with the real capacity-reservation product)": func(t *testing.T, b *awstest.Bucket) { standardTree().publish(t, b) },
		"five regions": func(t *testing.T, b *awstest.Bucket) { wideTree().publish(t, b) },
		"savings plans (with the ten real rates)": func(t *testing.T, b *awstest.Bucket) { spTree(t, b, "20250911184447") },
	}
	for name, publish := range trees {
		t.Run(name, func(t *testing.T) {
			b := awstest.NewBucket(t)
			publish(t, b)
			cfg := Config{SavingsPlans: strings.HasPrefix(name, "savings")}
			jcfg, ccfg := cfg, cfg
			jcfg.Format, ccfg.Format = FormatJSON, FormatCSV
			js, cs := firstRun(t, newFetcher(t, b, jcfg)), firstRun(t, newFetcher(t, b, ccfg))
			if len(cs.Offers) == 0 {
				t.Fatal("no offers")
			}
			if a, c := snapJSON(t, js), snapJSON(t, cs); !bytes.Equal(a, c) {
				t.Errorf("first run: CSV snapshot differs from JSON's\nJSON: %.3000s\nCSV:  %.3000s", a, c)
			}
			// A publication: us-east-1 repriced, af-south-1 lists p5.
			b.SetOnDemand("us-east-1", "20261202000000", "p4d.24xlarge", "40.0000000000")
			b.AddType("af-south-1", "20261202000000", p5)
			prev := fetchers.Previous{Versions: js.Versions, State: js.State}
			j2, err := newFetcher(t, b, jcfg).Fetch(context.Background(), prev)
			if err != nil {
				t.Fatal(err)
			}
			c2, err := newFetcher(t, b, ccfg).Fetch(context.Background(), prev)
			if err != nil {
				t.Fatal(err)
			}
			if a, c := snapJSON(t, j2), snapJSON(t, c2); !bytes.Equal(a, c) {
				t.Errorf("warm run: CSV snapshot differs from JSON's\nJSON: %.3000s\nCSV:  %.3000s", a, c)
			}
		})
	}
}

// TestRealCSVExcerpts reads the held real CSV files: the EC2 excerpt's
// metadata and header (its rows are c6i and m6id, no GPU type), and the
// savings-plan excerpt, whose ten rates must equal what the JSON reader
// makes of the same rows in the JSON layout.
func TestRealCSVExcerpts(t *testing.T) {
	s := awstest.LoadSamples(t)
	rp, err := parseOfferCSVAt(bytes.NewReader(awstest.SampleFile(t, "ec2-offer-index-excerpt-20250912.csv")), "ap-northeast-1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if rp.Version != "20250912225308" || len(rp.Types) != 0 || len(rp.Offers) != 0 {
		t.Errorf("EC2 excerpt: version %q, %d types, %d offers; want 20250912225308 and none (no GPU rows)", rp.Version, len(rp.Types), len(rp.Offers))
	}
	all := func(string) bool { return true }
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	cv, co, err := parseSavingsPlanCSV(bytes.NewReader(awstest.SampleFile(t, "computesavingsplan-ap-east-2-excerpt-20250911.csv")), "ap-east-2", now, all)
	if err != nil {
		t.Fatal(err)
	}
	jv, jo, err := parseSavingsPlanFile(bytes.NewReader(awstest.SavingsPlanFile(t, "20250911184447", "ap-east-2", s.SPHeader, s.SPRows)), "ap-east-2", now, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(co) == 0 || cv != "20250911184447" || cv != jv || fmt.Sprint(co) != fmt.Sprint(jo) {
		t.Errorf("savings-plan excerpt: CSV %s %v\nJSON %s %v", cv, co, jv, jo)
	}
}

// csvCutTree publishes the standard tree and returns the CSV path of
// us-east-2's price file and a first run's previous state, so that a lost
// region can be seen to close nothing.
func csvCutTree(t *testing.T) (*awstest.Bucket, string, []byte) {
	b := awstest.NewBucket(t)
	standardTree().publish(t, b)
	path := awstest.CSVPath(awstest.EC2Path(v1, "us-east-2"))
	body := b.Object(path)
	if len(body) == 0 || !bytes.HasSuffix(body, []byte("\n")) {
		t.Fatalf("no CSV at %s", path)
	}
	return b, path, body
}

// rowBoundary is the end of a row about half-way through body, after
// the header: a cut there leaves a file of whole rows.
func rowBoundary(t *testing.T, body []byte) int {
	i := bytes.IndexByte(body[len(body)/2:], '\n')
	if i < 0 {
		t.Fatal("no row end")
	}
	return len(body)/2 + i + 1
}

// TestCSVCutFileLosesItsRegion: each way a CSV can arrive cut fails its
// region (nothing of it stored or covered, its version not remembered),
// never a complete file with fewer types.
func TestCSVCutFileLosesItsRegion(t *testing.T) {
	csvFetch := func(t *testing.T, endpoint string) (*pricewatch.Snapshot, error) {
		f, err := New(Config{Endpoint: endpoint, SpotEndpoint: endpoint + "/spot.json"}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		f.client = newFetcher(t, awstest.NewBucket(t), Config{}).client // retries without sleeping
		return f.Fetch(context.Background(), fetchers.Previous{})
	}
	t.Run("short of Content-Length at a row boundary, no ranges", func(t *testing.T) {
		b, path, body := csvCutTree(t)
		srv := framingProxy(t, b, path, func(w http.ResponseWriter, conn *bufio.ReadWriter) {
			fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:rowBoundary(t, body)])
		})
		snap, err := csvFetch(t, srv.URL)
		checkRegionLost(t, "short of its Content-Length", snap, err, "us-east-2")
	})
	t.Run("dropped at a row boundary: resumed by range", func(t *testing.T) {
		b, path, body := csvCutTree(t)
		cut := rowBoundary(t, body)
		b.DropOnce(path, cut, nil)
		snap, err := csvFetch(t, b.URL())
		if err != nil {
			t.Fatal(err)
		}
		want := firstRun(t, newFetcher(t, b, Config{Format: FormatJSON}))
		if a, c := snapJSON(t, want), snapJSON(t, snap); !bytes.Equal(a, c) {
			t.Errorf("resumed CSV: snapshot is not the whole file's")
		}
		etag := etagOf(t, b, path)
		if rs := b.Ranges(path); len(rs) != 1 || rs[0].Range != "bytes="+strconv.Itoa(cut)+"-" || rs[0].IfRange != etag {
			t.Errorf("range requests %v, want one from byte %d pinned to %s", rs, cut, etag)
		}
	})
	t.Run("stored short, mid-row, with its own Content-Length", func(t *testing.T) {
		b, path, body := csvCutTree(t)
		b.Truncate(path, rowBoundary(t, body)-3)
		snap, err := csvFetch(t, b.URL())
		checkRegionLost(t, "no final newline", snap, err, "us-east-2")
	})
	t.Run("Version line not the index's", func(t *testing.T) {
		b, path, body := csvCutTree(t)
		b.Put(path, bytes.Replace(body, []byte(`"Version","`+v1+`"`), []byte(`"Version","20261101000001"`), 1))
		snap, err := csvFetch(t, b.URL())
		checkRegionLost(t, "wrong version", snap, err, "us-east-2")
	})
	t.Run("no Version line", func(t *testing.T) {
		b, path, body := csvCutTree(t)
		b.Put(path, bytes.Replace(body, []byte(`"Version","`+v1+`"`+"\n"), nil, 1))
		snap, err := csvFetch(t, b.URL())
		checkRegionLost(t, "no version", snap, err, "us-east-2")
	})
	t.Run("chunked without its last chunk, at a row boundary", func(t *testing.T) {
		b, path, body := csvCutTree(t)
		srv := framingProxy(t, b, path, func(w http.ResponseWriter, conn *bufio.ReadWriter) {
			cut := body[:rowBoundary(t, body)]
			fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/csv\r\n\r\n%x\r\n%s\r\n", len(cut), cut)
		})
		snap, err := csvFetch(t, srv.URL)
		checkRegionLost(t, "chunked, cut", snap, err, "us-east-2")
	})
	t.Run("chunked and whole", func(t *testing.T) {
		b, path, body := csvCutTree(t)
		srv := framingProxy(t, b, path, func(w http.ResponseWriter, conn *bufio.ReadWriter) {
			fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
		})
		snap, err := csvFetch(t, srv.URL)
		if err != nil || !slices.ContainsFunc(snap.Coverage, func(s pricewatch.Scope) bool { return s.Region == "us-east-2" }) {
			t.Fatalf("a whole chunked CSV: err %v", err)
		}
	})
	t.Run("neither length nor chunks: read as JSON", func(t *testing.T) {
		b, path, body := csvCutTree(t)
		srv := framingProxy(t, b, path, func(w http.ResponseWriter, conn *bufio.ReadWriter) {
			// Cut at a row boundary, then the connection closes: as
			// HTTP/1.0 framing, this reads as a complete body.
			fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n%s", body[:rowBoundary(t, body)])
		})
		snap, err := csvFetch(t, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		want := firstRun(t, newFetcher(t, b, Config{Format: FormatJSON}))
		if a, c := snapJSON(t, want), snapJSON(t, snap); !bytes.Equal(a, c) {
			t.Errorf("an unframed CSV answer: snapshot is not the JSON file's")
		}
		if b.Gets(awstest.EC2Path(v1, "us-east-2")) != 2 {
			t.Errorf("JSON file of us-east-2 fetched %d times, want 2 (this run and the reference)", b.Gets(awstest.EC2Path(v1, "us-east-2")))
		}
	})
}

// framingProxy serves the bucket, except path, which write answers on the
// raw connection (to frame a body as no net/http server would).
func framingProxy(t *testing.T, b *awstest.Bucket, path string, write func(http.ResponseWriter, *bufio.ReadWriter)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			b.ServeHTTP(w, r)
			return
		}
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		write(w, rw)
		rw.Flush()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCSVRowSplitting covers quoting the real files do not show: an
// escaped quote, a comma and a newline inside a quoted field.
func TestCSVRowSplitting(t *testing.T) {
	in := "\"a\",\"b \"\"q\"\", c\",d\n\"x\ny\",,\"\"\n"
	c := newCSVReader(strings.NewReader(in))
	var got []string
	for {
		row, err := c.row()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			break
		}
		f, err := c.split(row, -1)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, x := range f {
			parts = append(parts, strconv.Quote(string(x)))
		}
		got = append(got, strings.Join(parts, "|"))
	}
	want := []string{`"a"|"b \"q\", c"|"d"`, `"x\ny"|""|""`}
	sharedtest.WantLines(t, "lines", got, want)
	if _, err := newCSVReader(strings.NewReader("a,b\nc,d")).row(); err != nil {
		t.Fatal(err)
	}
	c = newCSVReader(strings.NewReader("a,b\nc,d"))
	c.row()
	if _, err := c.row(); err != errNoFinalNewline {
		t.Errorf("a last row without newline: %v, want errNoFinalNewline", err)
	}
}

// TestCSVSavingsPlanFileCut: a savings-plan CSV whose Version line is not
// the index's, or that ends inside a row, fails its region as a price
// file does.
func TestCSVSavingsPlanFileCut(t *testing.T) {
	for name, cut := range map[string]func([]byte) []byte{
		"wrong version": func(b []byte) []byte {
			return bytes.Replace(b, []byte("Version,20250911184447\n"), []byte("Version,20250911184448\n"), 1)
		},
		"no last newline": func(b []byte) []byte { return b[:len(b)-1] },
	} {
		t.Run(name, func(t *testing.T) {
			b := awstest.NewBucket(t)
			spTree(t, b, "20250911184447")
			path := awstest.CSVPath(awstest.SPPath("20250911184447", "us-east-1"))
			body := b.Object(path)
			if !bytes.Contains(body, []byte("Version,20250911184447\n")) {
				t.Fatalf("no Version line in %s", path)
			}
			b.Put(path, cut(body))
			snap, err := newFetcher(t, b, Config{SavingsPlans: true, Format: FormatCSV}).Fetch(context.Background(), fetchers.Previous{})
			checkRegionLost(t, name, snap, err, "us-east-1")
		})
	}
}
