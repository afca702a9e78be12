package alibaba

import "github.com/pricewatch/pricewatch/fetchers/alibaba/alibabatest"

// The fake clouds the tests fetch from. Every response is built from a real
// sample in alibabatest/samples; the values below fill those formats.
// Hardware figures follow Alibaba's GPU family documentation as summarised
// in shared/research/cloud-apis.md; prices are made up, in the magnitudes
// the China and international sites charge, and chosen to catch float
// rounding (98765.43 is not a float32) and mix-ups between the price
// fields. testdata/README.md says the same.

const (
	gn7i = "ecs.gn7i-c8g1.2xlarge"
	gn6v = "ecs.gn6v-c8g1.2xlarge"
	gn7  = "ecs.gn7-c12g1.3xlarge"
	gn8v = "ecs.gn8v.4xlarge"
	gn6i = "ecs.gn6i-c4g1.xlarge"
)

// sampleNextToken is the NextToken of the published DescribeInstanceTypes
// example.
const sampleNextToken = "e71d8a535bd9cc11"

func gpuTypePages() ([][]alibabatest.InstanceType, []string) {
	return [][]alibabatest.InstanceType{
			{
				{ID: "ecs.g6.large"}, // the published example row: GPUAmount 0
				{ID: gn7i, Family: "ecs.gn7i", Spec: "NVIDIA A10", GPUs: "1", GPUMem: "24", CPU: "8", Mem: "30"},
				{ID: gn6v, Family: "ecs.gn6v", Spec: "NVIDIA V100", GPUs: "1", GPUMem: "16", CPU: "8", Mem: "32"},
			},
			{
				// Numbers as strings, as some ECS answers have them.
				{ID: gn7, Family: "ecs.gn7", Spec: "NVIDIA A100", GPUs: "1", GPUMem: "40", CPU: "12", Mem: "94", AsStrings: true},
				// GPUSpec empty: the model comes from the family table.
				{ID: gn8v, Family: "ecs.gn8v", Spec: "", GPUs: "1", GPUMem: "96", CPU: "16", Mem: "96"},
				{ID: gn6i, Family: "ecs.gn6i", Spec: "NVIDIA T4", GPUs: "1", GPUMem: "16", CPU: "4", Mem: "15"},
				// An FPGA and an NPU type: GPUAmount > 0 as for GPUs (the
				// real f3 and gp7 rows), but no GPU offers. The fake has no
				// price for them, so asking one would fail the run.
				{ID: "ecs.f3-c4f1.xlarge", Family: "ecs.f3", Spec: "Xilinx VU9p", GPUs: "1", GPUMem: "64", CPU: "4", Mem: "16"},
				{ID: "ecs.gp7-1x.4xlarge", Family: "ecs.gp7", Spec: "PPU 810", GPUs: "1", GPUMem: "96", CPU: "16", Mem: "128"},
			},
		},
		[]string{sampleNextToken, ""}
}

// hangzhouZones is cn-hangzhou's stock in the first run. gn7i is sold out in
// zone j; hangzhouZonesRestocked has it back.
func hangzhouZones(gn7iInJ string) []alibabatest.Zone {
	jCategory := "ClosedWithoutStock"
	if gn7iInJ == "Available" {
		jCategory = "WithStock"
	}
	return []alibabatest.Zone{
		{ID: "cn-hangzhou-i", Status: "Available", Category: "WithStock", Stock: []alibabatest.Stock{
			{Type: gn7i, Status: "Available", Category: "WithStock"},
			{Type: gn6v, Status: "SoldOut", Category: "WithoutStock"},
			{Type: gn7, Status: "Available", Category: "ClosedWithStock"},
			// In stock, but an FPGA: neither priced nor stored.
			{Type: "ecs.f3-c4f1.xlarge", Status: "Available", Category: "WithStock"},
		}},
		{ID: "cn-hangzhou-j", Status: "Available", Category: "WithStock", Stock: []alibabatest.Stock{
			{Type: gn7i, Status: gn7iInJ, Category: jCategory},
			{Type: gn8v, Status: "Available", Category: "WithStock"},
		}},
	}
}

