package fetcherstest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// mode is the faults the suite's transport puts between a fetcher and its
// fake.
type mode struct {
	// truncate cuts every 2xx body in half: framed as whole, or, with
	// cut, ending in a dropped connection.
	truncate, cut bool
	// throttle answers the first try of each request 429 with
	// Retry-After (always: every try).
	throttle, always bool
	// serverError answers the first try of each request 503.
	serverError bool
	// redirect answers every request with a redirect to the same path on
	// another origin.
	redirect bool
	// cancel ends the run's context as its first request is sent
	// (onFirst).
	cancel  bool
	onFirst func()
}

// transport is an http.RoundTripper sending to the fakes through the
// faults of its mode, counting requests.
type transport struct {
	base    http.RoundTripper
	mode    mode
	foreign *url.URL

	// edit, when set, rewrites every answer the fakes give (see Edit).
	edit Editor

	mu       sync.Mutex
	requests int
	abroad   int
	tried    map[string]bool
}

func newTransport(m mode, foreign *url.URL) *transport {
	u := foreign
	return &transport{base: http.DefaultTransport.(*http.Transport).Clone(), mode: m, foreign: u, tried: map[string]bool{}}
}

func (tr *transport) count() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.requests
}

func (tr *transport) foreignRequests() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.abroad
}

// RoundTrip implements http.RoundTripper.
func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err // never sent
	}
	if req.URL.Host == tr.foreign.Host {
		tr.mu.Lock()
		tr.abroad++
		tr.mu.Unlock()
		return tr.base.RoundTrip(req)
	}
	// The same request again (a retry) is told apart by method, URL and
	// body; the body is read and put back.
	id := req.Method + " " + req.URL.String()
	var sent []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		id += " " + string(b)
		sent = b
	}
	m := tr.mode
	switch tr.decide(id) {
	case faultRedirect:
		to := *req.URL
		to.Scheme, to.Host = tr.foreign.Scheme, tr.foreign.Host
		return answer(req, http.StatusFound, http.Header{"Location": {to.String()}}, ""), nil
	case FaultThrottle:
		return answer(req, http.StatusTooManyRequests, http.Header{"Retry-After": {fmt.Sprint(int(retryAfter.Seconds()))}}, "Too Many Requests"), nil
	case FaultUnavailable:
		return answer(req, http.StatusServiceUnavailable, nil, "Service Unavailable"), nil
	}
	resp, err := tr.base.RoundTrip(req)
	if err != nil || (tr.edit == nil && !m.truncate) {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if tr.edit != nil {
		body = tr.edit(req, sent, body)
	}
	if !m.truncate || resp.StatusCode/100 != 2 {
		return withBody(resp, body), nil
	}
	half := bytes.NewReader(body[:len(body)/2])
	if m.cut {
		// Content-Length stays the whole body's, as the server sent it.
		resp.Body = io.NopCloser(io.MultiReader(half, errReader{io.ErrUnexpectedEOF}))
		return resp, nil
	}
	return withBody(resp, body[:len(body)/2]), nil
}

// Fault is what the suite's faults make of one call sent outside HTTP
// (a gRPC call: see Harness.Call), for the case to answer it with in the
// call's own protocol.
type Fault string

// The faults of a call sent outside HTTP.
const (
	// NoFault: send the call and hand its answer on.
	NoFault Fault = ""
	// FaultThrottle: refuse with the protocol's rate limit, asking to wait
	// the duration Harness.Call returns (HTTP 429 with Retry-After; gRPC
	// RESOURCE_EXHAUSTED with RetryInfo).
	FaultThrottle Fault = "throttle"
	// FaultUnavailable: refuse as a server that is down for a moment (HTTP
	// 503; gRPC UNAVAILABLE).
	FaultUnavailable Fault = "unavailable"
	// FaultTruncate: send the call, then answer as if the answer ended
	// inside its message (gRPC: the stream ended before the length its
	// message prefix gave).
	FaultTruncate Fault = "truncate"
	// FaultCut: send the call, then answer as if the connection dropped
	// while the answer's message was arriving.
	FaultCut Fault = "cut"
	// faultRedirect has no meaning outside HTTP (see Redirect).
	faultRedirect Fault = "redirect"
)

// decide counts one request, id telling a retry apart from a first try,
// and says which fault answers it.
func (tr *transport) decide(id string) Fault {
	tr.mu.Lock()
	tr.requests++
	first := tr.requests == 1
	retry := tr.tried[id]
	tr.tried[id] = true
	tr.mu.Unlock()
	m := tr.mode
	switch {
	case first && m.onFirst != nil:
		m.onFirst()
	case m.redirect:
		return faultRedirect
	case m.throttle && (m.always || !retry):
		return FaultThrottle
	case m.serverError && !retry:
		return FaultUnavailable
	}
	switch {
	case m.truncate && m.cut:
		return FaultCut
	case m.truncate:
		return FaultTruncate
	}
	return NoFault
}

// withBody is resp answering body, framed as whole.
func withBody(resp *http.Response, body []byte) *http.Response {
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", fmt.Sprint(len(body)))
	return resp
}

// Editor rewrites one answer of a fake: req is the request, sent its
// body, body the fake's answer; it returns the body to hand on.
type Editor func(req *http.Request, sent, body []byte) []byte

// edits are the editors the hooks registered, by subtest (see Edit).
var edits sync.Map

// Edit, called in a Case hook with the hook's t, makes the check's run
// pass every answer of the fakes through edit: a malformed row or an
// empty list written into a fake's answer without a knob in the fake.
func Edit(t *testing.T, edit Editor) { edits.Store(t, edit) }

// answer is a response the transport makes up instead of sending req.
func answer(req *http.Request, status int, h http.Header, body string) *http.Response {
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Type", "text/plain")
	return &http.Response{Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Request: req,
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
