// Package nebiustest is a fake of the five Nebius gRPC methods the nebius
// fetcher calls (TokenExchangeService/Exchange, TenantService/List,
// ProjectService/List, PlatformService/List, CalculatorService/Estimate),
// served by google.golang.org/grpc's own server on a loopback listener,
// with a service account whose key is generated here.
//
// No request or answer of Nebius's API was found captured anywhere (see
// testdata/README.md): the tenants, projects, platforms, presets and
// prices are constructed from the protos' shapes and Nebius's public price
// list, and say so. The fake decodes and encodes its messages with
// protowire at the field numbers of the protos, written out here apart
// from the fetcher's own encoding so that a wrong number in one shows as
// a failure against the other.
package nebiustest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/shopspring/decimal"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
)

// Identifiers of the fake's service account and tenant.
const (
	AccountID = "serviceaccount-e00pricewatchtest"
	KeyID     = "publickey-e00pricewatchtest"
	TenantID  = "tenant-e00pricewatchtest"
	// IAMToken is the access token Exchange hands out.
	IAMToken = "nebius-iam-token-NeverShown"
)

// Platform is one compute platform as PlatformService/List gives it.
type Platform struct {
	Name             string
	GPUMemoryGB      int64
	AllowPreemptible bool
	Presets          []Preset
}

// Preset is one of a platform's presets.
type Preset struct {
	Name                       string
	VCPUs, MemoryGiB, GPUCount int64
}

// Project is one project and its region.
type Project struct{ ID, Region string }

// Call is one call the fake answered.
type Call struct {
	Method string
	Auth   string
	// Estimate's request.
	Parent, Platform, Preset string
	Preemptible              bool
	PreemptPriority          int64
	OnPreemption             int64
}

// Server is the fake.
type Server struct {
	// URL is the fake's address as providers.nebius's endpoint keys take
	// it (http: plaintext).
	URL string

	mu        sync.Mutex
	pub       *rsa.PublicKey
	projects  []Project
	platforms map[string][]Platform // by region
	prices    map[string]string     // Price's key → cost
	pageSize  int                   // platforms per page; 0: all
	repeat    bool
	fail      []codes.Code
	calls     []Call
}

// FailNext makes the next calls (after the token exchange) fail, one per
// code, with that gRPC status.
func (s *Server) FailNext(c ...codes.Code) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = append(s.fail, c...)
}

var (
	keyOnce    sync.Once
	keys       [2]*rsa.PrivateKey
	keyPEMs    [2]string
	keyOnceErr error
)

func genKeys() {
	for i := range keys {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			keyOnceErr = err
			return
		}
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			keyOnceErr = err
			return
		}
		keys[i] = k
		keyPEMs[i] = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	}
}

// PrivateKey is the PKCS#8 PEM key of the service account the fake
// knows; OtherKey one it does not (generated once per test binary).
func PrivateKey(t testing.TB) string { return key(t, 0) }

// OtherKey is a key the fake refuses.
func OtherKey(t testing.TB) string { return key(t, 1) }

func key(t testing.TB, i int) string {
	t.Helper()
	keyOnce.Do(genKeys)
	if keyOnceErr != nil {
		t.Fatal(keyOnceErr)
	}
	return keyPEMs[i]
}

// Credentials is a service-account credentials file, as `nebius iam
// auth-public-key generate` writes it, holding privateKey.
func Credentials(privateKey string) string {
	b, _ := json.Marshal(map[string]any{"subject-credentials": map[string]string{
		"alg": "RS256", "private-key": privateKey, "kid": KeyID, "iss": AccountID, "sub": AccountID}})
	return string(b)
}

// Price keys a price: platform, preset and whether preemptible.
func Price(platform, preset string, preemptible bool) string {
	return fmt.Sprintf("%s/%s/%t", platform, preset, preemptible)
}

// New starts the fake with its constructed catalogue (see
// testdata/README.md), stopped when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	PrivateKey(t)
	s := &Server{pub: &keys[0].PublicKey, projects: DefaultProjects(), platforms: DefaultPlatforms(), prices: DefaultPrices()}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.ForceServerCodec(codec{}), grpc.UnknownServiceHandler(s.handle))
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	s.URL = "http://" + lis.Addr().String()
	return s
}

// DefaultProjects: two regions, the first with two projects (the fetcher
// must price it once, under the first by id).
func DefaultProjects() []Project {
	return []Project{
		{ID: "project-e00north1b", Region: "eu-north1"},
		{ID: "project-e00north1a", Region: "eu-north1"},
		{ID: "project-e00uscentral1", Region: "us-central1"},
	}
}

