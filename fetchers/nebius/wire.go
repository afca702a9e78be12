package nebius

// The few messages of Nebius's public API (github.com/nebius/api) this
// fetcher sends and reads, encoded by hand with protowire. Nebius's Go SDK
// (github.com/nebius/gosdk), which carries the generated code, is not
// served by the module proxy this project builds from, and protoc is not
// installed: generated code could be neither fetched nor made. Six
// requests and five answers of flat strings and integers are a few
// dozen lines with protowire, and reading the field numbers off the
// protos (cited per message) keeps each one checkable by eye. Unknown
// fields are skipped, as generated code does, so a field Nebius adds
// later breaks nothing.

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/encoding/protowire"
)

// Full method names (package.Service/Method) of the calls made.
const (
	methodExchange = "/nebius.iam.v1.TokenExchangeService/Exchange"
	methodTenants  = "/nebius.iam.v1.TenantService/List"
	methodProjects = "/nebius.iam.v1.ProjectService/List"
	methodPlatform = "/nebius.compute.v1.PlatformService/List"
	methodEstimate = "/nebius.billing.v1alpha1.CalculatorService/Estimate"
)

// frame is one message already encoded: what rawCodec sends and fills.
type frame struct{ b []byte }

// rawCodec hands gRPC the bytes encoded here unchanged. Its name is
// "proto" so that the content-type is application/grpc+proto, which is
// what the server's generated stubs expect.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	f, ok := v.(*frame)
	if !ok {
		return nil, fmt.Errorf("nebius codec: cannot encode a %T", v)
	}
	return f.b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	f, ok := v.(*frame)
	if !ok {
		return fmt.Errorf("nebius codec: cannot decode into a %T", v)
	}
	f.b = append([]byte(nil), data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }

var _ encoding.Codec = rawCodec{}

// enc builds one message.
type enc []byte

func (e enc) str(num protowire.Number, v string) enc {
	if v == "" {
		return e // proto3: the default is not sent
	}
	e = protowire.AppendTag(e, num, protowire.BytesType)
	return protowire.AppendString(e, v)
}

func (e enc) i64(num protowire.Number, v int64) enc {
	if v == 0 {
		return e
	}
	e = protowire.AppendTag(e, num, protowire.VarintType)
	return protowire.AppendVarint(e, uint64(v))
}

// msg appends a sub-message, even an empty one: a set empty message
// (preemptible {}) differs from an unset one.
func (e enc) msg(num protowire.Number, sub enc) enc {
	e = protowire.AppendTag(e, num, protowire.BytesType)
	return protowire.AppendBytes(e, sub)
}

// fields walks one message's fields, calling f with each field's number,
// wire type and, for a length-delimited field, its bytes (for a varint,
// its value in v). A malformed message is an error.
func fields(b []byte, f func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v uint64
		var data []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			data, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := f(num, typ, v, data); err != nil {
			return err
		}
	}
	return nil
}

var errWireType = errors.New("a field of an unexpected wire type")

// want checks a known field's wire type.
func want(typ, is protowire.Type) error {
	if typ != is {
		return errWireType
	}
	return nil
}

// exchangeRequest is nebius.iam.v1.ExchangeTokenRequest (iam/v1/
// token_service.proto): grant_type = 1, requested_token_type = 2,
// subject_token = 3, subject_token_type = 4.
func exchangeRequest(jwt string) []byte {
	return enc(nil).
		str(1, "urn:ietf:params:oauth:grant-type:token-exchange").
		str(2, "urn:ietf:params:oauth:token-type:access_token").
		str(3, jwt).
		str(4, "urn:ietf:params:oauth:token-type:jwt")
}

// tokenResponse is nebius.iam.v1.CreateTokenResponse: access_token = 1,
// issued_token_type = 2, token_type = 3, expires_in = 4 (int64).
type tokenResponse struct {
	AccessToken, TokenType string
	ExpiresIn              int64
}

func decodeToken(b []byte) (tokenResponse, error) {
	var t tokenResponse
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1:
			t.AccessToken = string(data)
			return want(typ, protowire.BytesType)
		case 3:
			t.TokenType = string(data)
			return want(typ, protowire.BytesType)
		case 4:
			t.ExpiresIn = int64(v)
			return want(typ, protowire.VarintType)
		}
		return nil
	})
	return t, err
}

