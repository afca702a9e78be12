package tencent

import (
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/tencent/tencenttest"
)

// Tencent's published worked example, all three revisions of the page.
func TestTC3Vectors(t *testing.T) {
	doc := tencenttest.SignatureVectors(t)
	c := doc.Common
	for _, v := range doc.Vectors {
		t.Run(v.Revision, func(t *testing.T) {
			in := tc3Input{Service: c.Service, Host: c.Host, Action: c.Action, ContentType: c.ContentType,
				Payload: []byte(c.Payload), Timestamp: c.Timestamp, SignAction: v.SignedHeaders == signedWithAct}
			if got := sha256Hex(in.Payload); got != c.HashedPayload {
				t.Errorf("hashed payload %s, want %s", got, c.HashedPayload)
			}
			if in.signedHeaders() != v.SignedHeaders {
				t.Errorf("signed headers %q, want %q", in.signedHeaders(), v.SignedHeaders)
			}
			if in.date() != c.Date || in.credentialScope() != c.CredentialScope {
				t.Errorf("scope %s, want %s", in.credentialScope(), c.CredentialScope)
			}
			if v.CanonicalRequest != "" && in.canonicalRequest() != v.CanonicalRequest {
				t.Errorf("canonical request\n%q\nwant\n%q", in.canonicalRequest(), v.CanonicalRequest)
			}
			if v.HashedCanonicalRequest != "" && sha256Hex([]byte(in.canonicalRequest())) != v.HashedCanonicalRequest {
				t.Errorf("hashed canonical request %s, want %s", sha256Hex([]byte(in.canonicalRequest())), v.HashedCanonicalRequest)
			}
			if v.StringToSign != "" && in.stringToSign() != v.StringToSign {
				t.Errorf("string to sign\n%q\nwant\n%q", in.stringToSign(), v.StringToSign)
			}
			if got := in.signature(v.SecretKey); got != v.Signature {
				t.Errorf("signature %s, want %s", got, v.Signature)
			}
			if v.Authorization != "" && in.authorization(v.SecretID, v.SecretKey) != v.Authorization {
				t.Errorf("authorization\n%s\nwant\n%s", in.authorization(v.SecretID, v.SecretKey), v.Authorization)
			}
			if alt := v.AlsoWithPartlyMaskedKey; alt != nil {
				if got := in.signature(alt.SecretKey); got != alt.Signature {
					t.Errorf("signature with the partly masked key %s, want %s", got, alt.Signature)
				}
			}
		})
	}
}

// The credential scope uses the UTC date even near midnight in UTC+8.
func TestTC3DateIsUTC(t *testing.T) {
	in := tc3Input{Timestamp: 1551139199} // 2019-02-25T23:59:59Z = 2019-02-26 07:59:59 in Beijing
	if in.date() != "2019-02-25" {
		t.Errorf("date %s, want 2019-02-25", in.date())
	}
}
