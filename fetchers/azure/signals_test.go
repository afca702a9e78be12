package azure

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/azure/azuretest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/sharedtest"
	"github.com/pricewatch/pricewatch/section"
	"github.com/pricewatch/pricewatch/storage"
	"github.com/pricewatch/pricewatch/storage/dbtest"
)

// signalsConfig points the signals at the fake, with its credentials.
func signalsConfig(az *azuretest.Fake) Signals {
	return Signals{SubscriptionID: az.Subscription, TenantID: az.Tenant, ClientID: az.ClientID,
		ClientSecret: section.NewSecret(az.ClientSecret), ARMEndpoint: az.ARM.URL, AuthorityHost: az.Entra.URL,
		TokenTransport: az.Entra.Client()}
}

// signalFetcher is a fetcher over the price fake (eastus, westeurope)
// and the signal fake, logging into an observer.
func signalFetcher(t *testing.T, az *azuretest.Fake, sig Signals) (*Fetcher, *observer.ObservedLogs, *fakeAzure) {
	t.Helper()
	prices := newFake(t)
	core, logs := observer.New(zapcore.DebugLevel)
	f, _ := newTestFetcher(t, Config{Endpoint: prices.srv.URL, Regions: []string{"eastus", "westeurope"}, Windows: true, Signals: sig}, zap.New(core))
	return f, logs, prices
}

// pricesWithoutSignals fetches with sig, which must fail to read any
// signal while the prices still arrive, and returns the run's log.
func pricesWithoutSignals(t *testing.T, az *azuretest.Fake, sig Signals) *observer.ObservedLogs {
	t.Helper()
	f, logs, _ := signalFetcher(t, az, sig)
	snap := fetcherstest.Fetched(t, f, nil)
	if len(snap.Offers) == 0 || len(snap.Signals) != 0 || len(snap.SignalCoverage) != 0 {
		t.Errorf("offers %d, signals %d, coverage %v", len(snap.Offers), len(snap.Signals), coverage(snap))
	}
	return logs
}

func signalRows(snap *pricewatch.Snapshot) []string {
	var out []string
	for _, s := range snap.Signals {
		out = append(out, fmt.Sprintf("%s %s/%s %s [%s] = %s %s (%s) %s gpu=%s×%g", s.Kind, s.Region, s.Zone, s.InstanceType, s.Shape, s.Value, s.Unit, s.Detail, s.Source, s.GPUModel, s.GPUCount))
	}
	return out
}

func coverage(snap *pricewatch.Snapshot) []string {
	var out []string
	for _, c := range snap.SignalCoverage {
		out = append(out, string(c.Kind)+"@"+c.Region)
	}
	return out
}

