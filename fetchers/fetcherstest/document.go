package fetcherstest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Empty is a failure mode a Document answers with its spec's Empty body:
// a well-formed answer listing nothing.
const Empty = "empty"

// DocumentSpec is what a fake of a one-document API says of its cloud.
type DocumentSpec struct {
	// Path is the one path answered, to GET.
	Path string
	// Refuse answers a request the cloud would refuse (no key, a wrong
	// one, an unknown subsidiary) and reports whether it did; nil
	// refuses nothing. A refused request takes no queued failure.
	Refuse func(w http.ResponseWriter, r *http.Request) bool
	// Throttled is the body of a 429 (see Write); Empty is the body
	// answering the failure mode Empty.
	Throttled, Empty string
}

// Document is a fake of an API answering one GET with one JSON document
// that lists everything (lambdatest, shadeformtest, ovhcloudtest): every
// answer is application/json; a request the spec refuses is answered as
// it says, then the failures queued with FailNext are (Write, and
// Empty), and anything else gets the document. Embed it in the fake's
// server.
type Document struct {
	*httptest.Server
	Faults

	spec DocumentSpec
	mu   sync.Mutex
	body []byte
}

// ServeDocument starts a fake serving body as spec says, closed when the
// test ends.
func ServeDocument(t testing.TB, spec DocumentSpec, body []byte) *Document {
	t.Helper()
	d := &Document{spec: spec, body: body}
	d.Server = d.Serve(t, &d.mu, http.MethodGet, spec.Path, d.serve)
	return d
}

// serve answers an accepted request, with d.mu held.
func (d *Document) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if d.spec.Refuse != nil && d.spec.Refuse(w, r) {
		return
	}
	Answer(w, d.Next(), d.body, d.spec.Throttled, d.spec.Empty)
}

// Answer writes a good answer, body, unless mode (a failure queued with
// FailNext) says otherwise: one of Write's failures, throttled the body of
// its 429, or for Empty the well-formed answer listing nothing, empty.
func Answer(w http.ResponseWriter, mode string, body []byte, throttled, empty string) {
	switch {
	case Write(w, mode, body, throttled):
	case mode == Empty:
		w.Write([]byte(empty))
	default:
		w.Write(body)
	}
}

// SetBody replaces the document.
func (d *Document) SetBody(b []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.body = b
}

// Edit decodes the document into v (a pointer), lets edit change v and
// serves v, encoded again, from then on. An error, edit's included,
// fails t.
func (d *Document) Edit(t testing.TB, v any, edit func() error) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := json.Unmarshal(d.body, v); err != nil {
		t.Fatal(err)
	}
	if err := edit(); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	d.body = b
}

// Refusal answers status with body.
func Refusal(w http.ResponseWriter, status int, body string) {
	w.WriteHeader(status)
	w.Write([]byte(body))
}
