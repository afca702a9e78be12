// Package volcenginetest is a fake of what the volcengine fetcher reads:
// the OpenAPI's ECS DescribeInstanceTypes (paged) and
// DescribeAvailableResource, checking every request's signature as
// Volcengine's signing recipe says, and a price sheet served over HTTP.
// No real Volcengine answer was found: the answers use the official Go
// SDK's field names with made-up values (README.md).
package volcenginetest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/fetchers/fetcherstest"
)

// Paths and modes the fake knows.
const (
	SheetPath = "/sheets/volcengine.yaml"
	// Empty makes the next DescribeInstanceTypes answer list no type.
	Empty = "empty"
)

// The fake's instance types (made up, in Volcengine's naming).
const (
	GNI2  = "ecs.gni2.3xlarge"       // 1 × A10
	H20x8 = "ecs.hpcpni3ln.45xlarge" // 8 × H20
	CPU   = "ecs.g3i.large"          // no GPU
)

// Type is one DescribeInstanceTypes row.
type Type struct {
	ID, Family, GPU string
	GPUs            int
	GPUMemMiB       int
	CPUs, MemMiB    int
}

// Server is the fake.
type Server struct {
	*httptest.Server
	AK, SK string
	fetcherstest.Faults

	mu sync.Mutex
	// Pages are DescribeInstanceTypes' pages, chained by NextToken.
	Pages [][]Type
	// Stock is zone → type → Status, per region.
	Stock map[string]map[string]map[string]string
	sheet string
	// Regions signed for, in order.
	regions []string
	loop    bool
}

// LoopTokens makes every page after the first hand out the second
// page's NextToken again: a server looping.
func (s *Server) LoopTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loop = true
}

// New starts the fake accepting the key pair ak, sk.
func New(t testing.TB, ak, sk string) *Server {
	t.Helper()
	s := &Server{AK: ak, SK: sk, Pages: Pages(), Stock: Stock(), sheet: Sheet()}
	s.Server = fetcherstest.Start(t, s.serve)
	return s
}

// Pages is the catalogue the fake starts with: two pages.
func Pages() [][]Type {
	return [][]Type{
		{{ID: GNI2, Family: "ecs.gni2", GPU: "NVIDIA A10", GPUs: 1, GPUMemMiB: 24576, CPUs: 12, MemMiB: 47104},
			{ID: CPU, Family: "ecs.g3i", CPUs: 2, MemMiB: 8192}},
		{{ID: H20x8, Family: "ecs.hpcpni3ln", GPU: "NVIDIA H20", GPUs: 8, GPUMemMiB: 98304, CPUs: 180, MemMiB: 2048000}},
	}
}

// Stock is the stock the fake starts with, in cn-beijing.
func Stock() map[string]map[string]map[string]string {
	return map[string]map[string]map[string]string{"cn-beijing": {
		"cn-beijing-a": {GNI2: "Available", H20x8: "SoldOut", CPU: "Available"},
		"cn-beijing-b": {GNI2: "Available"},
	}}
}

// Sheet is the price sheet the fake starts with (made-up CNY prices).
func Sheet() string {
	return `# Volcengine ECS pay-as-you-go prices (made up for tests)
rows:
  - {instance_type: ecs.gni2.3xlarge, gpu: A10, gpu_count: 1, region: cn-beijing, price: 9.61, currency: CNY, unit: instance-hour, source: test sheet}
  - {instance_type: ecs.hpcpni3ln.45xlarge, gpu: H20, gpu_count: 8, region: cn-beijing, price: 11.48, currency: CNY, unit: gpu-hour, source: test sheet}
`
}

// SheetURL is the sheet's address on the fake.
func (s *Server) SheetURL() string { return s.URL + SheetPath }

// SetSheet replaces the sheet.
func (s *Server) SetSheet(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sheet = v
}

// SetStock sets a type's Status in a zone.
func (s *Server) SetStock(region, zone, typ, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Stock[region] == nil {
		s.Stock[region] = map[string]map[string]string{}
	}
	if s.Stock[region][zone] == nil {
		s.Stock[region][zone] = map[string]string{}
	}
	s.Stock[region][zone][typ] = status
}

// SetPages replaces the catalogue.
func (s *Server) SetPages(p [][]Type) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Pages = p
}

