package tencent

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// TC3-HMAC-SHA256, Tencent Cloud API 3.0's request signature. The steps and
// names follow Tencent's "Signature v3" document; signer_test.go checks them
// against the worked example published there.

const (
	tc3Algorithm   = "TC3-HMAC-SHA256"
	tc3Terminator  = "tc3_request"
	jsonContent    = "application/json; charset=utf-8"
	signedWithAct  = "content-type;host;x-tc-action"
	signedNoAction = "content-type;host"
)

// tc3Input is what one signature covers.
type tc3Input struct {
	Service     string // "cvm"
	Host        string // the Host header exactly as sent
	Action      string // X-TC-Action
	ContentType string
	Payload     []byte
	Timestamp   int64 // X-TC-Timestamp, Unix seconds
	// SignAction adds x-tc-action to the signed headers, as the current
	// documentation does; the oldest published example signs only
	// content-type and host, and the server accepts both.
	SignAction bool
}

func (in tc3Input) signedHeaders() string {
	if in.SignAction {
		return signedWithAct
	}
	return signedNoAction
}

// date is the UTC day of the timestamp: the credential scope uses UTC even
// when the caller's clock is in another zone.
func (in tc3Input) date() string {
	return time.Unix(in.Timestamp, 0).UTC().Format("2006-01-02")
}

func (in tc3Input) credentialScope() string {
	return in.date() + "/" + in.Service + "/" + tc3Terminator
}

// canonicalRequest is always a POST to "/" with no query string; header
// names and values are lower-cased and trimmed.
func (in tc3Input) canonicalRequest() string {
	var h strings.Builder
	h.WriteString("content-type:" + strings.ToLower(strings.TrimSpace(in.ContentType)) + "\n")
	h.WriteString("host:" + strings.ToLower(strings.TrimSpace(in.Host)) + "\n")
	if in.SignAction {
		h.WriteString("x-tc-action:" + strings.ToLower(strings.TrimSpace(in.Action)) + "\n")
	}
	return strings.Join([]string{"POST", "/", "", h.String(), in.signedHeaders(), sha256Hex(in.Payload)}, "\n")
}

func (in tc3Input) stringToSign() string {
	return strings.Join([]string{tc3Algorithm, strconv.FormatInt(in.Timestamp, 10), in.credentialScope(), sha256Hex([]byte(in.canonicalRequest()))}, "\n")
}

// signature derives the signing key from the secret key (never stored or
// printed) and signs the string to sign.
func (in tc3Input) signature(secretKey string) string {
	k := hmacSHA256([]byte("TC3"+secretKey), in.date())
	k = hmacSHA256(k, in.Service)
	k = hmacSHA256(k, tc3Terminator)
	return hex.EncodeToString(hmacSHA256(k, in.stringToSign()))
}

// authorization is the Authorization header value.
func (in tc3Input) authorization(secretID, secretKey string) string {
	return tc3Algorithm + " Credential=" + secretID + "/" + in.credentialScope() +
		", SignedHeaders=" + in.signedHeaders() + ", Signature=" + in.signature(secretKey)
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