// TestSignalsDecodedAndStored runs placement scores and eviction rates
// against the fakes, checks every signal and the coverage, stores the
// snapshot in a real database and reads the signals back unchanged; a
// second, identical run writes no new interval.
func TestSignalsDecodedAndStored(t *testing.T) {
	az := azuretest.New(t)
	az.Set(func(az *azuretest.Fake) {
		az.Scores[azuretest.ScoreKey{SKU: "standard_nd96isr_h100_v5", Region: "eastus"}] = azuretest.Score{Score: "High", Quota: true}
		az.Scores[azuretest.ScoreKey{SKU: "standard_nd96isr_h100_v5", Region: "westeurope"}] = azuretest.Score{Score: "Low", Quota: false}
		az.Scores[azuretest.ScoreKey{SKU: "standard_nd96amsr_a100_v4", Region: "eastus"}] = azuretest.Score{Score: "RestrictedSkuNotAvailable"}
		// westeurope A100: not listed, so DataNotFound: no observation.
		az.Evictions = []azuretest.EvictionRow{
			// Resource Graph spells names in lower case.
			{SKU: "standard_nd96isr_h100_v5", Location: "eastus", Rate: "0-5"},
			{SKU: "standard_nd96isr_h100_v5", Location: "westeurope", Rate: "20+"},
			{SKU: "standard_nc24ads_a100_v4", Location: "eastus", Rate: "10-15"},
			// A region the fetcher does not track, and a size that is not
			// a GPU size: neither is kept, neither is an error.
			{SKU: "standard_nd96isr_h100_v5", Location: "japaneast", Rate: "5-10"},
			{SKU: "standard_d2s_v5", Location: "eastus", Rate: "0-5"},
		}
		az.PageSize = 2 // three pages, $skipToken followed twice
	})
	sig := signalsConfig(az)
	sig.Placement = PlacementScores{Enabled: true, Sizes: []string{"standard_ND96isr_H100_v5", "Standard_ND96amsr_A100_v4"}, DesiredCount: 4}
	sig.EvictionRates = true
	f, logs, _ := signalFetcher(t, az, sig)

	ctx := context.Background()
	db := dbtest.Open(t)
	run := func() *pricewatch.Snapshot {
		snap, err := f.Fetch(ctx, fetchers.Previous{})
		if err != nil {
			t.Fatal(err)
		}
		dbtest.SaveWith(t, db, snap, storage.SaveOptions{MinOfferRatio: 0.5})
		return snap
	}
	snap := run()
	if len(snap.Offers) == 0 {
		t.Fatal("the prices are missing beside the signals")
	}
	sharedtest.WantLines(t, "signals", signalRows(snap), []string{
		"placement_score eastus/ Standard_ND96isr_H100_v5 [desired_count=4] = High score (quota available) azure:Microsoft.Compute/placementScores/spot gpu=H100×8",
		"placement_score eastus/ Standard_ND96amsr_A100_v4 [desired_count=4] = RestrictedSkuNotAvailable score (quota not available) azure:Microsoft.Compute/placementScores/spot gpu=A100-80GB×8",
		"placement_score westeurope/ Standard_ND96isr_H100_v5 [desired_count=4] = Low score (quota not available) azure:Microsoft.Compute/placementScores/spot gpu=H100×8",
		"eviction_band eastus/ Standard_NC24ads_A100_v4 [] = 10-15 band () azure:ResourceGraph/skuspotevictionrate gpu=A100-80GB-PCIe×1",
		"eviction_band eastus/ Standard_ND96isr_H100_v5 [] = 0-5 band () azure:ResourceGraph/skuspotevictionrate gpu=H100×8",
		"eviction_band westeurope/ Standard_ND96isr_H100_v5 [] = 20+ band () azure:ResourceGraph/skuspotevictionrate gpu=H100×8",
	})
	sharedtest.WantLines(t, "coverage", coverage(snap), []string{"placement_score@eastus", "placement_score@westeurope", "eviction_band@eastus", "eviction_band@westeurope"})

	// The requests: one placement call for both locations and sizes, in
	// the documented body; three Resource Graph pages over one query.
	calls := az.PlacementCalls()
	if len(calls) != 1 || calls[0].Location != "eastus" || !slices.Equal(calls[0].Body.DesiredLocations, []string{"eastus", "westeurope"}) ||
		len(calls[0].Body.DesiredSizes) != 2 || calls[0].Body.DesiredSizes[0].SKU != "Standard_ND96isr_H100_v5" || calls[0].Body.DesiredCount != 4 || calls[0].Body.AvailabilityZones {
		t.Errorf("placement calls: %+v", calls)
	}
	graph := az.GraphCalls()
	if len(graph) != 3 || graph[0].Options.SkipToken != "" || graph[1].Options.SkipToken == "" || graph[2].Options.SkipToken == graph[1].Options.SkipToken {
		t.Errorf("resource graph pages: %+v", graph)
	}
	if q := graph[0].Query; !strings.Contains(q, "SpotResources") || !strings.Contains(q, "location in~ ('eastus', 'westeurope')") ||
		!strings.Contains(q, "evictionRate = tostring(properties.evictionRate)") {
		t.Errorf("query:\n%s", q)
	}
	if logs.FilterMessageSnippet("DataNotFound").Len() != 1 {
		t.Errorf("the DataNotFound row was not noted once: %v", logs.All())
	}

	stored, err := db.Signals(ctx, storage.SignalFilter{Providers: []string{pricewatch.Azure}, CurrentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(snap.Signals) {
		t.Fatalf("stored %d signals, fetched %d", len(stored), len(snap.Signals))
	}
	want := map[pricewatch.SignalKey]pricewatch.Signal{}
	for _, s := range snap.Signals {
		want[s.Key()] = s
	}
	for _, s := range stored {
		w, ok := want[s.Key()]
		if !ok || w.Value != s.Value || w.Unit != s.Unit || w.Detail != s.Detail || w.Source != s.Source || w.GPUModel != s.GPUModel {
			t.Errorf("stored %+v, fetched %+v", s.Signal, w)
		}
	}

	// Unchanged answers write nothing.
	run()
	all, err := db.Signals(ctx, storage.SignalFilter{Providers: []string{pricewatch.Azure}})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(stored) {
		t.Errorf("an unchanged second run wrote %d intervals, want %d", len(all), len(stored))
	}
	if n := az.TokenRequests(); n != 1 {
		t.Errorf("asked Entra ID for %d tokens, want 1 (the SDK caches the token)", n)
	}
}

// TestPlacementBatches checks the documented bound: at most eight
// locations and five sizes per call, every pair asked exactly once, and
// zonal scores kept per zone.
func TestPlacementBatches(t *testing.T) {
	az := azuretest.New(t)
	var locs []string
	for i := range 10 {
		locs = append(locs, fmt.Sprintf("region%d", i))
	}
	sizes := []string{"Standard_NC24ads_A100_v4", "Standard_NC48ads_A100_v4", "Standard_NC96ads_A100_v4", "Standard_ND96isr_H100_v5",
		"Standard_ND96isr_H200_v5", "Standard_ND96asr_v4", "Standard_ND96amsr_A100_v4"}
	az.Set(func(az *azuretest.Fake) {
		az.Zones = []string{"1", "2"}
		az.Scores[azuretest.ScoreKey{SKU: "standard_nd96isr_h200_v5", Region: "region9", Zone: "2"}] = azuretest.Score{Score: "Medium", Quota: true}
	})
	sig := signalsConfig(az)
	sig.Placement = PlacementScores{Enabled: true, Sizes: sizes, Locations: locs, AvailabilityZones: true}
	f, _, _ := signalFetcher(t, az, sig)
	snap := fetcherstest.Fetched(t, f, nil)
	calls := az.PlacementCalls()
	if len(calls) != 4 {
		t.Fatalf("%d calls, want 4 (10 locations in 8+2, 7 sizes in 5+2)", len(calls))
	}
	pairs := map[string]int{}
	for _, c := range calls {
		if len(c.Body.DesiredLocations) > 8 || len(c.Body.DesiredSizes) > 5 || c.Location != c.Body.DesiredLocations[0] || !c.Body.AvailabilityZones || c.Body.DesiredCount != 1 {
			t.Errorf("call %+v", c)
		}
		for _, l := range c.Body.DesiredLocations {
			for _, s := range c.Body.DesiredSizes {
				pairs[l+"/"+s.SKU]++
			}
		}
	}
	if len(pairs) != 70 {
		t.Errorf("%d location/size pairs asked, want 70", len(pairs))
	}
	for p, n := range pairs {
		if n != 1 {
			t.Errorf("%s asked %d times", p, n)
		}
	}
	sharedtest.WantLines(t, "signals", signalRows(snap), []string{
		"placement_score region9/2 Standard_ND96isr_H200_v5 [desired_count=1] = Medium score (quota available) azure:Microsoft.Compute/placementScores/spot gpu=H200×8",
	})
	if len(snap.SignalCoverage) != 10 {
		t.Errorf("coverage %v, want the ten locations", coverage(snap))
	}
}

// TestUnknownBandsSkipped: a score or band Azure does not document is
// left out with a warning; the run succeeds, the other signals stand, and
// the region with the odd row is not covered (its stored value stays).
func TestUnknownBandsSkipped(t *testing.T) {
	az := azuretest.New(t)
	az.Set(func(az *azuretest.Fake) {
		az.Scores[azuretest.ScoreKey{SKU: "standard_nd96isr_h100_v5", Region: "eastus"}] = azuretest.Score{Score: "VeryHigh"}
		az.Scores[azuretest.ScoreKey{SKU: "standard_nd96isr_h100_v5", Region: "westeurope"}] = azuretest.Score{Score: "Medium"}
		az.Evictions = []azuretest.EvictionRow{
			{SKU: "standard_nd96isr_h100_v5", Location: "eastus", Rate: "25-30"},
			{SKU: "standard_nd96isr_h100_v5", Location: "westeurope", Rate: "5-10"},
		}
	})
	sig := signalsConfig(az)
	sig.Placement = PlacementScores{Enabled: true, Sizes: []string{"Standard_ND96isr_H100_v5"}}
	sig.EvictionRates = true
	f, logs, _ := signalFetcher(t, az, sig)
	snap := fetcherstest.Fetched(t, f, nil)
	sharedtest.WantLines(t, "signals", signalRows(snap), []string{
		"placement_score westeurope/ Standard_ND96isr_H100_v5 [desired_count=1] = Medium score (quota not available) azure:Microsoft.Compute/placementScores/spot gpu=H100×8",
		"eviction_band westeurope/ Standard_ND96isr_H100_v5 [] = 5-10 band () azure:ResourceGraph/skuspotevictionrate gpu=H100×8",
	})
	sharedtest.WantLines(t, "coverage", coverage(snap), []string{"placement_score@westeurope", "eviction_band@westeurope"})
	warned := logs.FilterLevelExact(zapcore.WarnLevel)
	if warned.FilterMessageSnippet("placement score not one Azure documents").Len() != 1 || warned.FilterMessageSnippet("eviction rate not one Azure documents").Len() != 1 {
		t.Errorf("want one warning for each odd row, got %v", warned.All())
	}
}

// TestSignalFailureKeepsPrices: a failing, throttled or cut signal answer
// never fails the price fetch, and leaves its part uncovered.
func TestSignalFailureKeepsPrices(t *testing.T) {
	cases := []struct {
		name      string
		intercept func(w http.ResponseWriter, r *http.Request, body []byte) bool
		total     *int
		coverage  []string
		signals   int
	}{
		{name: "placement forbidden", intercept: func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
			if strings.Contains(r.URL.Path, "placementScores") {
				http.Error(w, `{"error":{"code":"AuthorizationFailed","message":"no role"}}`, http.StatusForbidden)
				return true
			}
			return false
		}, coverage: []string{"eviction_band@eastus", "eviction_band@westeurope"}, signals: 2},
		{name: "graph fails on page 2", intercept: func(w http.ResponseWriter, r *http.Request, body []byte) bool {
			if strings.Contains(r.URL.Path, "ResourceGraph") && strings.Contains(string(body), "skipToken") {
				http.Error(w, `{"error":{"code":"BadRequest"}}`, http.StatusBadRequest)
				return true
			}
			return false
		}, coverage: []string{"placement_score@eastus", "placement_score@westeurope"}, signals: 2},
		{name: "graph rows fall short of totalRecords", total: new(int), coverage: []string{"placement_score@eastus", "placement_score@westeurope"}, signals: 3},
		{name: "graph result truncated without a token", intercept: func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
			if strings.Contains(r.URL.Path, "ResourceGraph") {
				// The documented case: a truncated result sets no $skipToken.
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"totalRecords":1,"count":1,"data":[{"skuName":"standard_nd96isr_h100_v5","location":"eastus","evictionRate":"0-5"}],"facets":[],"resultTruncated":true}`))
				return true
			}
			return false
		}, coverage: []string{"placement_score@eastus", "placement_score@westeurope"}, signals: 2},
		{name: "placement answer without scores", intercept: func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
			if strings.Contains(r.URL.Path, "placementScores") {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"desiredLocations":["eastus","westeurope"],"desiredCount":1}`))
				return true
			}
			return false
		}, coverage: []string{"eviction_band@eastus", "eviction_band@westeurope"}, signals: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			az := azuretest.New(t)
			az.Set(func(az *azuretest.Fake) {
				az.Scores[azuretest.ScoreKey{SKU: "standard_nd96isr_h100_v5", Region: "eastus"}] = azuretest.Score{Score: "High"}
				az.Evictions = []azuretest.EvictionRow{
					{SKU: "standard_nd96isr_h100_v5", Location: "eastus", Rate: "0-5"},
					{SKU: "standard_nd96isr_h100_v5", Location: "westeurope", Rate: "5-10"},
				}
				az.PageSize = 1
				az.Intercept = tc.intercept
				if tc.total != nil {
					*tc.total = 3
					az.TotalRecords = tc.total
				}
			})
			sig := signalsConfig(az)
			sig.Placement = PlacementScores{Enabled: true, Sizes: []string{"Standard_ND96isr_H100_v5"}}
			sig.EvictionRates = true
			f, logs, _ := signalFetcher(t, az, sig)
			snap, err := f.Fetch(context.Background(), fetchers.Previous{})
			if err != nil {
				t.Fatalf("a signal failure failed the price fetch: %v", err)
			}
			if len(snap.Offers) == 0 {
				t.Error("no prices")
			}
			sharedtest.WantLines(t, "coverage", coverage(snap), tc.coverage)
			if len(snap.Signals) != tc.signals {
				t.Errorf("signals %q, want %d", signalRows(snap), tc.signals)
			}
			if logs.FilterLevelExact(zapcore.WarnLevel).Len() == 0 {
				t.Error("the failure was not logged")
			}
		})
	}
}

