package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/gpu"
)

// Resource URIs: what an agent reads once to know the names it may ask
// with.
const (
	GPUsURI      = "pricewatch://gpus"
	ProvidersURI = "pricewatch://providers"
)

// gpuRow is one GPU of the catalogue, under the field names the CLI uses
// where it has one (gpu_model, gpu_memory_gb, interconnect).
type gpuRow struct {
	GPUModel        string  `json:"gpu_model"`
	Vendor          string  `json:"vendor"`
	Architecture    string  `json:"architecture"`
	FormFactor      string  `json:"form_factor"`
	GPUMemoryGB     float64 `json:"gpu_memory_gb"`
	MemoryType      string  `json:"memory_type"`
	BandwidthGBs    float64 `json:"bandwidth_gbs"`
	BF16TFLOPS      float64 `json:"bf16_tflops"`
	FP16TFLOPS      float64 `json:"fp16_tflops"`
	FP8TFLOPS       float64 `json:"fp8_tflops"`
	FP32TFLOPS      float64 `json:"fp32_tflops"`
	Interconnect    string  `json:"interconnect"`
	InterconnectGBs float64 `json:"interconnect_gbs"`
	Source          string  `json:"source"`
	Note            string  `json:"note,omitempty"`
}

// providerRow is one cloud pricewatch can read.
type providerRow struct {
	Provider    string `json:"provider"`
	Name        string `json:"name"`
	Marketplace bool   `json:"marketplace"`
	PricingURL  string `json:"pricing_url"`
}

func gpuRows() []gpuRow {
	var out []gpuRow
	for _, g := range gpu.GPUs() {
		out = append(out, gpuRow{GPUModel: g.Model, Vendor: g.Vendor, Architecture: g.Architecture, FormFactor: g.FormFactor,
			GPUMemoryGB: g.MemoryGB, MemoryType: g.MemoryType, BandwidthGBs: g.BandwidthGBs, BF16TFLOPS: g.BF16TFLOPS,
			FP16TFLOPS: g.FP16TFLOPS, FP8TFLOPS: g.FP8TFLOPS, FP32TFLOPS: g.FP32TFLOPS, Interconnect: g.Interconnect,
			InterconnectGBs: g.InterconnectGBs, Source: g.Source, Note: g.Note})
	}
	return out
}

func providerRows() []providerRow {
	var out []providerRow
	for _, c := range clouds.All() {
		out = append(out, providerRow{Provider: c.Name, Name: c.Display, Marketplace: c.Marketplace, PricingURL: clouds.PricingURL(c.Name, "")})
	}
	return out
}

func addResources(s *mcp.Server) {
	for _, r := range []struct {
		uri, name, description string
		rows                   func() any
	}{
		{GPUsURI, "gpus", "The GPU catalogue: every GPU model pricewatch knows, with memory, bandwidth, dense TFLOPS and interconnect.", func() any { return gpuRows() }},
		{ProvidersURI, "providers", "The providers (clouds and marketplaces) pricewatch reads, with the name to ask by.", func() any { return providerRows() }},
	} {
		s.AddResource(&mcp.Resource{URI: r.uri, Name: r.name, Description: r.description, MIMEType: "application/json"},
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				b, err := json.MarshalIndent(r.rows(), "", "  ")
				if err != nil {
					return nil, fmt.Errorf("writing %s: %w", r.uri, err)
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.uri, MIMEType: "application/json", Text: string(b)}}}, nil
			})
	}
}
