package alibaba

import (
	"testing"

	openapiutil "github.com/alibabacloud-go/darabonba-openapi/v2/utils"
	"github.com/alibabacloud-go/tea/dara"
	"github.com/alibabacloud-go/tea/tea"

	"github.com/pricewatch/pricewatch/fetchers/alibaba/alibabatest"
)

// The signer pricewatch actually uses is the SDK's. It must reproduce the
// published vectors too: V3 (the SDK's default, used for every call) and
// V2 (kept for completeness).
func TestSDKSignerVectors(t *testing.T) {
	vs := alibabatest.SignatureVectors(t)
	for _, v := range vs.V3 {
		t.Run(v.Name, func(t *testing.T) {
			req := dara.NewRequest()
			req.Method = tea.String(v.Method)
			req.Pathname = tea.String(v.Path)
			for k, val := range v.Query {
				req.Query[k] = tea.String(val)
			}
			for k, val := range v.Headers {
				req.Headers[k] = tea.String(val)
			}
			got := openapiutil.GetAuthorization(req, tea.String("ACS3-HMAC-SHA256"), tea.String(v.Headers["x-acs-content-sha256"]), tea.String(v.AccessKeyID), tea.String(v.AccessKeySecret))
			if tea.StringValue(got) != v.Authorization {
				t.Errorf("SDK Authorization\n got %s\nwant %s", tea.StringValue(got), v.Authorization)
			}
		})
	}
	for _, v := range vs.V2 {
		t.Run(v.Name, func(t *testing.T) {
			params := map[string]*string{}
			for k, val := range v.Params {
				params[k] = tea.String(val)
			}
			got := openapiutil.GetRPCSignature(params, tea.String(v.Method), tea.String(v.AccessKeySecret))
			if tea.StringValue(got) != v.Signature {
				t.Errorf("SDK V2 signature %s, want %s", tea.StringValue(got), v.Signature)
			}
		})
	}
}
