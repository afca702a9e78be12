package main

import (
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/alibaba/alibabatest"
	"github.com/pricewatch/pricewatch/fetchers/azurecn/azurecntest"
	"github.com/pricewatch/pricewatch/fetchers/coreweave"
	"github.com/pricewatch/pricewatch/fetchers/coreweave/coreweavetest"
	"github.com/pricewatch/pricewatch/fetchers/crusoe"
	"github.com/pricewatch/pricewatch/fetchers/crusoe/crusoetest"
	"github.com/pricewatch/pricewatch/fetchers/digitalocean"
	"github.com/pricewatch/pricewatch/fetchers/digitalocean/digitaloceantest"
	"github.com/pricewatch/pricewatch/fetchers/gcp"
	"github.com/pricewatch/pricewatch/fetchers/gcp/gcptest"
	"github.com/pricewatch/pricewatch/fetchers/huawei"
	"github.com/pricewatch/pricewatch/fetchers/huawei/huaweitest"
	"github.com/pricewatch/pricewatch/fetchers/hyperstack"
	"github.com/pricewatch/pricewatch/fetchers/hyperstack/hyperstacktest"
	"github.com/pricewatch/pricewatch/fetchers/lambda"
	"github.com/pricewatch/pricewatch/fetchers/lambda/lambdatest"
	"github.com/pricewatch/pricewatch/fetchers/nebius"
	"github.com/pricewatch/pricewatch/fetchers/nebius/nebiustest"
	"github.com/pricewatch/pricewatch/fetchers/oci/ocitest"
	"github.com/pricewatch/pricewatch/fetchers/ovhcloud/ovhcloudtest"
	"github.com/pricewatch/pricewatch/fetchers/runpod"
	"github.com/pricewatch/pricewatch/fetchers/runpod/runpodtest"
	"github.com/pricewatch/pricewatch/fetchers/scaleway/scalewaytest"
	"github.com/pricewatch/pricewatch/fetchers/shadeform"
	"github.com/pricewatch/pricewatch/fetchers/shadeform/shadeformtest"
	"github.com/pricewatch/pricewatch/fetchers/tencent/tencenttest"
	"github.com/pricewatch/pricewatch/fetchers/vastai/vastaitest"
	"github.com/pricewatch/pricewatch/fetchers/verda"
	"github.com/pricewatch/pricewatch/fetchers/verda/verdatest"
	"github.com/pricewatch/pricewatch/fetchers/volcengine"
	"github.com/pricewatch/pricewatch/fetchers/volcengine/volcenginetest"
	"github.com/pricewatch/pricewatch/fetchers/vultr"
	"github.com/pricewatch/pricewatch/fetchers/vultr/vultrtest"
	"github.com/pricewatch/pricewatch/providers"
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

// everyProviderFakes starts a fake of every provider of the registry, AWS
// as the caller wires it, and returns them as config entries in the
// registry's order, with the Azure fake (tests move its H100 price). A
// provider registered without a fake here fails the test, naming it, so
// that a test over "every provider" cannot quietly leave a newly added
// cloud out.
func everyProviderFakes(t *testing.T, aws cloud) ([]cloud, *fakeAzure) {
	t.Helper()
	seven, az := originalSevenFakes(t)
	byName := map[string]cloud{aws.name: aws}
	for _, c := range seven {
		byName[c.name] = c
	}
	ovh := ovhcloudtest.New(t)
	t.Setenv(gcp.EnvAPIKey, gcptest.Key)
	google := gcptest.New(t)
	azcn := azurecntest.New(t)
	hw := huaweitest.New(t)
	scw := scalewaytest.New(t)
	t.Setenv(vultr.EnvAPIKey, "")
	vul := vultrtest.New(t, "")
	t.Setenv(digitalocean.EnvAPIKey, "dop_v1_every_provider")
	do := digitaloceantest.New(t, "dop_v1_every_provider")
	t.Setenv(huawei.EnvAK, huaweitest.AK)
	t.Setenv(huawei.EnvSK, huaweitest.SK)
	// CoreWeave with its token, so that Capacity Finder's confidential
	// answers are in every test over every provider (export must leave
	// them out).
	t.Setenv(coreweave.EnvAPIToken, e2eCoreWeaveToken)
	cw := coreweavetest.New(t, e2eCoreWeaveToken)
	t.Setenv(crusoe.EnvAccessKeyID, e2eCrusoeID)
	t.Setenv(crusoe.EnvSecretKey, e2eCrusoeSecret)
	cru := crusoetest.New(t, e2eCrusoeID, e2eCrusoeSecret)
	const shadeformKey = "secret_e2e_shadeform.NeverPrinted"
	t.Setenv(shadeform.EnvAPIKey, shadeformKey)
	sf := shadeformtest.New(t, shadeformKey)
	const verdaSecret = "secret_e2e_verda.NeverPrinted"
	t.Setenv(verda.EnvClientID, verdatest.ClientID)
	t.Setenv(verda.EnvClientSecret, verdaSecret)
	vd := verdatest.New(t, verdaSecret)
	const hyperstackKey = "secret_e2e_hyperstack.NeverPrinted"
	t.Setenv(hyperstack.EnvAPIKey, hyperstackKey)
	hs := hyperstacktest.New(t, hyperstackKey)
	const volcAK, volcSK = "AKLTe2eEveryProviderVolcengine1", "ZXZlcnlQcm92aWRlclZvbGNlbmdpbmVTZWNyZXQ="
	t.Setenv(volcengine.EnvAccessKey, volcAK)
	t.Setenv(volcengine.EnvSecretKey, volcSK)
	volc := volcenginetest.New(t, volcAK, volcSK)
	t.Setenv(nebius.EnvCredentials, nebiustest.Credentials(nebiustest.PrivateKey(t)))
	nb := nebiustest.New(t)
	for _, c := range []cloud{
		awsChinaCloud(t),
		{name: "ovhcloud", endpoint: ovh.URL},
		{name: "gcp", endpoint: google.URL},
		{name: "azure-cn", endpoint: azcn.URL()},
		{name: "huawei", endpoint: hw.URL, keys: "    iam_endpoint: " + hw.URL + "\n    ecs_endpoint: " + hw.ECSEndpoint() + "\n"},
		{name: "scaleway", endpoint: scw.URL, keys: "    regions: [" + scalewaytest.Zone + "]\n"},
		{name: "vultr", endpoint: vul.URL},
		{name: "digitalocean", endpoint: do.URL},
		{name: "coreweave", endpoint: cw.URL, keys: "    price_sheets: [" + cw.SheetURL() + "]\n"},
		{name: "crusoe", endpoint: cru.Endpoint(), keys: "    price_sheets: [" + cru.SheetURL() + "]\n"},
		{name: "shadeform", endpoint: sf.URL},
		{name: "verda", endpoint: vd.URL},
		{name: "hyperstack", endpoint: hs.URL},
		{name: "volcengine", endpoint: volc.URL, keys: "    regions: [cn-beijing]\n    price_sheets: [" + volc.SheetURL() + "]\n"},
		{name: "nebius", endpoint: "https://api.nebius.example", keys: "    token_endpoint: " + nb.URL + "\n    iam_endpoint: " + nb.URL +
			"\n    compute_endpoint: " + nb.URL + "\n    calculator_endpoint: " + nb.URL + "\n"},
	} {
		byName[c.name] = c
	}
	var out []cloud
	for _, name := range providers.Names() {
		c, ok := byName[name]
		if !ok {
			t.Fatalf("provider %s is registered but has no fake in everyProviderFakes: add one", name)
		}
		out = append(out, c)
	}
	return out, az
}
