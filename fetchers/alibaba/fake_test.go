package alibaba

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeECS is a local ECS endpoint. Like the real service it checks every
// request's signature (ACS3-HMAC-SHA256, or the RPC HMAC-SHA1 signature)
// against the secret it knows for the key ID, rejects stale timestamps and
// reused nonces, and answers in Alibaba's error shape. Responses are built
// from the real samples in testdata/samples (see world).
type fakeECS struct {
	t    *testing.T
	keys map[string]string // AccessKey ID → secret
	w    *world
	srv  *httptest.Server

	mu       sync.Mutex
	nonces   map[string]bool
	requests []fakeRequest
	seq      int
}

type fakeRequest struct {
	Action string
	Params url.Values
	Style  string // "ACS3" or "RPC"
}

const (
	testKeyID  = "LTAI5tTestKeyIdExample"
	testSecret = "TestSecretValue0123456789abcdef"
)

func newFakeECS(t *testing.T, w *world) *fakeECS {
	t.Helper()
	f := &fakeECS{t: t, keys: map[string]string{testKeyID: testSecret}, w: w, nonces: map[string]bool{}}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeECS) URL() string { return f.srv.URL }

// calls returns the requests for one action (all when action is "").
func (f *fakeECS) calls(action string) []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeRequest
	for _, r := range f.requests {
		if action == "" || r.Action == action {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeECS) requestID() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	return fmt.Sprintf("5A3E6B2C-0000-4000-8000-%012d", f.seq)
}

// writeError answers in the shape of samples/error.response.json.
func (f *fakeECS) writeError(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	body := sample(f.t, "error.response.json")
	body["RequestId"] = f.requestID()
	body["HostId"] = r.Host
	body["Code"] = code
	body["Message"] = msg
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func (f *fakeECS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.writeError(w, r, 400, "InvalidParameter", "unreadable body")
		return
	}
	if r.URL.Path != "/" {
		f.writeError(w, r, 404, "InvalidAction.NotFound", "Specified api is not found, please check your url and method.")
		return
	}
	params := r.URL.Query()
	if ct := r.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/x-www-form-urlencoded") && len(body) > 0 {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			f.writeError(w, r, 400, "InvalidParameter", "malformed form body")
			return
		}
		for k, v := range form {
			params[k] = v
		}
	}
	var action, style string
	if auth := r.Header.Get("Authorization"); auth != "" {
		style, action = "ACS3", r.Header.Get("x-acs-action")
		if status, code, msg := f.verifyACS3(r, body, auth); code != "" {
			f.writeError(w, r, status, code, msg)
			return
		}
		if v := r.Header.Get("x-acs-version"); v != apiVersion {
			f.writeError(w, r, 400, "InvalidVersion", "Specified parameter Version is not valid.")
			return
		}
	} else if params.Get("Signature") != "" {
		style, action = "RPC", params.Get("Action")
		if status, code, msg := f.verifyRPC(r, params); code != "" {
			f.writeError(w, r, status, code, msg)
			return
		}
		if params.Get("Version") != apiVersion {
			f.writeError(w, r, 400, "InvalidVersion", "Specified parameter Version is not valid.")
			return
		}
	} else {
		f.writeError(w, r, 400, "MissingParameter", "The input parameter \"AccessKeyId\" that is mandatory for processing this request is not supplied.")
		return
	}
	// Signature and nonce fields are not parameters of the action.
	clean := url.Values{}
	for k, v := range params {
		switch k {
		case "Signature", "SignatureMethod", "SignatureVersion", "SignatureNonce", "AccessKeyId", "Timestamp", "Format", "Version", "Action":
			continue
		}
		clean[k] = v
	}
	f.mu.Lock()
	f.requests = append(f.requests, fakeRequest{Action: action, Params: clean, Style: style})
	f.mu.Unlock()

	status, resp := f.w.answer(f.t, action, clean)
	if e, ok := resp.(fakeError); ok {
		f.writeError(w, r, status, e.Code, e.Message)
		return
	}
	var out []byte
	switch v := resp.(type) {
	case []byte:
		out = v
	default:
		out, err = json.Marshal(v)
		if err != nil {
			f.t.Errorf("fake: encoding %s response: %v", action, err)
		}
	}
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// verifyACS3 checks an ACS3-HMAC-SHA256 request as ECS does.
func (f *fakeECS) verifyACS3(r *http.Request, body []byte, auth string) (int, string, string) {
	keyID, signed, sig, err := parseACS3(auth)
	if err != nil {
		return 400, "IncompleteSignature", "The request signature does not conform to Aliyun standards."
	}
	secret, ok := f.keys[keyID]
	if !ok {
		return 404, "InvalidAccessKeyId.NotFound", "Specified access key is not found."
	}
	required := []string{"host", "x-acs-action", "x-acs-content-sha256", "x-acs-date", "x-acs-signature-nonce", "x-acs-version"}
	for _, h := range required {
		found := false
		for _, s := range signed {
			found = found || s == h
		}
		if !found {
			return 400, "IncompleteSignature", "The request signature does not conform to Aliyun standards: " + h + " is not signed."
		}
	}
	sum := sha256.Sum256(body)
	if r.Header.Get("x-acs-content-sha256") != hex.EncodeToString(sum[:]) {
		return 400, "SignatureDoesNotMatch", "Specified signature is not matched with our calculation."
	}
	header := func(h string) string {
		if h == "host" {
			return r.Host
		}
		return r.Header.Get(h)
	}
	canon := v3Canonical(r.Method, r.URL.Path, r.URL.Query(), header, signed, r.Header.Get("x-acs-content-sha256"))
	want := v3Signature(secret, v3StringToSign(canon))
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return 400, "SignatureDoesNotMatch", "Specified signature is not matched with our calculation. server string to sign is:" + v3StringToSign(canon)
	}
	if code, msg := f.checkFresh(r.Header.Get("x-acs-date"), r.Header.Get("x-acs-signature-nonce")); code != "" {
		return 400, code, msg
	}
	return 0, "", ""
}