var (
	h100Presets = []Preset{{"1gpu-16vcpu-200gb", 16, 200, 1}, {"8gpu-128vcpu-1600gb", 128, 1600, 8}}
	h200Presets = []Preset{{"1gpu-16vcpu-200gb", 16, 200, 1}, {"8gpu-128vcpu-1600gb", 128, 1600, 8}}
)

// DefaultPlatforms per region: platform and preset names as Nebius's
// documentation lists them; a CPU platform the fetcher must leave out.
func DefaultPlatforms() map[string][]Platform {
	return map[string][]Platform{
		"eu-north1": {
			{Name: "cpu-d3", Presets: []Preset{{"4vcpu-16gb", 4, 16, 0}}},
			{Name: "gpu-h100-sxm", GPUMemoryGB: 80, AllowPreemptible: true, Presets: h100Presets},
			{Name: "gpu-h200-sxm", GPUMemoryGB: 141, AllowPreemptible: true, Presets: h200Presets},
			{Name: "gpu-l40s-a", GPUMemoryGB: 48, Presets: []Preset{{"1gpu-8vcpu-32gb", 8, 32, 1}}},
		},
		"us-central1": {
			{Name: "gpu-h200-sxm", GPUMemoryGB: 141, AllowPreemptible: true, Presets: h200Presets},
			{Name: "gpu-b200-sxm", GPUMemoryGB: 180, AllowPreemptible: true, Presets: []Preset{{"8gpu-160vcpu-1792gb", 160, 1792, 8}}},
		},
	}
}

// DefaultPrices: whole-VM USD per hour, per GPU as Nebius's price list
// states them (H100 2.95, H200 3.50, B200 5.50, L40S 1.55 on-demand),
// written as the calculator's full-precision strings. Constructed.
func DefaultPrices() map[string]string {
	return map[string]string{
		Price("gpu-h100-sxm", "1gpu-16vcpu-200gb", false):   "2.950000000",
		Price("gpu-h100-sxm", "8gpu-128vcpu-1600gb", false): "23.600000000",
		Price("gpu-h100-sxm", "1gpu-16vcpu-200gb", true):    "1.250000000",
		Price("gpu-h100-sxm", "8gpu-128vcpu-1600gb", true):  "10.000000000",
		Price("gpu-h200-sxm", "1gpu-16vcpu-200gb", false):   "3.500000000",
		Price("gpu-h200-sxm", "8gpu-128vcpu-1600gb", false): "28.000000000",
		Price("gpu-h200-sxm", "1gpu-16vcpu-200gb", true):    "1.450000000",
		Price("gpu-h200-sxm", "8gpu-128vcpu-1600gb", true):  "11.600000000",
		Price("gpu-l40s-a", "1gpu-8vcpu-32gb", false):       "1.550000000",
		Price("gpu-b200-sxm", "8gpu-160vcpu-1792gb", false): "44.000000000",
		Price("gpu-b200-sxm", "8gpu-160vcpu-1792gb", true):  "24.000000000",
	}
}

// SetPrice sets one estimate's cost string (any text: a malformed one too).
func (s *Server) SetPrice(platform, preset string, preemptible bool, cost string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prices[Price(platform, preset, preemptible)] = cost
}

// SetPlatforms replaces a region's platform list (nil: an empty list).
func (s *Server) SetPlatforms(region string, p []Platform) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.platforms[region] = p
}

// PageSize makes PlatformService/List answer n platforms a page; repeat
// makes its second page hand out the first page's token again.
func (s *Server) PageSize(n int, repeat bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageSize, s.repeat = n, repeat
}

// Calls returns the calls answered, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

type frame struct{ b []byte }

type codec struct{}

func (codec) Marshal(v any) ([]byte, error) { return v.(*frame).b, nil }
func (codec) Unmarshal(b []byte, v any) error {
	v.(*frame).b = append([]byte(nil), b...)
	return nil
}
func (codec) Name() string { return "proto" }

func (s *Server) handle(_ any, stream grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(stream)
	var in frame
	if err := stream.RecvMsg(&in); err != nil {
		return err
	}
	md, _ := metadata.FromIncomingContext(stream.Context())
	c := Call{Method: method}
	if a := md.Get("authorization"); len(a) > 0 {
		c.Auth = a[0]
	}
	s.mu.Lock()
	out, err := s.answer(&c, in.b)
	s.calls = append(s.calls, c)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return stream.SendMsg(&frame{b: out})
}

