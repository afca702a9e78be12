// Package mcpserver answers agents over the Model Context Protocol: a
// read-only MCP server whose tools ask the JSON API's own handler, in the
// process, the question an agent put. Every answer is therefore the rows
// the API (and so the CLI's --format json) gives for that question, read
// from the store and never from a cloud; parameters are checked by the
// same parsers, and an unknown GPU or instance type gets the API's
// did-you-mean. What this package adds is what an agent needs: a schema
// and a one-line description per tool, answers bounded to a row limit with
// a note when cut, and errors as tool errors the agent can act on.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/report"
)

// Name is the server's name in the MCP handshake.
const Name = "pricewatch"

// Row limits: an answer longer than its limit is cut to it, with a note.
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// New is the MCP server over api, the JSON API's handler (web.Server's
// routes, mounted on a mux without the token check: the caller puts the
// token in front of the MCP endpoint itself).
func New(api http.Handler, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "pricewatch GPU cloud prices", Version: version}, &mcp.ServerOptions{
		Instructions: "Read-only answers from pricewatch's store of GPU cloud prices and availability, as the pricewatch CLI's " +
			"--format json gives them. Prices are exact decimals; per-GPU-hour figures are converted into one currency. " +
			"Use freshness to see how recent each provider's prices are.",
	})
	a := asker{api: api}
	addTools(s, a)
	addResources(s)
	return s
}

// Handler serves the MCP server over streamable HTTP: stateless, each
// POST answered with one JSON body (every tool is a single read, so no
// session or stream is needed, and a load balancer may send each request
// to any replica).
func Handler(api http.Handler, version string) http.Handler {
	s := New(api, version)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}

// ServeStdio answers one client on in and out (newline-delimited JSON-RPC,
// as `pricewatch mcp` does on stdin and stdout) until it goes away or ctx
// ends, which are not errors. out is never closed: the process may still
// print its exit error there.
func ServeStdio(ctx context.Context, api http.Handler, version string, in io.Reader, out io.Writer) error {
	err := New(api, version).Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// asker puts questions to the API in the process.
type asker struct{ api http.Handler }

// answer is what a tool returns as structured content: the API's rows (cut
// to the limit) or its object, how many rows there were, and a note.
type answer struct {
	Rows     json.RawMessage `json:"rows,omitempty"`
	Answer   json.RawMessage `json:"answer,omitempty"`
	Total    int             `json:"total,omitempty"`
	Returned int             `json:"returned,omitempty"`
	Note     string          `json:"note,omitempty"`
	// Confidential says why some rows may not leave the asker's company
	// (CoreWeave's Capacity Finder availability), once per cloud.
	Confidential []string `json:"confidential,omitempty"`
}

// ask GETs path?q from the API and turns its answer into a tool result:
// rows cut to limit (0: DefaultLimit) with a note saying so, an object as
// it is, an error status as a tool error carrying the API's message.
func (a asker) ask(ctx context.Context, path string, q url.Values, limit int) (*mcp.CallToolResult, any, error) {
	target := path
	if enc := q.Encode(); enc != "" {
		target += "?" + enc
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("asking %s: %w", path, err)
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	a.api.ServeHTTP(rec, req)
	body := rec.body.Bytes()
	if rec.status != http.StatusOK {
		return toolError(rec.status, body), nil, nil
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		out := answer{Answer: json.RawMessage(trimmed)}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}, out, nil
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(trimmed, &rows); err != nil {
		return nil, nil, fmt.Errorf("reading the answer of %s: %w", path, err)
	}
	limit = clampLimit(limit)
	out := answer{Total: len(rows), Returned: len(rows)}
	text := body
	if len(rows) > limit {
		rows = rows[:limit]
		out.Returned = limit
		out.Note = fmt.Sprintf("cut: the first %d of %d rows, in the order the CLI lists them; narrow the question (provider, region, gpu, since) or raise limit (at most %d)",
			limit, out.Total, MaxLimit)
		var b bytes.Buffer
		if err := report.WriteJSON(&b, rows); err != nil {
			return nil, nil, fmt.Errorf("writing the rows of %s: %w", path, err)
		}
		text = b.Bytes()
	}
	if out.Total == 0 {
		out.Note = "no stored row matches: widen the question (another gpu, price_type any, a longer since), or check freshness"
	}
	raw, err := json.Marshal(rows)
	if err != nil {
		return nil, nil, fmt.Errorf("writing the rows of %s: %w", path, err)
	}
	out.Rows = raw
	if availabilityPaths[path] {
		out.Confidential = confidential(rows)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}
	if out.Note != "" {
		res.Content = append(res.Content, &mcp.TextContent{Text: out.Note})
	}
	for _, c := range out.Confidential {
		res.Content = append(res.Content, &mcp.TextContent{Text: "CONFIDENTIAL: " + c})
	}
	return res, out, nil
}

// availabilityPaths are the answers that carry availability rows (the
// changes carry availability changes beside price changes).
var availabilityPaths = map[string]bool{"/api/v1/availability": true, "/api/v1/changes": true}

// confidential is why the availability of each cloud the rows name is
// confidential to the customer, once per cloud, in the rows' order: an
// agent must not pass CoreWeave's Capacity Finder data on (issue 35).
func confidential(rows []json.RawMessage) []string {
	var out []string
	for _, r := range rows {
		// An availability row has a state, an availability change a
		// to_state; a price change of the same cloud is not confidential.
		var row struct {
			Provider string  `json:"provider"`
			State    string  `json:"state"`
			ToState  *string `json:"to_state"`
		}
		if json.Unmarshal(r, &row) != nil || (row.State == "" && row.ToState == nil) {
			continue
		}
		if n := clouds.ConfidentialAvailability(row.Provider); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func clampLimit(n int) int {
	switch {
	case n <= 0:
		return DefaultLimit
	case n > MaxLimit:
		return MaxLimit
	}
	return n
}

// toolError is an API error as a tool error: its message (a bad parameter,
// or an unknown name with the API's did-you-mean), which an agent can act
// on, and for a shed request when to try again.
func toolError(status int, body []byte) *mcp.CallToolResult {
	var e struct {
		Error string `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	switch {
	case status == http.StatusServiceUnavailable:
		msg = "pricewatch is busy (" + msg + "): try again in a few seconds"
	case status == http.StatusNotFound:
		msg = "not stored: " + msg
	case status >= 500:
		msg = fmt.Sprintf("pricewatch failed to answer (%d): %s", status, msg)
	}
	res := &mcp.CallToolResult{IsError: true}
	res.Content = []mcp.Content{&mcp.TextContent{Text: msg}}
	return res
}

// recorder keeps an in-process answer of the API.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	wrote  bool
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.body.Write(b)
}
