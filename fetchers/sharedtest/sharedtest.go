// Package sharedtest holds test helpers that the tests of more than one
// fetcher package (aws, azure) use alike.
package sharedtest

import (
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// ServeUntilQuit serves h at addr (host:port) for measuring the CLI
// against a generated answer (docs/scale.md), until GET /quit or ten
// seconds before the test's deadline, whichever comes first.
func ServeUntilQuit(t *testing.T, addr string, h http.Handler) {
	quit := make(chan struct{})
	var once sync.Once
	srv := &http.Server{Addr: addr, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/quit" {
			once.Do(func() { close(quit) })
			return
		}
		h.ServeHTTP(w, r)
	})}
	go srv.ListenAndServe()
	deadline, _ := t.Deadline()
	select {
	case <-quit:
	case <-time.After(time.Until(deadline) - 10*time.Second):
	}
	srv.Close()
}

// WantMap reports each key of want whose value in got differs, and the
// whole of both maps when they differ in size; what names the maps.
func WantMap[K comparable, V comparable](t testing.TB, what string, got, want map[K]V) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s %v, want %v", what, got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%v: %#v, want %#v", k, got[k], v)
		}
	}
}

// WantLines reports got when it is not want, item for item; what names
// the list.
func WantLines(t testing.TB, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}