// Regions lists the regions requests were signed for.
func (s *Server) Regions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.regions...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Seen(r)
	if r.Method == http.MethodGet && r.URL.Path == SheetPath {
		w.Write([]byte(s.sheet))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	q := r.URL.Query()
	action := q.Get("Action")
	if r.Method != http.MethodGet || r.URL.Path != "/" || q.Get("Version") != "2020-04-01" {
		refuse(w, http.StatusBadRequest, action, "InvalidActionOrVersion", "unknown action or version")
		return
	}
	region, ok := s.signed(r)
	if !ok {
		refuse(w, http.StatusUnauthorized, action, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
		return
	}
	s.regions = append(s.regions, region)
	var result any
	mode := s.Next()
	switch action {
	case "DescribeInstanceTypes":
		result = s.typesPage(q.Get("NextToken"), mode == Empty)
	case "DescribeAvailableResource":
		if q.Get("DestinationResource") != "InstanceType" {
			refuse(w, http.StatusBadRequest, action, "MissingParameter.DestinationResource", "DestinationResource is required")
			return
		}
		result = s.zones(region)
	default:
		refuse(w, http.StatusBadRequest, action, "InvalidAction", "unknown action")
		return
	}
	body, _ := json.Marshal(map[string]any{
		"ResponseMetadata": map[string]any{"RequestId": "20261205000000000000000000000001", "Action": action,
			"Version": "2020-04-01", "Service": "ecs", "Region": region},
		"Result": result,
	})
	if !fetcherstest.Write(w, mode, body, `{"ResponseMetadata":{"Error":{"Code":"FlowLimitExceeded","Message":"too many requests"}}}`) {
		w.Write(body)
	}
}

func refuse(w http.ResponseWriter, status int, action, code, msg string) {
	w.WriteHeader(status)
	body, _ := json.Marshal(map[string]any{"ResponseMetadata": map[string]any{"RequestId": "20261205000000000000000000000002",
		"Action": action, "Version": "2020-04-01", "Service": "ecs", "Error": map[string]any{"Code": code, "Message": msg}}})
	w.Write(body)
}

func (s *Server) typesPage(token string, empty bool) map[string]any {
	if empty {
		return map[string]any{"InstanceTypes": []any{}, "NextToken": "", "TotalCount": 0}
	}
	i := 0
	if token != "" {
		i = int(token[len("page-")] - '0')
	}
	var rows []any
	total := 0
	for _, p := range s.Pages {
		total += len(p)
	}
	if i < len(s.Pages) {
		for _, t := range s.Pages[i] {
			row := map[string]any{"InstanceTypeId": t.ID, "InstanceTypeFamily": t.Family,
				"Processor": map[string]any{"Cpus": t.CPUs}, "Memory": map[string]any{"Size": t.MemMiB, "EncryptedSize": 0}}
			if t.GPUs > 0 {
				row["Gpu"] = map[string]any{"GpuDevices": []any{map[string]any{"Count": t.GPUs, "ProductName": t.GPU,
					"Memory": map[string]any{"Size": t.GPUMemMiB, "EncryptedSize": 0}}}}
			}
			rows = append(rows, row)
		}
	}
	next := ""
	if i+1 < len(s.Pages) {
		next = "page-" + string(rune('0'+i+1))
	}
	if s.loop && i >= 1 {
		next = "page-1"
	}
	return map[string]any{"InstanceTypes": rows, "NextToken": next, "TotalCount": total}
}

func (s *Server) zones(region string) map[string]any {
	var zones []any
	for _, zone := range sortedKeys(s.Stock[region]) {
		var res []any
		for _, typ := range sortedKeys(s.Stock[region][zone]) {
			res = append(res, map[string]any{"Value": typ, "Status": s.Stock[region][zone][typ]})
		}
		zones = append(zones, map[string]any{"RegionId": region, "ZoneId": zone, "Status": "Available",
			"AvailableResources": []any{map[string]any{"Type": "InstanceType", "SupportedResources": res}}})
	}
	return map[string]any{"AvailableZones": zones}
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// signed checks the Authorization header as Volcengine does, written here
// from the recipe (not taken from the fetcher, so that the two are checked
// against each other), and returns the region it was signed for.
func (s *Server) signed(r *http.Request) (string, bool) {
	auth := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(auth, "HMAC-SHA256 Credential=")
	if !ok {
		return "", false
	}
	cred, rest, _ := strings.Cut(rest, ", SignedHeaders=")
	signedHeaders, sig, _ := strings.Cut(rest, ", Signature=")
	parts := strings.Split(cred, "/")
	if len(parts) != 5 || parts[0] != s.AK || parts[3] != "ecs" || parts[4] != "request" {
		return "", false
	}
	date, region := parts[1], parts[2]
	xdate := r.Header.Get("X-Date")
	at, err := time.Parse("20060102T150405Z", xdate)
	if err != nil || xdate[:8] != date {
		return "", false
	}
	_ = at
	empty := sha256.Sum256(nil)
	if r.Header.Get("X-Content-Sha256") != hex.EncodeToString(empty[:]) {
		return "", false
	}
	var canonHeaders string
	for _, h := range strings.Split(signedHeaders, ";") {
		v := r.Header.Get(h)
		if h == "host" {
			v = r.Host
		}
		canonHeaders += h + ":" + strings.TrimSpace(v) + "\n"
	}
	query := strings.ReplaceAll(r.URL.Query().Encode(), "+", "%20")
	canon := r.Method + "\n/\n" + query + "\n" + canonHeaders + "\n" + signedHeaders + "\n" + hex.EncodeToString(empty[:])
	h := sha256.Sum256([]byte(canon))
	toSign := "HMAC-SHA256\n" + xdate + "\n" + date + "/" + region + "/ecs/request\n" + hex.EncodeToString(h[:])
	k := mac([]byte(s.SK), date)
	k = mac(k, region)
	k = mac(k, "ecs")
	k = mac(k, "request")
	want := hex.EncodeToString(mac(k, toSign))
	return region, hmac.Equal([]byte(sig), []byte(want)) && strings.Contains(signedHeaders, "x-date")
}

func mac(key []byte, s string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(s))
	return m.Sum(nil)
}
