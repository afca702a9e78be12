package azurecn

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/azurecn/azurecntest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/internal/heappeak"
)

// sampleTime is when every sample row is in effect.
var sampleTime = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func fetch(t testing.TB, srv *azurecntest.Server, regions []string, log *zap.Logger) (*pricewatch.Snapshot, error) {
	t.Helper()
	f, err := New(Config{Endpoint: srv.URL(), Regions: regions, Windows: true, Now: func() time.Time { return sampleTime }},
		fetcherstest.QuickClient(), log)
	return fetcherstest.Fetch(t, f, err)
}

type wantOffer struct {
	key             string // instance|region|price type|os|term
	hourly, upfront string
	perGPU          string // per GPU-hour of the effective hourly
}

// Typed from the sample sheet (testdata/README.md says which values are
// constructed): the A100 row in effect is the one that started later
// (28.5431, not 26.1); the T4 row is priced per 100 hours (372.6 → 3.726);
// reservations are term totals, stored upfront.
var wantOffers = []wantOffer{
	{"Standard_NC24ads_A100_v4|chinanorth3|on_demand|linux|", "28.5431", "0", "28.5431"},
	{"Standard_NC24ads_A100_v4|chinanorth3|on_demand|windows|", "34.8917", "0", "34.8917"},
	{"Standard_NC24ads_A100_v4|chinanorth3|spot|linux|", "5.70862", "0", "5.70862"},
	{"Standard_NC24ads_A100_v4|chinanorth3|reserved|linux|1y", "0", "156830", "17.9029680365"}, // 156830 / 8760
	{"Standard_NC24ads_A100_v4|chinanorth3|reserved|linux|3y", "0", "337000", "12.8234398782"}, // 337000 / 26280
	{"Standard_NC4as_T4_v3|chinaeast2|on_demand|linux|", "3.726", "0", "3.726"},
}

func offerKey(o pricewatch.Offer) string {
	return strings.Join([]string{o.InstanceType, o.Region, string(o.PriceType), o.OS, o.Term}, "|")
}

