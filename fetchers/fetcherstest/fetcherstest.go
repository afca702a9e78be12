// Package fetcherstest holds what the fake cloud APIs of the fetchers'
// tests share (lambdatest, runpodtest, ocitest, vastaitest, alibabatest,
// tencenttest): the queue of failures the next requests answer with and
// the request count and Authorization log beside it, the log of accepted
// calls by action, writing a JSON answer, reading an embedded real sample
// and the quick-retrying client the tests fetch through. Each fake keeps
// its cloud's own request checks and response bodies.
package fetcherstest

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

// Failure modes every fake answers the same way (see Faults.Write).
const (
	Throttled = "429"       // 429 with Retry-After: 1
	ServerErr = "500"       // HTTP 500
	Truncated = "truncated" // the body cut in half
	Malformed = "malformed" // a 200 that is not the API's JSON
)

// Faults counts a fake's requests, records their Authorization headers
// and queues the failures the next requests answer with. Its methods are
// safe for concurrent use; embed it in the fake's server.
type Faults struct {
	mu       sync.Mutex
	fail     []string
	requests int
	auth     []string
}

// Seen counts r and records its Authorization header.
func (f *Faults) Seen(r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	f.auth = append(f.auth, r.Header.Get("Authorization"))
}

// Accept counts r (see Seen) and answers 404 unless r is method on path;
// it reports whether the fake should answer r itself.
func (f *Faults) Accept(w http.ResponseWriter, r *http.Request, method, path string) bool {
	f.Seen(r)
	if r.URL.Path != path || r.Method != method {
		http.NotFound(w, r)
		return false
	}
	return true
}

// Serve starts a local server (see Start) for a fake answering one
// endpoint: each request is accepted (see Accept) and then handed to h
// with mu, the fake's own lock, held.
func (f *Faults) Serve(t testing.TB, mu *sync.Mutex, method, path string, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	return Start(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if f.Accept(w, r, method, path) {
			h(w, r)
		}
	})
}

// Start serves h on a local server that is closed when the test ends.
func Start(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// Next takes the failure mode queued for this request ("" for none).
func (f *Faults) Next() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.fail) == 0 {
		return ""
	}
	mode := f.fail[0]
	f.fail = f.fail[1:]
	return mode
}

// FailNext makes the next len(modes) requests fail as named.
func (f *Faults) FailNext(modes ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = append(f.fail, modes...)
}

// Requests is how many requests the server has answered.
func (f *Faults) Requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests
}

// Authorizations lists the Authorization header of every request.
func (f *Faults) Authorizations() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.auth)
}

// Write answers one of the shared failure modes, with full the body a
// good answer would have had (Truncated sends its first half), and
// reports whether mode was one of them. throttled is the body of the 429
// (the cloud's own error document, or nothing).
func Write(w http.ResponseWriter, mode string, full []byte, throttled string) bool {
	switch mode {
	case Throttled:
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(throttled))
	case ServerErr:
		w.WriteHeader(http.StatusInternalServerError)
	case Truncated:
		w.Write(full[:len(full)/2])
	case Malformed:
		w.Write([]byte(`<html><body>502 Bad Gateway</body></html>`))
	default:
		return false
	}
	return true
}

// Calls is the log of the calls a fake accepted, in arrival order, safe
// for concurrent use.
type Calls[R interface{ ActionName() string }] struct {
	mu   sync.Mutex
	list []R
}

// Add logs one call.
func (c *Calls[R]) Add(r R) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, r)
}

// Of returns the calls of one action (all when action is "").
func (c *Calls[R]) Of(action string) []R {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []R
	for _, r := range c.list {
		if action == "" || r.ActionName() == action {
			out = append(out, r)
		}
	}
	return out
}

// Sample returns the file name from fsys (a fake's embedded samples/),
// failing the test when it is not there.
func Sample(t testing.TB, fsys fs.FS, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// WriteJSON answers 200 with v as JSON (a []byte is sent as it is, even
// when it is not JSON), cut in half when truncate is set (a body lost in
// transit); a v that cannot be encoded is the fake's own fault and
// answers 500.
func WriteJSON(w http.ResponseWriter, v any, truncate bool) {
	body, ok := v.([]byte)
	if !ok {
		var err error
		if body, err = json.Marshal(v); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	if truncate {
		body = body[:len(body)/2]
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}
