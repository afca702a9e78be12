package aws

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/section"
)

// wideTree has five regions, more than the concurrency tested.
func wideTree() tree {
	tr := standardTree()
	tr["eu-west-1"] = awstest.Region{Version: v1, Types: []awstest.GPUType{p5}}
	tr["ap-northeast-1"] = awstest.Region{Version: v1, Types: []awstest.GPUType{p4d, p3}}
	return tr
}

// inFlight counts the price-file downloads the bucket serves at once and
// holds each of the first `hold` until that many have arrived, so that a
// fetcher that reads one region at a time would stall (and fail the test
// by its deadline) rather than pass by luck of timing.
type inFlight struct {
	mu            sync.Mutex
	now, max, got int
	hold          int
	all           chan struct{}
}

func watch(b *awstest.Bucket, hold int) *inFlight {
	w := &inFlight{hold: hold, all: make(chan struct{})}
	b.OnRequest(func(r *http.Request) func() {
		if !strings.HasSuffix(r.URL.Path, "/index.json") {
			return nil
		}
		w.mu.Lock()
		w.now++
		w.got++
		w.max = max(w.max, w.now)
		if w.got == w.hold {
			close(w.all)
		}
		wait := w.got <= w.hold
		w.mu.Unlock()
		if wait {
			select {
			case <-w.all:
			case <-r.Context().Done():
			}
		}
		return func() { w.mu.Lock(); w.now--; w.mu.Unlock() }
	})
	return w
}

// Issue 26 item 1: regions' files are read providers.aws.concurrency at a
// time, never more, and the snapshot is the one a sequential run builds.
func TestRegionsReadInParallelBounded(t *testing.T) {
	b := awstest.NewBucket(t)
	wideTree().publish(t, b)
	seq := firstRun(t, newFetcher(t, b, Config{Concurrency: 1}))
	for _, c := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			w := watch(b, c)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			snap, err := newFetcher(t, b, Config{Concurrency: c}).Fetch(ctx, fetchers.Previous{})
			if err != nil {
				t.Fatalf("concurrency %d: %v (a fetch reading fewer regions at once stalls here)", c, err)
			}
			if w.max != c || w.got != 5 {
				t.Errorf("concurrency %d: at most %d downloads at once (want %d), %d in all (want 5)", c, w.max, c, w.got)
			}
			if !reflect.DeepEqual(snap, seq) {
				t.Errorf("concurrency %d: the snapshot differs from the sequential one", c)
			}
		})
	}
}

// Issue 26 item 1: one region's failure is that region's coverage: the
// regions read beside it are stored; only when every region fails does
// the fetch fail, naming each.
func TestParallelRegionFailureLosesThatRegion(t *testing.T) {
	b := awstest.NewBucket(t)
	tr := wideTree()
	tr.publish(t, b)
	b.FailWith(awstest.EC2Path(v1, "eu-west-1"), http.StatusForbidden)
	snap, err := newFetcher(t, b, Config{Concurrency: 4}).Fetch(context.Background(), fetchers.Previous{})
	checkRegionLost(t, "403 for eu-west-1", snap, err, "eu-west-1")

	for region := range tr {
		b.FailWith(awstest.EC2Path(v1, region), http.StatusForbidden)
	}
	snap, err = newFetcher(t, b, Config{Concurrency: 4}).Fetch(context.Background(), fetchers.Previous{})
	if snap != nil || !errors.Is(err, fetchers.ErrIncomplete) {
		t.Fatalf("every region refused: snapshot %v, err %v", snap != nil, err)
	}
	for region := range tr {
		if !strings.Contains(err.Error(), "aws region "+region) {
			t.Errorf("every region refused: the error does not name %s: %v", region, err)
		}
	}
}

// Issue 26 item 2: a connection dropped mid-file is resumed with one
// Range request from the byte it stopped at, pinned by If-Range to the
// ETag of the first answer, and the fetch returns exactly what an
// uninterrupted one does.
func TestDroppedConnectionResumesToTheSamePrices(t *testing.T) {
	b := awstest.NewBucket(t)
	standardTree().publish(t, b)
	b.PublishSavingsPlans(map[string]awstest.Versioned{})
	want := firstRun(t, newFetcher(t, b, Config{}))
	path := awstest.EC2Path(v1, "us-east-1")
	size := len(b.Object(path))
	etag := etagOf(t, b, path)
	for _, cut := range []int{1, size / 3, size / 2, size - 1} {
		b.DropOnce(path, cut, nil)
		before, gets := len(b.Ranges(path)), b.Gets(path)
		got := firstRun(t, newFetcher(t, b, Config{}))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("cut at %d of %d: the snapshot differs from an uninterrupted run's", cut, size)
		}
		// The range starts where the client's bytes end: at the cut, or
		// before it when the reset discarded bytes still in flight.
		rs := b.Ranges(path)[before:]
		var from int
		if len(rs) == 1 {
			fmt.Sscanf(rs[0].Range, "bytes=%d-", &from)
		}
		if len(rs) != 1 || rs[0].Range != fmt.Sprintf("bytes=%d-", from) || from < 0 || from > cut || rs[0].IfRange != etag || b.Gets(path)-gets != 2 {
			t.Errorf("cut at %d: range requests %v (want one from at most byte %d, If-Range %s), %d GETs (want 2)", cut, rs, cut, etag, b.Gets(path)-gets)
		}
	}
}

