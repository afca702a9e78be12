package pricewatch

import "testing"

func TestIsMarketplace(t *testing.T) {
	tests := []struct {
		provider, class string
		want            bool
	}{
		{VastAI, "", true},
		{VastAI, "anything", true},
		{"runpod", "community", true},
		{"runpod", "secure", false},
		{"runpod", "", false},
		{OCI, "", false},
		{AWS, Standard, false},
		{Azure, "", false},
		{"lambda", "", false},
		// The offering class means something only together with RunPod.
		{AWS, "community", false},
	}
	for _, tt := range tests {
		if got := IsMarketplace(tt.provider, tt.class); got != tt.want {
			t.Errorf("IsMarketplace(%q, %q) = %v, want %v", tt.provider, tt.class, got, tt.want)
		}
	}
}
