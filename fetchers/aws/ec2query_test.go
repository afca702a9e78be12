package aws

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
)

// The request is the documented Query API form: Action and Version, the
// query's type, count and hours, the start window from the run's time to
// eight weeks on, MaxResults, and on later pages the token the last page
// handed out; it is signed for ec2 in the region.
func TestCapacityBlockQueryForm(t *testing.T) {
	awsEnv(t, true)
	e := awstest.NewEC2(t)
	e.SetOfferings("us-east-2",
		p5Block("us-east-2b", blockStart, 1, "755.136"),
		p5Block("us-east-2b", blockStart.Add(24*time.Hour), 1, "755.136"),
		p5Block("us-east-2a", blockStart, 1, "786.60"))
	f := blockFetcher(t, e, nil)
	now := time.Date(2026, 12, 1, 9, 15, 0, 0, time.UTC)
	f.cfg.Now = func() time.Time { return now }
	f.cfg.CapacityBlocks.InstanceTypes, f.cfg.CapacityBlocks.DurationDays = []string{"p5.48xlarge"}, []int{1}
	firstRun(t, f)
	forms := e.Forms()
	if len(forms) != 2 {
		t.Fatalf("%d requests, want 2 (two pages): %v", len(forms), forms)
	}
	want := map[string]string{"Action": "DescribeCapacityBlockOfferings", "Version": "2016-11-15", "InstanceType": "p5.48xlarge",
		"InstanceCount": "1", "CapacityDurationHours": "24", "StartDateRange": "2026-12-01T09:15:00Z",
		"EndDateRange": "2027-01-26T09:15:00Z", "MaxResults": "100"}
	for i, form := range forms {
		for k, v := range want {
			if form.Get(k) != v {
				t.Errorf("request %d: %s=%q, want %q", i, k, form.Get(k), v)
			}
		}
	}
	if forms[0].Has("NextToken") || forms[1].Get("NextToken") != "page-2" {
		t.Errorf("tokens %q, %q; want none, then page-2", forms[0].Get("NextToken"), forms[1].Get("NextToken"))
	}
	for _, a := range e.Authorizations() {
		if !strings.Contains(a, "/us-east-2/ec2/aws4_request") || !strings.Contains(a, "SignedHeaders=") {
			t.Errorf("authorization %q", a)
		}
	}
}

// Refused credentials fail at once with a line naming EC2's code; a
// throttle is retried (with 503 by the client, with 400 by the query);
// either way the region stays uncovered and no line holds the secret.
func TestCapacityBlockErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		code   string
		calls  int // per query: the test client tries three times
		want   string
	}{
		{"auth failure", http.StatusUnauthorized, "AuthFailure", 1, "authentication failed"},
		{"no permission", http.StatusForbidden, "UnauthorizedOperation", 1, "ec2:DescribeCapacityBlockOfferings is needed"},
		{"throttled with 503", http.StatusServiceUnavailable, "RequestLimitExceeded", 3, "throttled by the cloud"},
		{"throttled with 400", http.StatusBadRequest, "RequestLimitExceeded", 3, "throttled by the cloud"},
	} {
		t.Run(c.name, func(t *testing.T) {
			awsEnv(t, true)
			e := awstest.NewEC2(t)
			e.SetOfferings("us-east-2", p5Block("us-east-2b", blockStart, 1, "755.136"))
			e.FailWithCode(c.status, c.code)
			core, logs := observer.New(zap.InfoLevel)
			f := blockFetcher(t, e, zap.New(core))
			f.cfg.CapacityBlocks.InstanceTypes, f.cfg.CapacityBlocks.DurationDays = []string{"p5.48xlarge"}, []int{1}
			snap := firstRun(t, f)
			if len(snap.Signals) != 0 || len(snap.SignalCoverage) != 0 || len(snap.Offers) == 0 {
				t.Errorf("signals %v, coverage %v, %d offers", snap.Signals, snap.SignalCoverage, len(snap.Offers))
			}
			if n := len(e.Calls()); n != c.calls {
				t.Errorf("%d calls, want %d", n, c.calls)
			}
			warns := logs.FilterMessageSnippet("capacity block offerings not read").All()
			if len(warns) != 1 {
				t.Fatalf("%d warnings, want 1: %v", len(warns), logs.All())
			}
			msg := fmt.Sprint(warns[0].ContextMap()["error"])
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, c.code) || !strings.Contains(msg, "us-east-2") {
				t.Errorf("error %q, want %q, the code %s and the region", msg, c.want, c.code)
			}
			for _, l := range logs.All() {
				s := l.Message + fmt.Sprint(l.ContextMap())
				if strings.Contains(s, testSecret) || strings.Contains(s, "Signature=") {
					t.Errorf("log line holds the secret key or a signature: %v", l)
				}
			}
		})
	}
}

