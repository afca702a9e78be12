package tencenttest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The server side of TC3-HMAC-SHA256, written from Tencent's "Signature
// v3" document independently of the fetcher's signer, and checked against
// the document's worked example (tc3_test.go). The fetcher checks its own
// signer against the same example, so a fake that accepts the fetcher's
// requests is evidence that both follow the documented scheme.

// tc3Request is what the server received that the signature covers.
type tc3Request struct {
	Service       string
	Headers       func(name string) string // lower-case name → value as received
	SignedHeaders string                   // "content-type;host;x-tc-action"
	Payload       []byte
	Timestamp     int64
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// tc3Date is the UTC day of the timestamp, as the credential scope uses it.
func tc3Date(ts int64) string {
	return time.Unix(ts, 0).UTC().Format("2006-01-02")
}

// canonicalRequest: POST, "/", an empty query, each signed header as
// "name:value" with the value trimmed and lower-cased, the signed header
// list, and the payload's SHA-256.
func (r tc3Request) canonicalRequest() string {
	var h strings.Builder
	for _, name := range strings.Split(r.SignedHeaders, ";") {
		h.WriteString(name + ":" + strings.ToLower(strings.TrimSpace(r.Headers(name))) + "\n")
	}
	return "POST\n/\n\n" + h.String() + "\n" + r.SignedHeaders + "\n" + sha256Hex(r.Payload)
}

func (r tc3Request) stringToSign() string {
	scope := tc3Date(r.Timestamp) + "/" + r.Service + "/tc3_request"
	return "TC3-HMAC-SHA256\n" + strconv.FormatInt(r.Timestamp, 10) + "\n" + scope + "\n" + sha256Hex([]byte(r.canonicalRequest()))
}

// signature derives the day's signing key from the secret key and signs.
func (r tc3Request) signature(secretKey string) string {
	k := hmacSHA256([]byte("TC3"+secretKey), tc3Date(r.Timestamp))
	k = hmacSHA256(k, r.Service)
	k = hmacSHA256(k, "tc3_request")
	return hex.EncodeToString(hmacSHA256(k, r.stringToSign()))
}

// Vectors are the worked example of Tencent's "Signature v3" page, in its
// three published revisions (samples/tc3-test-vectors.json).
type Vectors struct {
	Common  VectorCommon
	Vectors []Vector
}

// VectorCommon is what the three revisions share: the request signed.
type VectorCommon struct {
	Service, Host, Action, ContentType, Payload, HashedPayload, CredentialScope, Date string
	Timestamp                                                                         int64
}

// Vector is one revision's key and the steps it publishes; the older
// revisions leave some steps out (empty).
type Vector struct {
	Revision, SecretID, SecretKey, SignedHeaders           string
	CanonicalRequest, HashedCanonicalRequest, StringToSign string
	Signature, Authorization                               string
	AlsoWithPartlyMaskedKey                                *struct{ SecretKey, Signature string }
}

// TC3Steps is what one implementation of the signature (the fetcher's
// signer, the fake's verifier) computes for a revision's request.
type TC3Steps struct {
	HashedPayload, CanonicalRequest, StringToSign string
	// Signature signs with a secret key.
	Signature func(secretKey string) string
}

// CheckVectors runs each published revision as a subtest and checks the
// steps that steps computes for it (from c and v, and checking there what
// only that implementation has) against the published ones.
func CheckVectors(t *testing.T, steps func(t *testing.T, c VectorCommon, v Vector) TC3Steps) {
	t.Helper()
	doc := SignatureVectors(t)
	c := doc.Common
	for _, v := range doc.Vectors {
		t.Run(v.Revision, func(t *testing.T) {
			s := steps(t, c, v)
			if s.HashedPayload != c.HashedPayload {
				t.Errorf("hashed payload %s, want %s", s.HashedPayload, c.HashedPayload)
			}
			if v.CanonicalRequest != "" && s.CanonicalRequest != v.CanonicalRequest {
				t.Errorf("canonical request\n%q\nwant\n%q", s.CanonicalRequest, v.CanonicalRequest)
			}
			if v.HashedCanonicalRequest != "" && sha256Hex([]byte(s.CanonicalRequest)) != v.HashedCanonicalRequest {
				t.Errorf("hashed canonical request %s, want %s", sha256Hex([]byte(s.CanonicalRequest)), v.HashedCanonicalRequest)
			}
			if v.StringToSign != "" && s.StringToSign != v.StringToSign {
				t.Errorf("string to sign\n%q\nwant\n%q", s.StringToSign, v.StringToSign)
			}
			if got := s.Signature(v.SecretKey); got != v.Signature {
				t.Errorf("signature %s, want %s", got, v.Signature)
			}
			if alt := v.AlsoWithPartlyMaskedKey; alt != nil {
				if got := s.Signature(alt.SecretKey); got != alt.Signature {
					t.Errorf("signature with the partly masked key %s, want %s", got, alt.Signature)
				}
			}
		})
	}
}

// SignatureVectors loads the published worked example.
func SignatureVectors(t testing.TB) Vectors {
	t.Helper()
	var v Vectors
	if err := json.Unmarshal(SampleBytes(t, "tc3-test-vectors.json"), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Vectors) != 3 {
		t.Fatalf("%d vectors, want the 3 published revisions", len(v.Vectors))
	}
	return v
}
