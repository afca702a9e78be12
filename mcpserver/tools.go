package mcpserver

import (
	"context"
	"net/url"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools' arguments carry the CLI's flag names (as the API's
// parameters do), so that an agent's question reads like the command.

// scope is what most questions narrow by.
type scope struct {
	Provider []string `json:"provider,omitempty" jsonschema:"only these providers (aws, azure, gcp, oci, lambda, runpod, vastai, alibaba, tencent, huawei, ovhcloud, aws-cn, azure-cn, coreweave, crusoe, shadeform, verda, nebius, hyperstack)"`
	Region   []string `json:"region,omitempty" jsonschema:"only these regions, as the cloud names them (us-east-1, eastus, cn-hangzhou)"`
}

func (s scope) add(q url.Values) {
	for _, p := range s.Provider {
		q.Add("provider", p)
	}
	for _, r := range s.Region {
		q.Add("region", r)
	}
}

// buyer is whose capacity and what hardware (the CLI's buyer flags).
type buyer struct {
	Seller       string  `json:"seller,omitempty" jsonschema:"cloud (the clouds' own machines), marketplace (third-party hosts: Vast.ai, RunPod Community) or any (the default)"`
	MinGPUMemory float64 `json:"min_gpu_memory,omitempty" jsonschema:"only machines with at least this much memory per GPU, GB"`
	MinVCPUs     int     `json:"min_vcpus,omitempty" jsonschema:"only machines with at least this many vCPUs"`
	MinMemory    float64 `json:"min_memory,omitempty" jsonschema:"only machines with at least this much memory, GB"`
	Interconnect string  `json:"interconnect,omitempty" jsonschema:"only machines whose stated interconnect contains this text (e.g. 3200 Gigabit, NVLink)"`
	MaxPrice     string  `json:"max_price,omitempty" jsonschema:"at most this price per hour (30) or per GPU-hour (2.5/gpu-hour)"`
}

func (b buyer) add(q url.Values) {
	set(q, "seller", b.Seller)
	if b.MinGPUMemory > 0 {
		q.Set("min_gpu_memory", strconv.FormatFloat(b.MinGPUMemory, 'f', -1, 64))
	}
	if b.MinVCPUs > 0 {
		q.Set("min_vcpus", strconv.Itoa(b.MinVCPUs))
	}
	if b.MinMemory > 0 {
		q.Set("min_memory", strconv.FormatFloat(b.MinMemory, 'f', -1, 64))
	}
	set(q, "interconnect", b.Interconnect)
	set(q, "max_price", b.MaxPrice)
}

type limited struct {
	Limit int `json:"limit,omitempty" jsonschema:"at most this many rows (default 50, at most 500); a cut answer says so"`
}

type cheapestArgs struct {
	GPU           string   `json:"gpu" jsonschema:"GPU model or family: H100, H200, B200, A100 (any A100), A100-80GB, L40S, MI300X"`
	Count         float64  `json:"count,omitempty" jsonschema:"only machines with this many GPUs (0: any)"`
	PriceType     []string `json:"price_type,omitempty" jsonschema:"on_demand (the default), spot, reserved, savings_plan, capacity_block, or any"`
	Currency      string   `json:"currency,omitempty" jsonschema:"ISO 4217 code to compare in (default: the configured fx.currency)"`
	OS            string   `json:"os,omitempty" jsonschema:"linux (the default), windows or any"`
	AvailableOnly bool     `json:"available_only,omitempty" jsonschema:"only offers known to be offered or in stock where priced"`
	buyer
	scope
	limited
}

type historyArgs struct {
	InstanceType string `json:"instance_type" jsonschema:"the cloud's instance type name (p5.48xlarge, Standard_ND96isr_H100_v5)"`
	Since        string `json:"since,omitempty" jsonschema:"only intervals after this: a duration back (30d, 12h, 2w) or a date (2026-01-01)"`
	scope
	limited
}

// what narrows a listing to a GPU or an instance type.
type what struct {
	GPU          string `json:"gpu,omitempty" jsonschema:"only this GPU model or family"`
	InstanceType string `json:"instance_type,omitempty" jsonschema:"only this instance type"`
}

func (w what) add(q url.Values) {
	set(q, "gpu", w.GPU)
	set(q, "instance_type", w.InstanceType)
}

type changesArgs struct {
	Since string `json:"since,omitempty" jsonschema:"only changes after this: a duration back (24h, 7d) or a date; default 7d"`
	what
	scope
	limited
}

type availabilityArgs struct {
	All bool `json:"all,omitempty" jsonschema:"closed intervals too (withdrawn, or a stock state that ended)"`
	what
	scope
	limited
}

type blocksArgs struct {
	GPU string `json:"gpu,omitempty" jsonschema:"only capacity blocks of this GPU model or family"`
	All bool   `json:"all,omitempty" jsonschema:"blocks no longer offered too"`
	scope
	limited
}

type savingsArgs struct {
	InstanceType string `json:"instance_type" jsonschema:"the cloud's instance type name"`
	Utilization  string `json:"utilization,omitempty" jsonschema:"share of hours the machine is busy: 0.7 or 70% (default 1)"`
	Currency     string `json:"currency,omitempty" jsonschema:"ISO 4217 code of the answer"`
	scope
	limited
}

type recommendArgs struct {
	GPU         string `json:"gpu" jsonschema:"GPU model or family"`
	Count       int    `json:"count,omitempty" jsonschema:"GPUs needed at once (default 1)"`
	Utilization string `json:"utilization,omitempty" jsonschema:"share of the horizon's hours the GPUs are busy: 0.6 or 60% (default 1)"`
	Horizon     string `json:"horizon,omitempty" jsonschema:"how long the GPUs are needed: 1y (default), 3y, 18m, or days (7d) to weigh capacity blocks"`
	IncludeSpot bool   `json:"include_spot,omitempty" jsonschema:"consider spot prices too (interruptible capacity)"`
	Hosts       int    `json:"hosts,omitempty" jsonschema:"allow up to this many machines for the job (default: one machine, or machines with a stated interconnect)"`
	Currency    string `json:"currency,omitempty" jsonschema:"ISO 4217 code of the answer"`
	buyer
	scope
}

type freshnessArgs struct{}

func set(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}

func setBool(q url.Values, name string, v bool) {
	if v {
		q.Set(name, "true")
	}
}

func addTools(s *mcp.Server, a asker) {
	tool(s, "cheapest", "Rank the current offers of a GPU model or family across clouds by price per GPU-hour in one currency, cheapest first.",
		func(ctx context.Context, in cheapestArgs) (*mcp.CallToolResult, any, error) {
			q := url.Values{"gpu": {in.GPU}}
			if in.Count > 0 {
				q.Set("count", strconv.FormatFloat(in.Count, 'f', -1, 64))
			}
			for _, pt := range in.PriceType {
				q.Add("price_type", pt)
			}
			set(q, "currency", in.Currency)
			set(q, "os", in.OS)
			setBool(q, "available_only", in.AvailableOnly)
			in.buyer.add(q)
			in.scope.add(q)
			return a.ask(ctx, "/api/v1/offers", q, in.Limit)
		})
	tool(s, "history", "The price history of one instance type: every stored price interval per region and buy option, oldest first.",
		func(ctx context.Context, in historyArgs) (*mcp.CallToolResult, any, error) {
			q := url.Values{}
			set(q, "since", in.Since)
			in.scope.add(q)
			return a.ask(ctx, "/api/v1/history/"+url.PathEscape(in.InstanceType), q, in.Limit)
		})
	tool(s, "price_changes", "Price changes the runs found (new, changed and withdrawn prices), newest first, with the change in percent.",
		func(ctx context.Context, in changesArgs) (*mcp.CallToolResult, any, error) {
			return a.ask(ctx, "/api/v1/changes", in.query("price"), in.Limit)
		})
	tool(s, "availability", "Where each GPU instance type is offered or in stock now (zone, region or data centre), and since when.",
		func(ctx context.Context, in availabilityArgs) (*mcp.CallToolResult, any, error) {
			q := url.Values{}
			in.what.add(q)
			setBool(q, "all", in.All)
			in.scope.add(q)
			return a.ask(ctx, "/api/v1/availability", q, in.Limit)
		})
	tool(s, "availability_changes", "Availability changes the runs found (offered in a new place, withdrawn, back in stock, sold out), newest first.",
		func(ctx context.Context, in changesArgs) (*mcp.CallToolResult, any, error) {
			return a.ask(ctx, "/api/v1/changes", in.query("availability"), in.Limit)
		})
	tool(s, "capacity_blocks", "GPU capacity blocks offered for a fixed window (EC2 Capacity Blocks for ML): GPUs, window, upfront fee and cost per GPU-hour.",
		func(ctx context.Context, in blocksArgs) (*mcp.CallToolResult, any, error) {
			q := url.Values{"kind": {"capacity_block"}}
			set(q, "gpu", in.GPU)
			setBool(q, "all", in.All)
			in.scope.add(q)
			return a.ask(ctx, "/api/v1/signals", q, in.Limit)
		})
	tool(s, "savings", "Savings and break-even utilisation of every commitment (reserved, savings plan) against on-demand for one instance type.",
		func(ctx context.Context, in savingsArgs) (*mcp.CallToolResult, any, error) {
			q := url.Values{}
			set(q, "utilization", in.Utilization)
			set(q, "currency", in.Currency)
			in.scope.add(q)
			return a.ask(ctx, "/api/v1/savings/"+url.PathEscape(in.InstanceType), q, in.Limit)
		})
	tool(s, "recommend", "Which cloud and which commitment for N GPUs of a model at a utilisation over a horizon: every option priced, the cheapest marked.",
		func(ctx context.Context, in recommendArgs) (*mcp.CallToolResult, any, error) {
			q := url.Values{"gpu": {in.GPU}}
			if in.Count > 0 {
				q.Set("count", strconv.Itoa(in.Count))
			}
			set(q, "utilization", in.Utilization)
			set(q, "horizon", in.Horizon)
			setBool(q, "include_spot", in.IncludeSpot)
			if in.Hosts > 0 {
				q.Set("hosts", strconv.Itoa(in.Hosts))
			}
			set(q, "currency", in.Currency)
			in.buyer.add(q)
			in.scope.add(q)
			return a.ask(ctx, "/api/v1/recommend", q, 0)
		})
	tool(s, "freshness", "Each provider's latest fetch run and its last successful one: how recent the prices are.",
		func(ctx context.Context, _ freshnessArgs) (*mcp.CallToolResult, any, error) {
			return a.ask(ctx, "/api/v1/runs", nil, MaxLimit)
		})
}

func (in changesArgs) query(kind string) url.Values {
	q := url.Values{"kind": {kind}}
	set(q, "since", in.Since)
	in.what.add(q)
	in.scope.add(q)
	// The API's own bound is the tool's ceiling: the tool cuts to its limit
	// and can then say how many there were, up to that.
	q.Set("limit", strconv.Itoa(MaxLimit+1))
	return q
}

// tool adds a read-only tool whose arguments' schema is In's.
func tool[In any](s *mcp.Server, name, description string, h func(context.Context, In) (*mcp.CallToolResult, any, error)) {
	no := false
	mcp.AddTool(s, &mcp.Tool{Name: name, Description: description, Annotations: &mcp.ToolAnnotations{
		ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no, DestructiveHint: &no,
	}}, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		return h(ctx, in)
	})
}
