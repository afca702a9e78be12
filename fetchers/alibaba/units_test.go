package alibaba

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	openapi "github.com/alibabacloud-go/darabonba-openapi/v2/client"
	openapiutil "github.com/alibabacloud-go/darabonba-openapi/v2/utils"
	ecs "github.com/alibabacloud-go/ecs-20140526/v7/client"
	"github.com/alibabacloud-go/tea/dara"
	"github.com/alibabacloud-go/tea/tea"
	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers/alibaba/alibabatest"
	"github.com/pricewatch/pricewatch/gpu"
)

// Why prices are not read through the SDK's typed models: they are
// float32, and a term total loses its cents.
func TestFloat32LosesTermTotals(t *testing.T) {
	total := "98765.43"
	var typed struct{ TradePrice float32 }
	if err := json.Unmarshal([]byte(`{"TradePrice":`+total+`}`), &typed); err != nil {
		t.Fatal(err)
	}
	// Any arithmetic or storage widens it to float64, and the cents go.
	if got := decimal.NewFromFloat(float64(typed.TradePrice)).String(); got != "98765.4296875" {
		t.Fatalf("float32 → float64 gave %s; the test no longer shows the problem", got)
	}
	var exact struct{ TradePrice num }
	if err := json.Unmarshal([]byte(`{"TradePrice":`+total+`}`), &exact); err != nil {
		t.Fatal(err)
	}
	if p, err := exact.TradePrice.price("TradePrice"); err != nil || p.String() != total {
		t.Errorf("exact read gave %s, %v", p, err)
	}
}

