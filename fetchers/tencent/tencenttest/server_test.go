package tencenttest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const listing = `{
  "Response": {
    "InstanceTypeQuotaSet": [
      {"Zone": "ap-beijing-7", "InstanceType": "GN7.2XLARGE32", "InstanceChargeType": "POSTPAID_BY_HOUR", "Status": "SOLD_OUT",
       "StatusCategory": "WithoutStock", "SoldOutReason": "ResourcesSoldOut.SpecifiedInstanceType",
       "Price": {"UnitPriceDiscount": 8.68, "ChargeUnit": "HOUR"}},
      {"Zone": "ap-beijing-6", "InstanceType": "GN7.2XLARGE32", "InstanceChargeType": "POSTPAID_BY_HOUR", "Status": "SELL",
       "StatusCategory": "EnoughStock", "SoldOutReason": "",
       "Price": {"UnitPriceDiscount": 8.68, "ChargeUnit": "HOUR"}}
    ],
    "RequestId": "c28559ca-d3cf-40f0-9664-2ab303484efa"
  }
}`

func scenario(t *testing.T) string {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "ap-beijing"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ap-beijing", "POSTPAID_BY_HOUR.json"), []byte(listing), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func rowsOf(t *testing.T, s *Server, key string) []map[string]any {
	t.Helper()
	var resp struct {
		Response struct{ InstanceTypeQuotaSet []map[string]any }
	}
	dec := json.NewDecoder(bytes.NewReader(s.listings[key]))
	dec.UseNumber()
	if err := dec.Decode(&resp); err != nil {
		t.Fatal(err)
	}
	return resp.Response.InstanceTypeQuotaSet
}

// SetStock and SetPrice change only the row asked for, and keep numbers
// exactly as written.
func TestEdits(t *testing.T) {
	s := NewServer(t, "AKIDtest", "key", scenario(t))
	s.SetStock("ap-beijing", "ap-beijing-7", "GN7.2XLARGE32", "SELL", "EnoughStock")
	s.SetPrice("ap-beijing", "ap-beijing-6", "GN7.2XLARGE32", "POSTPAID_BY_HOUR", "UnitPriceDiscount", "8.10")
	rows := rowsOf(t, s, "ap-beijing/POSTPAID_BY_HOUR")
	if rows[0]["Status"] != "SELL" || rows[0]["StatusCategory"] != "EnoughStock" || rows[0]["SoldOutReason"] != "" {
		t.Errorf("restocked row %v", rows[0])
	}
	if p := rows[0]["Price"].(map[string]any)["UnitPriceDiscount"]; p != json.Number("8.68") {
		t.Errorf("untouched price %v", p)
	}
	if p := rows[1]["Price"].(map[string]any)["UnitPriceDiscount"]; p != json.Number("8.10") {
		t.Errorf("changed price %v, want 8.10 as written", p)
	}
}

// Requests without a valid signature are refused in Tencent's error shape
// (HTTP 200, Response.Error) and not counted as accepted calls.
func TestUnsigned(t *testing.T) {
	s := NewServer(t, "AKIDtest", "key", scenario(t))
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/", strings.NewReader(`{}`))
	req.Header.Set("X-TC-Version", Version)
	req.Header.Set("X-TC-Action", "DescribeRegions")
	req.Header.Set("Authorization", "TC3-HMAC-SHA256 Credential=AKIDtest/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, Signature="+strings.Repeat("0", 64))
	req.Header.Set("X-TC-Timestamp", "1551113065")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Response struct{ Error struct{ Code string } }
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 || body.Response.Error.Code != "AuthFailure.SignatureExpire" {
		t.Errorf("HTTP %d, %+v, %v", resp.StatusCode, body, err)
	}
	if len(s.Requests("")) != 0 {
		t.Error("a refused request was counted")
	}
}
