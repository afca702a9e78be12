package tencent

import (
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/tencent/tencenttest"
)

// Tencent's published worked example, all three revisions of the page.
func TestTC3Vectors(t *testing.T) {
	tencenttest.CheckVectors(t, func(t *testing.T, c tencenttest.VectorCommon, v tencenttest.Vector) tencenttest.TC3Steps {
		in := tc3Input{Service: c.Service, Host: c.Host, Action: c.Action, ContentType: c.ContentType,
			Payload: []byte(c.Payload), Timestamp: c.Timestamp, SignAction: v.SignedHeaders == signedWithAct}
		if in.signedHeaders() != v.SignedHeaders {
			t.Errorf("signed headers %q, want %q", in.signedHeaders(), v.SignedHeaders)
		}
		if in.date() != c.Date || in.credentialScope() != c.CredentialScope {
			t.Errorf("scope %s, want %s", in.credentialScope(), c.CredentialScope)
		}
		if v.Authorization != "" && in.authorization(v.SecretID, v.SecretKey) != v.Authorization {
			t.Errorf("authorization\n%s\nwant\n%s", in.authorization(v.SecretID, v.SecretKey), v.Authorization)
		}
		return tencenttest.TC3Steps{HashedPayload: sha256Hex(in.Payload), CanonicalRequest: in.canonicalRequest(), StringToSign: in.stringToSign(), Signature: in.signature}
	})
}

// The credential scope uses the UTC date even near midnight in UTC+8.
func TestTC3DateIsUTC(t *testing.T) {
	in := tc3Input{Timestamp: 1551139199} // 2019-02-25T23:59:59Z = 2019-02-26 07:59:59 in Beijing
	if in.date() != "2019-02-25" {
		t.Errorf("date %s, want 2019-02-25", in.date())
	}
}
