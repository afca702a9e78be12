package fetchers

import (
	"testing"
)

func TestStateRoundTripAndVersions(t *testing.T) {
	type cursor struct {
		Next string `json:"next"`
	}
	raw, err := EncodeState(2, cursor{Next: "cn-beijing"})
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"version":2,"data":{"next":"cn-beijing"}}` {
		t.Errorf("encoded %s", raw)
	}
	tests := []struct {
		name    string
		raw     []byte
		version int
		ok      bool
		want    string
		wantErr bool
	}{
		{name: "same version", raw: raw, version: 2, ok: true, want: "cn-beijing"},
		{name: "nothing stored", raw: nil, version: 2},
		{name: "older shape", raw: raw, version: 3},
		{name: "unreadable", raw: []byte(`{"version":2,"data":`), version: 2, wantErr: true},
		{name: "data of another shape", raw: []byte(`{"version":2,"data":{"next":7}}`), version: 2, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got cursor
			ok, err := DecodeState(tt.raw, tt.version, &got)
			if ok != tt.ok || (err != nil) != tt.wantErr || got.Next != tt.want {
				t.Errorf("DecodeState = %v, %v, %+v; want %v, error %v, %q", ok, err, got, tt.ok, tt.wantErr, tt.want)
			}
		})
	}
}
