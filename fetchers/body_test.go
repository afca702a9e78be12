package fetchers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// stalled yields its text, then blocks until its context ends.
type stalled struct {
	ctx  context.Context
	text *strings.Reader
}

func (s stalled) Read(p []byte) (int, error) {
	if s.text.Len() > 0 {
		return s.text.Read(p)
	}
	<-s.ctx.Done()
	return 0, s.ctx.Err()
}

func TestReadBody(t *testing.T) {
	tests := []struct {
		name       string
		body       func(ctx context.Context) io.Reader
		limit      int64
		cancelRun  bool
		want       string
		incomplete bool
		errHas     string
	}{
		{name: "whole", body: func(context.Context) io.Reader { return strings.NewReader(`{"a":1}`) }, limit: 7, want: `{"a":1}`},
		{name: "too large", body: func(context.Context) io.Reader { return strings.NewReader(`{"a":12}`) }, limit: 7, incomplete: true, errHas: "larger than 7 bytes"},
		{name: "stalls mid-body", body: func(ctx context.Context) io.Reader { return stalled{ctx, strings.NewReader(`{"a":`)} }, limit: 100,
			incomplete: true, errHas: "body not complete after"},
		{name: "run cancelled", body: func(ctx context.Context) io.Reader { return stalled{ctx, strings.NewReader(`{`)} }, limit: 100, cancelRun: true,
			errHas: "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, stopRun := context.WithCancel(context.Background())
			defer stopRun()
			if tt.cancelRun {
				stopRun()
			}
			rctx, cancel := context.WithCancel(run)
			defer cancel()
			got, err := ReadBody(run, cancel, tt.body(rctx), tt.limit, 20*time.Millisecond, "test page 1")
			if string(got) != tt.want || errors.Is(err, ErrIncomplete) != tt.incomplete {
				t.Fatalf("ReadBody = %q, %v", got, err)
			}
			if tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas) || !strings.Contains(err.Error(), "test page 1")) {
				t.Errorf("error %v, want it to name the page and say %q", err, tt.errHas)
			}
		})
	}
}

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
			var v map[string]any
			err := DecodeWhole([]byte(tt.body), "a test document", &v)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("DecodeWhole: %v", err)
			case tt.want == "" && fmt.Sprint(v) != "map[n:1.50]":
				t.Fatalf("decoded %v, want map[n:1.50] (the number as written, not a float)", v)
			case tt.want != "" && (!errors.Is(err, ErrIncomplete) || !strings.HasPrefix(err.Error(), tt.want)):
				t.Fatalf("DecodeWhole: %v, want %q wrapping ErrIncomplete", err, tt.want)
			}
		})
	}
}

// A Request that leaves its bounds at zero reads within the defaults: a
// body of DefaultMaxBody bytes is read, one byte more is refused.
func TestReadDefaultBounds(t *testing.T) {
	for _, c := range []struct {
		size    int
		refused bool
	}{{DefaultMaxBody, false}, {DefaultMaxBody + 1, true}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Write(make([]byte, c.size))
		}))
		body, err := NewClient(DefaultRetryPolicy()).Read(context.Background(), Request{Method: http.MethodGet, URL: srv.URL, Where: "test"})
		srv.Close()
		if c.refused != errors.Is(err, ErrIncomplete) || (!c.refused && len(body) != c.size) {
			t.Errorf("%d bytes: read %d, %v", c.size, len(body), err)
		}
	}
}

// ReadJSON decodes a whole document, and names the request in the error
// of one that is not.
func TestReadJSON(t *testing.T) {
	for body, want := range map[string]string{`{"n": 1.50}`: "", `{"n": 1.5`: "test list: incomplete or malformed response: body ends"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(body)) }))
		var v map[string]any
		err := NewClient(DefaultRetryPolicy()).ReadJSON(context.Background(), Request{Method: http.MethodGet, URL: srv.URL, Where: "test list", Answer: "a list"}, &v)
		srv.Close()
		switch {
		case want == "" && (err != nil || fmt.Sprint(v) != "map[n:1.50]"):
			t.Errorf("%s: %v, %v", body, v, err)
		case want != "" && (!errors.Is(err, ErrIncomplete) || !strings.HasPrefix(fmt.Sprint(err), want)):
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}
