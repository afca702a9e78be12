package tencenttest

import (
	"testing"
)

// The fake's verifier reproduces Tencent's published worked example, all
// three revisions of the page.
func TestVerifierVectors(t *testing.T) {
	doc := SignatureVectors(t)
	c := doc.Common
	headers := map[string]string{"content-type": c.ContentType, "host": c.Host, "x-tc-action": c.Action}
	for _, v := range doc.Vectors {
		t.Run(v.Revision, func(t *testing.T) {
			r := tc3Request{Service: c.Service, SignedHeaders: v.SignedHeaders, Payload: []byte(c.Payload), Timestamp: c.Timestamp,
				Headers: func(h string) string { return headers[h] }}
			if got := sha256Hex(r.Payload); got != c.HashedPayload {
				t.Errorf("hashed payload %s, want %s", got, c.HashedPayload)
			}
			if tc3Date(c.Timestamp) != c.Date {
				t.Errorf("date %s, want %s", tc3Date(c.Timestamp), c.Date)
			}
			if v.CanonicalRequest != "" && r.canonicalRequest() != v.CanonicalRequest {
				t.Errorf("canonical request\n%q\nwant\n%q", r.canonicalRequest(), v.CanonicalRequest)
			}
			if v.HashedCanonicalRequest != "" && sha256Hex([]byte(r.canonicalRequest())) != v.HashedCanonicalRequest {
				t.Errorf("hashed canonical request %s, want %s", sha256Hex([]byte(r.canonicalRequest())), v.HashedCanonicalRequest)
			}
			if v.StringToSign != "" && r.stringToSign() != v.StringToSign {
				t.Errorf("string to sign\n%q\nwant\n%q", r.stringToSign(), v.StringToSign)
			}
			if got := r.signature(v.SecretKey); got != v.Signature {
				t.Errorf("signature %s, want %s", got, v.Signature)
			}
			if got := r.signature("x" + v.SecretKey); got == v.Signature {
				t.Error("another key gave the published signature")
			}
			if alt := v.AlsoWithPartlyMaskedKey; alt != nil {
				if got := r.signature(alt.SecretKey); got != alt.Signature {
					t.Errorf("signature with the partly masked key %s, want %s", got, alt.Signature)
				}
			}
			if v.Authorization != "" {
				m := authRE.FindStringSubmatch(v.Authorization)
				if m == nil || m[1] != v.SecretID || m[2] != c.Date || m[3] != c.Service || m[4] != v.SignedHeaders || m[5] != v.Signature {
					t.Errorf("the published Authorization parsed as %q", m)
				}
			}
		})
	}
}

// The credential scope uses the UTC date even near midnight in UTC+8.
func TestDateIsUTC(t *testing.T) {
	if d := tc3Date(1551139199); d != "2019-02-25" { // 2019-02-26 07:59:59 in Beijing
		t.Errorf("date %s, want 2019-02-25", d)
	}
}
