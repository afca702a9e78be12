package alibabatest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"testing"
)

// World is what the fake cloud holds: GPU instance types (paged), per-zone
// stock, price quotes, spot history, and injected failures. Set its fields
// before the server answers; change it while serving only through the
// Server's methods.
type World struct {
	mu sync.Mutex

	// TypePages: page i is the answer to the i-th NextToken; Tokens[i] is
	// the NextToken returned with page i ("" on the last).
	TypePages [][]InstanceType
	Tokens    []string

	Zones  map[string][]Zone    // region → zones, in answer order
	Prices map[string]Price     // PriceKey → quote
	Spots  map[string][]SpotRow // SpotKey → history rows
	// SpotCurrency, when set, is sent as DescribeSpotPriceHistory's
	// Currency (the 2019 sample has none).
	SpotCurrency string
	// SpotPage caps rows per DescribeSpotPriceHistory page (0: 1000).
	SpotPage int

	// Throttle[action] answers that many calls with Throttling.User first.
	Throttle map[string]int
	// ServerErrors[action] answers that many calls with InternalError 500 first.
	ServerErrors map[string]int
	// FailAlways[action] answers every call with this error (HTTP 400).
	FailAlways map[string]APIError
	// Raw[action] replaces the body of every successful answer.
	Raw map[string][]byte
}

// InstanceType is one DescribeInstanceTypes row. Numbers are kept as text.
// The ID "ecs.g6.large" stands for the published example row, served
// verbatim (it has GPUAmount 0).
type InstanceType struct {
	ID, Family, Spec       string
	GPUs, GPUMem, CPU, Mem string
	// Category is InstanceCategory ("" means "GPU-accelerated
	// compute-optimized").
	Category string
	// AsStrings sends the numbers as JSON strings, as some answers do.
	AsStrings bool
	// LocalDisks, LocalDiskGiB and LocalDiskCategory are
	// LocalStorageAmount, LocalStorageCapacity and LocalStorageCategory;
	// "" sends none.
	LocalDisks, LocalDiskGiB, LocalDiskCategory string
}

// Zone is one DescribeAvailableResource zone. The published example's own
// line (ecs.g5.large, not a GPU type) is served first in every zone, as the
// real answer lists every type; Stock follows it.
type Zone struct {
	ID, Status, Category string
	Stock                []Stock
}

// Stock is one instance type's line in a zone.
type Stock struct{ Type, Status, Category string }

// Price is one DescribePrice quote.
type Price struct {
	Currency                  string
	Original, Discount, Trade string
	AsStrings                 bool
	// Detail, when set, adds DetailInfos with an instanceType line
	// (original, discount, trade; trade may be empty).
	Detail []string
	// Code answers with an error instead of a quote (Status 0 means 400).
	Code, Message string
	Status        int
}

// SpotRow is one DescribeSpotPriceHistory row.
type SpotRow struct {
	Zone, Type, Timestamp, Spot, Origin string
	AsStrings                           bool
}

// APIError makes the fake answer in Alibaba's error shape.
type APIError struct{ Code, Message string }

// PriceKey keys World.Prices: region, instance type, PriceUnit (Hour,
// Month, Year) and Period as DescribePrice is asked.
func PriceKey(region, instanceType, unit, period string) string {
	return region + "|" + instanceType + "|" + unit + "|" + period
}

// SpotKey keys World.Spots.
func SpotKey(region, zone, instanceType string) string {
	return region + "|" + zone + "|" + instanceType
}

// SetStock changes one type's line in one zone.
func (w *World) SetStock(region, zone, instanceType, status, category string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for zi, z := range w.Zones[region] {
		if z.ID != zone {
			continue
		}
		for si, st := range z.Stock {
			if st.Type == instanceType {
				// Zones may share slices with another World; copy on write.
				stock := append([]Stock(nil), z.Stock...)
				stock[si] = Stock{Type: instanceType, Status: status, Category: category}
				zones := append([]Zone(nil), w.Zones[region]...)
				zones[zi].Stock = stock
				w.Zones[region] = zones
				return nil
			}
		}
		return fmt.Errorf("zone %s lists no %s", zone, instanceType)
	}
	return fmt.Errorf("region %s has no zone %s", region, zone)
}