// TestPlacementThrottled: a 429 with Retry-After is waited out by the
// fetchers' client and the call then succeeds.
func TestPlacementThrottled(t *testing.T) {
	az := azuretest.New(t)
	throttled := 0
	az.Set(func(az *azuretest.Fake) {
		az.Scores[azuretest.ScoreKey{SKU: "standard_nd96isr_h100_v5", Region: "eastus"}] = azuretest.Score{Score: "High"}
		az.Intercept = func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
			if strings.Contains(r.URL.Path, "placementScores") && throttled == 0 {
				throttled++
				w.Header().Set("Retry-After", "17")
				http.Error(w, `{"error":{"code":"TooManyRequests"}}`, http.StatusTooManyRequests)
				return true
			}
			return false
		}
	})
	sig := signalsConfig(az)
	sig.Placement = PlacementScores{Enabled: true, Sizes: []string{"Standard_ND96isr_H100_v5"}}
	prices := newFake(t)
	c, sleeps := testClient()
	f, err := New(Config{Endpoint: prices.srv.URL, Regions: []string{"eastus"}, Signals: sig}, c, nil)
	snap := fetcherstest.Fetched(t, f, err)
	if len(snap.Signals) != 1 || snap.Signals[0].Value != "High" {
		t.Errorf("signals %q", signalRows(snap))
	}
	if got := sleeps.Waits(); !slices.Contains(got, 17*time.Second) {
		t.Errorf("slept %v, want the 17s Retry-After", got)
	}
}

