package alibabatest

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// The fake server's verifier reproduces Alibaba's published V2 examples.
func TestVerifierV2Vectors(t *testing.T) {
	for _, v := range SignatureVectors(t).V2 {
		t.Run(v.Name, func(t *testing.T) {
			q := queryOf(v.Params)
			if v.CanonicalQuery != "" {
				if got := canonicalQuery(q, "Signature"); got != v.CanonicalQuery {
					t.Errorf("canonical query\n got %s\nwant %s", got, v.CanonicalQuery)
				}
			}
			sts := v2StringToSign(v.Method, q)
			if sts != v.StringToSign {
				t.Errorf("string to sign\n got %s\nwant %s", sts, v.StringToSign)
			}
			if got := v2Signature(v.AccessKeySecret, sts); got != v.Signature {
				t.Errorf("signature %s, want %s", got, v.Signature)
			}
			if got := v2Signature("not-"+v.AccessKeySecret, sts); got == v.Signature {
				t.Error("a wrong secret produced the published signature")
			}
		})
	}
}

// The fake server's verifier reproduces Alibaba's published V3 example.
func TestVerifierV3Vectors(t *testing.T) {
	for _, v := range SignatureVectors(t).V3 {
		t.Run(v.Name, func(t *testing.T) {
			q := queryOf(v.Query)
			var signed []string
			for h := range v.Headers {
				signed = append(signed, h)
			}
			sort.Strings(signed)
			canon := v3Canonical(v.Method, v.Path, q, func(h string) string { return v.Headers[h] }, signed, v.Headers["x-acs-content-sha256"])
			if canon != v.CanonicalRequest {
				t.Fatalf("canonical request\n got %q\nwant %q", canon, v.CanonicalRequest)
			}
			sts := v3StringToSign(canon)
			if sts != v.StringToSign {
				t.Errorf("string to sign %q, want %q", sts, v.StringToSign)
			}
			if got := v3Signature(v.AccessKeySecret, sts); got != v.Signature {
				t.Errorf("signature %s, want %s", got, v.Signature)
			}
			id, hs, sig, err := parseACS3(v.Authorization)
			if err != nil || id != v.AccessKeyID || sig != v.Signature || strings.Join(hs, ";") != strings.Join(signed, ";") {
				t.Errorf("parsing the published Authorization: id %q headers %v sig %q err %v", id, hs, sig, err)
			}
		})
	}
}

func TestParseACS3Rejects(t *testing.T) {
	for _, auth := range []string{
		"",
		"HMAC-SHA1 Credential=a,SignedHeaders=host,Signature=x",
		"ACS3-HMAC-SHA256 Credential=a,SignedHeaders=host",
		"ACS3-HMAC-SHA256 SignedHeaders=host,Signature=x",
	} {
		if _, _, _, err := parseACS3(auth); err == nil {
			t.Errorf("parseACS3(%q) accepted", auth)
		}
	}
	// Header name lookups in the fake use net/http's canonical form.
	h := http.Header{}
	h.Set("x-acs-date", "d")
	if h.Get("X-Acs-Date") != "d" {
		t.Fatal("header lookup is case-sensitive")
	}
}

// queryOf is a vector's parameters as a query, one value each.
func queryOf(params map[string]string) url.Values {
	q := url.Values{}
	for k, v := range params {
		q.Set(k, v)
	}
	return q
}
