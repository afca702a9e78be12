// Package huaweitest is a fake of the Huawei Cloud APIs the huawei
// fetcher reads, on one server: IAM's project list, ECS's flavor list per
// project, and BSS's on-demand and period (monthly/yearly) price
// inquiries. It refuses a request not signed with SDK-HMAC-SHA256 by the
// access key it was given (the signature itself is checked against the
// signing guide's vector in the fetcher's tests), answers each inquiry
// line from a price table, answers HTTP 400 for the whole request when one
// line names a spec it has no price for (as BSS does), and lets a test
// change a price or make the next responses fail. The flavor lists and
// prices are documented-shape samples (testdata/README.md).
package huaweitest

import (
	"embed"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// AK and SK are the test key pair.
const (
	AK = "HPUATESTACCESSKEY0001"
	SK = "test-secret-key-never-shown-9f8e7d6c5b4a"
)

// Projects are the sample's region projects.
var Projects = map[string]string{"cn-north-4": "06f1cc1f6e00d2b52f27c00a4f1fd5c5", "cn-east-3": "0b9a1e7a2f00d3e02f8cc00ab0e1f2a3"}

//go:embed testdata
var samples embed.FS

// Price is one flavor's prices: an hour, a month, a year (decimal text).
type Price struct {
	Hour  string `json:"hour"`
	Month string `json:"month"`
	Year  string `json:"year"`
}

// Server is the fake.
type Server struct {
	*httptest.Server
	fetcherstest.Faults
	t testing.TB

	mu       sync.Mutex
	currency string
	prices   map[string]map[string]Price // region → flavor → prices
	inquiry  []Inquiry
	// projectsNext is the first project page's links.next ("" for null).
	projectsNext string
}

// SetProjectsNext makes the first project page (no page query) answer
// link as its links.next; later pages are the same sample, with none.
func (s *Server) SetProjectsNext(link string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.projectsNext = link
}

// Inquiry is one accepted price inquiry line, for tests to look at.
type Inquiry struct {
	Path, Region, Spec string
	PeriodType         int
}

// New starts the fake with the sample prices.
func New(t testing.TB) *Server {
	t.Helper()
	var p struct {
		Currency string                      `json:"currency"`
		Prices   map[string]map[string]Price `json:"prices"`
	}
	if err := json.Unmarshal(fetcherstest.Sample(t, samples, "testdata/prices-documented-shape.json"), &p); err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, currency: p.Currency, prices: p.Prices}
	s.Server = fetcherstest.Start(t, s.serve)
	return s
}

// SetPrice sets one flavor's prices in region.
func (s *Server) SetPrice(region, flavor string, p Price) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prices[region][flavor] = p
}

// Unprice removes a flavor's prices (its inquiry lines then fail).
func (s *Server) Unprice(region, flavor string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.prices[region], flavor)
}

// SetCurrency sets the answers' currency ("" is the Chinese site's CNY).
func (s *Server) SetCurrency(c string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.currency = c
}

// Inquiries lists the inquiry lines accepted.
func (s *Server) Inquiries() []Inquiry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Inquiry(nil), s.inquiry...)
}

// flavorsPath is ECS's flavour list below ECSEndpoint's /<region>.
var flavorsPath = regexp.MustCompile(`^/([a-z0-9-]+)/v1/([0-9a-f]+)/cloudservers/flavors$`)

// ECSEndpoint is providers.huawei.ecs_endpoint for the fake: the real
// API has a host per region (ecs.{region}.myhuaweicloud.com); the fake
// takes the region as the path's first segment and answers 404 when it is
// not the project's region, so a request sent to the wrong region's host
// is caught.
func (s *Server) ECSEndpoint() string { return s.URL + "/{region}" }

// authRe is the Authorization header the signing guide prescribes.
var authRe = regexp.MustCompile(`^SDK-HMAC-SHA256 Access=([^,]+), SignedHeaders=([a-z;-]+), Signature=[0-9a-f]{64}$`)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Seen(r)
	w.Header().Set("Content-Type", "application/json")
	m := authRe.FindStringSubmatch(r.Header.Get("Authorization"))
	if m == nil || m[1] != AK || !strings.Contains(m[2], "host") || !strings.Contains(m[2], "x-sdk-date") || len(r.Header.Get("X-Sdk-Date")) != 16 {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error_code":"APIGW.0301","error_msg":"Incorrect IAM authentication information: verify aksk signature fail"}`))
		return
	}
	mode := s.Next()
	var body []byte
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v3/projects":
		body = fetcherstest.Sample(s.t, samples, "testdata/iam-projects-documented-shape.json")
		if s.projectsNext != "" && r.URL.Query().Get("page") == "" {
			var doc map[string]any
			json.Unmarshal(body, &doc)
			doc["links"].(map[string]any)["next"] = s.projectsNext
			body, _ = json.Marshal(doc)
		}
	case r.Method == http.MethodGet && flavorsPath.MatchString(r.URL.Path):
		m := flavorsPath.FindStringSubmatch(r.URL.Path)
		region := regionOf(m[2])
		if region == "" || region != m[1] {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":{"code":"Ecs.0114","message":"project not found"}}`))
			return
		}
		body = fetcherstest.Sample(s.t, samples, "testdata/ecs-flavors-"+region+"-documented-shape.json")
	case r.Method == http.MethodPost && (r.URL.Path == "/v2/bills/ratings/on-demand-resources" || r.URL.Path == "/v2/bills/ratings/period-resources/subscribe-rate"):
		var code int
		body, code = s.rate(r)
		if code != http.StatusOK {
			w.WriteHeader(code)
			w.Write(body)
			return
		}
	default:
		http.NotFound(w, r)
		return
	}
	if !fetcherstest.Write(w, mode, body, `{"error_code":"CBC.0150","error_msg":"The request is throttled."}`) {
		w.Write(body)
	}
}

