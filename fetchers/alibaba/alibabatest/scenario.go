package alibabatest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LoadScenario reads a World from a directory of complete ECS responses, in
// exactly the format ECS answers them:
//
//	DescribeInstanceTypes.json             the first page; DescribeInstanceTypes.2.json … follow its NextToken
//	<region>/DescribeAvailableResource.json
//	<region>/DescribePrice/<InstanceType>_<PriceUnit>_<Period>.json   a quote, or an error answer
//	<region>/DescribeSpotPriceHistory/<ZoneId>_<InstanceType>.json
//
// Every file is then answered back by the fake and compared with what was
// read: a file with a field or value the fake would not serve as written
// fails the test, so what the fetcher gets is exactly the file.
func LoadScenario(t testing.TB, dir string) *World {
	t.Helper()
	if err := loadSamples(); err != nil {
		t.Fatalf("alibabatest: %v", err)
	}
	w, files, err := readScenario(dir)
	if err != nil {
		t.Fatalf("alibabatest: scenario %s: %v", dir, err)
	}
	for _, f := range files {
		if err := w.replays(t, f); err != nil {
			t.Fatalf("alibabatest: scenario %s: %s: %v", dir, f.name, err)
		}
	}
	return w
}

// scenarioFile is one response read, with the request that gets it.
type scenarioFile struct {
	name   string
	action string
	query  url.Values
	body   map[string]any
}

// readParsed reads the scenario file name with read and parses its body;
// a parse error names the file.
func readParsed[T any](read func(name string) (map[string]any, error), name string, parse func(map[string]any) (T, error)) (map[string]any, T, error) {
	var zero T
	body, err := read(name)
	if err != nil {
		return nil, zero, err
	}
	v, err := parse(body)
	if err != nil {
		return nil, zero, fmt.Errorf("%s: %w", name, err)
	}
	return body, v, nil
}

func readScenario(dir string) (*World, []scenarioFile, error) {
	w := &World{Zones: map[string][]Zone{}, Prices: map[string]Price{}, Spots: map[string][]SpotRow{}}
	var files []scenarioFile
	read := func(name string) (map[string]any, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		v, err := decode(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return v, nil
	}

	// Instance types, page by page.
	token := ""
	for page := 1; ; page++ {
		name := "DescribeInstanceTypes.json"
		if page > 1 {
			name = fmt.Sprintf("DescribeInstanceTypes.%d.json", page)
		}
		body, rows, err := readParsed(read, name, func(body map[string]any) ([]map[string]any, error) {
			return list(body, "InstanceTypes", "InstanceType")
		})
		if err != nil {
			return nil, nil, err
		}
		var types []InstanceType
		for _, r := range rows {
			it, err := parseInstanceType(r)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			types = append(types, it)
		}
		q := url.Values{}
		if token != "" {
			q.Set("NextToken", token)
		}
		files = append(files, scenarioFile{name, "DescribeInstanceTypes", q, body})
		w.TypePages = append(w.TypePages, types)
		token, _ = body["NextToken"].(string)
		w.Tokens = append(w.Tokens, token)
		if token == "" {
			break
		}
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		region := e.Name()
		name := filepath.Join(region, "DescribeAvailableResource.json")
		body, zones, err := readParsed(read, name, func(body map[string]any) ([]Zone, error) { return parseZones(body, region) })
		if err != nil {
			return nil, nil, err
		}
		w.Zones[region] = zones
		files = append(files, scenarioFile{name, "DescribeAvailableResource", url.Values{"RegionId": {region}, "DestinationResource": {"InstanceType"}}, body})

		quotes, _ := filepath.Glob(filepath.Join(dir, region, "DescribePrice", "*.json"))
		for _, path := range quotes {
			base := strings.TrimSuffix(filepath.Base(path), ".json")
			parts := strings.Split(base, "_")
			if len(parts) != 3 {
				return nil, nil, fmt.Errorf("%s: want <InstanceType>_<PriceUnit>_<Period>.json", path)
			}
			name := filepath.Join(region, "DescribePrice", filepath.Base(path))
			body, p, err := readParsed(read, name, parsePrice)
			if err != nil {
				return nil, nil, err
			}
			w.Prices[PriceKey(region, parts[0], parts[1], parts[2])] = p
			files = append(files, scenarioFile{name, "DescribePrice", url.Values{"RegionId": {region}, "ResourceType": {"instance"},
				"InstanceType": {parts[0]}, "PriceUnit": {parts[1]}, "Period": {parts[2]}}, body})
		}

		histories, _ := filepath.Glob(filepath.Join(dir, region, "DescribeSpotPriceHistory", "*.json"))
		for _, path := range histories {
			zone, typ, ok := strings.Cut(strings.TrimSuffix(filepath.Base(path), ".json"), "_")
			if !ok {
				return nil, nil, fmt.Errorf("%s: want <ZoneId>_<InstanceType>.json", path)
			}
			name := filepath.Join(region, "DescribeSpotPriceHistory", filepath.Base(path))
			body, rows, err := readParsed(read, name, parseSpots)
			if err != nil {
				return nil, nil, err
			}
			if cur, ok := body["Currency"].(string); ok {
				if w.SpotCurrency != "" && w.SpotCurrency != cur {
					return nil, nil, fmt.Errorf("%s: Currency %s, another history says %s", name, cur, w.SpotCurrency)
				}
				w.SpotCurrency = cur
			}
			w.Spots[SpotKey(region, zone, typ)] = rows
			files = append(files, scenarioFile{name, "DescribeSpotPriceHistory", url.Values{"RegionId": {region}, "ZoneId": {zone},
				"InstanceType": {typ}, "NetworkType": {"vpc"}}, body})
		}
	}
	return w, files, nil
}

// replays checks that the fake answers f's request with f's body.
func (w *World) replays(t testing.TB, f scenarioFile) error {
	status, got := w.answer(t, f.action, f.query)
	if e, ok := got.(APIError); ok {
		want, err := sample("error.response.json")
		if err != nil {
			return err
		}
		if strings.Join(Keys(f.body), ",") != strings.Join(Keys(want), ",") {
			return fmt.Errorf("error answer fields %v, want the error shape %v", Keys(f.body), Keys(want))
		}
		if f.body["Code"] != e.Code || f.body["Message"] != e.Message {
			return fmt.Errorf("would answer %d %s", status, e.Code)
		}
		return nil
	}
	if status != 200 {
		return fmt.Errorf("would answer HTTP %d", status)
	}
	wantBody := clone(f.body)
	gotBody, ok := got.(map[string]any)
	if !ok {
		return fmt.Errorf("would answer %T", got)
	}
	gotBody = clone(gotBody)
	delete(wantBody, "RequestId")
	delete(gotBody, "RequestId")
	a, err := json.Marshal(gotBody)
	if err != nil {
		return err
	}
	b, err := json.Marshal(wantBody)
	if err != nil {
		return err
	}
	if !bytes.Equal(a, b) {
		return fmt.Errorf("is not served as written (is it a copy of the sample with values changed?)\nfake: %s\nfile: %s", a, b)
	}
	return nil
}

func list(body map[string]any, keys ...string) ([]map[string]any, error) {
	var v any = body
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("no %s", strings.Join(keys, "."))
		}
		v = m[k]
	}
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is not a list", strings.Join(keys, "."))
	}
	var out []map[string]any
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s holds a non-object", strings.Join(keys, "."))
		}
		out = append(out, m)
	}
	return out, nil
}

