// Package azuretest fakes the Azure services the azure fetcher's capacity
// signals speak: Microsoft Entra ID's client-credentials token endpoint
// (with the OpenID configuration the SDK reads first), the spot placement
// score API and Azure Resource Graph. Every body follows the documented
// shapes; see README.md for where each comes from. No real capture exists
// in /work/shared, so none is replayed.
package azuretest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// API versions the fake accepts, as the fetcher sends them.
const (
	PlacementAPIVersion     = "2025-06-05"
	ResourceGraphAPIVersion = "2022-10-01"
)

// ScoreKey names one placement score: the size in lower case, the region,
// and the zone ("" for a regional score).
type ScoreKey struct{ SKU, Region, Zone string }

// Score is one placement score row's answer.
type Score struct {
	Score string // High, Medium, Low, RestrictedSkuNotAvailable, DataNotFound, or anything a test wants
	Quota bool   // isQuotaAvailable
}

// EvictionRow is one SpotResources row of type
// microsoft.compute/skuspotevictionrate/location, as the query projects it.
type EvictionRow struct{ SKU, Location, Rate string }

// PlacementCall is one placement score call as received.
type PlacementCall struct {
	Location string // the location in the URL
	Body     PlacementBody
}

// PlacementBody is SpotPlacementScoresInput.
type PlacementBody struct {
	DesiredLocations []string `json:"desiredLocations"`
	DesiredSizes     []struct {
		SKU string `json:"sku"`
	} `json:"desiredSizes"`
	DesiredCount      int  `json:"desiredCount"`
	AvailabilityZones bool `json:"availabilityZones"`
}

// GraphBody is Resource Graph's QueryRequest.
type GraphBody struct {
	Subscriptions []string `json:"subscriptions"`
	Query         string   `json:"query"`
	Options       struct {
		Top          int    `json:"$top"`
		SkipToken    string `json:"$skipToken"`
		ResultFormat string `json:"resultFormat"`
	} `json:"options"`
}

// Fake serves Entra ID (TLS: the SDK speaks to an authority over https
// only) and ARM.
type Fake struct {
	Tenant, ClientID, ClientSecret, Subscription string
	// Entra is the authority host; use its Client() as the token
	// transport. ARM is the Resource Manager endpoint.
	Entra, ARM *httptest.Server

	mu sync.Mutex
	// Scores answer placement calls; a size and place asked for and not
	// listed answers DataNotFound, as Azure does without data.
	Scores map[ScoreKey]Score
	// Zones are the zones of a zonal answer (default 1, 2, 3).
	Zones []string
	// Evictions are Resource Graph's rows; PageSize rows per page (default
	// 1000, the API's largest $top).
	Evictions []EvictionRow
	PageSize  int
	// TotalRecords, when not nil, is answered instead of len(Evictions).
	TotalRecords *int
	// Intercept, when set, may answer an ARM request itself (a throttle,
	// an error); it sees the body already read.
	Intercept  func(w http.ResponseWriter, r *http.Request, body []byte) bool
	placement  []PlacementCall
	graph      []GraphBody
	tokens     int
	tokenForms []string
}

const accessToken = "fake-arm-access-token"

// New starts the fake with a tenant, client and secret.
func New(t *testing.T) *Fake {
	t.Helper()
	f := &Fake{Tenant: "72f988bf-86f1-41af-91ab-2d7cd011db47", ClientID: "0c9f6a3e-4b5d-4c1e-9f11-5a1e2b3c4d5e",
		ClientSecret: "s3cr3t~Q8.fakeClientSecretValue_0123456789", Subscription: "00000000-1111-2222-3333-444444444444",
		Scores: map[ScoreKey]Score{}}
	f.Entra = httptest.NewTLSServer(http.HandlerFunc(f.serveEntra))
	f.ARM = httptest.NewServer(http.HandlerFunc(f.serveARM))
	t.Cleanup(f.Entra.Close)
	t.Cleanup(f.ARM.Close)
	return f
}