func regionOf(projectID string) string {
	for r, id := range Projects {
		if id == projectID {
			return r
		}
	}
	return ""
}

type productInfo struct {
	ID               string `json:"id"`
	CloudServiceType string `json:"cloud_service_type"`
	ResourceType     string `json:"resource_type"`
	ResourceSpec     string `json:"resource_spec"`
	Region           string `json:"region"`
	UsageFactor      string `json:"usage_factor"`
	UsageValue       int    `json:"usage_value"`
	UsageMeasureID   int    `json:"usage_measure_id"`
	PeriodType       int    `json:"period_type"`
	PeriodNum        int    `json:"period_num"`
	SubscriptionNum  int    `json:"subscription_num"`
}

func errorBody(code, msg string) []byte {
	return []byte(fmt.Sprintf(`{"error_code":%q,"error_msg":%q}`, code, msg))
}

// rate answers one inquiry from the price table.
func (s *Server) rate(r *http.Request) ([]byte, int) {
	var req struct {
		ProjectID    string        `json:"project_id"`
		ProductInfos []productInfo `json:"product_infos"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || regionOf(req.ProjectID) == "" || len(req.ProductInfos) == 0 || len(req.ProductInfos) > 100 {
		return errorBody("CBC.0100", "Invalid parameter."), http.StatusBadRequest
	}
	period := r.URL.Path != "/v2/bills/ratings/on-demand-resources"
	type line struct {
		ID                    string          `json:"id"`
		ProductID             string          `json:"product_id"`
		Amount                json.RawMessage `json:"amount,omitempty"`
		DiscountAmount        json.RawMessage `json:"discount_amount,omitempty"`
		OfficialWebsiteAmount json.RawMessage `json:"official_website_amount"`
		MeasureID             int             `json:"measure_id"`
	}
	var lines []line
	total := decimal.Zero
	for _, p := range req.ProductInfos {
		if p.ID == "" || p.CloudServiceType != "hws.service.type.ec2" || p.ResourceType != "hws.resource.type.vm" || p.SubscriptionNum != 1 ||
			p.Region != regionOf(req.ProjectID) || !strings.HasSuffix(p.ResourceSpec, ".linux") {
			return errorBody("CBC.0100", "Invalid parameter."), http.StatusBadRequest
		}
		price, ok := s.prices[p.Region][strings.TrimSuffix(p.ResourceSpec, ".linux")]
		if !ok {
			return errorBody("CBC.99003651", "The resource specification is not supported."), http.StatusBadRequest
		}
		var v string
		switch {
		case !period && p.UsageFactor == "Duration" && p.UsageMeasureID == 4 && p.UsageValue > 0:
			v = price.Hour
		case period && p.PeriodType == 2 && p.PeriodNum == 1:
			v = price.Month
		case period && p.PeriodType == 3 && p.PeriodNum == 1:
			v = price.Year
		default:
			return errorBody("CBC.0100", "Invalid parameter."), http.StatusBadRequest
		}
		amount := decimal.RequireFromString(v)
		if !period {
			// The amount covers usage_value hours (the real sample: 730).
			amount = amount.Mul(decimal.NewFromInt(int64(p.UsageValue)))
		}
		total = total.Add(amount)
		s.inquiry = append(s.inquiry, Inquiry{Path: r.URL.Path, Region: p.Region, Spec: p.ResourceSpec, PeriodType: p.PeriodType})
		// Amounts are JSON numbers, as the real answers write them.
		num := json.RawMessage(amount.String())
		// The product id is "OFFI" and 18 digits, as in the real
		// answers; constructed from what was asked, not from the order of
		// the inquiries (which concurrent fetches change), so that a
		// golden holding it stays still.
		id := fnv.New64a()
		fmt.Fprintf(id, "%s|%s|%t|%d", p.Region, p.ResourceSpec, period, p.PeriodType)
		l := line{ID: p.ID, ProductID: fmt.Sprintf("OFFI%018d", id.Sum64()%1_000_000_000_000_000_000), OfficialWebsiteAmount: num, MeasureID: 1}
		if !period {
			l.Amount, l.DiscountAmount = num, json.RawMessage("0")
		}
		lines = append(lines, l)
	}
	var out any
	if period {
		out = map[string]any{
			"official_website_rating_result": map[string]any{"official_website_amount": json.RawMessage(total.String()), "installment_official_website_amount": nil,
				"installment_period_type": nil, "measure_id": 1, "product_rating_results": lines},
			"optional_discount_rating_results": []any{}, "currency": s.currency}
	} else {
		out = map[string]any{"amount": total, "discount_amount": 0, "official_website_amount": json.RawMessage(total.String()), "measure_id": 1,
			"currency": s.currency, "product_rating_results": lines}
	}
	b, _ := json.Marshal(out)
	return b, http.StatusOK
}