// A resume met by a changed object (If-Range answered 200 with another
// ETag) reads the new object from its first byte: the run holds the new
// file's prices, never a splice of the two.
func TestChangedETagStartsOver(t *testing.T) {
	b := awstest.NewBucket(t)
	standardTree().publish(t, b)
	path := awstest.EC2Path(v1, "us-east-1")
	b.SetOnDemand("us-east-1", v1, p4d.Type, "40.0000000000")
	changed := b.Object(path)
	want := firstRun(t, newFetcher(t, b, Config{}))
	b.SetOnDemand("us-east-1", v1, p4d.Type, p4d.OnDemand)
	before := firstRun(t, newFetcher(t, b, Config{}))
	if reflect.DeepEqual(before, want) {
		t.Fatal("the changed file gives the same snapshot; the test would show nothing")
	}
	etag := etagOf(t, b, path)

	b.DropOnce(path, len(b.Object(path))/2, func() { b.Put(path, changed) })
	gets := b.Gets(path)
	got := firstRun(t, newFetcher(t, b, Config{}))
	if !reflect.DeepEqual(got, want) {
		t.Error("after the object changed mid-download, the snapshot is not the new file's")
	}
	if rs := b.Ranges(path); len(rs) != 1 || rs[0].IfRange != etag {
		t.Errorf("range requests %v, want one pinned to %s", rs, etag)
	}
	if n := b.Gets(path) - gets; n != 3 {
		t.Errorf("%d GETs, want 3 (the first, the range refused, the new file whole)", n)
	}
	if o := offerIndex(got.Offers)["us-east-1/"+p4d.Type+"/on_demand///"]; o.Hourly.String() != "40" {
		t.Errorf("p4d on-demand %s, want the new file's 40", o.Hourly)
	}
}

// A server that serves no ETag (a plain mirror) cannot pin a range: a
// dropped download starts over, at most maxStartOvers times, instead of
// failing the run at once; one more drop fails it.
func TestNoETagStartsOver(t *testing.T) {
	b := awstest.NewBucket(t)
	standardTree().publish(t, b)
	want := firstRun(t, newFetcher(t, b, Config{}))
	path := awstest.EC2Path(v1, "us-east-2")
	for _, drops := range []int{maxStartOvers, maxStartOvers + 1} {
		var mu sync.Mutex
		gets, ranged := 0, 0
		mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != path {
				b.ServeHTTP(w, r)
				return
			}
			body := b.Object(path)
			mu.Lock()
			gets++
			drop := gets <= drops
			if r.Header.Get("Range") != "" {
				ranged++
			}
			mu.Unlock()
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			if !drop {
				w.Write(body)
				return
			}
			w.Write(body[:len(body)/2])
			http.NewResponseController(w).Flush()
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
		}))
		f := newFetcher(t, b, Config{})
		f.cfg.Endpoint = mirror.URL
		got, err := f.Fetch(context.Background(), fetchers.Previous{})
		mirror.Close()
		if drops <= maxStartOvers {
			if err != nil {
				t.Fatalf("%d drops: %v", drops, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%d drops: the snapshot differs from an uninterrupted run's", drops)
			}
		} else {
			checkRegionLost(t, fmt.Sprintf("%d drops", drops), got, err, "us-east-2")
		}
		if gets != min(drops, maxStartOvers)+1 || ranged != 0 {
			t.Errorf("%d drops: %d GETs (want %d), %d with a Range (want 0)", drops, gets, min(drops, maxStartOvers)+1, ranged)
		}
	}
}

// etagOf is the ETag the bucket serves path with.
func etagOf(t *testing.T, b *awstest.Bucket, path string) string {
	t.Helper()
	resp, err := http.Head(b.URL() + path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if e := resp.Header.Get("ETag"); e != "" {
		return e
	}
	t.Fatal("no ETag")
	return ""
}

// providers.aws.concurrency is checked, naming the key and its line.
func TestConcurrencyKey(t *testing.T) {
	s := Provider.Section().(*Section)
	if s.Concurrency != DefaultConcurrency {
		t.Errorf("default concurrency %d", s.Concurrency)
	}
	k := section.NewChecker("pw.yaml", map[string]int{"providers.aws.concurrency": 12}).Under("providers.aws")
	for v, want := range map[int]string{1: "", 4: "", 32: "", 0: "pw.yaml:line 12: providers.aws.concurrency: 0: want 1 to 32",
		33: "pw.yaml:line 12: providers.aws.concurrency: 33: want 1 to 32"} {
		s.Concurrency = v
		err := s.Validate(k)
		if got := fmt.Sprint(err); (want == "" && err != nil) || (want != "" && got != want) {
			t.Errorf("concurrency %d: %v, want %q", v, err, want)
		}
	}
	if _, err := New(Config{Concurrency: 33}, nil, nil); err == nil {
		t.Error("New accepted concurrency 33")
	}
}
