package tencent

import (
	"encoding/json"
	"testing"
)

func TestNumberDecoding(t *testing.T) {
	tests := []struct {
		in      string
		want    string // "" = absent
		wantErr bool
	}{
		{`587.64`, "587.64", false},
		{`0.1`, "0.1", false}, // would be 0.1000000000000000055… through float64
		{`"100.000000"`, "100", false},
		{`" 3.33 "`, "3.33", false},
		{`9.0E-4`, "0.0009", false},
		{`0`, "0", false},
		{`null`, "", false},
		{`""`, "", false},
		{`"N/A"`, "", true},
		{`true`, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			var v struct{ X number }
			err := json.Unmarshal([]byte(`{"X":`+tc.in+`}`), &v)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if got := v.X.Dec.String(); v.X.Set != (tc.want != "") || (v.X.Set && got != tc.want) {
				t.Errorf("got %s (set %v), want %q", got, v.X.Set, tc.want)
			}
		})
	}
	var missing struct{ X number }
	if err := json.Unmarshal([]byte(`{}`), &missing); err != nil || missing.X.Set {
		t.Errorf("a missing field reads as set: %+v %v", missing, err)
	}
	for _, zero := range []string{`0`, `null`, `-1`} {
		var v struct{ X number }
		json.Unmarshal([]byte(`{"X":`+zero+`}`), &v)
		if _, ok := v.X.positive(); ok {
			t.Errorf("%s counts as a price", zero)
		}
	}
}