// serveEntra answers the OpenID configuration of the tenant and the
// client-credentials token request (OAuth 2.0, form-encoded).
func (f *Fake) serveEntra(w http.ResponseWriter, r *http.Request) {
	base := f.Entra.URL + "/" + f.Tenant
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/"+f.Tenant+"/v2.0/.well-known/openid-configuration":
		writeJSON(w, http.StatusOK, map[string]any{
			"token_endpoint":                        base + "/oauth2/v2.0/token",
			"authorization_endpoint":                base + "/oauth2/v2.0/authorize",
			"issuer":                                base + "/v2.0",
			"token_endpoint_auth_methods_supported": []string{"client_secret_post", "private_key_jwt", "client_secret_basic"},
		})
	case r.Method == http.MethodPost && r.URL.Path == "/"+f.Tenant+"/oauth2/v2.0/token":
		raw, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(raw))
		f.mu.Lock()
		f.tokens++
		f.tokenForms = append(f.tokenForms, string(raw))
		f.mu.Unlock()
		if form.Get("grant_type") != "client_credentials" || form.Get("client_id") != f.ClientID || form.Get("client_secret") != f.ClientSecret {
			// Entra ID answers invalid_client with an AADSTS code. This
			// fake also echoes the request it was sent, secret and all, so
			// that a test can prove the fetcher never repeats it.
			writeJSON(w, http.StatusUnauthorized, map[string]any{
				"error":             "invalid_client",
				"error_description": "AADSTS7000215: Invalid client secret provided. Request was: " + string(raw),
				"error_codes":       []int{7000215},
			})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599, "access_token": accessToken})
	default:
		http.NotFound(w, r)
	}
}

var placementPath = regexp.MustCompile(`^/subscriptions/([^/]+)/providers/Microsoft\.Compute/locations/([^/]+)/placementScores/spot/generate$`)

func (f *Fake) serveARM(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	intercept := f.Intercept
	f.mu.Unlock()
	if intercept != nil && intercept(w, r, body) {
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+accessToken {
		writeJSON(w, http.StatusUnauthorized, armError("InvalidAuthenticationToken", "The access token is invalid."))
		return
	}
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		writeJSON(w, http.StatusBadRequest, armError("InvalidRequest", "want a JSON POST"))
		return
	}
	if m := placementPath.FindStringSubmatch(r.URL.Path); m != nil {
		f.placementScores(w, r, m[1], m[2], body)
		return
	}
	if r.URL.Path == "/providers/Microsoft.ResourceGraph/resources" {
		f.resourceGraph(w, r, body)
		return
	}
	writeJSON(w, http.StatusNotFound, armError("InvalidResourceType", "no such resource"))
}

func (f *Fake) placementScores(w http.ResponseWriter, r *http.Request, sub, loc string, raw []byte) {
	if r.URL.Query().Get("api-version") != PlacementAPIVersion || sub != f.Subscription {
		writeJSON(w, http.StatusBadRequest, armError("InvalidApiVersionParameter", "unsupported api-version or subscription"))
		return
	}
	var in PlacementBody
	if err := json.Unmarshal(raw, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, armError("InvalidRequestContent", err.Error()))
		return
	}
	// Documented limits: up to eight regions and five sizes per request.
	if len(in.DesiredLocations) == 0 || len(in.DesiredLocations) > 8 || len(in.DesiredSizes) == 0 || len(in.DesiredSizes) > 5 || in.DesiredCount < 1 {
		writeJSON(w, http.StatusBadRequest, armError("InvalidParameter", "desiredLocations 1-8, desiredSizes 1-5, desiredCount at least 1"))
		return
	}
	f.mu.Lock()
	f.placement = append(f.placement, PlacementCall{Location: loc, Body: in})
	zones := f.Zones
	if len(zones) == 0 {
		zones = []string{"1", "2", "3"}
	}
	type row struct {
		SKU              string `json:"sku"`
		Region           string `json:"region"`
		AvailabilityZone string `json:"availabilityZone,omitempty"`
		Score            string `json:"score"`
		IsQuotaAvailable bool   `json:"isQuotaAvailable"`
	}
	var rows []row
	for _, l := range in.DesiredLocations {
		for _, s := range in.DesiredSizes {
			places := []string{""}
			if in.AvailabilityZones {
				places = zones
			}
			for _, z := range places {
				sc, ok := f.Scores[ScoreKey{strings.ToLower(s.SKU), l, z}]
				if !ok {
					sc = Score{Score: "DataNotFound"}
				}
				rows = append(rows, row{SKU: s.SKU, Region: l, AvailabilityZone: z, Score: sc.Score, IsQuotaAvailable: sc.Quota})
			}
		}
	}
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"desiredLocations": in.DesiredLocations, "desiredSizes": in.DesiredSizes, "desiredCount": in.DesiredCount,
		"availabilityZones": in.AvailabilityZones, "placementScores": rows,
	})
}