func (s *Server) answer(c *Call, in []byte) ([]byte, error) {
	if c.Method == "/nebius.iam.v1.TokenExchangeService/Exchange" {
		return s.exchange(in)
	}
	if c.Auth != "Bearer "+IAMToken {
		return nil, status.Error(codes.Unauthenticated, "invalid token")
	}
	if len(s.fail) > 0 {
		code := s.fail[0]
		s.fail = s.fail[1:]
		return nil, status.Errorf(code, "fake failure %s", code)
	}
	switch c.Method {
	case "/nebius.iam.v1.TenantService/List":
		return appendMsg(nil, 1, container(TenantID, "", "")), nil
	case "/nebius.iam.v1.ProjectService/List":
		f := parse(in)
		if str(f[1]) != TenantID {
			return nil, status.Error(codes.NotFound, "tenant not found")
		}
		var out []byte
		for _, p := range s.projects {
			out = appendMsg(out, 1, container(p.ID, TenantID, p.Region))
		}
		return out, nil
	case "/nebius.compute.v1.PlatformService/List":
		return s.listPlatforms(parse(in))
	case "/nebius.billing.v1alpha1.CalculatorService/Estimate":
		return s.estimate(c, in)
	}
	return nil, status.Errorf(codes.Unimplemented, "unknown method %s", c.Method)
}

func (s *Server) exchange(in []byte) ([]byte, error) {
	f := parse(in)
	if str(f[1]) != "urn:ietf:params:oauth:grant-type:token-exchange" || str(f[4]) != "urn:ietf:params:oauth:token-type:jwt" {
		return nil, status.Error(codes.InvalidArgument, "unsupported grant or subject token type")
	}
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(str(f[3]), &claims, func(t *jwt.Token) (any, error) {
		if t.Header["kid"] != KeyID {
			return nil, fmt.Errorf("unknown kid")
		}
		return s.pub, nil
	}, jwt.WithValidMethods([]string{"RS256"}), jwt.WithAudience("token-service.iam.new.nebiuscloud.net"),
		jwt.WithIssuer(AccountID), jwt.WithSubject(AccountID), jwt.WithExpirationRequired(), jwt.WithIssuedAt())
	if err != nil {
		return nil, status.Error(codes.Unauthenticated, "invalid subject token")
	}
	var out []byte
	out = appendStr(out, 1, IAMToken)
	out = appendStr(out, 2, "urn:ietf:params:oauth:token-type:access_token")
	out = appendStr(out, 3, "Bearer")
	out = protowire.AppendTag(out, 4, protowire.VarintType)
	return protowire.AppendVarint(out, 43200), nil
}

func (s *Server) region(project string) (string, bool) {
	for _, p := range s.projects {
		if p.ID == project {
			return p.Region, true
		}
	}
	return "", false
}

func (s *Server) listPlatforms(f map[protowire.Number][][]byte) ([]byte, error) {
	// ListPlatformsRequest: page_size = 1, page_token = 2, parent_id = 3.
	region, ok := s.region(str(f[3]))
	if !ok {
		return nil, status.Error(codes.NotFound, "project not found")
	}
	all := s.platforms[region]
	start := 0
	if tok := str(f[2]); tok != "" {
		fmt.Sscanf(tok, "page-%d", &start)
	}
	end := len(all)
	if s.pageSize > 0 {
		end = min(start+s.pageSize, len(all))
	}
	var out []byte
	for _, p := range all[start:end] {
		out = appendMsg(out, 1, platform(p))
	}
	switch {
	case s.repeat && start > 0:
		out = appendStr(out, 2, fmt.Sprintf("page-%d", start)) // the token it was asked with
	case end < len(all):
		out = appendStr(out, 2, fmt.Sprintf("page-%d", end))
	}
	return out, nil
}

