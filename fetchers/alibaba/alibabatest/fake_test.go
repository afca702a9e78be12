package alibabatest

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// smallWorld has one of everything the fake can serve: two type pages
// (one with the published row, one with numbers as strings), a zone with a
// sold-out line, quotes with and without DetailInfos, an error quote, and
// spot history naming its currency.
func smallWorld() *World {
	const r, typ, typ2 = "cn-shenzhen", "ecs.gn7i-c16g1.4xlarge", "ecs.gn7e-c16g1.4xlarge"
	return &World{
		TypePages: [][]InstanceType{
			{{ID: publishedTypeRow}, {ID: typ, Family: "ecs.gn7i", Spec: "NVIDIA A10", GPUs: "1", GPUMem: "24", CPU: "16", Mem: "60", Category: "GPU-accelerated compute-optimized"}},
			{{ID: typ2, Family: "ecs.gn7e", Spec: "NVIDIA A100", GPUs: "1", GPUMem: "80", CPU: "16", Mem: "125", Category: "GPU-accelerated compute-optimized", AsStrings: true}},
		},
		Tokens: []string{"e71d8a535bd9cc11", ""},
		Zones: map[string][]Zone{r: {
			{ID: r + "-e", Status: "Available", Category: "WithStock", Stock: []Stock{
				{Type: typ, Status: "Available", Category: "WithStock"},
				{Type: typ2, Status: "SoldOut", Category: "WithoutStock"},
			}},
		}},
		Prices: map[string]Price{
			PriceKey(r, typ, "Hour", "1"):  {Currency: "CNY", Original: "14.2", Discount: "0", Trade: "14.2"},
			PriceKey(r, typ, "Year", "1"):  {Currency: "CNY", Original: "99999.99", Discount: "15000", Trade: "84999.99", Detail: []string{"99900.00", "15000", ""}},
			PriceKey(r, typ2, "Hour", "1"): {Currency: "CNY", Original: "40.1000", Discount: "0", Trade: "40.1000", AsStrings: true},
			PriceKey(r, typ2, "Year", "3"): {Code: "PriceNotFound", Message: "The price of your queried resource is not available now, please try other resources."},
		},
		Spots: map[string][]SpotRow{
			SpotKey(r, r+"-e", typ): {
				{Zone: r + "-e", Type: typ, Timestamp: "2026-12-01T08:00:00Z", Spot: "2.84", Origin: "14.2"},
				{Zone: r + "-e", Type: typ, Timestamp: "2026-12-01T09:00:00Z", Spot: "2.9", Origin: "14.2"},
			},
		},
		SpotCurrency: "CNY",
	}
}

// The fake's answers keep the samples' field sets: rows are copies of the
// published rows with values replaced, never new shapes.
func TestAnswersKeepSampleShape(t *testing.T) {
	if err := loadSamples(); err != nil {
		t.Fatal(err)
	}
	w := smallWorld()
	_, body, err := w.instanceTypes(url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	rows := Path(body, "InstanceTypes")["InstanceType"].([]any)
	wantKeys := Keys(First(Sample(t, "DescribeInstanceTypes.response.json"), "InstanceTypes", "InstanceType"))
	for _, r := range rows {
		if got := Keys(r.(map[string]any)); !reflect.DeepEqual(got, wantKeys) {
			t.Errorf("instance type row fields %v, want %v", got, wantKeys)
		}
	}
	_, spot, err := w.spotHistory(url.Values{"RegionId": {"cn-shenzhen"}, "ZoneId": {"cn-shenzhen-e"}, "InstanceType": {"ecs.gn7i-c16g1.4xlarge"}, "NetworkType": {"vpc"}})
	if err != nil {
		t.Fatal(err)
	}
	wantSpot := Keys(First(Sample(t, "DescribeSpotPriceHistory.response.json"), "SpotPrices", "SpotPriceType"))
	spotRows := Path(spot, "SpotPrices")["SpotPriceType"].([]any)
	if len(spotRows) != 2 {
		t.Fatalf("%d spot rows", len(spotRows))
	}
	for _, r := range spotRows {
		if got := Keys(r.(map[string]any)); !reflect.DeepEqual(got, wantSpot) {
			t.Errorf("spot row fields %v, want %v", got, wantSpot)
		}
	}
}

// A World written as files reads back as the same World.
func TestScenarioRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := smallWorld()
	WriteScenario(t, dir, want)
	got := LoadScenario(t, dir)
	if !reflect.DeepEqual(got.TypePages, want.TypePages) || !reflect.DeepEqual(got.Tokens, want.Tokens) {
		t.Errorf("types %+v %v, want %+v %v", got.TypePages, got.Tokens, want.TypePages, want.Tokens)
	}
	if !reflect.DeepEqual(got.Zones, want.Zones) {
		t.Errorf("zones %+v, want %+v", got.Zones, want.Zones)
	}
	// An error quote is read back without its HTTP status (400 is assumed).
	for k, p := range want.Prices {
		if !reflect.DeepEqual(got.Prices[k], p) {
			t.Errorf("%s: %+v, want %+v", k, got.Prices[k], p)
		}
	}
	if len(got.Prices) != len(want.Prices) {
		t.Errorf("%d quotes, want %d", len(got.Prices), len(want.Prices))
	}
	if !reflect.DeepEqual(got.Spots, want.Spots) || got.SpotCurrency != "CNY" {
		t.Errorf("spots %+v %q", got.Spots, got.SpotCurrency)
	}
}

