package fetchers

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecodeWhole(t *testing.T) {
	tests := []struct {
		name, body string
		want       string // the error's text; "" for none
	}{
		{"one object", `{"n": 1.50}`, ""},
		{"cut off", `{"n": 1.5`, "incomplete or malformed response: body ends before the JSON does (9 bytes)"},
		{"empty", ``, "incomplete or malformed response: body ends before the JSON does (0 bytes)"},
		{"not the document", `["n"]`, "incomplete or malformed response: not a test document: json: "},
		{"data after", `{"n": 1} {"n": 2}`, "incomplete or malformed response: data after the JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v struct {
				N json.Number `json:"n"`
			}
			err := DecodeWhole([]byte(tt.body), "a test document", &v)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("DecodeWhole: %v", err)
			case tt.want == "" && v.N.String() != "1.50":
				t.Fatalf("n = %q, want the number as written, 1.50", v.N)
			case tt.want != "" && (!errors.Is(err, ErrIncomplete) || !strings.HasPrefix(err.Error(), tt.want)):
				t.Fatalf("DecodeWhole: %v, want %q wrapping ErrIncomplete", err, tt.want)
			}
		})
	}
}
