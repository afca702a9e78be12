package config

import "testing"

func TestListenIsLoopback(t *testing.T) {
	for _, c := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:9108", true}, {"127.0.0.2:9108", true}, {"[::1]:9108", true}, {"localhost:9108", true},
		{"0.0.0.0:9108", false}, {":9108", false}, {"[::]:9108", false}, {"192.168.1.5:9108", false},
		{"pricewatch.internal:9108", false}, {"nonsense", false},
	} {
		if got := ListenIsLoopback(c.addr); got != c.want {
			t.Errorf("%q: %v, want %v", c.addr, got, c.want)
		}
	}
}