// TestClientSecretNeverShown: Entra ID refuses the secret with an answer
// that echoes the request (secret included); neither the fetch's result
// nor any log line repeats it, and the prices still arrive.
func TestClientSecretNeverShown(t *testing.T) {
	az := azuretest.New(t)
	sig := signalsConfig(az)
	wrong := "Wr0ng~SecretThatMustNotLeak.0123456789"
	sig.ClientSecret = section.NewSecret(wrong)
	sig.EvictionRates = true
	logs := pricesWithoutSignals(t, az, sig)
	if az.TokenRequests() == 0 {
		t.Fatal("the token endpoint was never asked: the test proves nothing")
	}
	refused := logs.FilterMessageSnippet("no Entra ID token")
	if refused.Len() != 1 {
		t.Fatalf("want one warning about the token, got %v", logs.All())
	}
	if e := fmt.Sprint(refused.All()[0].ContextMap()["error"]); !strings.Contains(e, "invalid_client") && !strings.Contains(e, "AADSTS7000215") {
		t.Errorf("the warning does not say why: %s", e)
	}
	for _, entry := range logs.All() {
		line := entry.Message + fmt.Sprint(entry.ContextMap())
		if strings.Contains(line, wrong) || strings.Contains(line, strings.ReplaceAll(wrong, "~", "%7E")) {
			t.Errorf("the client secret is in a log line: %s", line)
		}
	}
}

