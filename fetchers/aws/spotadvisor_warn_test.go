package aws

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
)

// Issue 31 item 6: the warning of an advisor that could not be read names
// its URL once (the client's error names it; it was wrapped again).
func TestSpotAdvisorWarningNamesURLOnce(t *testing.T) {
	b := awstest.NewBucket(t)
	tree{"us-east-1": {Version: v1, Types: []awstest.GPUType{p5}}}.publish(t, b)
	b.FailWith(awstest.SpotAdvisorPath, http.StatusServiceUnavailable)
	cfg := Config{Format: FormatJSON, Endpoint: b.URL(), SpotEndpoint: b.SpotURL(), SpotAdvisor: true, SpotAdvisorEndpoint: b.SpotAdvisorURL(), Regions: []string{"us-east-1"}}
	policy := fetchers.DefaultRetryPolicy()
	policy.MaxAttempts = 2
	client := fetchers.NewClient(policy)
	client.SetSleep(func(context.Context, time.Duration) error { return nil })
	core, logs := observer.New(zap.WarnLevel)
	f, err := New(cfg, client, zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	firstRun(t, f)
	warned := logs.FilterMessageSnippet("spot advisor not read").All()
	if len(warned) != 1 {
		t.Fatalf("%d warnings, want 1: %v", len(warned), logs.All())
	}
	msg := warned[0].ContextMap()["error"].(string)
	if n := strings.Count(msg, b.SpotAdvisorURL()); n != 1 {
		t.Errorf("the URL is named %d times: %s", n, msg)
	}
}