func (w *World) answer(t testing.TB, action string, q url.Values) (int, any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e, ok := w.FailAlways[action]; ok {
		return 400, e
	}
	if w.Throttle[action] > 0 {
		w.Throttle[action]--
		return 403, APIError{"Throttling.User", "Request was denied due to user flow control."}
	}
	if w.ServerErrors[action] > 0 {
		w.ServerErrors[action]--
		return 500, APIError{"InternalError", "The request processing has failed due to some unknown error, exception or failure."}
	}
	if b, ok := w.Raw[action]; ok {
		return 200, b
	}
	switch action {
	case "DescribeInstanceTypes", "DescribeRegions":
		// Neither action has a RegionId parameter (SDK v7.7.0 models).
		if q.Has("RegionId") {
			t.Errorf("alibabatest: %s sent RegionId", action)
		}
	}
	var (
		status int
		body   any
		err    error
	)
	switch action {
	case "DescribeInstanceTypes":
		status, body, err = w.instanceTypes(q)
	case "DescribeAvailableResource":
		status, body, err = w.availableResource(t, q)
	case "DescribePrice":
		status, body, err = w.price(t, q)
	case "DescribeSpotPriceHistory":
		status, body, err = w.spotHistory(q)
	case "DescribeRegions":
		var regions []any
		for r := range w.Zones {
			regions = append(regions, map[string]any{"RegionId": r, "RegionEndpoint": "ecs." + r + ".aliyuncs.com", "LocalName": r})
		}
		return 200, map[string]any{"RequestId": "6D2D0BFE-0000-4000-8000-000000000001", "Regions": map[string]any{"Region": regions}}
	default:
		return 404, APIError{"InvalidAction.NotFound", "Specified api is not found, please check your url and method."}
	}
	if err != nil {
		t.Errorf("alibabatest: %s: %v", action, err)
		return 500, APIError{"InternalError", "the fake could not build its answer"}
	}
	return status, body
}

// The builders below copy a sample's first row and replace values only, so
// every answer has exactly the sample's field set.

func (w *World) instanceTypes(q url.Values) (int, any, error) {
	page := 0
	if tok := q.Get("NextToken"); tok != "" {
		page = -1
		for i, known := range w.Tokens {
			if known == tok {
				page = i + 1
			}
		}
		if page < 0 || page >= len(w.TypePages) {
			return 400, APIError{"InvalidNextToken.Malformed", "The specified parameter NextToken is not valid."}, nil
		}
	}
	s, err := sample("DescribeInstanceTypes.response.json")
	if err != nil {
		return 0, nil, err
	}
	var rows []any
	for _, ft := range w.TypePages[page] {
		row := First(s, "InstanceTypes", "InstanceType")
		if ft.ID == publishedTypeRow {
			rows = append(rows, row)
			continue
		}
		row["InstanceTypeId"] = ft.ID
		row["InstanceTypeFamily"] = ft.Family
		row["GPUSpec"] = ft.Spec
		row["GPUAmount"] = number(ft.GPUs, ft.AsStrings)
		row["GPUMemorySize"] = number(ft.GPUMem, ft.AsStrings)
		row["CpuCoreCount"] = number(ft.CPU, ft.AsStrings)
		row["MemorySize"] = number(ft.Mem, ft.AsStrings)
		row["InstanceCategory"] = ft.Category
		// The published row's local disk (1 x 5000 GiB local_ssd_pro) is
		// g6.large's, not these types': a built row has none (0, 0 and an
		// empty category, as the documented XML example sends for a type
		// without) unless the test gives them.
		row["LocalStorageAmount"] = number("0", ft.AsStrings)
		row["LocalStorageCapacity"] = number("0", ft.AsStrings)
		row["LocalStorageCategory"] = ""
		if ft.LocalDisks != "" {
			row["LocalStorageAmount"] = number(ft.LocalDisks, ft.AsStrings)
			row["LocalStorageCapacity"] = number(ft.LocalDiskGiB, ft.AsStrings)
			row["LocalStorageCategory"] = ft.LocalDiskCategory
		}
		if ft.Category == "" {
			row["InstanceCategory"] = "GPU-accelerated compute-optimized"
		}
		rows = append(rows, row)
	}
	Path(s, "InstanceTypes")["InstanceType"] = rows
	s["RequestId"] = fmt.Sprintf("00827261-20B7-4562-83F2-%012d", page)
	if page < len(w.Tokens) && w.Tokens[page] != "" {
		s["NextToken"] = w.Tokens[page]
	} else {
		delete(s, "NextToken")
	}
	return 200, s, nil
}

// publishedTypeRow is the InstanceTypeId of the published example row.
const publishedTypeRow = "ecs.g6.large"

