package alibabatest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// Server is a local ECS endpoint. Like the real service it checks every
// request's signature (ACS3-HMAC-SHA256, or the RPC HMAC-SHA1 signature)
// against the secret it knows for the key ID, rejects stale timestamps and
// reused nonces, and answers in Alibaba's error shape (samples/
// error.response.json). What it answers comes from its World.
type Server struct {
	t    testing.TB
	keys map[string]string // AccessKey ID → secret
	srv  *httptest.Server

	mu     sync.Mutex
	w      *World
	nonces map[string]bool
	seq    int
	calls  fetcherstest.Calls[Request]
}

// Request is one call the fake accepted (signature checked).
type Request struct {
	Action string
	// Params are the action's own parameters, without the signature's.
	Params url.Values
	Style  string // "ACS3" or "RPC"
}

// ActionName is the action called (for fetcherstest.Calls).
func (r Request) ActionName() string { return r.Action }

// NewServer starts a fake ECS that knows one AccessKey pair and answers from
// w. It is closed when the test ends.
func NewServer(t testing.TB, keyID, secret string, w *World) *Server {
	t.Helper()
	if err := loadSamples(); err != nil {
		t.Fatalf("alibabatest: %v", err)
	}
	if w == nil {
		t.Fatal("alibabatest: NewServer needs a World")
	}
	s := &Server{t: t, keys: map[string]string{keyID: secret}, w: w, nonces: map[string]bool{}}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the endpoint to configure, such as http://127.0.0.1:41234.
func (s *Server) URL() string { return s.srv.URL }

// World is what the fake currently answers from.
func (s *Server) World() *World {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w
}

// SetWorld replaces everything the fake cloud holds, as if the next run
// met a different cloud.
func (s *Server) SetWorld(w *World) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w = w
}

// SetStock changes one instance type's stock line in one zone (Status
// Available or SoldOut; StatusCategory WithStock, ClosedWithStock,
// WithoutStock or ClosedWithoutStock). The zone and its line must exist.
func (s *Server) SetStock(region, zone, instanceType, status, category string) {
	s.t.Helper()
	if err := s.World().SetStock(region, zone, instanceType, status, category); err != nil {
		s.t.Fatalf("alibabatest: %v", err)
	}
}

// SetPrice replaces the quote DescribePrice gives for one type, price unit
// (Hour, Month, Year) and period.
func (s *Server) SetPrice(region, instanceType, unit, period string, p Price) {
	w := s.World()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.Prices == nil {
		w.Prices = map[string]Price{}
	}
	w.Prices[PriceKey(region, instanceType, unit, period)] = p
}

// Throttle answers the next n calls of action with Throttling.User (HTTP
// 403), as ECS does when a flow-control quota is exceeded.
func (s *Server) Throttle(action string, n int) {
	w := s.World()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.Throttle == nil {
		w.Throttle = map[string]int{}
	}
	w.Throttle[action] = n
}

// Calls returns the accepted requests for one action (all when action is
// ""), in arrival order.
func (s *Server) Calls(action string) []Request { return s.calls.Of(action) }

func (s *Server) requestID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("5A3E6B2C-0000-4000-8000-%012d", s.seq)
}

// writeError answers in the shape of samples/error.response.json.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	body, err := sample("error.response.json")
	if err != nil {
		s.t.Errorf("alibabatest: %v", err)
		body = map[string]any{}
	}
	body["RequestId"] = s.requestID()
	body["HostId"] = r.Host
	body["Code"] = code
	body["Message"] = msg
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.writeError(w, r, 400, "InvalidParameter", "unreadable body")
		return
	}
	if r.URL.Path != "/" {
		s.writeError(w, r, 404, "InvalidAction.NotFound", "Specified api is not found, please check your url and method.")
		return
	}
	params := r.URL.Query()
	if ct := r.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/x-www-form-urlencoded") && len(body) > 0 {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			s.writeError(w, r, 400, "InvalidParameter", "malformed form body")
			return
		}
		for k, v := range form {
			params[k] = v
		}
	}
	var action, style string
	if auth := r.Header.Get("Authorization"); auth != "" {
		style, action = "ACS3", r.Header.Get("x-acs-action")
		if status, code, msg := s.verifyACS3(r, body, auth); code != "" {
			s.writeError(w, r, status, code, msg)
			return
		}
		if v := r.Header.Get("x-acs-version"); v != APIVersion {
			s.writeError(w, r, 400, "InvalidVersion", "Specified parameter Version is not valid.")
			return
		}
	} else if params.Get("Signature") != "" {
		style, action = "RPC", params.Get("Action")
		if status, code, msg := s.verifyRPC(r, params); code != "" {
			s.writeError(w, r, status, code, msg)
			return
		}
		if params.Get("Version") != APIVersion {
			s.writeError(w, r, 400, "InvalidVersion", "Specified parameter Version is not valid.")
			return
		}
	} else {
		s.writeError(w, r, 400, "MissingParameter", "The input parameter \"AccessKeyId\" that is mandatory for processing this request is not supplied.")
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
	s.calls.Add(Request{Action: action, Params: clean, Style: style})
	world := s.World()

	status, resp := world.answer(s.t, action, clean)
	if e, ok := resp.(APIError); ok {
		s.writeError(w, r, status, e.Code, e.Message)
		return
	}
	var out []byte
	switch v := resp.(type) {
	case []byte:
		out = v
	default:
		out, err = json.Marshal(v)
		if err != nil {
			s.t.Errorf("alibabatest: encoding %s response: %v", action, err)
		}
	}
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// verifyACS3 checks an ACS3-HMAC-SHA256 request as ECS does.
func (s *Server) verifyACS3(r *http.Request, body []byte, auth string) (int, string, string) {
	keyID, signed, sig, err := parseACS3(auth)
	if err != nil {
		return 400, "IncompleteSignature", "The request signature does not conform to Aliyun standards."
	}
	secret, ok := s.keys[keyID]
	if !ok {
		return 404, "InvalidAccessKeyId.NotFound", "Specified access key is not found."
	}
	required := []string{"host", "x-acs-action", "x-acs-content-sha256", "x-acs-date", "x-acs-signature-nonce", "x-acs-version"}
	for _, h := range required {
		found := false
		for _, sh := range signed {
			found = found || sh == h
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
	if code, msg := s.checkFresh(r.Header.Get("x-acs-date"), r.Header.Get("x-acs-signature-nonce")); code != "" {
		return 400, code, msg
	}
	return 0, "", ""
}

// verifyRPC checks an RPC (HMAC-SHA1, SignatureVersion 1.0) request.
func (s *Server) verifyRPC(r *http.Request, q url.Values) (int, string, string) {
	secret, ok := s.keys[q.Get("AccessKeyId")]
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
	if code, msg := s.checkFresh(q.Get("Timestamp"), q.Get("SignatureNonce")); code != "" {
		return 400, code, msg
	}
	return 0, "", ""
}

func (s *Server) checkFresh(date, nonce string) (string, string) {
	at, err := time.Parse("2006-01-02T15:04:05Z", date)
	if err != nil {
		return "InvalidTimeStamp.Format", "Specified time stamp or date value is not well formatted."
	}
	if d := time.Since(at); d > 15*time.Minute || d < -15*time.Minute {
		return "InvalidTimeStamp.Expired", "Specified time stamp or date value is expired."
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if nonce == "" || s.nonces[nonce] {
		return "SignatureNonceUsed", "Specified signature nonce was used already."
	}
	s.nonces[nonce] = true
	return "", ""
}
