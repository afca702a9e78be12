package origin

import (
	"net/url"
	"testing"
)

func TestOf(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"https://prices.azure.com/api/retail/prices", "https://prices.azure.com:443/api/retail/prices?$skip=100", true},
		{"https://Hooks.Example/x", "https://hooks.example/y", true},
		{"http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b", true},
		{"https://prices.azure.com/", "http://prices.azure.com/", false},
		{"https://prices.azure.com/", "https://prices.azure.com.evil.example/", false},
		{"https://hooks.example/", "https://hooks.example:8443/", false},
	} {
		a, _ := url.Parse(c.a)
		b, _ := url.Parse(c.b)
		if got := Of(a) == Of(b); got != c.same {
			t.Errorf("%s ~ %s: same origin %v, want %v (%s, %s)", c.a, c.b, got, c.same, Of(a), Of(b))
		}
	}
}