// TestSignalsWithoutCredentials: signals enabled without credentials are
// skipped with one line; the prices are fetched and ARM is never called.
func TestSignalsWithoutCredentials(t *testing.T) {
	for _, v := range []string{EnvTenantID, EnvClientID, EnvClientSecret, EnvSubscriptionID} {
		t.Setenv(v, "")
	}
	az := azuretest.New(t)
	sig := Signals{ARMEndpoint: az.ARM.URL, Placement: PlacementScores{Enabled: true}, EvictionRates: true}
	logs := pricesWithoutSignals(t, az, sig)
	if n := logs.FilterMessageSnippet("azure capacity signals skipped").Len(); n != 1 {
		t.Errorf("%d skip lines, want 1: %v", n, logs.All())
	}
	if len(az.PlacementCalls())+len(az.GraphCalls())+az.TokenRequests() != 0 {
		t.Error("called Azure without credentials")
	}
}

// TestSignalConfig checks the keys' validation and the credentials'
// sources (environment, then file).
func TestSignalConfig(t *testing.T) {
	bad := []struct {
		name string
		sig  Signals
	}{
		{"http authority", Signals{AuthorityHost: "http://login.example", EvictionRates: true}},
		{"arm endpoint with query", Signals{ARMEndpoint: "https://management.azure.com/?x=1", EvictionRates: true}},
		{"size", Signals{Placement: PlacementScores{Enabled: true, Sizes: []string{"ND96 H100"}}}},
		{"location", Signals{Placement: PlacementScores{Enabled: true, Locations: []string{"east us"}}}},
		{"desired count", Signals{Placement: PlacementScores{Enabled: true, DesiredCount: 5000}}},
	}
	c, _ := testClient()
	for _, b := range bad {
		if _, err := New(Config{Signals: b.sig}, c, nil); err == nil {
			t.Errorf("%s: accepted", b.name)
		}
	}
	// Disabled signals are not checked: nothing is asked.
	if _, err := New(Config{Signals: Signals{AuthorityHost: "http://x"}}, c, nil); err != nil {
		t.Errorf("disabled signals refused: %v", err)
	}

	t.Setenv(EnvClientSecret, "from-the-environment-0123456789")
	t.Setenv(EnvTenantID, "tenant-from-env")
	s := Provider.Section().(*Section)
	s.TenantID = "  "
	s.ClientID = "client-from-config"
	s.Eviction.Enabled = true
	var handed []section.Secret
	got, err := s.signalsConfig(fetchers.Env{AddSecrets: func(v ...section.Secret) { handed = append(handed, v...) }})
	if err != nil {
		t.Fatal(err)
	}
	if got.TenantID != "tenant-from-env" || got.ClientID != "client-from-config" || got.ClientSecret.Value() != "from-the-environment-0123456789" {
		t.Errorf("credentials %+v", got)
	}
	if len(handed) != 1 || handed[0].Value() != "from-the-environment-0123456789" {
		t.Error("the client secret was not handed to the redactor")
	}
}