func TestNum(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool // from price()
		badJSON bool
	}{
		{`3712.8`, "3712.8", false, false},
		{`"3712.80"`, "3712.8", false, false},
		{`" 0.4200 "`, "0.42", false, false},
		{`1.5E3`, "1500", false, false},
		{`0`, "0", false, false},
		{`null`, "", true, false},
		{`""`, "", true, false},
		{`"N/A"`, "", true, false},
		{`-1`, "", true, false},
		{`true`, "", false, true},
		{`{"a":1}`, "", false, true},
	}
	for _, tt := range tests {
		var v struct{ P num }
		err := json.Unmarshal([]byte(`{"P":`+tt.in+`}`), &v)
		if tt.badJSON {
			if err == nil {
				t.Errorf("%s: accepted", tt.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		p, err := v.P.price("P")
		if tt.wantErr != (err != nil) {
			t.Errorf("%s: price error %v", tt.in, err)
			continue
		}
		if err == nil && !p.Equal(decimal.RequireFromString(tt.want)) {
			t.Errorf("%s: %s, want %s", tt.in, p, tt.want)
		}
	}
	var n struct{ N num }
	_ = json.Unmarshal([]byte(`{"N":"8"}`), &n)
	if i, err := n.N.int(); err != nil || i != 8 {
		t.Errorf("int from string: %d %v", i, err)
	}
	_ = json.Unmarshal([]byte(`{"N":2.5}`), &n)
	if _, err := n.N.int(); err == nil {
		t.Error("2.5 read as a whole number")
	}
}

func TestTradePrice(t *testing.T) {
	tests := []struct {
		name, body, want, cur, err string
	}{
		{"published example", string(alibabatest.SampleBytes(t, "DescribePrice.response.json")), "3712.8", "CNY", ""},
		{"instanceType line wins", `{"PriceInfo":{"Price":{"Currency":"USD","TradePrice":10.5,"DetailInfos":{"DetailInfo":[{"Resource":"systemDisk","TradePrice":0.5},{"Resource":"instanceType","TradePrice":10}]}}}}`, "10", "USD", ""},
		{"line without TradePrice", `{"PriceInfo":{"Price":{"Currency":"USD","TradePrice":10.5,"DetailInfos":{"DetailInfo":[{"Resource":"instanceType","OriginalPrice":"12","DiscountPrice":"2"}]}}}}`, "10", "USD", ""},
		{"line discount above price", `{"PriceInfo":{"Price":{"Currency":"USD","TradePrice":10.5,"DetailInfos":{"DetailInfo":[{"Resource":"instanceType","OriginalPrice":2,"DiscountPrice":3}]}}}}`, "", "", "exceeds"},
		{"no line for the instance", `{"PriceInfo":{"Price":{"Currency":"USD","TradePrice":10.5,"DetailInfos":{"DetailInfo":[{"Resource":"bandwidth","TradePrice":0}]}}}}`, "10.5", "USD", ""},
		{"no Price", `{"PriceInfo":{}}`, "", "", "no PriceInfo.Price"},
		{"only DiscountPrice", `{"PriceInfo":{"Price":{"Currency":"CNY","DiscountPrice":655.2}}}`, "", "", "TradePrice is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r priceResponse
			if err := decodeJSON([]byte(tt.body), &r); err != nil {
				t.Fatal(err)
			}
			p, cur, err := r.tradePrice()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || p.String() != tt.want || cur != tt.cur {
				t.Errorf("%s %s %v, want %s %s", p, cur, err, tt.want, tt.cur)
			}
		})
	}
	if err := decodeJSON([]byte(`{"RequestId":"a"}{"RequestId":"b"}`), &priceResponse{}); err == nil {
		t.Error("two JSON values accepted as one response")
	}
}

func TestHardware(t *testing.T) {
	n := func(s string) num { return num{text: s, set: s != ""} }
	tests := []struct {
		name string
		it   instanceTypeJSON
		want pricewatch.Hardware
	}{
		{"API fields", instanceTypeJSON{InstanceTypeID: "ecs.gn7i-c32g1.8xlarge", InstanceTypeFamily: "ecs.gn7i", GPUSpec: "NVIDIA A10", GPUAmount: n("1"), GPUMemorySize: n("24"), CPUCoreCount: n("32"), MemorySize: n("188")},
			pricewatch.Hardware{GPUModel: "A10", GPUCount: 1, GPUMemoryGB: 24, VCPUs: 32, MemoryGB: 188}},
		{"API wins over the table", instanceTypeJSON{InstanceTypeID: "ecs.gn7-c13g1.13xlarge", InstanceTypeFamily: "ecs.gn7", GPUSpec: "NVIDIA A100", GPUAmount: n("4"), GPUMemorySize: n("80"), CPUCoreCount: n("52"), MemorySize: n("378")},
			pricewatch.Hardware{GPUModel: "A100-80GB", GPUCount: 4, GPUMemoryGB: 80, VCPUs: 52, MemoryGB: 378}},
		// GPUMemorySize comes as 40.0 for some types and 24 for others.
		{"memory as a float", instanceTypeJSON{InstanceTypeID: "ecs.gn7-c12g1.3xlarge", InstanceTypeFamily: "ecs.gn7", GPUSpec: "NVIDIA A100", GPUAmount: n("1"), GPUMemorySize: n("40.0"), CPUCoreCount: n("12"), MemorySize: n("94")},
			pricewatch.Hardware{GPUModel: "A100-40GB", GPUCount: 1, GPUMemoryGB: 40, VCPUs: 12, MemoryGB: 94}},
		// The fraction is written only in GPUSpec; GPUAmount stays 1 and
		// GPUMemorySize is the slice's.
		{"vGPU share in GPUSpec", instanceTypeJSON{InstanceTypeID: "ecs.vgn6i-m4.xlarge", InstanceTypeFamily: "ecs.vgn6i", GPUSpec: "NVIDIA T4/4", GPUAmount: n("1"), GPUMemorySize: n("4"), CPUCoreCount: n("4"), MemorySize: n("23")},
			pricewatch.Hardware{GPUModel: "T4", GPUCount: 0.25, GPUMemoryGB: 4, VCPUs: 4, MemoryGB: 23}},
		{"P4 eighth", instanceTypeJSON{InstanceTypeID: "ecs.vgn5i-m1.large", InstanceTypeFamily: "ecs.vgn5i", GPUSpec: "NVIDIA P4*1/8", GPUAmount: n("1"), GPUMemorySize: n("1"), CPUCoreCount: n("2"), MemorySize: n("6")},
			pricewatch.Hardware{GPUModel: "P4", GPUCount: 0.125, GPUMemoryGB: 1, VCPUs: 2, MemoryGB: 6}},
		{"AMD share without memory", instanceTypeJSON{InstanceTypeID: "ecs.ga1.xlarge", InstanceTypeFamily: "ecs.ga1", GPUSpec: "AMD S7150/4", GPUAmount: n("1"), CPUCoreCount: n("4"), MemorySize: n("10")},
			pricewatch.Hardware{GPUModel: "S7150", GPUCount: 0.25, GPUMemoryGB: 2, VCPUs: 4, MemoryGB: 10}},
		{"masked gn8v-tdx", instanceTypeJSON{InstanceTypeID: "ecs.gn8v-tdx.4xlarge", InstanceTypeFamily: "ecs.gn8v-tdx", GPUSpec: "NVIDIA GPU H", GPUAmount: n("1"), GPUMemorySize: n("96"), CPUCoreCount: n("16"), MemorySize: n("96")},
			pricewatch.Hardware{GPUModel: "H20", GPUCount: 1, GPUMemoryGB: 96, VCPUs: 16, MemoryGB: 96}},
		{"table fills a silent API", instanceTypeJSON{InstanceTypeID: "ecs.ebmgn8v.48xlarge", GPUAmount: n("8"), CPUCoreCount: n("192"), MemorySize: n("1024")},
			pricewatch.Hardware{GPUModel: "H20", GPUCount: 8, GPUMemoryGB: 96, VCPUs: 192, MemoryGB: 1024}},
		{"code name resolved by family", instanceTypeJSON{InstanceTypeID: "ecs.gn8is-2x.8xlarge", InstanceTypeFamily: "ecs.gn8is", GPUSpec: "NVIDIA GX20", GPUAmount: n("2"), GPUMemorySize: n("48"), CPUCoreCount: n("32"), MemorySize: n("256")},
			pricewatch.Hardware{GPUModel: "L20", GPUCount: 2, GPUMemoryGB: 48, VCPUs: 32, MemoryGB: 256}},
		{"unknown everywhere keeps the cloud's words", instanceTypeJSON{InstanceTypeID: "ecs.gx9-new.4xlarge", GPUSpec: "NVIDIA Z9", GPUAmount: n("1"), CPUCoreCount: n("16"), MemorySize: n("64")},
			pricewatch.Hardware{GPUModel: "Z9", GPUCount: 1, VCPUs: 16, MemoryGB: 64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, kind, err := hardware(tt.it)
			if err != nil || got != tt.want || kind != gpu.KindGPU {
				t.Errorf("got %+v, %s, %v; want %+v", got, kind, err, tt.want)
			}
		})
	}
	if _, _, err := hardware(instanceTypeJSON{InstanceTypeID: "x", CPUCoreCount: n("2.5")}); err == nil {
		t.Error("fractional vCPU count accepted")
	}
}

// Every family the issue names has a table row with a source.
func TestGPUFamilyTable(t *testing.T) {
	want := map[string]string{
		"gn6v": "V100", "gn6e": "V100-32GB", "gn6i": "T4", "gn7i": "A10", "gn7": "A100-40GB",
		"gn7e": "A100-80GB", "gn7s": "A30", "gn8is": "L20", "gn8v": "H20", "ebmgn8v": "H20",
	}
	for fam, model := range want {
		row, ok := gpuFamilies[fam]
		if !ok || row.Model != model || row.MemoryGB <= 0 || row.Source == "" {
			t.Errorf("%s: %+v, want %s with memory and source", fam, row, model)
		}
	}
	if gpuFamilies["gn8v"].MemoryGB != 96 {
		t.Error("gn8v must carry 96 GB per GPU")
	}
}

func TestClassify(t *testing.T) {
	mk := func(status int, code string) error {
		return &openapi.ClientError{StatusCode: tea.Int(status), Code: tea.String(code), Data: map[string]interface{}{
			"Code": code, "Message": "msg  with\nspaces server string to sign is:GET&%2F&AccessKeyId%3Dx", "RequestId": "R-1"}}
	}
	tests := []struct {
		err  error
		want errKind
	}{
		{mk(403, "Throttling.User"), errThrottled},
		{mk(400, "Throttling"), errThrottled},
		{&openapi.ThrottlingError{StatusCode: tea.Int(400), Code: tea.String("Throttling.Api")}, errThrottled},
		{mk(400, "SignatureDoesNotMatch"), errAuth},
		{mk(404, "InvalidAccessKeyId.NotFound"), errAuth},
		{mk(403, "Forbidden.RAM"), errAuth},
		{&openapi.ServerError{StatusCode: tea.Int(500), Code: tea.String("InternalError")}, errRetry},
		{&openapi.ServerError{StatusCode: tea.Int(503), Code: tea.String("ServiceUnavailable")}, errThrottled},
		{mk(400, "PriceNotFound"), errFinal},
		{errors.New("dial tcp: connection refused"), errRetry},
	}
	for _, tt := range tests {
		kind, apiErr := classify(tt.err, "DescribePrice", "cn-hangzhou")
		if kind != tt.want {
			t.Errorf("%v: kind %d, want %d", tt.err, kind, tt.want)
		}
		if apiErr != nil && strings.Contains(apiErr.Error(), "AccessKeyId%3D") {
			t.Errorf("the echoed string to sign survived: %s", apiErr)
		}
	}
	_, apiErr := classify(mk(403, "Throttling.User"), "DescribePrice", "cn-hangzhou")
	if apiErr.Message != "msg with spaces" || apiErr.RequestID != "R-1" {
		t.Errorf("details %+v", apiErr)
	}
	for code, fix := range authCodes {
		if fix == "" || strings.Contains(fix, "%") {
			t.Errorf("%s: fix %q", code, fix)
		}
	}
}

func TestSDKErrorTextDropsQuery(t *testing.T) {
	err := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/?InstanceType=ecs.gn7i&RegionId=cn-hangzhou", Err: errors.New("connection refused")}
	got := sdkErrorText(err)
	if strings.Contains(got, "InstanceType") || !strings.Contains(got, "connection refused") {
		t.Errorf("%q", got)
	}
}

// The fake checks RPC (HMAC-SHA1) signatures too: the SDK's V2 mode is
// accepted with the right secret and gets SignatureDoesNotMatch with a
// wrong one.
func TestFakeVerifiesRPCSignature(t *testing.T) {
	fake := alibabatest.NewServer(t, testKeyID, testSecret, hangzhouWorld())
	u, _ := url.Parse(fake.URL())
	call := func(secret string) error {
		cl, err := ecs.NewClient(&openapi.Config{
			AccessKeyId: tea.String(testKeyID), AccessKeySecret: tea.String(secret),
			RegionId: tea.String("cn-hangzhou"), Endpoint: tea.String(u.Host), Protocol: tea.String("HTTP"),
			SignatureAlgorithm: tea.String("v2"),
		})
		if err != nil {
			t.Fatal(err)
		}
		cl.Client.DisableSDKError = tea.Bool(true)
		params := &openapiutil.Params{
			Action: tea.String("DescribeAvailableResource"), Version: tea.String(apiVersion), Protocol: tea.String("HTTP"),
			Pathname: tea.String("/"), Method: tea.String("POST"), AuthType: tea.String("AK"), Style: tea.String("RPC"),
			ReqBodyType: tea.String("formData"), BodyType: tea.String("string"),
		}
		req := &openapiutil.OpenApiRequest{Query: map[string]*string{"RegionId": tea.String("cn-hangzhou"), "DestinationResource": tea.String("InstanceType")}}
		_, err = cl.CallApiWithCtx(context.Background(), params, req, &dara.RuntimeOptions{})
		return err
	}
	if err := call(testSecret); err != nil {
		t.Fatalf("right secret: %v", err)
	}
	calls := fake.Calls("DescribeAvailableResource")
	if len(calls) != 1 || calls[0].Style != "RPC" {
		t.Fatalf("calls %+v", calls)
	}
	err := call("wrong")
	kind, apiErr := classify(err, "DescribeAvailableResource", "cn-hangzhou")
	if kind != errAuth || apiErr.Code != "SignatureDoesNotMatch" || apiErr.Status != 400 {
		t.Errorf("wrong secret: %v", err)
	}
}
