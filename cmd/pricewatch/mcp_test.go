package main

import (
	"context"
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pricewatch/pricewatch/mcpserver"
)

// mcpSession starts `pricewatch mcp` on cfg in the process, its stdin and
// stdout piped to the SDK's own client, and returns the client's session.
func mcpSession(t *testing.T, cfg string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runWith(ctx, []string{"--config", cfg, "mcp"}, inR, outW, &errOut)
		outW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "pricewatch-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		cancel()
		t.Fatalf("connecting to pricewatch mcp: %v (stderr %s)", err, errOut.String())
	}
	t.Cleanup(func() {
		cs.Close()
		inW.Close()
		cancel()
		select {
		case code := <-done:
			if code != exitOK {
				t.Errorf("pricewatch mcp exited %d: %s", code, errOut.String())
			}
		case <-time.After(10 * time.Second):
			t.Error("pricewatch mcp did not stop")
		}
	})
	return cs
}

// decodeFloat decodes JSON as a client that reads numbers as float64 does.
func decodeFloat(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decoding %s: %v", clipText(string(b)), err)
	}
	return v
}

// mcpAnswer is a tool's structured content as mcpserver writes it.
type mcpAnswer struct {
	Rows     json.RawMessage `json:"rows"`
	Answer   json.RawMessage `json:"answer"`
	Total    int             `json:"total"`
	Returned int             `json:"returned"`
	Note     string          `json:"note"`
	// Confidential is mcpserver's mark on rows that may not be passed on.
	Confidential []string `json:"confidential"`
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, mcpAnswer) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var a mcpAnswer
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return res, a
}

