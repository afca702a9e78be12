// Package tencenttest is a local Tencent Cloud CVM API 3.0 endpoint
// (version 2017-03-12) for tests. It checks TC3-HMAC-SHA256 signatures the
// way Tencent does, answers errors in Tencent's shape (HTTP 200 with
// Response.Error), and replays a scenario directory of real-format
// listings:
//
//	<dir>/<region>/<instance-charge-type>.json   DescribeZoneInstanceConfigInfos answers
//	                                             (POSTPAID_BY_HOUR, PREPAID, SPOTPAID)
//	<dir>/<region>/inquiry.json                  InquiryPriceRunInstances table:
//	                                             "<zone>/<instance type>/<period months>" →
//	                                             the term total, or an error code to answer with
//
// DescribeImages, DescribeRegions and the inquiry answers are the real
// published responses in samples/, embedded. A test can switch scenarios,
// change stock and prices, inject throttling and replace bodies between
// runs.
package tencenttest

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// Version is the CVM API version every request must name.
const Version = "2017-03-12"

// ChargeTypes are the instance-charge-type filter values the listings are
// kept by.
var ChargeTypes = []string{"POSTPAID_BY_HOUR", "PREPAID", "SPOTPAID"}

//go:embed samples/*.json
var sampleFS embed.FS

// SampleBytes returns a real published response (or the signature worked
// example) from samples/ as stored.
func SampleBytes(t testing.TB, name string) []byte {
	t.Helper()
	return fetcherstest.Sample(t, sampleFS, "samples/"+name)
}

// Server is the fake CVM endpoint.
type Server struct {
	t       testing.TB
	srv     *httptest.Server
	secrets map[string]string // SecretId → SecretKey

	mu       sync.Mutex
	listings map[string][]byte            // "<region>/<charge type>" → body
	inquiry  map[string]map[string]string // region → table
	throttle map[string]int
	override map[string]string
	calls    fetcherstest.Calls[Request]
	seen     map[string]int
	delay    time.Duration

	inFlight, maxInFlight atomic.Int32
}

// Request is one call the fake accepted (signature checked).
type Request struct {
	Action, Region string
	Body           map[string]any
}

// ActionName is the action called (for fetcherstest.Calls).
func (r Request) ActionName() string { return r.Action }