// A scenario file the fake would not serve exactly as written is refused:
// a field the real answer lacks, or a changed value the fake does not carry.
func TestScenarioRefusesWhatItCannotReplay(t *testing.T) {
	tests := []struct {
		name, file, from, to string
	}{
		{"extra field", "DescribeInstanceTypes.json", `"RequestId"`, `"Made": "up", "RequestId"`},
		{"value not carried", "DescribeInstanceTypes.json", `"EniQuantity": 3`, `"EniQuantity": 4`},
		{"published stock line changed", "cn-shenzhen/DescribeAvailableResource.json", `"ecs.g5.large"`, `"ecs.g5.xlarge"`},
		{"spot network changed", "cn-shenzhen/DescribeSpotPriceHistory/cn-shenzhen-e_ecs.gn7i-c16g1.4xlarge.json", `"vpc"`, `"classic"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			WriteScenario(t, dir, smallWorld())
			path := filepath.Join(dir, tt.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tt.from) {
				t.Fatalf("%s has no %s", tt.file, tt.from)
			}
			if err := os.WriteFile(path, []byte(strings.Replace(string(b), tt.from, tt.to, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			w, files, err := readScenario(dir)
			if err == nil {
				for _, f := range files {
					if err = w.replays(t, f); err != nil {
						break
					}
				}
			}
			if err == nil {
				t.Error("accepted")
			}
		})
	}
}

// The server refuses a request signed with another secret, in ECS's error
// shape, and counts only accepted calls.
func TestUnsignedAndBadlySigned(t *testing.T) {
	s := NewServer(t, "LTAI5tKey", "right-secret", smallWorld())
	resp, err := http.Get(s.URL() + "/?Action=DescribeRegions&Version=" + APIVersion)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("unsigned request: HTTP %d", resp.StatusCode)
	}
	q := url.Values{"Action": {"DescribeRegions"}, "Version": {APIVersion}, "AccessKeyId": {"LTAI5tKey"}, "SignatureMethod": {"HMAC-SHA1"},
		"SignatureVersion": {"1.0"}, "SignatureNonce": {"n-1"}, "Timestamp": {"2026-12-01T08:00:00Z"}, "Format": {"JSON"}}
	q.Set("Signature", v2Signature("wrong-secret", v2StringToSign("GET", q)))
	resp, err = http.Get(s.URL() + "/?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 || len(s.Calls("")) != 0 {
		t.Errorf("wrong secret: HTTP %d, %d calls accepted", resp.StatusCode, len(s.Calls("")))
	}
}

func TestSetStock(t *testing.T) {
	s := NewServer(t, "k", "s", smallWorld())
	s.SetStock("cn-shenzhen", "cn-shenzhen-e", "ecs.gn7e-c16g1.4xlarge", "Available", "WithStock")
	if got := s.World().Zones["cn-shenzhen"][0].Stock[1]; got.Status != "Available" || got.Category != "WithStock" {
		t.Errorf("stock %+v", got)
	}
	if err := s.World().SetStock("cn-shenzhen", "cn-shenzhen-x", "ecs.gn7e-c16g1.4xlarge", "Available", "WithStock"); err == nil {
		t.Error("an unknown zone was accepted")
	}
}
