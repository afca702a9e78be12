package alibabatest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// PriceFileSample is the real public price file the fakes copy: the
// international site's instancePrice.json 2.0.7 (2018), two rows kept.
const PriceFileSample = "public-instancePrice-intl-2.0.7-excerpt.json"

// PriceRow is one pricingInfo entry of a fake price file: the key
// ("cn-hangzhou::ecs.gn7i-c8g1.2xlarge::vpc::linux::optimized"), the
// hourly price and the subscription totals by period ("" leaves one out).
type PriceRow struct {
	Key   string
	Hour  string
	Month string
	// Years are the totals for 1 to 5 years, as the sample lists them.
	Years [5]string
}

// PriceFile is the sample price file with its currency, site, version and
// rows replaced; everything else (publicationDate, disclaimer, type,
// description) is the sample's. Prices and periods are strings, as in the
// sample.
func PriceFile(t testing.TB, currency, site, version string, rows ...PriceRow) []byte {
	t.Helper()
	doc := Sample(t, PriceFileSample)
	doc["currency"], doc["site"], doc["version"] = currency, site, version
	if site == "" {
		// The China site's value is not known: left out, not made up.
		delete(doc, "site")
	}
	info := map[string]any{}
	for _, r := range rows {
		entry := map[string]any{}
		add := func(unit string, period int, price string) {
			if price == "" {
				return
			}
			list, _ := entry[unit].([]any)
			entry[unit] = append(list, map[string]any{"price": price, "period": strconv.Itoa(period)})
		}
		add("hours", 1, r.Hour)
		add("months", 1, r.Month)
		for i, y := range r.Years {
			add("years", i+1, y)
		}
		info[r.Key] = entry
	}
	doc["pricingInfo"] = info
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// PriceFileServer serves price files (and pricing pages) at paths, as
// g.alicdn.com and the pricing sites do, counting requests.
type PriceFileServer struct {
	srv *httptest.Server

	mu    sync.Mutex
	files map[string][]byte
	cut   map[string]bool
	hits  map[string]int
}

// NewPriceFileServer starts a server with no files (every path is 404).
func NewPriceFileServer(t testing.TB) *PriceFileServer {
	s := &PriceFileServer{files: map[string][]byte{}, cut: map[string]bool{}, hits: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the server's base URL.
func (s *PriceFileServer) URL() string { return s.srv.URL }

// Set serves body at path from now on, whole.
func (s *PriceFileServer) Set(path string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = body
	delete(s.cut, path)
}

// Cut makes path's answers stop halfway through the body, though the
// Content-Length promised all of it: a download cut off in transit.
func (s *PriceFileServer) Cut(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cut[path] = true
}

// Hits counts the requests of path.
func (s *PriceFileServer) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *PriceFileServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	body, ok := s.files[r.URL.Path]
	cut := s.cut[r.URL.Path]
	s.hits[r.URL.Path]++
	s.mu.Unlock()
	if !ok || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if cut {
		body = body[:len(body)/2]
	}
	_, _ = w.Write(body)
}

// Where the scenario's files are served, as on g.alicdn.com.
const (
	ChinaFilePath = "/aliyun/ecs-price-info/2.0.421/price/download/instancePrice.json"
	IntlFilePath  = "/aliyun/ecs-price-info-intl/2.0.421/price/download/instancePrice.json"
)

// The scenario's GPU type: 1 × A10 (the SpareCores catalogue).
const PublicGN7i = "ecs.gn7i-c8g1.2xlarge"

// ChinaFile is the scenario's China-site file (CNY). 9.5326 is the hourly
// price the China-site file gave gn7i-c8g1.2xlarge in cn-beijing
// (cloudpilot-ai/priceserver, 2024-10-09; see the README); the rest is
// made up, and picked to catch mistakes: the overseas ap-southeast-1 row
// must lose to the international file's, the Windows row and a 0 price
// must be left out, and an unreadable price fails its row only.
func ChinaFile(t testing.TB) []byte {
	return PriceFile(t, "CNY", "", "2.0.421",
		PriceRow{Key: "cn-hangzhou::" + PublicGN7i + "::vpc::linux::optimized", Hour: "9.5326", Month: "4576.40",
			Years: [5]string{"46681.72", "93363.44", "98017.95", "130703.28", "163379.1"}},
		PriceRow{Key: "cn-hangzhou::" + PublicGN7i + "::vpc::windows::optimized", Hour: "10.1326"},
		PriceRow{Key: "cn-hangzhou::ecs.gn6i-c4g1.xlarge::vpc::linux::optimized", Hour: "0", Month: "1500.5"},
		PriceRow{Key: "cn-hangzhou::ecs.gn7e-c16g1.4xlarge::vpc::linux::optimized", Hour: "n/a"},
		PriceRow{Key: "cn-hangzhou::ecs.f3-c4f1.xlarge::vpc::linux::optimized", Hour: "8.73"},
		PriceRow{Key: "ap-southeast-1::" + PublicGN7i + "::vpc::linux::optimized", Hour: "18.065"},
	)
}

// IntlFile is the scenario's international file (USD): the sample's two
// rows (no GPU), gn7i in ap-southeast-1, and gn7i in cn-hangzhou in USD,
// which must lose to the China file's.
func IntlFile(t testing.TB) []byte {
	return PriceFile(t, "USD", "Intl", "2.0.421",
		PriceRow{Key: "ap-southeast-1::ecs.t5-c1m1.xlarge::vpc::linux::optimized", Hour: "0.09", Month: "45.74",
			Years: [5]string{"466.56", "933.1", "1399.64", "1866.18", "2332.74"}},
		PriceRow{Key: "ap-southeast-1::" + PublicGN7i + "::vpc::linux::optimized", Hour: "2.51", Month: "1204.3",
			Years: [5]string{"12284.3", "", "25797.03"}},
		PriceRow{Key: "cn-hangzhou::" + PublicGN7i + "::vpc::linux::optimized", Hour: "1.37"},
	)
}