func hangzhouPrices() map[string]alibabatest.Price {
	cny := func(orig, disc, trade string) alibabatest.Price {
		return alibabatest.Price{Currency: "CNY", Original: orig, Discount: disc, Trade: trade}
	}
	str := func(p alibabatest.Price) alibabatest.Price { p.AsStrings = true; return p }
	const r = "cn-hangzhou"
	return map[string]alibabatest.Price{
		alibabatest.PriceKey(r, gn7i, "Hour", "1"):  cny("12.58", "0", "12.58"),
		alibabatest.PriceKey(r, gn7i, "Month", "1"): cny("6320", "0", "6320"),
		alibabatest.PriceKey(r, gn7i, "Year", "1"):  cny("75840", "11376", "64464"),
		alibabatest.PriceKey(r, gn7i, "Year", "3"):  cny("227520", "113760", "113760"),

		alibabatest.PriceKey(r, gn6v, "Hour", "1"):  cny("26.46", "0", "26.46"),
		alibabatest.PriceKey(r, gn6v, "Month", "1"): cny("8611.2", "0", "8611.2"),
		// The published example verbatim: DiscountPrice 655.2 is the
		// discount, TradePrice 3712.8 the price.
		alibabatest.PriceKey(r, gn6v, "Year", "1"): cny("4368", "655.2", "3712.8"),
		// Not sold on a 3-year subscription.
		alibabatest.PriceKey(r, gn6v, "Year", "3"): {Status: 400, Code: "PriceNotFound", Message: "The price of your queried resource is not available now, please try other resources."},

		alibabatest.PriceKey(r, gn7, "Hour", "1"):  str(cny("34.7400", "0", "34.7400")),
		alibabatest.PriceKey(r, gn7, "Month", "1"): str(cny("26760.00", "0", "26760.00")),
		// The total includes the default system disk; the instanceType
		// line is the instance's own price.
		alibabatest.PriceKey(r, gn7, "Year", "1"): str(alibabatest.Price{Currency: "CNY", Original: "321269.07", Discount: "48168.00", Trade: "273101.07", Detail: []string{"321120.00", "48168.00", "272952.00"}}),
		// A line without its own TradePrice: original − discount.
		alibabatest.PriceKey(r, gn7, "Year", "3"): str(alibabatest.Price{Currency: "CNY", Original: "963807.21", Discount: "481680.00", Trade: "482127.21", Detail: []string{"963360.00", "481680.00", ""}}),

		alibabatest.PriceKey(r, gn8v, "Hour", "1"):  cny("57.32", "0", "57.32"),
		alibabatest.PriceKey(r, gn8v, "Month", "1"): cny("24000", "0", "24000"),
		alibabatest.PriceKey(r, gn8v, "Year", "1"):  cny("240000", "9600", "230400"),
		// 98765.43 as float32 is 98765.4296875.
		alibabatest.PriceKey(r, gn8v, "Year", "3"): cny("548736", "449970.57", "98765.43"),
	}
}

func hangzhouSpots() map[string][]alibabatest.SpotRow {
	return map[string][]alibabatest.SpotRow{
		alibabatest.SpotKey("cn-hangzhou", "cn-hangzhou-i", gn7i): {
			{Zone: "cn-hangzhou-i", Type: gn7i, Timestamp: "2026-11-30T08:00:00Z", Spot: "2.516", Origin: "12.58"},
			{Zone: "cn-hangzhou-i", Type: gn7i, Timestamp: "2026-11-30T10:00:00Z", Spot: "2.641", Origin: "12.58"},
			{Zone: "cn-hangzhou-i", Type: gn7i, Timestamp: "2026-11-30T09:00:00Z", Spot: "2.583", Origin: "12.58"},
		},
		alibabatest.SpotKey("cn-hangzhou", "cn-hangzhou-i", gn6v): {
			{Zone: "cn-hangzhou-i", Type: gn6v, Timestamp: "2026-11-30T10:00:00Z", Spot: "5.292", Origin: "26.46"},
		},
		alibabatest.SpotKey("cn-hangzhou", "cn-hangzhou-j", gn8v): {
			{Zone: "cn-hangzhou-j", Type: gn8v, Timestamp: "2026-11-30T10:00:00Z", Spot: "11.464", Origin: "57.32", AsStrings: true},
		},
	}
}

// hangzhouWorld is a China-site account (CNY) fetching cn-hangzhou.
func hangzhouWorld() *alibabatest.World {
	pages, tokens := gpuTypePages()
	return &alibabatest.World{
		TypePages: pages, Tokens: tokens,
		Zones:  map[string][]alibabatest.Zone{"cn-hangzhou": hangzhouZones("SoldOut")},
		Prices: hangzhouPrices(),
		Spots:  hangzhouSpots(),
	}
}

// singaporeWorld is an international-site account (USD) fetching
// ap-southeast-1; its spot answers name their currency.
func singaporeWorld() *alibabatest.World {
	pages, tokens := gpuTypePages()
	usd := func(orig, disc, trade string) alibabatest.Price {
		return alibabatest.Price{Currency: "USD", Original: orig, Discount: disc, Trade: trade}
	}
	const r = "ap-southeast-1"
	return &alibabatest.World{
		TypePages: pages, Tokens: tokens,
		Zones: map[string][]alibabatest.Zone{r: {
			{ID: "ap-southeast-1a", Status: "Available", Category: "WithStock", Stock: []alibabatest.Stock{{Type: gn6i, Status: "Available", Category: "WithStock"}}},
			{ID: "ap-southeast-1b", Status: "SoldOut", Category: "WithoutStock", Stock: []alibabatest.Stock{{Type: gn6i, Status: "Available", Category: "WithStock"}}},
		}},
		Prices: map[string]alibabatest.Price{
			alibabatest.PriceKey(r, gn6i, "Hour", "1"):  usd("1.143", "0", "1.143"),
			alibabatest.PriceKey(r, gn6i, "Month", "1"): usd("519.6", "0", "519.6"),
			alibabatest.PriceKey(r, gn6i, "Year", "1"):  usd("6235.2", "935.28", "5299.92"),
			alibabatest.PriceKey(r, gn6i, "Year", "3"):  usd("18705.6", "9352.8", "9352.8"),
		},
		Spots: map[string][]alibabatest.SpotRow{
			alibabatest.SpotKey(r, "ap-southeast-1a", gn6i): {{Zone: "ap-southeast-1a", Type: gn6i, Timestamp: "2026-11-30T10:00:00Z", Spot: "0.2286", Origin: "1.143"}},
		},
		SpotCurrency: "USD",
	}
}