// verifyRPC checks an RPC (HMAC-SHA1, SignatureVersion 1.0) request.
func (f *fakeECS) verifyRPC(r *http.Request, q url.Values) (int, string, string) {
	secret, ok := f.keys[q.Get("AccessKeyId")]
	if !ok {
		return 404, "InvalidAccessKeyId.NotFound", "Specified access key is not found."
	}
	if q.Get("SignatureMethod") != "HMAC-SHA1" || q.Get("SignatureVersion") != "1.0" {
		return 400, "IncompleteSignature", "The request signature does not conform to Aliyun standards."
	}
	sts := v2StringToSign(r.Method, q)
	if !hmac.Equal([]byte(v2Signature(secret, sts)), []byte(q.Get("Signature"))) {
		return 400, "SignatureDoesNotMatch", "Specified signature is not matched with our calculation. server string to sign is:" + sts
	}
	if code, msg := f.checkFresh(q.Get("Timestamp"), q.Get("SignatureNonce")); code != "" {
		return 400, code, msg
	}
	return 0, "", ""
}

func (f *fakeECS) checkFresh(date, nonce string) (string, string) {
	at, err := time.Parse("2006-01-02T15:04:05Z", date)
	if err != nil {
		return "InvalidTimeStamp.Format", "Specified time stamp or date value is not well formatted."
	}
	if d := time.Since(at); d > 15*time.Minute || d < -15*time.Minute {
		return "InvalidTimeStamp.Expired", "Specified time stamp or date value is expired."
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if nonce == "" || f.nonces[nonce] {
		return "SignatureNonceUsed", "Specified signature nonce was used already."
	}
	f.nonces[nonce] = true
	return "", ""
}

// fakeError makes the fake answer with Alibaba's error shape.
type fakeError struct{ Code, Message string }

// sample loads a real response from testdata/samples as a generic value,
// numbers kept as written.
func sample(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/samples/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// path walks a sample to a nested object.
func path(v any, keys ...string) map[string]any {
	for _, k := range keys {
		v = v.(map[string]any)[k]
	}
	return v.(map[string]any)
}

// first returns a copy of the first element of a sample's list, the row
// every built row starts from.
func first(v any, keys ...string) map[string]any {
	m := path(v, keys[:len(keys)-1]...)
	list := m[keys[len(keys)-1]].([]any)
	return clone(list[0].(map[string]any))
}

func clone(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&out)
	return out
}

// number writes a value as a JSON number (asString false) or string,
// keeping its text exactly.
func number(text string, asString bool) any {
	if asString {
		return text
	}
	return json.Number(text)
}

// world is what the fake cloud holds: GPU types (paged), per-zone stock,
// price quotes, spot history, and injected failures.
type world struct {
	mu sync.Mutex

	typePages [][]fakeType // page i is answered to the i-th NextToken
	tokens    []string     // NextToken returned with page i (last: "")

	zones  map[string][]fakeZone    // region → zones
	prices map[string]fakePrice     // priceKeyString → quote
	spots  map[string][]fakeSpotRow // region|zone|type → rows
	// spotCurrency, when set, is sent as the response's Currency (the
	// 2019 sample has none).
	spotCurrency string
	// spotPage caps rows per DescribeSpotPriceHistory page (0: all).
	spotPage int

	// throttle[action] answers that many calls with Throttling.User first.
	throttle map[string]int
	// serverErrors[action] answers that many calls with InternalError 500 first.
	serverErrors map[string]int
	// failAlways[action] answers every call with this error.
	failAlways map[string]fakeError
	// raw[action] replaces the body of every successful answer.
	raw map[string][]byte
}

type fakeType struct {
	ID, Family, Spec       string
	GPUs, GPUMem, CPU, Mem string // numbers as text
	AsStrings              bool
}

type fakeZone struct {
	ID, Status, Category string
	Stock                []fakeStock
}

type fakeStock struct{ Type, Status, Category string }

type fakePrice struct {
	Currency                  string
	Original, Discount, Trade string
	AsStrings                 bool
	// Detail, when set, adds DetailInfos with an instanceType line
	// (original, discount, trade; trade may be empty).
	Detail []string
	// Code answers with an error instead of a quote.
	Code, Message string
	Status        int
}

type fakeSpotRow struct {
	Zone, Type, Timestamp, Spot, Origin string
	AsStrings                           bool
}

func priceKeyString(region, typ, unit, period string) string {
	return region + "|" + typ + "|" + unit + "|" + period
}

func (w *world) answer(t *testing.T, action string, q url.Values) (int, any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e, ok := w.failAlways[action]; ok {
		return 400, e
	}
	if w.throttle[action] > 0 {
		w.throttle[action]--
		return 403, fakeError{"Throttling.User", "Request was denied due to user flow control."}
	}
	if w.serverErrors[action] > 0 {
		w.serverErrors[action]--
		return 500, fakeError{"InternalError", "The request processing has failed due to some unknown error, exception or failure."}
	}
	if b, ok := w.raw[action]; ok {
		return 200, b
	}
	switch action {
	case "DescribeInstanceTypes", "DescribeRegions":
		// Neither action has a RegionId parameter (SDK v7.7.0 models).
		if q.Has("RegionId") {
			t.Errorf("%s sent RegionId", action)
		}
	}
	switch action {
	case "DescribeInstanceTypes":
		return w.instanceTypes(t, q)
	case "DescribeAvailableResource":
		return w.availableResource(t, q)
	case "DescribePrice":
		return w.price(t, q)
	case "DescribeSpotPriceHistory":
		return w.spotHistory(t, q)
	case "DescribeRegions":
		var regions []any
		for r := range w.zones {
			regions = append(regions, map[string]any{"RegionId": r, "RegionEndpoint": "ecs." + r + ".aliyuncs.com", "LocalName": r})
		}
		return 200, map[string]any{"RequestId": "6D2D0BFE-0000-4000-8000-000000000001", "Regions": map[string]any{"Region": regions}}
	}
	return 404, fakeError{"InvalidAction.NotFound", "Specified api is not found, please check your url and method."}
}

func (w *world) instanceTypes(t *testing.T, q url.Values) (int, any) {
	page := 0
	if tok := q.Get("NextToken"); tok != "" {
		page = -1
		for i, known := range w.tokens {
			if known == tok {
				page = i + 1
			}
		}
		if page < 0 || page >= len(w.typePages) {
			return 400, fakeError{"InvalidNextToken.Malformed", "The specified parameter NextToken is not valid."}
		}
	}
	s := sample(t, "DescribeInstanceTypes.response.json")
	var rows []any
	for _, ft := range w.typePages[page] {
		if ft.ID == "ecs.g6.large" {
			// The published example row, verbatim (GPUAmount 0).
			rows = append(rows, first(s, "InstanceTypes", "InstanceType"))
			continue
		}
		row := first(s, "InstanceTypes", "InstanceType")
		row["InstanceTypeId"] = ft.ID
		row["InstanceTypeFamily"] = ft.Family
		row["GPUSpec"] = ft.Spec
		row["GPUAmount"] = number(ft.GPUs, ft.AsStrings)
		row["GPUMemorySize"] = number(ft.GPUMem, ft.AsStrings)
		row["CpuCoreCount"] = number(ft.CPU, ft.AsStrings)
		row["MemorySize"] = number(ft.Mem, ft.AsStrings)
		row["InstanceCategory"] = "GPU-accelerated compute-optimized"
		rows = append(rows, row)
	}
	path(s, "InstanceTypes")["InstanceType"] = rows
	s["RequestId"] = fmt.Sprintf("00827261-20B7-4562-83F2-%012d", page)
	if page < len(w.tokens) && w.tokens[page] != "" {
		s["NextToken"] = w.tokens[page]
	} else {
		delete(s, "NextToken")
	}
	return 200, s
}

func (w *world) availableResource(t *testing.T, q url.Values) (int, any) {
	if q.Get("DestinationResource") != "InstanceType" {
		t.Errorf("DescribeAvailableResource asked for %q", q.Get("DestinationResource"))
	}
	region := q.Get("RegionId")
	zones, ok := w.zones[region]
	if !ok {
		return 404, fakeError{"InvalidRegionId.NotFound", "The specified RegionId does not exist."}
	}
	s := sample(t, "DescribeAvailableResource.response.json")
	var out []any
	for _, z := range zones {
		zone := first(s, "AvailableZones", "AvailableZone")
		zone["ZoneId"] = z.ID
		zone["RegionId"] = region
		zone["Status"] = z.Status
		zone["StatusCategory"] = z.Category
		resource := first(zone, "AvailableResources", "AvailableResource")
		// The published example's own row (a non-GPU type) stays in
		// every zone, as the real answer lists every type.
		supported := path(resource, "SupportedResources")["SupportedResource"].([]any)
		for _, st := range z.Stock {
			row := clone(supported[0].(map[string]any))
			row["Value"] = st.Type
			row["Status"] = st.Status
			row["StatusCategory"] = st.Category
			supported = append(supported, row)
		}
		path(resource, "SupportedResources")["SupportedResource"] = supported
		path(zone, "AvailableResources")["AvailableResource"] = []any{resource}
		out = append(out, zone)
	}
	path(s, "AvailableZones")["AvailableZone"] = out
	return 200, s
}

func (w *world) price(t *testing.T, q url.Values) (int, any) {
	if q.Get("ResourceType") != "instance" || q.Get("ZoneId") != "" {
		t.Errorf("DescribePrice asked with ResourceType %q ZoneId %q", q.Get("ResourceType"), q.Get("ZoneId"))
	}
	key := priceKeyString(q.Get("RegionId"), q.Get("InstanceType"), q.Get("PriceUnit"), q.Get("Period"))
	p, ok := w.prices[key]
	if !ok {
		t.Errorf("fake: no quote for %s", key)
		return 400, fakeError{"InvalidParameter", "no quote for " + key}
	}
	if p.Code != "" {
		return p.Status, fakeError{p.Code, p.Message}
	}
	s := sample(t, "DescribePrice.response.json")
	price := path(s, "PriceInfo", "Price")
	price["Currency"] = p.Currency
	price["OriginalPrice"] = number(p.Original, p.AsStrings)
	price["DiscountPrice"] = number(p.Discount, p.AsStrings)
	price["TradePrice"] = number(p.Trade, p.AsStrings)
	if p.Detail != nil {
		line := map[string]any{
			"Resource":      "instanceType",
			"OriginalPrice": number(p.Detail[0], p.AsStrings),
			"DiscountPrice": number(p.Detail[1], p.AsStrings),
		}
		if p.Detail[2] != "" {
			line["TradePrice"] = number(p.Detail[2], p.AsStrings)
		}
		price["DetailInfos"] = map[string]any{"DetailInfo": []any{line}}
	}
	return 200, s
}

func (w *world) spotHistory(t *testing.T, q url.Values) (int, any) {
	for _, p := range []string{"InstanceType", "NetworkType", "ZoneId"} {
		if q.Get(p) == "" {
			return 400, fakeError{"MissingParameter", "The input parameter \"" + p + "\" that is mandatory for processing this request is not supplied."}
		}
	}
	rows := w.spots[q.Get("RegionId")+"|"+q.Get("ZoneId")+"|"+q.Get("InstanceType")]
	offset, _ := strconv.Atoi(q.Get("Offset"))
	step := 1000
	if w.spotPage > 0 {
		step = w.spotPage
	}
	end := min(offset+step, len(rows))
	if offset > len(rows) {
		offset = len(rows)
	}
	s := sample(t, "DescribeSpotPriceHistory.response.json")
	var out []any
	for _, r := range rows[offset:end] {
		row := first(s, "SpotPrices", "SpotPriceType")
		row["ZoneId"] = r.Zone
		row["InstanceType"] = r.Type
		row["NetworkType"] = "vpc"
		row["IoOptimized"] = "optimized"
		row["Timestamp"] = r.Timestamp
		row["SpotPrice"] = number(r.Spot, r.AsStrings)
		row["OriginPrice"] = number(r.Origin, r.AsStrings)
		out = append(out, row)
	}
	path(s, "SpotPrices")["SpotPriceType"] = out
	s["RequestId"] = "B8A5E3D1-0000-4000-8000-000000000002"
	s["NextOffset"] = json.Number(strconv.Itoa(offset + step))
	if w.spotCurrency != "" {
		s["Currency"] = w.spotCurrency
	}
	return 200, s
}

// keysOf lists a sample object's field names, for format checks.
func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
