package nebius

import (
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/section"
)

// jwtAudience is the audience Nebius's SDKs put in the self-signed JWT
// they exchange for an IAM token (gosdk auth/exchangable.go).
const jwtAudience = "token-service.iam.new.nebiuscloud.net"

// jwtTTL: the JWT only has to live until it is exchanged (the SDK's one
// minute).
const jwtTTL = time.Minute

// account is a service account's key: what `nebius iam auth-public-key
// generate` writes into a credentials file.
type account struct {
	ID    string // serviceaccount-…: the JWT's iss and sub
	KeyID string // publickey-…: the JWT header's kid
	key   *rsa.PrivateKey
}

// credentialsFile is the SDK's service-account credentials file
// (gosdk auth/service_account.go, ServiceAccountCredentials):
//
//	{"subject-credentials": {"alg": "RS256", "private-key": "<PKCS#8 PEM>",
//	  "kid": "publickey-…", "iss": "serviceaccount-…", "sub": "serviceaccount-…"}}
type credentialsFile struct {
	Subject *struct {
		Type       string `json:"type"`
		Alg        string `json:"alg"`
		PrivateKey string `json:"private-key"`
		KeyID      string `json:"kid"`
		Issuer     string `json:"iss"`
		Subject    string `json:"sub"`
	} `json:"subject-credentials"`
}

// parseCredentials reads a credentials file's content. Its errors name
// what is wrong, never a value of the file (the key would show).
func parseCredentials(s section.Secret) (account, error) {
	var f credentialsFile
	if err := json.Unmarshal([]byte(s.Value()), &f); err != nil || f.Subject == nil {
		return account{}, fmt.Errorf("nebius credentials: not a service-account credentials file (want {\"subject-credentials\": {…}} as `nebius iam auth-public-key generate` writes it)")
	}
	c := f.Subject
	switch {
	case c.Type != "" && c.Type != "JWT":
		return account{}, fmt.Errorf("nebius credentials: type %q: only JWT is supported", c.Type)
	case c.Alg != "RS256":
		return account{}, fmt.Errorf("nebius credentials: alg %q: only RS256 is supported", c.Alg)
	case c.Subject == "" || c.Issuer != c.Subject:
		return account{}, fmt.Errorf("nebius credentials: iss and sub must both be the service account's id")
	case c.KeyID == "":
		return account{}, fmt.Errorf("nebius credentials: no kid (the public key's id)")
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM([]byte(c.PrivateKey))
	if err != nil {
		return account{}, fmt.Errorf("nebius credentials: private-key is not an RSA private key in PEM")
	}
	return account{ID: strings.TrimSpace(c.Subject), KeyID: strings.TrimSpace(c.KeyID), key: key}, nil
}

// signJWT is the self-signed token exchanged for an IAM token: RS256,
// kid the public key's id, iss = sub = the service account.
func (a account) signJWT(now time.Time) (string, error) {
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{
		Issuer: a.ID, Subject: a.ID, Audience: jwt.ClaimStrings{jwtAudience},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(jwtTTL)),
	})
	t.Header["kid"] = a.KeyID
	s, err := t.SignedString(a.key)
	if err != nil {
		return "", fmt.Errorf("nebius: signing the service-account JWT: %w", err)
	}
	return s, nil
}

// CredentialsFrom reads the service account's credentials file content:
// NEBIUS_CREDENTIALS first (the file's content), then the file named by
// credentials_file. Neither set wraps fetchers.ErrNoCredentials.
func CredentialsFrom(file string) (section.Secret, error) {
	v, err := fetchers.ReadKey("nebius service-account credentials", EnvCredentials, file)
	if err == nil && v.Empty() {
		err = errNoCredentials
	}
	return v, err
}

var errNoCredentials = fmt.Errorf("%w: set %s (a service-account credentials file's content) or providers.nebius.credentials_file",
	fetchers.ErrNoCredentials, EnvCredentials)