// TestStoredScoresEndOnlyWhenCovered follows one stored score over runs:
// a throttled-out call and an unknown score leave it current; Azure
// saying DataNotFound ends it, recorded as ended (not as a change).
func TestStoredScoresEndOnlyWhenCovered(t *testing.T) {
	az := azuretest.New(t)
	key := azuretest.ScoreKey{SKU: "standard_nd96isr_h100_v5", Region: "eastus"}
	az.Set(func(az *azuretest.Fake) { az.Scores[key] = azuretest.Score{Score: "High", Quota: true} })
	sig := signalsConfig(az)
	sig.Placement = PlacementScores{Enabled: true, Sizes: []string{"Standard_ND96isr_H100_v5"}, Locations: []string{"eastus"}}
	f, _, _ := signalFetcher(t, az, sig)
	ctx := context.Background()
	db := dbtest.Open(t)
	run := func() {
		t.Helper()
		snap, err := f.Fetch(ctx, fetchers.Previous{})
		if err != nil {
			t.Fatal(err)
		}
		dbtest.SaveWith(t, db, snap, storage.SaveOptions{MinOfferRatio: 0.5})
	}
	current := func() []storage.SignalInterval {
		t.Helper()
		got, err := db.Signals(ctx, storage.SignalFilter{Providers: []string{pricewatch.Azure}, Kinds: []pricewatch.SignalKind{pricewatch.PlacementScore}})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	run()
	if got := current(); len(got) != 1 || got[0].Value != "High" || got[0].Until != nil {
		t.Fatalf("after run 1: %+v", got)
	}
	// Run 2: every placement call fails (after the client's retries).
	az.Set(func(az *azuretest.Fake) {
		az.Intercept = func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
			http.Error(w, `{"error":{"code":"InternalServerError"}}`, http.StatusInternalServerError)
			return true
		}
	})
	run()
	// Run 3: a score Azure does not document.
	az.Set(func(az *azuretest.Fake) { az.Intercept = nil; az.Scores[key] = azuretest.Score{Score: "Excellent"} })
	run()
	if got := current(); len(got) != 1 || got[0].Until != nil {
		t.Fatalf("a failed call or an unknown score ended the stored score: %+v", got)
	}
	// Run 4: Azure has no data for it.
	az.Set(func(az *azuretest.Fake) { delete(az.Scores, key) })
	run()
	got := current()
	if len(got) != 1 || got[0].Until == nil || !got[0].EndedMissing {
		t.Fatalf("DataNotFound did not end the stored score as missing: %+v", got)
	}
}
