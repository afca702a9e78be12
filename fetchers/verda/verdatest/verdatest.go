// Package verdatest is a fake of Verda's API v1 for tests: the OAuth2
// client-credentials token endpoint and the four lists a run reads, served
// from testdata/ (see its README), with the bearer token checked.
package verdatest

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// ClientID is the client id the fake accepts with its secret.
const ClientID = "verda-client-id-test"

var (
	//go:embed testdata/instance-types-gpuhunt-test-fixture.json
	types []byte
	//go:embed testdata/locations-gpuhunt-test-fixture.json
	locations []byte
	//go:embed testdata/instance-availability-is_spot-gpuhunt-test-fixture.json
	spot []byte
	//go:embed testdata/instance-availability-on-demand-constructed.json
	onDemand []byte
)

// Empty is a failure mode for FailNext beside fetcherstest's: the answer [].
const Empty = fetcherstest.Empty

// token is the bearer token the fake hands out; a test never sees it
// printed (it is registered as a secret by the fetcher).
const token = "verda-access-token-NeverShown"

// Server is the fake API.
type Server struct {
	*httptest.Server
	Secret string
	fetcherstest.Faults

	mu     sync.Mutex
	bodies map[string][]byte
}

// Types returns a copy of the instance-type list served by default.
func Types() []byte { return append([]byte(nil), types...) }

// New starts a fake accepting ClientID with secret.
func New(t testing.TB, secret string) *Server {
	t.Helper()
	s := &Server{Secret: secret, bodies: map[string][]byte{
		"/v1/instance-types": Types(), "/v1/locations": locations,
		"/v1/instance-availability?is_spot=true": spot, "/v1/instance-availability?is_spot=false": onDemand,
	}}
	s.Server = fetcherstest.Start(t, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.Seen(r)
		s.serve(w, r)
	})
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	unauthorized := func() {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"code": "unauthorized_request", "message": "Access token is missing or invalid"}`))
	}
	if r.Method == http.MethodPost && r.URL.Path == "/v1/oauth2/token" {
		var req struct{ GrantType, ClientID, ClientSecret string }
		var raw map[string]string
		if json.NewDecoder(r.Body).Decode(&raw) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		req.GrantType, req.ClientID, req.ClientSecret = raw["grant_type"], raw["client_id"], raw["client_secret"]
		if req.GrantType != "client_credentials" || req.ClientID != ClientID || s.Secret == "" || req.ClientSecret != s.Secret {
			unauthorized()
			return
		}
		w.Write([]byte(`{"access_token": "` + token + `", "token_type": "Bearer", "expires_in": 3600, "scope": "cloud-api-v1"}`))
		return
	}
	key := r.URL.Path
	if r.URL.RawQuery != "" {
		key += "?" + r.URL.RawQuery
	}
	body, ok := s.bodies[key]
	if r.Method != http.MethodGet || !ok {
		http.NotFound(w, r)
		return
	}
	if tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); tok != token {
		unauthorized()
		return
	}
	fetcherstest.Answer(w, s.Next(), body, `{"code": "too_many_requests", "message": "Too many requests"}`, `[]`)
}

// SetBody replaces the answer of path ("/v1/instance-types",
// "/v1/instance-availability?is_spot=false", …).
func (s *Server) SetBody(path string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bodies[path] = b
}
