package tencent

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeCVM is a CVM API 2017-03-12 endpoint that checks TC3 signatures the
// way Tencent does and replays the listings under testdata/<dir>.
type fakeCVM struct {
	t       *testing.T
	dir     string            // testdata scenario, e.g. "testdata/run1"
	secrets map[string]string // SecretId → SecretKey
	// throttle answers the first n calls of an action with RequestLimitExceeded.
	throttle map[string]int
	// override replaces the body for an action (malformed-response tests).
	override map[string]string
	now      func() time.Time

	mu       sync.Mutex
	requests []fakeRequest
	seen     map[string]int
	inFlight atomic.Int32
	maxInFl  atomic.Int32
	delay    time.Duration
}

type fakeRequest struct {
	Action, Region string
	Body           map[string]any
}

func newFakeCVM(t *testing.T, dir string) (*fakeCVM, *httptest.Server) {
	t.Helper()
	f := &fakeCVM{
		t: t, dir: dir,
		secrets:  map[string]string{testSecretID: testSecretKey},
		throttle: map[string]int{}, override: map[string]string{}, seen: map[string]int{},
		now: time.Now,
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

const (
	testSecretID  = "AKIDpricewatchTESTsecretID0000000000"
	testSecretKey = "pricewatchTESTsecretKEY000000000"
)

var authRE = regexp.MustCompile(`^TC3-HMAC-SHA256 Credential=([^/]+)/(\d{4}-\d{2}-\d{2})/([a-z]+)/tc3_request, SignedHeaders=([a-z;-]+), Signature=([0-9a-f]{64})$`)

func (f *fakeCVM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxInFl.Load()
		if n <= m || f.maxInFl.CompareAndSwap(m, n) {
			break
		}
	}
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	body, _ := io.ReadAll(r.Body)
	action := r.Header.Get("X-TC-Action")
	region := r.Header.Get("X-TC-Region")
	if r.Method != http.MethodPost || r.URL.Path != "/" {
		f.apiError(w, "InvalidAction", "only POST / is served")
		return
	}
	if code, msg := f.verify(r, body); code != "" {
		f.apiError(w, code, msg)
		return
	}
	var parsed map[string]any
	if err := json.Unmarshal(body, &parsed); err != nil {
		f.apiError(w, "InvalidParameter", "request body is not JSON")
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, fakeRequest{action, region, parsed})
	f.seen[action]++
	calls := f.seen[action]
	f.mu.Unlock()
	if calls <= f.throttle[action] {
		f.apiError(w, "RequestLimitExceeded", "Your current request times equals to `21` in a second, which exceeds the frequency limit `20` for a second. Please reduce the frequency of calls.")
		return
	}
	if b, ok := f.override[action]; ok {
		io.WriteString(w, b)
		return
	}
	switch action {
	case "DescribeZoneInstanceConfigInfos":
		f.zoneConfigs(w, region, parsed)
	case "InquiryPriceRunInstances":
		f.inquiry(w, region, parsed)
	case "DescribeImages":
		f.file(w, "testdata/samples/DescribeImages.response.json")
	case "DescribeRegions":
		f.file(w, "testdata/samples/DescribeRegions.response.json")
	default:
		f.apiError(w, "InvalidAction", "unknown action "+action)
	}
}

// verify checks the request as CVM does: version, timestamp window, known
// SecretId, and the TC3 signature over the headers named in SignedHeaders.
func (f *fakeCVM) verify(r *http.Request, body []byte) (code, msg string) {
	if v := r.Header.Get("X-TC-Version"); v != cvmVersion {
		return "InvalidParameter", "X-TC-Version " + v
	}
	m := authRE.FindStringSubmatch(r.Header.Get("Authorization"))
	if m == nil {
		return "AuthFailure.InvalidAuthorization", "Authorization header is malformed"
	}
	id, date, service, signed, sig := m[1], m[2], m[3], m[4], m[5]
	key, ok := f.secrets[id]
	if !ok {
		return "AuthFailure.SecretIdNotFound", "The SecretId is not found, please ensure that your SecretId is correct."
	}
	ts, err := strconv.ParseInt(r.Header.Get("X-TC-Timestamp"), 10, 64)
	if err != nil {
		return "AuthFailure.InvalidAuthorization", "X-TC-Timestamp missing"
	}
	if d := f.now().Sub(time.Unix(ts, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return "AuthFailure.SignatureExpire", "Signature expired. Timestamp is " + strconv.FormatInt(ts, 10)
	}
	in := tc3Input{Service: service, Host: r.Host, Action: r.Header.Get("X-TC-Action"), ContentType: r.Header.Get("Content-Type"), Payload: body, Timestamp: ts}
	switch signed {
	case signedWithAct:
		in.SignAction = true
	case signedNoAction:
	default:
		return "AuthFailure.SignatureFailure", "unsupported SignedHeaders"
	}
	if service != cvmService || date != in.date() || in.signature(key) != sig {
		var e struct {
			Response struct {
				Error struct{ Code, Message string }
			}
		}
		f.decodeFile("testdata/samples/error.response.json", &e)
		return e.Response.Error.Code, e.Response.Error.Message
	}
	return "", ""
}

func (f *fakeCVM) apiError(w http.ResponseWriter, code, msg string) {
	// Tencent answers errors with HTTP 200 and Response.Error.
	json.NewEncoder(w).Encode(map[string]any{"Response": map[string]any{
		"Error": map[string]string{"Code": code, "Message": msg}, "RequestId": "ed93f3cb-f35e-473f-b9f3-0d451b8b79c6",
	}})
}

func (f *fakeCVM) decodeFile(path string, v any) {
	b, err := os.ReadFile(path)
	if err != nil {
		f.t.Errorf("fake: %v", err)
		return
	}
	if err := json.Unmarshal(b, v); err != nil {
		f.t.Errorf("fake: %s: %v", path, err)
	}
}

func (f *fakeCVM) file(w http.ResponseWriter, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		f.t.Errorf("fake: %v", err)
		f.apiError(w, "InternalError", "fake has no "+path)
		return
	}
	w.Write(b)
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

func (f *fakeCVM) zoneConfigs(w http.ResponseWriter, region string, body map[string]any) {
	ct, ok := filterValue(body, "instance-charge-type")
	if !ok {
		f.apiError(w, "InvalidParameter", "the fake serves one instance-charge-type at a time")
		return
	}
	path := filepath.Join(f.dir, region, ct+".json")
	if _, err := os.Stat(path); err != nil {
		// A region with nothing of this charge type: an empty, well-formed list.
		fmt.Fprint(w, `{"Response":{"InstanceTypeQuotaSet":[],"RequestId":"c28559ca-d3cf-40f0-9664-2ab303484efa"}}`)
		return
	}
	zone, byZone := filterValue(body, "zone")
	if !byZone {
		f.file(w, path)
		return
	}
	var resp map[string]map[string][]map[string]any
	f.decodeFile(path, &resp)
	var rows []map[string]any
	for _, row := range resp["Response"]["InstanceTypeQuotaSet"] {
		if row["Zone"] == zone {
			rows = append(rows, row)
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"Response": map[string]any{"InstanceTypeQuotaSet": rows, "RequestId": "c28559ca"}})
}

func (f *fakeCVM) inquiry(w http.ResponseWriter, region string, body map[string]any) {
	zone, _ := body["Placement"].(map[string]any)["Zone"].(string)
	typ, _ := body["InstanceType"].(string)
	charge, _ := body["InstanceChargePrepaid"].(map[string]any)
	period, _ := charge["Period"].(float64)
	if body["InstanceChargeType"] != prepaid || body["ImageId"] == "" || body["ImageId"] == nil {
		f.apiError(w, "MissingParameter", "InstanceChargeType PREPAID and ImageId are required")
		return
	}
	var table map[string]string
	f.decodeFile(filepath.Join(f.dir, region, "inquiry.json"), &table)
	v, ok := table[fmt.Sprintf("%s/%s/%d", zone, typ, int(period))]
	if !ok {
		f.t.Errorf("fake: unexpected inquiry %s %s %v", zone, typ, period)
		f.apiError(w, "InvalidParameterValue", "no such price")
		return
	}
	if _, err := strconv.ParseFloat(v, 64); err != nil {
		// Not a price: the error code to answer with.
		f.apiError(w, v, "The specified instance type is sold out.")
		return
	}
	// The real prepaid sample, with its instance totals replaced.
	var resp struct {
		Response struct {
			Price     map[string]map[string]any
			RequestId string
		}
	}
	f.decodeFile("testdata/samples/InquiryPriceRunInstances-prepaid.response.json", &resp)
	ip := resp.Response.Price["InstancePrice"]
	ip["DiscountPrice"] = json.Number(v)
	ip["OriginalPrice"] = json.Number(v)
	json.NewEncoder(w).Encode(resp)
}

func (f *fakeCVM) count(action string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[action]
}

func (f *fakeCVM) requestsFor(action string) []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeRequest
	for _, r := range f.requests {
		if r.Action == action {
			out = append(out, r)
		}
	}
	return out
}