// An answer cut off or not EC2's document fails the query as incomplete;
// a token handed out twice ends the paging instead of looping.
func TestCapacityBlockBadAnswers(t *testing.T) {
	page := func(token string) string {
		return `<?xml version="1.0" encoding="UTF-8"?>
<DescribeCapacityBlockOfferingsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
  <requestId>7a62c49f-347e-4fc4-9331-6e8eEXAMPLE</requestId>
  <capacityBlockOfferingSet>
    <item>
      <capacityBlockOfferingId>cb-0123456789abcdefg</capacityBlockOfferingId>
      <instanceType>p5.48xlarge</instanceType>
      <availabilityZone>us-east-2b</availabilityZone>
      <instanceCount>1</instanceCount>
      <startDate>2026-12-14T11:30:00.000Z</startDate>
      <endDate>2026-12-15T11:30:00.000Z</endDate>
      <capacityBlockDurationHours>24</capacityBlockDurationHours>
      <upfrontFee>755.136</upfrontFee>
      <currencyCode>USD</currencyCode>
      <tenancy>default</tenancy>
    </item>
  </capacityBlockOfferingSet>
  <nextToken>` + token + `</nextToken>
</DescribeCapacityBlockOfferingsResponse>`
	}
	for _, c := range []struct {
		name, body string
	}{
		{"cut off", page("")[:400]},
		{"another document", `<?xml version="1.0"?><DescribeInstancesResponse><reservationSet/></DescribeInstancesResponse>`},
		{"token repeated", page("same")},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
				fmt.Fprint(w, c.body)
			}))
			t.Cleanup(srv.Close)
			f := blockFetcher(t, awstest.NewEC2(t), nil)
			creds := awssdk.NewCredentialsCache(awssdk.CredentialsProviderFunc(func(context.Context) (awssdk.Credentials, error) {
				return awssdk.Credentials{AccessKeyID: testKeyID, SecretAccessKey: testSecret, Source: "test"}, nil
			}))
			f.cfg.CapacityBlocks.EC2Endpoint = srv.URL
			client := f.ec2Client(creds, v4.NewSigner(), "us-east-2")
			_, err := f.blockOfferings(context.Background(), client, &run{}, "us-east-2", "p5.48xlarge", 1, 1, blockStart)
			if !errors.Is(err, fetchers.ErrIncomplete) {
				t.Errorf("error %v, want ErrIncomplete", err)
			}
		})
	}
}

// The endpoint is EC2's regional one unless configured.
func TestEC2Endpoint(t *testing.T) {
	for _, c := range []struct{ override, region, want string }{
		{"", "us-east-2", "https://ec2.us-east-2.amazonaws.com/"},
		{"http://127.0.0.1:8080", "us-east-2", "http://127.0.0.1:8080/"},
		{"http://127.0.0.1:8080/", "eu-west-1", "http://127.0.0.1:8080/"},
	} {
		if got := ec2Endpoint(c.override, c.region); got != c.want {
			t.Errorf("ec2Endpoint(%q, %q) = %q, want %q", c.override, c.region, got, c.want)
		}
	}
}