func (f *Fake) resourceGraph(w http.ResponseWriter, r *http.Request, raw []byte) {
	if r.URL.Query().Get("api-version") != ResourceGraphAPIVersion {
		writeJSON(w, http.StatusBadRequest, armError("InvalidApiVersionParameter", "unsupported api-version"))
		return
	}
	var in GraphBody
	if err := json.Unmarshal(raw, &in); err != nil || !strings.Contains(in.Query, "microsoft.compute/skuspotevictionrate/location") ||
		len(in.Subscriptions) != 1 || in.Subscriptions[0] != f.Subscription || in.Options.ResultFormat != "objectArray" {
		writeJSON(w, http.StatusBadRequest, armError("BadRequest", "not the eviction-rate query over this fake's subscription"))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.graph = append(f.graph, in)
	size := f.PageSize
	if size <= 0 {
		size = 1000
	}
	if in.Options.Top > 0 && in.Options.Top < size {
		size = in.Options.Top
	}
	off := 0
	if tok := in.Options.SkipToken; tok != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(tok, "ew0KICAiJGlkIjogIjEiLA0K-"))
		if err != nil || n < 0 || n > len(f.Evictions) {
			writeJSON(w, http.StatusBadRequest, armError("InvalidSkipToken", "bad $skipToken"))
			return
		}
		off = n
	}
	end := min(off+size, len(f.Evictions))
	data := []map[string]string{}
	for _, e := range f.Evictions[off:end] {
		data = append(data, map[string]string{"skuName": e.SKU, "location": e.Location, "evictionRate": e.Rate})
	}
	total := len(f.Evictions)
	if f.TotalRecords != nil {
		total = *f.TotalRecords
	}
	out := map[string]any{"totalRecords": total, "count": len(data), "data": data, "facets": []any{}, "resultTruncated": "false"}
	if end < len(f.Evictions) {
		// Real tokens are opaque base64; this one carries the offset.
		out["$skipToken"] = "ew0KICAiJGlkIjogIjEiLA0K-" + strconv.Itoa(end)
	}
	writeJSON(w, http.StatusOK, out)
}

// PlacementCalls returns the placement calls received.
func (f *Fake) PlacementCalls() []PlacementCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]PlacementCall(nil), f.placement...)
}

// GraphCalls returns the Resource Graph queries received.
func (f *Fake) GraphCalls() []GraphBody {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]GraphBody(nil), f.graph...)
}

// TokenRequests returns how many token requests were made.
func (f *Fake) TokenRequests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tokens
}

// Set changes the fake's answers under its lock.
func (f *Fake) Set(change func(f *Fake)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

func armError(code, msg string) map[string]any {
	return map[string]any{"error": map[string]string{"code": code, "message": msg}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, fmt.Sprint(err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}