// numbers reads numeric fields as text, and whether they were sent as
// strings (all of them must agree).
func numbers(m map[string]any, keys ...string) ([]string, bool, error) {
	var out []string
	kinds := map[bool]bool{}
	for _, k := range keys {
		switch v := m[k].(type) {
		case json.Number:
			out = append(out, v.String())
			kinds[false] = true
		case string:
			out = append(out, v)
			kinds[true] = true
		default:
			return nil, false, fmt.Errorf("%s is %T, want a number", k, m[k])
		}
	}
	if len(kinds) > 1 {
		return nil, false, fmt.Errorf("%v mix numbers and strings", keys)
	}
	return out, kinds[true], nil
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func parseInstanceType(r map[string]any) (InstanceType, error) {
	id := str(r, "InstanceTypeId")
	if id == publishedTypeRow {
		return InstanceType{ID: id}, nil
	}
	n, asStrings, err := numbers(r, "GPUAmount", "GPUMemorySize", "CpuCoreCount", "MemorySize", "LocalStorageAmount", "LocalStorageCapacity")
	if err != nil {
		return InstanceType{}, fmt.Errorf("%s: %w", id, err)
	}
	it := InstanceType{ID: id, Family: str(r, "InstanceTypeFamily"), Spec: str(r, "GPUSpec"),
		GPUs: n[0], GPUMem: n[1], CPU: n[2], Mem: n[3], Category: str(r, "InstanceCategory"), AsStrings: asStrings}
	// A type without local disks is served 0, 0 and ""; any other value
	// is the scenario's.
	if n[4] != "0" || n[5] != "0" || str(r, "LocalStorageCategory") != "" {
		it.LocalDisks, it.LocalDiskGiB, it.LocalDiskCategory = n[4], n[5], str(r, "LocalStorageCategory")
	}
	return it, nil
}

func parseZones(body map[string]any, region string) ([]Zone, error) {
	zones, err := list(body, "AvailableZones", "AvailableZone")
	if err != nil {
		return nil, err
	}
	var out []Zone
	for _, z := range zones {
		if str(z, "RegionId") != region {
			return nil, fmt.Errorf("zone %s is in %q, not %s", str(z, "ZoneId"), str(z, "RegionId"), region)
		}
		zone := Zone{ID: str(z, "ZoneId"), Status: str(z, "Status"), Category: str(z, "StatusCategory")}
		resources, err := list(z, "AvailableResources", "AvailableResource")
		if err != nil || len(resources) != 1 {
			return nil, fmt.Errorf("zone %s: want one AvailableResource (%v)", zone.ID, err)
		}
		lines, err := list(resources[0], "SupportedResources", "SupportedResource")
		if err != nil || len(lines) == 0 {
			return nil, fmt.Errorf("zone %s: want the published line first (%v)", zone.ID, err)
		}
		// lines[0] is the published example's line; replays checks it.
		for _, l := range lines[1:] {
			zone.Stock = append(zone.Stock, Stock{Type: str(l, "Value"), Status: str(l, "Status"), Category: str(l, "StatusCategory")})
		}
		out = append(out, zone)
	}
	return out, nil
}

func parsePrice(body map[string]any) (Price, error) {
	if code := str(body, "Code"); code != "" {
		return Price{Code: code, Message: str(body, "Message")}, nil
	}
	info, ok := body["PriceInfo"].(map[string]any)
	if !ok {
		return Price{}, fmt.Errorf("no PriceInfo")
	}
	p, ok := info["Price"].(map[string]any)
	if !ok {
		return Price{}, fmt.Errorf("no PriceInfo.Price")
	}
	n, asStrings, err := numbers(p, "OriginalPrice", "DiscountPrice", "TradePrice")
	if err != nil {
		return Price{}, err
	}
	out := Price{Currency: str(p, "Currency"), Original: n[0], Discount: n[1], Trade: n[2], AsStrings: asStrings}
	if _, ok := p["DetailInfos"]; ok {
		lines, err := list(p, "DetailInfos", "DetailInfo")
		if err != nil || len(lines) != 1 || str(lines[0], "Resource") != "instanceType" {
			return Price{}, fmt.Errorf("the fake serves DetailInfos with one instanceType line (%v)", err)
		}
		keys := []string{"OriginalPrice", "DiscountPrice"}
		if _, ok := lines[0]["TradePrice"]; ok {
			keys = append(keys, "TradePrice")
		}
		d, _, err := numbers(lines[0], keys...)
		if err != nil {
			return Price{}, err
		}
		if len(d) == 2 {
			d = append(d, "") // no TradePrice on the line
		}
		out.Detail = d
	}
	return out, nil
}

func parseSpots(body map[string]any) ([]SpotRow, error) {
	rows, err := list(body, "SpotPrices", "SpotPriceType")
	if err != nil {
		return nil, err
	}
	var out []SpotRow
	for _, r := range rows {
		n, asStrings, err := numbers(r, "SpotPrice", "OriginPrice")
		if err != nil {
			return nil, err
		}
		out = append(out, SpotRow{Zone: str(r, "ZoneId"), Type: str(r, "InstanceType"), Timestamp: str(r, "Timestamp"),
			Spot: n[0], Origin: n[1], AsStrings: asStrings})
	}
	return out, nil
}

// WriteScenario writes w as LoadScenario reads it: every answer the fake
// would give, as a file. It is how a scenario directory is first made from
// a World written in Go; after that the files are the test data.
func WriteScenario(t testing.TB, dir string, w *World) {
	t.Helper()
	if err := loadSamples(); err != nil {
		t.Fatalf("alibabatest: %v", err)
	}
	write := func(name string, body any) {
		t.Helper()
		b, err := json.MarshalIndent(body, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(action string, q url.Values) any {
		t.Helper()
		status, body := w.answer(t, action, q)
		if e, ok := body.(APIError); ok {
			errBody, err := sample("error.response.json")
			if err != nil {
				t.Fatal(err)
			}
			errBody["Code"], errBody["Message"] = e.Code, e.Message
			return errBody
		}
		if status != 200 {
			t.Fatalf("alibabatest: %s %v answers HTTP %d", action, q, status)
		}
		return body
	}
	for i := range w.TypePages {
		q := url.Values{}
		name := "DescribeInstanceTypes.json"
		if i > 0 {
			q.Set("NextToken", w.Tokens[i-1])
			name = fmt.Sprintf("DescribeInstanceTypes.%d.json", i+1)
		}
		write(name, answer("DescribeInstanceTypes", q))
	}
	for region := range w.Zones {
		write(filepath.Join(region, "DescribeAvailableResource.json"),
			answer("DescribeAvailableResource", url.Values{"RegionId": {region}, "DestinationResource": {"InstanceType"}}))
	}
	for key := range w.Prices {
		k := strings.Split(key, "|")
		write(filepath.Join(k[0], "DescribePrice", k[1]+"_"+k[2]+"_"+k[3]+".json"),
			answer("DescribePrice", url.Values{"RegionId": {k[0]}, "ResourceType": {"instance"}, "InstanceType": {k[1]}, "PriceUnit": {k[2]}, "Period": {k[3]}}))
	}
	for key := range w.Spots {
		k := strings.Split(key, "|")
		write(filepath.Join(k[0], "DescribeSpotPriceHistory", k[1]+"_"+k[2]+".json"),
			answer("DescribeSpotPriceHistory", url.Values{"RegionId": {k[0]}, "ZoneId": {k[1]}, "InstanceType": {k[2]}, "NetworkType": {"vpc"}}))
	}
}
