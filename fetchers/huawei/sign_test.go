package huawei

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/section"
)

// The worked example of Huawei Cloud's API Request Signing Guide
// (support.huaweicloud.com/intl/en-us/devg-apisign, "Constructing a
// Standard Request", "Creating a To-Be-Signed String", "Calculating the
// Signature"; recomputed with Python's hashlib/hmac on 2026-12-02 and
// matched): the VPC query GET with Content-Type application/json at
// 20191115T033655Z. Each step is checked against the guide's value.
func TestSignDocumentedVector(t *testing.T) {
	req, err := http.NewRequest(http.MethodGet, "https://service.region.example.com/v1/77b6a44cba5143ab91d13ab9a8ff44fd/vpcs?limit=2&marker=13551d6b-755d-4757-b956-536f674975c0", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	ak, sk := section.NewSecret("QTWAOYTTINDUT2QVKYUC"), section.NewSecret("MFyfvK41ba2giqM7Uio6PznpdUKGpownRZlmVmHc")
	now := time.Date(2019, 11, 15, 3, 36, 55, 0, time.UTC)

	canonical, signed := canonicalRequest(req.Method, req.URL,
		map[string]string{"content-type": "application/json", "host": "service.region.example.com", "x-sdk-date": "20191115T033655Z"}, nil)
	wantCanonical := "GET\n/v1/77b6a44cba5143ab91d13ab9a8ff44fd/vpcs/\nlimit=2&marker=13551d6b-755d-4757-b956-536f674975c0\n" +
		"content-type:application/json\nhost:service.region.example.com\nx-sdk-date:20191115T033655Z\n\n" +
		"content-type;host;x-sdk-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	if canonical != wantCanonical || signed != "content-type;host;x-sdk-date" {
		t.Errorf("canonical request\n%s\nwant\n%s", canonical, wantCanonical)
	}
	toSign := stringToSign("20191115T033655Z", canonical)
	if want := "SDK-HMAC-SHA256\n20191115T033655Z\nb25362e603ee30f4f25e7858e8a7160fd36e803bb2dfe206278659d71a9bcd7a"; toSign != want {
		t.Errorf("string to sign\n%s\nwant\n%s", toSign, want)
	}
	if got, want := signature(sk, toSign), "7be6668032f70418fcc22abc52071e57aff61b84a1d2381bb430d6870f4f6ebe"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}

	sign(req, nil, ak, sk, now)
	if got, want := req.Header.Get("Authorization"), "SDK-HMAC-SHA256 Access=QTWAOYTTINDUT2QVKYUC, SignedHeaders=content-type;host;x-sdk-date, Signature=7be6668032f70418fcc22abc52071e57aff61b84a1d2381bb430d6870f4f6ebe"; got != want {
		t.Errorf("Authorization %q, want %q", got, want)
	}
	if req.Header.Get("X-Sdk-Date") != "20191115T033655Z" {
		t.Errorf("X-Sdk-Date %q", req.Header.Get("X-Sdk-Date"))
	}
	if strings.Contains(req.Header.Get("Authorization"), sk.Value()) {
		t.Error("the secret key is in the header")
	}
}

func TestCanonicalPieces(t *testing.T) {
	for in, want := range map[string]string{"": "/", "/v2/bills/ratings/on-demand-resources": "/v2/bills/ratings/on-demand-resources/",
		"/a%20b/": "/a%20b/", "/v1/p/cloudservers/flavors": "/v1/p/cloudservers/flavors/"} {
		if got := canonicalURI(in); got != want {
			t.Errorf("canonicalURI(%q) = %q, want %q", in, got, want)
		}
	}
	if got := escape("a b/c~*"); got != "a%20b%2Fc~%2A" {
		t.Errorf("escape = %q", got)
	}
}
