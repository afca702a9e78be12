package alibaba

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/alibaba/alibabatest"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/section"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the AccessKey pair in its files),
// against the signature-checking fake holding cn-hangzhou. The fake
// knows one pair: Key is its secret, the ID must show nowhere either.
// The SDK sends through the fetcher's own HTTP client, whose transport
// and back-off the case hands the suite's.
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*alibabatest.Server]{
		Provider: pricewatch.Alibaba,
		Key:      testSecret,
		Secrets:  []string{testKeyID},
		Fake: func(t *testing.T) *alibabatest.Server {
			return alibabatest.NewServer(t, testKeyID, testSecret, hangzhouWorld())
		},
		New: func(t *testing.T, fake *alibabatest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			t.Setenv(EnvAccessKeyID, "")
			t.Setenv(EnvAccessKeySecret, "")
			s := Provider.Section().(*Section)
			s.Common = section.Common{Enabled: true, Endpoint: fake.URL(), Regions: []string{"cn-hangzhou"}}
			if h.Key != "" {
				dir := fetcherstest.CredentialFiles(t, map[string]string{"id": testKeyID, "secret": h.Key})
				s.AccessKeyIDFile, s.AccessKeySecretFile = dir+"/id", dir+"/secret"
			}
			f, err := Provider.Build(s, h.Env)
			if err != nil {
				return nil, err
			}
			f.(*Fetcher).rpc.http.c.Transport = h.Transport
			f.(*Fetcher).SetSleep(h.Sleep)
			return f, nil
		},
		RepeatPage: func(t *testing.T, _ *alibabatest.Server) {
			// Every DescribeInstanceTypes page hands out the first page's
			// NextToken.
			fetcherstest.Edit(t, func(r *http.Request, _, body []byte) []byte {
				var page map[string]any
				if action(r) != "DescribeInstanceTypes" || json.Unmarshal(body, &page) != nil {
					return body
				}
				page["NextToken"] = sampleNextToken
				out, _ := json.Marshal(page)
				return out
			})
		},
		Empty: func(_ *testing.T, fake *alibabatest.Server) {
			w := hangzhouWorld()
			w.TypePages, w.Tokens = [][]alibabatest.InstanceType{{}}, []string{""}
			fake.SetWorld(w)
		},
		Lacks: map[fetcherstest.Check]string{
			fetcherstest.NoKey: "without a key the provider reads the public price file instead (TestPublicConformance)",
		},
		Malformed: func(_ *testing.T, fake *alibabatest.Server) func(pricewatch.Offer) bool {
			// gn6i listed with a CPU core count that is not a whole number.
			w := hangzhouWorld()
			for _, page := range w.TypePages {
				for i := range page {
					if page[i].ID == gn6i {
						page[i].CPU = "4.5"
					}
				}
			}
			fake.SetWorld(w)
			return fetcherstest.InstanceType(gn6i)
		},
	})
}

// action is the ECS action a request calls: the SDK sets its
// x-acs-action header in lower case, not in Go's canonical form.
func action(r *http.Request) string {
	for k, v := range r.Header {
		if strings.EqualFold(k, "x-acs-action") && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}