// listRequest is the IAM and compute List requests, whose field numbers
// differ: nebius.iam.v1.ListTenantsRequest (iam/v1/tenant_service.proto)
// page_size = 1, page_token = 2; nebius.iam.v1.ListProjectsRequest
// (project_service.proto) parent_id = 1, page_size = 2, page_token = 3;
// nebius.compute.v1.ListPlatformsRequest (compute/v1/
// platform_service.proto) page_size = 1, page_token = 2, parent_id = 3.
func tenantsRequest(pageSize int64, token string) []byte {
	return enc(nil).i64(1, pageSize).str(2, token)
}

func projectsRequest(parent string, pageSize int64, token string) []byte {
	return enc(nil).str(1, parent).i64(2, pageSize).str(3, token)
}

func platformsRequest(parent string, pageSize int64, token string) []byte {
	return enc(nil).i64(1, pageSize).str(2, token).str(3, parent)
}

// listPage is any of the three List answers: items = 1 (repeated),
// next_page_token = 2.
type listPage struct {
	Items [][]byte
	Next  string
}

func decodeList(b []byte) (listPage, error) {
	var p listPage
	err := fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, data []byte) error {
		switch num {
		case 1:
			p.Items = append(p.Items, data)
			return want(typ, protowire.BytesType)
		case 2:
			p.Next = string(data)
			return want(typ, protowire.BytesType)
		}
		return nil
	})
	return p, err
}

// resourceMeta is nebius.common.v1.ResourceMetadata (common/v1/
// metadata.proto): id = 1, parent_id = 2, name = 3.
type resourceMeta struct{ ID, ParentID, Name string }

func decodeMetadata(b []byte) (resourceMeta, error) {
	var m resourceMeta
	err := fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, data []byte) error {
		switch num {
		case 1, 2, 3:
			*[]*string{&m.ID, &m.ParentID, &m.Name}[num-1] = string(data)
			return want(typ, protowire.BytesType)
		}
		return nil
	})
	return m, err
}

// container is nebius.iam.v1.Container (iam/v1/container.proto), a tenant
// or a project: metadata = 1, spec = 2 {region = 1}, status = 3
// {region = 4}.
type container struct {
	resourceMeta
	SpecRegion, StatusRegion string
}

// Region is where the project is: its status's, else its spec's.
func (c container) Region() string {
	if c.StatusRegion != "" {
		return c.StatusRegion
	}
	return c.SpecRegion
}

func decodeContainer(b []byte) (container, error) {
	var c container
	err := fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, data []byte) error {
		if err := want(typ, protowire.BytesType); err != nil && num <= 3 {
			return err
		}
		var err error
		switch num {
		case 1:
			c.resourceMeta, err = decodeMetadata(data)
		case 2:
			c.SpecRegion, err = stringField(data, 1)
		case 3:
			c.StatusRegion, err = stringField(data, 4)
		}
		return err
	})
	return c, err
}

// stringField is the string field num of message b.
func stringField(b []byte, want protowire.Number) (string, error) {
	var s string
	err := fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, data []byte) error {
		if num == want {
			if typ != protowire.BytesType {
				return errWireType
			}
			s = string(data)
		}
		return nil
	})
	return s, err
}

// platform is nebius.compute.v1.Platform (compute/v1/platform.proto):
// metadata = 1; spec = 2 {presets = 1, human_readable_name = 4,
// gpu_memory_gibibytes = 11 (deprecated), gpu_memory_gigabytes = 12};
// status = 3 {allowed_for_preemptibles = 3}.
type platform struct {
	Name             string
	Display          string
	GPUMemoryGB      int64
	GPUMemoryGiB     int64
	Presets          []preset
	AllowPreemptible bool
}

// preset is nebius.compute.v1.Preset: name = 1, resources = 2
// {vcpu_count = 1, memory_gibibytes = 3, gpu_count = 4}.
type preset struct {
	Name                       string
	VCPUs, MemoryGiB, GPUCount int64
}

