package tencent

import (
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/tencent/tencenttest"
	"github.com/pricewatch/pricewatch/section"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the key pair in its files), against
// the signature-checking fake replaying run1 (ap-shanghai, ap-guangzhou).
// The fake knows one pair: Key is its SecretKey, the SecretId must show
// nowhere either. The fetcher's own API-level retries (an error in a
// 200 answer) wait with h.Sleep.
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*tencenttest.Server]{
		Provider: pricewatch.Tencent,
		Key:      testSecretKey,
		Secrets:  []string{testSecretID},
		Fake:     func(t *testing.T) *tencenttest.Server { return newFake(t, "testdata/run1") },
		New: func(t *testing.T, fake *tencenttest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			t.Setenv(EnvSecretID, "")
			t.Setenv(EnvSecretKey, "")
			s := Provider.Section().(*Section)
			s.Common = section.Common{Enabled: true, Endpoint: fake.URL(), Regions: []string{"ap-shanghai", "ap-guangzhou"}}
			if h.Key != "" {
				dir := fetcherstest.CredentialFiles(t, map[string]string{"id": testSecretID, "key": h.Key})
				s.SecretIDFile, s.SecretKeyFile = dir+"/id", dir+"/key"
			}
			f, err := Provider.Build(s, h.Env)
			if err != nil {
				return nil, err
			}
			f.(*Fetcher).api.sleep = h.Sleep
			return f, nil
		},
		Empty: func(_ *testing.T, fake *tencenttest.Server) {
			fake.Override("DescribeZoneInstanceConfigInfos", `{"Response": {"InstanceTypeQuotaSet": [], "RequestId": "6f4d1c2e-0000-4000-8000-000000000000"}}`)
		},
		Malformed: func(_ *testing.T, fake *tencenttest.Server) func(pricewatch.Offer) bool {
			// GN7.LARGE20's pay-as-you-go row in ap-shanghai-8 with a
			// status CVM does not document.
			fake.SetStock("ap-shanghai", "ap-shanghai-8", "GN7.LARGE20", "PAUSED", "WithStock", "POSTPAID_BY_HOUR")
			return func(o pricewatch.Offer) bool {
				return o.Region == "ap-shanghai" && o.InstanceType == "GN7.LARGE20" && o.PriceType == pricewatch.OnDemand
			}
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.RepeatedPage: "DescribeZoneInstanceConfigInfos answers a region and charge type in one document; no call is paged",
		},
	})
}
