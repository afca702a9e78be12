package tencenttest

import (
	"testing"
)

// The fake's verifier reproduces Tencent's published worked example, all
// three revisions of the page.
func TestVerifierVectors(t *testing.T) {
	CheckVectors(t, func(t *testing.T, c VectorCommon, v Vector) TC3Steps {
		headers := map[string]string{"content-type": c.ContentType, "host": c.Host, "x-tc-action": c.Action}
		r := tc3Request{Service: c.Service, SignedHeaders: v.SignedHeaders, Payload: []byte(c.Payload), Timestamp: c.Timestamp,
			Headers: func(h string) string { return headers[h] }}
		if tc3Date(c.Timestamp) != c.Date {
			t.Errorf("date %s, want %s", tc3Date(c.Timestamp), c.Date)
		}
		if got := r.signature("x" + v.SecretKey); got == v.Signature {
			t.Error("another key gave the published signature")
		}
		if v.Authorization != "" {
			m := authRE.FindStringSubmatch(v.Authorization)
			if m == nil || m[1] != v.SecretID || m[2] != c.Date || m[3] != c.Service || m[4] != v.SignedHeaders || m[5] != v.Signature {
				t.Errorf("the published Authorization parsed as %q", m)
			}
		}
		return TC3Steps{HashedPayload: sha256Hex(r.Payload), CanonicalRequest: r.canonicalRequest(), StringToSign: r.stringToSign(), Signature: r.signature}
	})
}

// The credential scope uses the UTC date even near midnight in UTC+8.
func TestDateIsUTC(t *testing.T) {
	if d := tc3Date(1551139199); d != "2019-02-25" { // 2019-02-26 07:59:59 in Beijing
		t.Errorf("date %s, want 2019-02-25", d)
	}
}
