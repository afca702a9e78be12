package huawei

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
	"github.com/pricewatch/pricewatch/fetchers/huawei/huaweitest"
	"github.com/pricewatch/pricewatch/section"
)

// TestConformance runs the fetcher contract every cloud passes, built as
// the program builds it (Provider, the key pair in ak_file and sk_file),
// every region the project list names. The fake knows one access key
// (Key); the secret key signs and must show nowhere either.
func TestConformance(t *testing.T) {
	fetcherstest.Conformance(t, fetcherstest.Case[*huaweitest.Server]{
		Provider: Name,
		Key:      huaweitest.AK,
		Secrets:  []string{huaweitest.SK},
		Fake:     func(t *testing.T) *huaweitest.Server { return huaweitest.New(t) },
		New: func(t *testing.T, fake *huaweitest.Server, h fetcherstest.Harness) (fetchers.Fetcher, error) {
			t.Setenv(EnvAK, "")
			t.Setenv(EnvSK, "")
			s := Provider.Section().(*Section)
			s.Common = section.Common{Enabled: true, Endpoint: fake.URL}
			s.IAMEndpoint, s.ECSEndpoint = fake.URL, fake.ECSEndpoint()
			if h.Key != "" {
				dir := fetcherstest.CredentialFiles(t, map[string]string{"ak": h.Key, "sk": huaweitest.SK})
				s.AKFile, s.SKFile = dir+"/ak", dir+"/sk"
			}
			return Provider.Build(s, h.Env)
		},
		// The project list's links.next handing out the first page again.
		RepeatPage: func(_ *testing.T, fake *huaweitest.Server) { fake.SetProjectsNext(fake.URL + "/v3/projects") },
		Empty: func(t *testing.T, _ *huaweitest.Server) {
			fetcherstest.Edit(t, func(r *http.Request, _, body []byte) []byte {
				if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/cloudservers/flavors") {
					return []byte(`{"flavors": []}`)
				}
				return body
			})
		},
		Malformed: func(t *testing.T, _ *huaweitest.Server) func(pricewatch.Offer) bool {
			// The first line of cn-north-4's on-demand inquiry answered
			// with a negative amount.
			var spoilt string
			fetcherstest.Edit(t, func(r *http.Request, sent, body []byte) []byte {
				var req struct {
					ProjectID    string `json:"project_id"`
					ProductInfos []struct {
						ResourceSpec string `json:"resource_spec"`
					} `json:"product_infos"`
				}
				// Only cn-north-4's asks: the regions are asked at once.
				if r.URL.Path != pathOnDemand || json.Unmarshal(sent, &req) != nil || len(req.ProductInfos) == 0 ||
					req.ProjectID != huaweitest.Projects["cn-north-4"] {
					return body
				}
				var ans map[string]any
				if json.Unmarshal(body, &ans) != nil {
					return body
				}
				lines, _ := ans["product_rating_results"].([]any)
				for _, l := range lines {
					if m := l.(map[string]any); m["id"] == "1" {
						m["official_website_amount"] = -1
						spoilt = strings.TrimSuffix(req.ProductInfos[0].ResourceSpec, ".linux")
					}
				}
				out, _ := json.Marshal(ans)
				return out
			})
			return func(o pricewatch.Offer) bool {
				return o.Region == "cn-north-4" && o.InstanceType == spoilt && o.PriceType == pricewatch.OnDemand
			}
		},
	})
}
