package main

import (
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/alibaba/alibabatest"
	"github.com/pricewatch/pricewatch/fetchers/lambda"
	"github.com/pricewatch/pricewatch/fetchers/lambda/lambdatest"
	"github.com/pricewatch/pricewatch/fetchers/oci/ocitest"
	"github.com/pricewatch/pricewatch/fetchers/runpod"
	"github.com/pricewatch/pricewatch/fetchers/runpod/runpodtest"
	"github.com/pricewatch/pricewatch/fetchers/tencent/tencenttest"
	"github.com/pricewatch/pricewatch/fetchers/vastai/vastaitest"
)

// originalSevenFakes starts the fakes of the first eight providers but AWS
// (each test wires AWS's bucket its own way) from the replayed captures,
// with their credentials in the environment, and returns them as config
// entries in the registry's order, with the Azure fake (tests move its
// H100 price).
func originalSevenFakes(t *testing.T) ([]cloud, *fakeAzure) {
	t.Helper()
	const lambdaKey = "secret_e2e_lambda.NeverPrinted"
	t.Setenv(lambda.EnvAPIKey, lambdaKey)
	t.Setenv(runpod.EnvAPIKey, "")
	alibabaCredentials(t, e2eAlibabaKeyID, e2eAlibabaSecret)
	tencentCredentials(t, e2eTencentID, e2eTencentKey)

	az := newFakeAzure(t)
	ali := alibabatest.NewServer(t, e2eAlibabaKeyID, e2eAlibabaSecret, alibabatest.LoadScenario(t, "testdata/alibaba/china"))
	tc := tencenttest.NewServer(t, e2eTencentID, e2eTencentKey, "testdata/tencent/beijing")
	lam := lambdatest.New(t, lambdaKey)
	lam.SetCapacity(t, "gpu_8x_h100_sxm5", "us-east-1")
	rp := runpodtest.New(t, "")
	vast := vastaitest.NewServer(t, vastaitest.LoadOffers(t, "testdata/vastai/bundles-H100_SXM-asc-limit8-20260822.json"))
	oci := ocitest.NewServer(t, ocitest.Load(t, "testdata/oci/cetools-products-currencyCode-USD-GPU-rows-20260822.json"))
	return []cloud{
		azureCloud(az.URL, westus2),
		{name: "alibaba", endpoint: ali.URL(), keys: "    regions: [cn-shanghai]\n"},
		{name: "tencent", endpoint: tc.URL(), keys: "    regions: [ap-beijing]\n    currency: CNY\n"},
		{name: "lambda", endpoint: lam.URL},
		{name: "runpod", endpoint: rp.URL},
		{name: "vastai", endpoint: vast.URL, keys: "    gpu_models: [\"H100 SXM\"]\n    request_interval: 0s\n"},
		{name: "oci", endpoint: oci.URL},
	}, az
}