func (s *Server) estimate(c *Call, in []byte) ([]byte, error) {
	// EstimateRequest.resource_spec(1).compute_instance_spec(100): a
	// CreateInstanceRequest {metadata(1){parent_id(2)}, spec(2)
	// {resources(2){platform(1), preset(2)}, preemptible(19)
	// {on_preemption(1), priority(2)}}}.
	create := parse(one(parse(one(parse(in)[1]))[100]))
	c.Parent = str(parse(one(create[1]))[2])
	spec := parse(one(create[2]))
	res := parse(one(spec[2]))
	c.Platform, c.Preset = str(res[1]), str(res[2])
	if pre, ok := spec[19]; ok {
		c.Preemptible = true
		pf := parse(one(pre))
		c.OnPreemption, c.PreemptPriority = varint(pf[1]), varint(pf[2])
	}
	if _, ok := s.region(c.Parent); !ok {
		return nil, status.Error(codes.NotFound, "project not found")
	}
	cost, ok := s.prices[Price(c.Platform, c.Preset, c.Preemptible)]
	if !ok {
		return nil, status.Errorf(codes.InvalidArgument, "unknown platform %q preset %q", c.Platform, c.Preset)
	}
	// EstimateResponse: hourly_cost = 10, monthly_cost = 20, each a
	// ResourceGroupCost {general = 10 {total = 1 {cost = 2,
	// cost_rounded = 3}}}.
	group := func(cost string) []byte {
		var bd []byte
		bd = appendStr(bd, 2, cost)
		if d, err := decimal.NewFromString(cost); err == nil {
			bd = appendStr(bd, 3, d.RoundUp(2).StringFixed(2))
		}
		return appendMsg(nil, 10, appendMsg(nil, 1, bd))
	}
	out := appendMsg(nil, 10, group(cost))
	if d, err := decimal.NewFromString(cost); err == nil {
		out = appendMsg(out, 20, group(d.Mul(decimal.NewFromInt(720)).String()))
	}
	return out, nil
}

// container is nebius.iam.v1.Container: metadata = 1 {id = 1,
// parent_id = 2, name = 3}, spec = 2 {region = 1}, status = 3
// {region = 4}.
func container(id, parent, region string) []byte {
	var md []byte
	md = appendStr(md, 1, id)
	md = appendStr(md, 2, parent)
	md = appendStr(md, 3, strings.TrimPrefix(id, "project-"))
	out := appendMsg(nil, 1, md)
	if region != "" {
		out = appendMsg(out, 2, appendStr(nil, 1, region))
		out = appendMsg(out, 3, appendStr(nil, 4, region))
	}
	return out
}

// platform is nebius.compute.v1.Platform: metadata = 1 {name = 3},
// spec = 2 {presets = 1 {name = 1, resources = 2 {vcpu_count = 1,
// memory_gibibytes = 3, gpu_count = 4}}, human_readable_name = 4,
// gpu_memory_gigabytes = 12}, status = 3 {allowed_for_preemptibles = 3}.
func platform(p Platform) []byte {
	var spec []byte
	for _, ps := range p.Presets {
		var res []byte
		res = appendInt(res, 1, ps.VCPUs)
		res = appendInt(res, 3, ps.MemoryGiB)
		res = appendInt(res, 4, ps.GPUCount)
		spec = appendMsg(spec, 1, appendMsg(appendStr(nil, 1, ps.Name), 2, res))
	}
	spec = appendStr(spec, 4, strings.ToUpper(p.Name))
	spec = appendInt(spec, 12, p.GPUMemoryGB)
	out := appendMsg(nil, 1, appendStr(appendStr(nil, 1, "computeplatform-"+p.Name), 3, p.Name))
	out = appendMsg(out, 2, spec)
	var st []byte
	if p.AllowPreemptible {
		st = appendInt(st, 3, 1)
	}
	return appendMsg(out, 3, st)
}

func appendStr(b []byte, num protowire.Number, v string) []byte {
	if v == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, v)
}

func appendInt(b []byte, num protowire.Number, v int64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

func appendMsg(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

// parse splits a message into its fields' values (length-delimited
// bytes, or a varint's encoding); a malformed message parses as far as it
// goes.
func parse(b []byte) map[protowire.Number][][]byte {
	out := map[protowire.Number][][]byte{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return out
		}
		b = b[n:]
		switch typ {
		case protowire.BytesType:
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return out
			}
			out[num] = append(out[num], v)
			n = m
		default:
			m := protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				return out
			}
			out[num] = append(out[num], b[:m])
			n = m
		}
		b = b[n:]
	}
	return out
}

func one(v [][]byte) []byte {
	if len(v) == 0 {
		return nil
	}
	return v[len(v)-1]
}

func str(v [][]byte) string { return string(one(v)) }

func varint(v [][]byte) int64 {
	x, n := protowire.ConsumeVarint(one(v))
	if n < 0 {
		return 0
	}
	return int64(x)
}