// Issue 22 item 3: a GPU meter's price in CNY exact, through the Azure
// mapping (hardware table, unit conversion, the later row superseding an
// earlier one); the D-series and storage rows, the dev/test price and the
// unreadable T4 row are not stored.
func TestGPUMetersExactInCNY(t *testing.T) {
	snap, err := fetch(t, azurecntest.New(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]pricewatch.Offer{}
	for _, o := range snap.Offers {
		got[offerKey(o)] = o
	}
	fetcherstest.EachWanted(t, "offers", got, wantOffers, func(w wantOffer) string { return w.key }, func(w wantOffer, o pricewatch.Offer) {
		fetcherstest.WantPrices(t, w.key, o, w.hourly, w.upfront, w.perGPU)
		if o.Provider != Name || o.Currency != "CNY" {
			t.Errorf("%s: %s %s, want azure-cn CNY", w.key, o.Provider, o.Currency)
		}
	})
	a100 := got[wantOffers[0].key]
	if a100.GPUModel != "A100-80GB-PCIe" || a100.GPUCount != 1 || a100.SkuID != "DZH318Z0C1AB/0001" || a100.RegionName != "CN North 3" {
		t.Errorf("A100 offer %+v: want the hardware table's A100 and the row's ids", a100)
	}
	// The unreadable on-demand T4 row of chinaeast2 leaves that region's
	// on-demand (and savings-plan) prices out of the coverage: stored ones
	// stay current. Nothing else is in doubt.
	want := map[string]string{"*": "[spot reserved]", "chinaeast2": "[spot reserved]", "chinanorth3": "[on_demand spot reserved savings_plan]"}
	if len(snap.Coverage) != len(want) {
		t.Fatalf("coverage %+v, want %v", snap.Coverage, want)
	}
	for _, sc := range snap.Coverage {
		if fmt.Sprint(sc.PriceTypes) != want[sc.Region] {
			t.Errorf("coverage of %s: %v, want %s", sc.Region, sc.PriceTypes, want[sc.Region])
		}
	}
	if snap.SourceVersion != "LastRefreshedAt 2026-12-01T04:19:45Z" {
		t.Errorf("source version %q", snap.SourceVersion)
	}
}

// Configured regions keep only their rows; the coverage names them.
func TestRegions(t *testing.T) {
	snap, err := fetch(t, azurecntest.New(t), []string{"ChinaNorth3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range snap.Offers {
		if o.Region != "chinanorth3" {
			t.Errorf("offer of %s stored", o.Region)
		}
	}
	if len(snap.Offers) != 5 || len(snap.Coverage) != 1 || snap.Coverage[0].Region != "chinanorth3" || len(snap.Coverage[0].PriceTypes) != 0 {
		t.Errorf("%d offers, coverage %+v; want 5 and all of chinanorth3", len(snap.Offers), snap.Coverage)
	}
}

// The DownloadUrl is the one foreign origin allowed, but only as an
// absolute http(s) URL without user info; its signature shows in no
// error or log line.
func TestDownloadURLRefused(t *testing.T) {
	for _, link := range []string{"", "/relative/AzureRetailPrices.csv?" + azurecntest.Signature,
		"ftp://blob.example/AzureRetailPrices.csv?" + azurecntest.Signature,
		"http://user:pw@127.0.0.1:1/AzureRetailPrices.csv?" + azurecntest.Signature} {
		t.Run(link, func(t *testing.T) {
			srv := azurecntest.New(t)
			if link == "" {
				srv.SetDownloadURL(" ")
			} else {
				srv.SetDownloadURL(link)
			}
			core, logs := observer.New(zap.DebugLevel)
			_, err := fetch(t, srv, nil, zap.New(core))
			if !errors.Is(err, fetchers.ErrIncomplete) && !errors.Is(err, fetchers.ErrForeignOrigin) {
				t.Fatalf("error %v, want a refused download URL", err)
			}
			if srv.BlobFaults.Requests() != 0 {
				t.Error("the refused URL was fetched")
			}
			if shown := fetcherstest.Shown(err, logs); strings.Contains(shown, "sig=") || strings.Contains(shown, "pw") {
				t.Errorf("the signature or password shows: %s", shown)
			}
		})
	}
}

// A throttled, failing, cut-off or foreign answer of either server fails
// the run, never reads as "every price vanished", and shows no signature.
func TestFailures(t *testing.T) {
	tests := []struct {
		name      string
		api, blob []string
		sheet     string
		want      error
	}{
		{"download endpoint throttled", []string{fetcherstest.Throttled, fetcherstest.Throttled, fetcherstest.Throttled}, nil, "", fetchers.ErrThrottled},
		{"download endpoint errors", []string{fetcherstest.ServerErr, fetcherstest.ServerErr, fetcherstest.ServerErr}, nil, "", nil},
		{"download answer cut off", []string{fetcherstest.Truncated}, nil, "", fetchers.ErrIncomplete},
		{"download answer not JSON", []string{fetcherstest.Malformed}, nil, "", fetchers.ErrIncomplete},
		{"sheet throttled", nil, []string{fetcherstest.Throttled, fetcherstest.Throttled, fetcherstest.Throttled}, "", fetchers.ErrThrottled},
		{"sheet cut off", nil, []string{fetcherstest.Truncated}, "", fetchers.ErrIncomplete},
		{"sheet is an error page", nil, []string{fetcherstest.Malformed}, "", fetchers.ErrIncomplete},
		{"sheet without the price columns", nil, nil, "a,b,c\n1,2,3\n", fetchers.ErrIncomplete},
		{"sheet without a GPU price", nil, nil, strings.SplitN(string(azurecntest.Sample()), "\n", 3)[0] + "\n" +
			strings.SplitN(string(azurecntest.Sample()), "\n", 3)[1] + "\n", fetchers.ErrIncomplete},
		{"empty sheet", nil, nil, "\n", fetchers.ErrIncomplete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := azurecntest.New(t)
			srv.APIFaults.FailNext(tt.api...)
			srv.BlobFaults.FailNext(tt.blob...)
			if tt.sheet != "" {
				srv.SetSheet([]byte(tt.sheet))
			}
			core, logs := observer.New(zap.DebugLevel)
			snap, err := fetch(t, srv, nil, zap.New(core))
			if err == nil {
				t.Fatalf("snapshot of %d offers, want an error", len(snap.Offers))
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
			if shown := fetcherstest.Shown(err, logs); strings.Contains(shown, "sig=") {
				t.Errorf("the signature shows: %s", shown)
			}
		})
	}
}

// One odd line never fails the run: a line of the wrong field count
// that is no GPU price is skipped; one that names a GPU size keeps the
// stored prices of its region current; one that names no region could be
// any price, and with nothing then complete the run is refused (prices
// held), never stored as "the rest vanished".
func TestOddLines(t *testing.T) {
	srv := azurecntest.New(t)
	srv.AddRow(`CNY,0,0.5,0.5,chinaeast2,CN East 2,2023-06-01T00:00:00Z,x,D2 v3,p,s,Virtual Machines Dv3 Series,D2 v3,Virtual Machines`)
	srv.AddRow(`CNY,0,"12"" screen",1,chinaeast2,CN East 2,,m,NC4as T4 v3,p,s2,Virtual Machines NCasT4 v3 Series,NC4as T4 v3,Virtual Machines,Compute,1 Hour,Consumption,Standard_NC4as_T4_v3,,True`)
	snap, err := fetch(t, srv, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Offers) != len(wantOffers) {
		t.Errorf("%d offers, want %d", len(snap.Offers), len(wantOffers))
	}
	// A broken GPU line naming its region keeps that region's prices
	// current; the rest is stored as complete.
	srv.AddRow(`CNY,0,9,9,chinaeast2,Standard_NC24ads_A100_v4`)
	snap, err = fetch(t, srv, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range snap.Coverage {
		if sc.Region == "chinaeast2" || (sc.Region == pricewatch.AllRegions && sc.CoversOffer("chinaeast2", pricewatch.Spot)) {
			t.Errorf("coverage %+v still claims chinaeast2 complete", sc)
		}
	}
	if len(snap.Offers) != len(wantOffers) {
		t.Errorf("%d offers, want %d", len(snap.Offers), len(wantOffers))
	}
	// One naming no region could be any price: with nothing left that
	// can be said complete the run is refused, prices held.
	srv.AddRow(`CNY,0,9,9,Standard_NC24ads_A100_v4`)
	if _, err := fetch(t, srv, nil, nil); !errors.Is(err, fetchers.ErrIncomplete) {
		t.Errorf("error %v, want the run refused (nothing can be said complete)", err)
	}
}

// generate writes a price sheet of at least size bytes: the sample's
// header, then the sample's rows over and over (the GPU rows among them
// repeat with the same price, so what is kept stays the same few offers).
func generate(size int64) func(w io.Writer) error {
	lines := strings.Split(strings.TrimSpace(string(azurecntest.Sample())), "\n")
	header, rows := lines[0]+"\n", []byte(strings.Join(lines[1:], "\n")+"\n")
	return func(w io.Writer) error {
		if _, err := io.WriteString(w, header); err != nil {
			return err
		}
		for n := int64(len(header)); n < size; n += int64(len(rows)) {
			if _, err := w.Write(rows); err != nil {
				return err
			}
		}
		return nil
	}
}

// Issue 22 item 3: a streamed sheet of 200 MB is read in constant memory:
// the heap in use stays far below the sheet's size (it holds the offers
// kept, not the rows). BenchmarkStreamSheet measures the process's peak
// RSS (docs/scale.md).
func TestStreamLargeSheetConstantMemory(t *testing.T) {
	size := int64(200 << 20)
	if testing.Short() {
		size = 8 << 20
	}
	srv := azurecntest.New(t)
	srv.Generate(generate(size))
	stop := heappeak.Start()
	snap, err := fetch(t, srv, nil, nil)
	maxHeap := stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Offers) != len(wantOffers) {
		t.Errorf("%d offers, want %d", len(snap.Offers), len(wantOffers))
	}
	if maxHeap > 64<<20 {
		t.Errorf("heap in use peaked at %d MB reading a %d MB sheet, want constant memory (under 64 MB)", maxHeap>>20, size>>20)
	}
	t.Logf("%d MB sheet read with the heap in use peaking at %d MB", size>>20, maxHeap>>20)
}