func decodePlatform(b []byte) (platform, error) {
	var p platform
	err := fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, data []byte) error {
		if num > 3 {
			return nil
		}
		if err := want(typ, protowire.BytesType); err != nil {
			return err
		}
		switch num {
		case 1:
			m, err := decodeMetadata(data)
			p.Name = m.Name
			return err
		case 2:
			return fields(data, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
				switch num {
				case 1:
					ps, err := decodePreset(data)
					p.Presets = append(p.Presets, ps)
					if err != nil {
						return err
					}
					return want(typ, protowire.BytesType)
				case 4:
					p.Display = string(data)
					return want(typ, protowire.BytesType)
				case 11:
					p.GPUMemoryGiB = int64(int32(v))
					return want(typ, protowire.VarintType)
				case 12:
					p.GPUMemoryGB = int64(int32(v))
					return want(typ, protowire.VarintType)
				}
				return nil
			})
		default:
			return fields(data, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
				if num == 3 {
					p.AllowPreemptible = v != 0
					return want(typ, protowire.VarintType)
				}
				return nil
			})
		}
	})
	return p, err
}

func decodePreset(b []byte) (preset, error) {
	var ps preset
	err := fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, data []byte) error {
		switch num {
		case 1:
			ps.Name = string(data)
			return want(typ, protowire.BytesType)
		case 2:
			if err := want(typ, protowire.BytesType); err != nil {
				return err
			}
			return fields(data, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case 1, 3, 4:
					*map[protowire.Number]*int64{1: &ps.VCPUs, 3: &ps.MemoryGiB, 4: &ps.GPUCount}[num] = int64(int32(v))
					return want(typ, protowire.VarintType)
				}
				return nil
			})
		}
		return nil
	})
	return ps, err
}

// estimateRequest is nebius.billing.v1alpha1.EstimateRequest
// (billing/v1alpha1/calculator_service.proto): resource_spec = 1, a
// ResourceSpec (calculator.proto) whose compute_instance_spec = 100 is a
// nebius.compute.v1.CreateInstanceRequest (compute/v1/
// instance_service.proto): metadata = 1 {parent_id = 2}, spec = 2, an
// InstanceSpec (instance.proto): resources = 2 {platform = 1,
// preset = 2}, preemptible = 19 {on_preemption = 1 (STOP = 1),
// priority = 2}. offer_types (10) stays empty: list prices, not a
// contract's. A preemptible estimate sets on_preemption STOP (the only
// value the API takes) and priority 1, the lowest, as SkyPilot's
// catalogue fetcher does.
func estimateRequest(project, platform, preset string, preemptible bool) []byte {
	spec := enc(nil).msg(2, enc(nil).str(1, platform).str(2, preset))
	if preemptible {
		spec = spec.msg(19, enc(nil).i64(1, 1).i64(2, 1))
	}
	create := enc(nil).msg(1, enc(nil).str(2, project)).msg(2, spec)
	return enc(nil).msg(1, enc(nil).msg(100, create))
}

// estimate is what is read of nebius.billing.v1alpha1.EstimateResponse:
// hourly_cost = 10, a ResourceGroupCost (calculator.proto) whose
// general = 10 is a GeneralTotalCost {total = 1}, a CostBreakdown
// {cost = 2 (decimal string, full precision), cost_rounded = 3}.
// monthly_cost (20) is hourly × 720 and is not read.
type estimate struct {
	// Cost is hourly_cost.general.total.cost; Set says the path was there
	// (an empty string in a present breakdown is still an answer).
	Cost string
	Set  bool
}

func decodeEstimate(b []byte) (estimate, error) {
	var e estimate
	// path walks hourly_cost(10) → general(10) → total(1) → cost(2).
	path := []protowire.Number{10, 10, 1}
	var walk func(b []byte, depth int) error
	walk = func(b []byte, depth int) error {
		return fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, data []byte) error {
			if depth == len(path) {
				if num == 2 {
					e.Cost, e.Set = string(data), true
					return want(typ, protowire.BytesType)
				}
				return nil
			}
			if num != path[depth] {
				return nil
			}
			if err := want(typ, protowire.BytesType); err != nil {
				return err
			}
			if depth == len(path)-1 {
				e.Set = true // a total with no cost field: cost "" (proto3 default)
			}
			return walk(data, depth+1)
		})
	}
	return e, walk(b, 0)
}