func (w *World) availableResource(t testing.TB, q url.Values) (int, any, error) {
	if q.Get("DestinationResource") != "InstanceType" {
		t.Errorf("alibabatest: DescribeAvailableResource asked for %q", q.Get("DestinationResource"))
	}
	region := q.Get("RegionId")
	zones, ok := w.Zones[region]
	if !ok {
		return 404, APIError{"InvalidRegionId.NotFound", "The specified RegionId does not exist."}, nil
	}
	s, err := sample("DescribeAvailableResource.response.json")
	if err != nil {
		return 0, nil, err
	}
	var out []any
	for _, z := range zones {
		zone := First(s, "AvailableZones", "AvailableZone")
		zone["ZoneId"] = z.ID
		zone["RegionId"] = region
		zone["Status"] = z.Status
		zone["StatusCategory"] = z.Category
		resource := First(zone, "AvailableResources", "AvailableResource")
		supported := Path(resource, "SupportedResources")["SupportedResource"].([]any)
		for _, st := range z.Stock {
			row := clone(supported[0].(map[string]any))
			row["Value"] = st.Type
			row["Status"] = st.Status
			row["StatusCategory"] = st.Category
			supported = append(supported, row)
		}
		Path(resource, "SupportedResources")["SupportedResource"] = supported
		Path(zone, "AvailableResources")["AvailableResource"] = []any{resource}
		out = append(out, zone)
	}
	Path(s, "AvailableZones")["AvailableZone"] = out
	return 200, s, nil
}

func (w *World) price(t testing.TB, q url.Values) (int, any, error) {
	if q.Get("ResourceType") != "instance" || q.Get("ZoneId") != "" {
		t.Errorf("alibabatest: DescribePrice asked with ResourceType %q ZoneId %q", q.Get("ResourceType"), q.Get("ZoneId"))
	}
	key := PriceKey(q.Get("RegionId"), q.Get("InstanceType"), q.Get("PriceUnit"), q.Get("Period"))
	p, ok := w.Prices[key]
	if !ok {
		t.Errorf("alibabatest: no quote for %s", key)
		return 400, APIError{"InvalidParameter", "no quote for " + key}, nil
	}
	if p.Code != "" {
		status := p.Status
		if status == 0 {
			status = 400
		}
		return status, APIError{p.Code, p.Message}, nil
	}
	s, err := sample("DescribePrice.response.json")
	if err != nil {
		return 0, nil, err
	}
	price := Path(s, "PriceInfo", "Price")
	price["Currency"] = p.Currency
	price["OriginalPrice"] = number(p.Original, p.AsStrings)
	price["DiscountPrice"] = number(p.Discount, p.AsStrings)
	price["TradePrice"] = number(p.Trade, p.AsStrings)
	if p.Detail != nil {
		line := map[string]any{
			"Resource":      "instanceType",
			"OriginalPrice": number(p.Detail[0], p.AsStrings),
			"DiscountPrice": number(p.Detail[1], p.AsStrings),
		}
		if p.Detail[2] != "" {
			line["TradePrice"] = number(p.Detail[2], p.AsStrings)
		}
		price["DetailInfos"] = map[string]any{"DetailInfo": []any{line}}
	}
	return 200, s, nil
}

func (w *World) spotHistory(q url.Values) (int, any, error) {
	for _, p := range []string{"InstanceType", "NetworkType", "ZoneId"} {
		if q.Get(p) == "" {
			return 400, APIError{"MissingParameter", "The input parameter \"" + p + "\" that is mandatory for processing this request is not supplied."}, nil
		}
	}
	rows := w.Spots[SpotKey(q.Get("RegionId"), q.Get("ZoneId"), q.Get("InstanceType"))]
	offset, _ := strconv.Atoi(q.Get("Offset"))
	step := 1000
	if w.SpotPage > 0 {
		step = w.SpotPage
	}
	if offset > len(rows) {
		offset = len(rows)
	}
	end := min(offset+step, len(rows))
	s, err := sample("DescribeSpotPriceHistory.response.json")
	if err != nil {
		return 0, nil, err
	}
	var out []any
	for _, r := range rows[offset:end] {
		row := First(s, "SpotPrices", "SpotPriceType")
		row["ZoneId"] = r.Zone
		row["InstanceType"] = r.Type
		row["NetworkType"] = "vpc"
		row["IoOptimized"] = "optimized"
		row["Timestamp"] = r.Timestamp
		row["SpotPrice"] = number(r.Spot, r.AsStrings)
		row["OriginPrice"] = number(r.Origin, r.AsStrings)
		out = append(out, row)
	}
	Path(s, "SpotPrices")["SpotPriceType"] = out
	s["RequestId"] = "B8A5E3D1-0000-4000-8000-000000000002"
	s["NextOffset"] = json.Number(strconv.Itoa(offset + step))
	if w.SpotCurrency != "" {
		s["Currency"] = w.SpotCurrency
	}
	return 200, s, nil
}
