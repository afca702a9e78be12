package report

import "testing"

// Glob is the region filter's rule, which web/static/offers.js repeats:
// * any run, ? one character, nothing else special.
func TestGlob(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		want       bool
	}{
		{"us-*", "us-east-1", true},
		{"us-*", "eu-west-1", false},
		{"*east*", "us-east-1", true},
		{"*east*", "eastus", true},
		{"*east*", "westus2", false},
		{"eu-west-?", "eu-west-1", true},
		{"eu-west-?", "eu-west-10", false},
		{"*", "", true},
		{"", "", true},
		{"", "x", false},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"cn-[ab]", "cn-a", false}, // no classes: [ is itself
		{"cn-[ab]", "cn-[ab]", true},
		{"us.east", "us-east", false},
	} {
		if got := Glob(c.pattern, c.s); got != c.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", c.pattern, c.s, got, c.want)
		}
	}
}
