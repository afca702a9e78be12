package huawei

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch/section"
)

// Huawei Cloud's AK/SK request signing (SDK-HMAC-SHA256), as its API
// Request Signing Guide describes it: a canonical request (method, URI
// with a trailing slash, sorted query, the signed headers, the body's
// SHA-256) hashed into a string to sign with the request time, signed
// with HMAC-SHA256 under the secret key. Written here rather than taken
// from the official Go SDK, which would bring in every service's client
// for these two signed calls.

const (
	signAlgorithm = "SDK-HMAC-SHA256"
	// sdkDate is the time format of X-Sdk-Date.
	sdkDate = "20060102T150405Z"
)

// sign sets X-Sdk-Date and Authorization on req, whose body is body.
// The headers signed are Host, X-Sdk-Date and Content-Type when set.
func sign(req *http.Request, body []byte, ak, sk section.Secret, now time.Time) {
	date := now.UTC().Format(sdkDate)
	req.Header.Set("X-Sdk-Date", date)
	headers := map[string]string{"host": req.URL.Host, "x-sdk-date": date}
	if ct := req.Header.Get("Content-Type"); ct != "" {
		headers["content-type"] = strings.TrimSpace(ct)
	}
	canonical, signed := canonicalRequest(req.Method, req.URL, headers, body)
	sig := signature(sk, stringToSign(date, canonical))
	req.Header.Set("Authorization", signAlgorithm+" Access="+ak.Value()+", SignedHeaders="+signed+", Signature="+sig)
}

// canonicalRequest is the request in the form that is hashed, with the
// signed headers' names (lower case, sorted, joined by ";").
func canonicalRequest(method string, u *url.URL, headers map[string]string, body []byte) (string, string) {
	names := make([]string, 0, len(headers))
	for k := range headers {
		names = append(names, k)
	}
	sort.Strings(names)
	var h strings.Builder
	for _, k := range names {
		h.WriteString(k + ":" + headers[k] + "\n")
	}
	signed := strings.Join(names, ";")
	sum := sha256.Sum256(body)
	return strings.Join([]string{method, canonicalURI(u.EscapedPath()), canonicalQuery(u.Query()), h.String(), signed, hex.EncodeToString(sum[:])}, "\n"), signed
}

// canonicalURI escapes each path segment and ends the path with "/",
// as the guide requires even where the request's path does not.
func canonicalURI(escaped string) string {
	parts := strings.Split(escaped, "/")
	for i, p := range parts {
		raw, err := url.PathUnescape(p)
		if err != nil {
			raw = p
		}
		parts[i] = escape(raw)
	}
	out := strings.Join(parts, "/")
	if !strings.HasSuffix(out, "/") {
		out += "/"
	}
	return out
}

// canonicalQuery sorts the parameters by name (then value) and escapes
// both.
func canonicalQuery(q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		vs := append([]string(nil), q[k]...)
		sort.Strings(vs)
		for _, v := range vs {
			parts = append(parts, escape(k)+"="+escape(v))
		}
	}
	return strings.Join(parts, "&")
}

// escape percent-encodes all but RFC 3986's unreserved characters.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
	}
	return b.String()
}

func stringToSign(date, canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return signAlgorithm + "\n" + date + "\n" + hex.EncodeToString(sum[:])
}

func signature(sk section.Secret, toSign string) string {
	m := hmac.New(sha256.New, []byte(sk.Value()))
	m.Write([]byte(toSign))
	return hex.EncodeToString(m.Sum(nil))
}