// NewServer starts a fake CVM that knows one SecretId/SecretKey pair and
// replays the scenario in dir. It is closed when the test ends.
func NewServer(t testing.TB, secretID, secretKey, dir string) *Server {
	t.Helper()
	s := &Server{
		t: t, secrets: map[string]string{secretID: secretKey},
		throttle: map[string]int{}, override: map[string]string{}, seen: map[string]int{},
	}
	s.LoadScenario(dir)
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the endpoint to configure, such as http://127.0.0.1:41234.
func (s *Server) URL() string { return s.srv.URL }

// LoadScenario replaces the listings and inquiry tables with those in dir,
// as if the next run met a different cloud.
func (s *Server) LoadScenario(dir string) {
	s.t.Helper()
	listings := map[string][]byte{}
	inquiry := map[string]map[string]string{}
	regions, err := os.ReadDir(dir)
	if err != nil {
		s.t.Fatalf("tencenttest: scenario: %v", err)
	}
	for _, r := range regions {
		if !r.IsDir() {
			continue
		}
		for _, ct := range ChargeTypes {
			b, err := os.ReadFile(filepath.Join(dir, r.Name(), ct+".json"))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				s.t.Fatalf("tencenttest: %v", err)
			}
			if !json.Valid(b) {
				s.t.Fatalf("tencenttest: %s/%s/%s.json is not JSON", dir, r.Name(), ct)
			}
			listings[r.Name()+"/"+ct] = b
		}
		b, err := os.ReadFile(filepath.Join(dir, r.Name(), "inquiry.json"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			s.t.Fatalf("tencenttest: %v", err)
		}
		table := map[string]string{}
		if err := json.Unmarshal(b, &table); err != nil {
			s.t.Fatalf("tencenttest: %s/%s/inquiry.json: %v", dir, r.Name(), err)
		}
		inquiry[r.Name()] = table
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listings, s.inquiry = listings, inquiry
}

// SetStock sets Status (SELL or SOLD_OUT) and StatusCategory of one type's
// rows in one zone, in the listings of the charge types given (all when
// none is given). SoldOutReason follows Status, as in real rows.
func (s *Server) SetStock(region, zone, instanceType, status, category string, chargeTypes ...string) {
	s.t.Helper()
	reason := ""
	if status == "SOLD_OUT" {
		reason = "ResourcesSoldOut.SpecifiedInstanceType"
	}
	n := s.editRows(region, zone, instanceType, chargeTypes, func(row map[string]any) {
		row["Status"] = status
		if _, ok := row["StatusCategory"]; ok {
			row["StatusCategory"] = category
		}
		if _, ok := row["SoldOutReason"]; ok {
			row["SoldOutReason"] = reason
		}
	})
	if n == 0 {
		s.t.Fatalf("tencenttest: no %s row in %s", instanceType, zone)
	}
}

// SetPrice sets one Price field (UnitPriceDiscount, DiscountPrice,
// DiscountPriceOneYear, …) of one type's row in one zone and charge type,
// to a number written exactly as value.
func (s *Server) SetPrice(region, zone, instanceType, chargeType, field, value string) {
	s.t.Helper()
	n := s.editRows(region, zone, instanceType, []string{chargeType}, func(row map[string]any) {
		p, _ := row["Price"].(map[string]any)
		if _, ok := p[field]; !ok {
			s.t.Errorf("tencenttest: the real row has no Price.%s", field)
		}
		p[field] = json.Number(value)
	})
	if n == 0 {
		s.t.Fatalf("tencenttest: no %s %s row in %s", chargeType, instanceType, zone)
	}
}

// DropPrice removes Price fields of one type's row in one zone and charge
// type, as responses that omit a field do; with asNull the fields stay,
// set to null.
func (s *Server) DropPrice(region, zone, instanceType, chargeType string, asNull bool, fields ...string) {
	s.t.Helper()
	n := s.editRows(region, zone, instanceType, []string{chargeType}, func(row map[string]any) {
		p, _ := row["Price"].(map[string]any)
		for _, f := range fields {
			if _, ok := p[f]; !ok {
				s.t.Errorf("tencenttest: the real row has no Price.%s", f)
			}
			if asNull {
				p[f] = nil
			} else {
				delete(p, f)
			}
		}
	})
	if n == 0 {
		s.t.Fatalf("tencenttest: no %s %s row in %s", chargeType, instanceType, zone)
	}
}

// SetInquiry sets what InquiryPriceRunInstances answers for a zone, type
// and period in months: a total, or an error code.
func (s *Server) SetInquiry(region, zone, instanceType string, months int, answer string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inquiry[region] == nil {
		s.inquiry[region] = map[string]string{}
	}
	s.inquiry[region][fmt.Sprintf("%s/%s/%d", zone, instanceType, months)] = answer
}

func (s *Server) editRows(region, zone, instanceType string, chargeTypes []string, edit func(map[string]any)) int {
	if len(chargeTypes) == 0 {
		chargeTypes = ChargeTypes
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, ct := range chargeTypes {
		key := region + "/" + ct
		b, ok := s.listings[key]
		if !ok {
			continue
		}
		resp, err := decode(b)
		if err != nil {
			s.t.Errorf("tencenttest: %s: %v", key, err)
			continue
		}
		rows, _ := resp["Response"].(map[string]any)["InstanceTypeQuotaSet"].([]any)
		for _, r := range rows {
			row, _ := r.(map[string]any)
			if row["Zone"] == zone && row["InstanceType"] == instanceType {
				edit(row)
				n++
			}
		}
		out, err := json.MarshalIndent(resp, "", "  ")
		if err != nil {
			s.t.Errorf("tencenttest: %s: %v", key, err)
			continue
		}
		s.listings[key] = out
	}
	return n
}

// Throttle answers the next n calls of action with RequestLimitExceeded.
func (s *Server) Throttle(action string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.throttle[action] = s.seen[action] + n
}

// Override answers every later call of action with body, verbatim.
func (s *Server) Override(action, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.override[action] = body
}

// SetDelay makes every answer wait d first.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Count is how many calls of action were accepted (throttled ones too).
func (s *Server) Count(action string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[action]
}

// Requests returns the accepted calls of action ("" for all).
func (s *Server) Requests(action string) []Request { return s.calls.Of(action) }

// MaxInFlight is the most requests the fake was serving at once.
func (s *Server) MaxInFlight() int { return int(s.maxInFlight.Load()) }

var authRE = regexp.MustCompile(`^TC3-HMAC-SHA256 Credential=([^/]+)/(\d{4}-\d{2}-\d{2})/([a-z]+)/tc3_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$`)

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxInFlight.Load()
		if n <= m || s.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	s.mu.Lock()
	delay := s.delay
	s.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	body, _ := io.ReadAll(r.Body)
	action := r.Header.Get("X-TC-Action")
	region := r.Header.Get("X-TC-Region")
	if r.Method != http.MethodPost || r.URL.Path != "/" {
		s.apiError(w, "InvalidAction", "only POST / is served")
		return
	}
	if code, msg := s.verify(r, body); code != "" {
		s.apiError(w, code, msg)
		return
	}
	var parsed map[string]any
	if err := json.Unmarshal(body, &parsed); err != nil {
		s.apiError(w, "InvalidParameter", "request body is not JSON")
		return
	}
	s.calls.Add(Request{action, region, parsed})
	s.mu.Lock()
	s.seen[action]++
	throttled := s.seen[action] <= s.throttle[action]
	override, overridden := s.override[action]
	s.mu.Unlock()
	if throttled {
		s.apiError(w, "RequestLimitExceeded", "Your current request times equals to `21` in a second, which exceeds the frequency limit `20` for a second. Please reduce the frequency of calls.")
		return
	}
	if overridden {
		io.WriteString(w, override)
		return
	}
	switch action {
	case "DescribeZoneInstanceConfigInfos":
		s.zoneConfigs(w, region, parsed)
	case "InquiryPriceRunInstances":
		s.inquire(w, region, parsed)
	case "DescribeImages":
		s.sample(w, "DescribeImages.response.json")
	case "DescribeRegions":
		s.sample(w, "DescribeRegions.response.json")
	default:
		s.apiError(w, "InvalidAction", "unknown action "+action)
	}
}

// verify checks the request as CVM does: version, timestamp window, known
// SecretId, and the TC3 signature over the headers named in SignedHeaders.
func (s *Server) verify(r *http.Request, body []byte) (code, msg string) {
	if v := r.Header.Get("X-TC-Version"); v != Version {
		return "InvalidParameter", "X-TC-Version " + v
	}
	m := authRE.FindStringSubmatch(r.Header.Get("Authorization"))
	if m == nil {
		return "AuthFailure.InvalidAuthorization", "Authorization header is malformed"
	}
	id, date, service, signed, sig := m[1], m[2], m[3], m[4], m[5]
	key, ok := s.secrets[id]
	if !ok {
		return "AuthFailure.SecretIdNotFound", "The SecretId is not found, please ensure that your SecretId is correct."
	}
	ts, err := strconv.ParseInt(r.Header.Get("X-TC-Timestamp"), 10, 64)
	if err != nil {
		return "AuthFailure.InvalidAuthorization", "X-TC-Timestamp missing"
	}
	if d := time.Since(time.Unix(ts, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return "AuthFailure.SignatureExpire", "Signature expired. Timestamp is " + strconv.FormatInt(ts, 10)
	}
	if !strings.HasPrefix(signed, "content-type;host") {
		return "AuthFailure.SignatureFailure", "content-type and host must be signed"
	}
	req := tc3Request{Service: service, SignedHeaders: signed, Payload: body, Timestamp: ts, Headers: func(h string) string {
		if h == "host" {
			return r.Host
		}
		return r.Header.Get(h)
	}}
	if service != "cvm" || date != tc3Date(ts) || req.signature(key) != sig {
		// The published error example is exactly this failure.
		e, err := decodeSample("error.response.json")
		if err != nil {
			s.t.Errorf("tencenttest: %v", err)
			return "AuthFailure.SignatureFailure", ""
		}
		errObj := e["Response"].(map[string]any)["Error"].(map[string]any)
		return errObj["Code"].(string), errObj["Message"].(string)
	}
	return "", ""
}

// apiError answers as Tencent does: HTTP 200 with Response.Error.
func (s *Server) apiError(w http.ResponseWriter, code, msg string) {
	_ = json.NewEncoder(w).Encode(map[string]any{"Response": map[string]any{
		"Error": map[string]string{"Code": code, "Message": msg}, "RequestId": "ed93f3cb-f35e-473f-b9f3-0d451b8b79c6",
	}})
}

func (s *Server) sample(w http.ResponseWriter, name string) {
	b, err := sampleFS.ReadFile("samples/" + name)
	if err != nil {
		s.t.Errorf("tencenttest: %v", err)
		s.apiError(w, "InternalError", "the fake has no "+name)
		return
	}
	_, _ = w.Write(b)
}

func decodeSample(name string) (map[string]any, error) {
	b, err := sampleFS.ReadFile("samples/" + name)
	if err != nil {
		return nil, err
	}
	return decode(b)
}

// decode reads one whole JSON object keeping numbers exactly as written.
func decode(b []byte) (map[string]any, error) {
	var v map[string]any
	if err := fetchers.DecodeWhole(b, "a JSON object", &v); err != nil {
		return nil, err
	}
	return v, nil
}

func filterValue(body map[string]any, name string) (string, bool) {
	fs, _ := body["Filters"].([]any)
	for _, x := range fs {
		m, _ := x.(map[string]any)
		if m["Name"] == name {
			vs, _ := m["Values"].([]any)
			if len(vs) == 1 {
				s, _ := vs[0].(string)
				return s, true
			}
		}
	}
	return "", false
}

func (s *Server) zoneConfigs(w http.ResponseWriter, region string, body map[string]any) {
	ct, ok := filterValue(body, "instance-charge-type")
	if !ok {
		s.apiError(w, "InvalidParameter", "the fake serves one instance-charge-type at a time")
		return
	}
	s.mu.Lock()
	listing, ok := s.listings[region+"/"+ct]
	s.mu.Unlock()
	if !ok {
		// A region with nothing of this charge type: an empty, well-formed list.
		fmt.Fprint(w, `{"Response":{"InstanceTypeQuotaSet":[],"RequestId":"c28559ca-d3cf-40f0-9664-2ab303484efa"}}`)
		return
	}
	zone, byZone := filterValue(body, "zone")
	if !byZone {
		_, _ = w.Write(listing)
		return
	}
	resp, err := decode(listing)
	if err != nil {
		s.t.Errorf("tencenttest: %s/%s: %v", region, ct, err)
		s.apiError(w, "InternalError", "bad listing")
		return
	}
	inner := resp["Response"].(map[string]any)
	rows := []any{}
	all, _ := inner["InstanceTypeQuotaSet"].([]any)
	for _, row := range all {
		if m, _ := row.(map[string]any); m["Zone"] == zone {
			rows = append(rows, row)
		}
	}
	inner["InstanceTypeQuotaSet"] = rows
	_ = json.NewEncoder(w).Encode(resp)
}

func (s *Server) inquire(w http.ResponseWriter, region string, body map[string]any) {
	placement, _ := body["Placement"].(map[string]any)
	zone, _ := placement["Zone"].(string)
	typ, _ := body["InstanceType"].(string)
	charge, _ := body["InstanceChargePrepaid"].(map[string]any)
	period, _ := charge["Period"].(float64)
	if body["InstanceChargeType"] != "PREPAID" || body["ImageId"] == "" || body["ImageId"] == nil {
		s.apiError(w, "MissingParameter", "InstanceChargeType PREPAID and ImageId are required")
		return
	}
	s.mu.Lock()
	v, ok := s.inquiry[region][fmt.Sprintf("%s/%s/%d", zone, typ, int(period))]
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("tencenttest: unexpected inquiry %s %s %v", zone, typ, period)
		s.apiError(w, "InvalidParameterValue", "no such price")
		return
	}
	if _, err := strconv.ParseFloat(v, 64); err != nil {
		// Not a price: the error code to answer with.
		s.apiError(w, v, "The specified instance type is sold out.")
		return
	}
	// The real prepaid sample, with its instance totals replaced.
	resp, err := decodeSample("InquiryPriceRunInstances-prepaid.response.json")
	if err != nil {
		s.t.Errorf("tencenttest: %v", err)
		s.apiError(w, "InternalError", "bad sample")
		return
	}
	ip := resp["Response"].(map[string]any)["Price"].(map[string]any)["InstancePrice"].(map[string]any)
	ip["DiscountPrice"] = json.Number(v)
	ip["OriginalPrice"] = json.Number(v)
	_ = json.NewEncoder(w).Encode(resp)
}