func toolText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestMCPAnswersAsCLI: the SDK's own client lists pricewatch mcp's tools,
// calls each on the analysis fixture and gets the rows the CLI prints with
// --format json for the same question (the API's, for the capacity blocks,
// which no command prints as JSON alone); a cut answer says so, an unknown
// name gets the did-you-mean, and the resources list the catalogue.
func TestMCPAnswersAsCLI(t *testing.T) {
	cfg := analysisConfig(t, true)
	ts, _, _ := apiServer(t, cfg)
	cs := mcpSession(t, cfg)
	ctx := context.Background()

	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if tool.Description == "" || strings.Contains(tool.Description, "\n") {
			t.Errorf("tool %s: want a one-line description, got %q", tool.Name, tool.Description)
		}
		if tool.InputSchema == nil || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s: want an input schema and a read-only hint", tool.Name)
		}
	}
	slices.Sort(names)
	want := []string{"availability", "availability_changes", "capacity_blocks", "cheapest", "freshness", "history", "price_changes", "recommend", "savings"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	const since = "2020-01-01"
	cases := []struct {
		tool string
		args map[string]any
		cli  []string // nil: api instead
		api  string
	}{
		{"cheapest", map[string]any{"gpu": "A100", "count": 8}, []string{"compare", "--gpu", "A100", "--count", "8"}, ""},
		{"cheapest", map[string]any{"gpu": "A100", "price_type": []string{"any"}, "currency": "CNY", "limit": 500},
			[]string{"compare", "--gpu", "A100", "--price-type", "any", "--currency", "CNY"}, ""},
		{"cheapest", map[string]any{"gpu": "A100", "price_type": []string{"any"}, "seller": "cloud", "min_gpu_memory": 80, "max_price": "5/gpu-hour", "limit": 500},
			[]string{"compare", "--gpu", "A100", "--price-type", "any", "--seller", "cloud", "--min-gpu-memory", "80", "--max-price", "5/gpu-hour"}, ""},
		{"history", map[string]any{"instance_type": "ecs.gn7-c13g1.26xlarge", "region": []string{"cn-hangzhou"}, "since": "2022-07-08", "limit": 500},
			[]string{"history", "ecs.gn7-c13g1.26xlarge", "--region", "cn-hangzhou", "--since", "2022-07-08"}, ""},
		{"price_changes", map[string]any{"since": since, "limit": 500}, []string{"changes", "--since", since, "--kind", "price"}, ""},
		{"price_changes", map[string]any{"since": since, "gpu": "A100", "provider": []string{"azure"}, "limit": 500},
			[]string{"changes", "--since", since, "--kind", "price", "--gpu", "A100", "--provider", "azure"}, ""},
		{"availability", map[string]any{"limit": 500}, []string{"availability"}, ""},
		{"availability", map[string]any{"gpu": "A100", "all": true, "limit": 500}, []string{"availability", "--gpu", "A100", "--all"}, ""},
		{"availability_changes", map[string]any{"since": since, "limit": 500}, []string{"changes", "--since", since, "--kind", "availability"}, ""},
		{"capacity_blocks", map[string]any{"all": true, "limit": 500}, nil, "signals?kind=capacity_block&all=true"},
		{"savings", map[string]any{"instance_type": "Standard_ND96amsr_A100_v4", "utilization": "0.7", "limit": 500},
			[]string{"savings", "Standard_ND96amsr_A100_v4", "--utilization", "0.7"}, ""},
		{"recommend", map[string]any{"gpu": "A100", "count": 8, "utilization": "0.6", "horizon": "3y"},
			[]string{"recommend", "--gpu", "A100", "--count", "8", "--utilization", "0.6", "--horizon", "3y"}, ""},
		{"recommend", map[string]any{"gpu": "A100", "count": 8, "utilization": "0.6", "horizon": "3y", "hosts": 8, "seller": "any"},
			[]string{"recommend", "--gpu", "A100", "--count", "8", "--utilization", "0.6", "--horizon", "3y", "--hosts", "8", "--seller", "any"}, ""},
		{"freshness", map[string]any{}, []string{"runs"}, ""},
	}
	for _, c := range cases {
		t.Run(c.tool+" "+strings.Join(c.cli, " "), func(t *testing.T) {
			var wantJSON string
			if c.cli != nil {
				out, errOut, code := runCLI(t, append([]string{"--config", cfg}, append(c.cli, "--format", "json")...)...)
				if code != 0 {
					t.Fatalf("CLI exit %d: %s", code, errOut)
				}
				wantJSON = out
			} else {
				resp, body := apiGet(t, ts.URL+"/api/v1/"+c.api)
				if resp.StatusCode != 200 {
					t.Fatalf("GET %s: %d %s", c.api, resp.StatusCode, body)
				}
				wantJSON = body
			}
			res, a := callTool(t, cs, c.tool, c.args)
			if res.IsError {
				t.Fatalf("tool error: %s", toolText(res))
			}
			// The text is the CLI's bytes, every digit as stored; the
			// structured content holds the same values (its numbers go
			// through the client's float64, so they are compared as values).
			if len(res.Content) == 0 {
				t.Fatal("no content")
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != wantJSON {
				t.Errorf("MCP text differs from the CLI's JSON\nMCP:\n%s\nCLI:\n%s", clipText(got), clipText(wantJSON))
			}
			got := a.Rows
			if a.Answer != nil {
				got = a.Answer
			}
			if g, w := decodeFloat(t, got), decodeFloat(t, []byte(wantJSON)); !reflect.DeepEqual(g, w) {
				t.Errorf("MCP structured content differs from the CLI's JSON\nMCP:\n%s\nCLI:\n%s", clipText(string(got)), clipText(wantJSON))
			}
			if rows, ok := decodeFloat(t, []byte(wantJSON)).([]any); ok && len(rows) == 0 && c.tool != "capacity_blocks" {
				t.Errorf("the fixture answers nothing to %v: the case compares nothing", c.cli)
			}
			if a.Answer == nil && (a.Total != a.Returned || a.Note != "" && a.Total > 0) {
				t.Errorf("uncut answer says total %d, returned %d, note %q", a.Total, a.Returned, a.Note)
			}
		})
	}

	t.Run("cut", func(t *testing.T) {
		res, a := callTool(t, cs, "availability", map[string]any{"limit": 1})
		var rows []json.RawMessage
		if err := json.Unmarshal(a.Rows, &rows); err != nil || len(rows) != 1 || a.Returned != 1 || a.Total < 2 {
			t.Fatalf("limit 1: %d rows, returned %d of %d (%v)", len(rows), a.Returned, a.Total, err)
		}
		if !strings.Contains(a.Note, "cut: the first 1 of") || !strings.Contains(toolText(res), "cut: the first 1 of") {
			t.Errorf("a cut answer does not say so: note %q, text %q", a.Note, clipText(toolText(res)))
		}
	})
	t.Run("did you mean", func(t *testing.T) {
		res, _ := callTool(t, cs, "history", map[string]any{"instance_type": "Standard_ND96amsr_A100_v"})
		if !res.IsError || !strings.Contains(toolText(res), "did you mean Standard_ND96amsr_A100_v4") {
			t.Errorf("unknown type: error %v, %q", res.IsError, toolText(res))
		}
		res, _ = callTool(t, cs, "cheapest", map[string]any{"gpu": "A100", "price_type": []string{"cheap"}})
		if !res.IsError || !strings.Contains(toolText(res), `price_type "cheap"`) {
			t.Errorf("bad price type: error %v, %q", res.IsError, toolText(res))
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "cheapest", Arguments: map[string]any{}})
		if err == nil && !res.IsError {
			t.Errorf("cheapest without gpu answered: %q", toolText(res))
		}
	})
	t.Run("resources", func(t *testing.T) {
		for uri, want := range map[string]string{mcpserver.GPUsURI: `"gpu_model": "H100"`, mcpserver.ProvidersURI: `"provider": "vastai"`} {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, want) {
				t.Errorf("%s: %v, want %s in it", uri, err, want)
			}
		}
	})
}
