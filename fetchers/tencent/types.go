package tencent

// Request and response bodies of the CVM 2017-03-12 actions pricewatch
// calls, with only the fields it reads (and Discount, which older responses
// send as a string and which must not break decoding). Field names are CVM's own; every
// numeric field is a number so that strings and nulls decode too.

type filter struct {
	Name   string
	Values []string
}

// Charge types as CVM spells them.
const (
	postpaidByHour = "POSTPAID_BY_HOUR"
	spotPaid       = "SPOTPAID"
	prepaid        = "PREPAID"
)

// chargeTypes are fetched in this order; it is also the order of preference
// for the stock detail shown when a type's charge types disagree.
var chargeTypes = []string{postpaidByHour, prepaid, spotPaid}

type zoneConfigsRequest struct {
	Filters []filter
}

type zoneConfigsResponse struct {
	// A pointer tells a missing list (malformed) from an empty one.
	InstanceTypeQuotaSet *[]quotaItem
}

// quotaItem is CVM's InstanceTypeQuotaItem.
type quotaItem struct {
	Zone               string
	InstanceType       string
	InstanceChargeType string
	InstanceFamily     string
	Status             string // SELL or SOLD_OUT
	StatusCategory     string // EnoughStock, NormalStock, UnderStock, WithoutStock
	SoldOutReason      string
	Cpu                number
	Memory             number // GB
	Gpu                number
	GpuCount           number // physical GPUs; below 1 for a vGPU slice
	Price              itemPrice
}

// itemPrice is CVM's ItemPrice. Amounts are in the account's currency
// (元 on the China site).
type itemPrice struct {
	// Hourly (POSTPAID_BY_HOUR, SPOTPAID) rows. UnitPrice is the list
	// price, UnitPriceDiscount what the account pays (the API reference:
	// 原价 and 折扣价). Where step prices are returned, both are the first
	// 96 hours' price. For SPOTPAID, UnitPrice is the on-demand list price,
	// never a spot price.
	UnitPrice         number
	UnitPriceDiscount number
	ChargeUnit        string
	// Prepaid rows: DiscountPrice is the price of one month; the one- and
	// three-year totals are filled for some types and 0 or null for others.
	DiscountPrice          number
	Discount               number // 20.0 = 20% of list price
	DiscountPriceOneYear   number
	DiscountPriceThreeYear number
}

type instanceChargePrepaid struct {
	Period    int // months
	RenewFlag string
}

type placement struct {
	Zone string
}

type inquiryRequest struct {
	Placement             placement
	ImageId               string
	InstanceChargeType    string
	InstanceChargePrepaid *instanceChargePrepaid `json:",omitempty"`
	InstanceType          string
	InstanceCount         int
}

type inquiryResponse struct {
	Price *struct {
		InstancePrice *itemPrice
	}
}

type describeImagesRequest struct {
	Filters []filter
	Limit   int
}

type describeImagesResponse struct {
	ImageSet *[]struct {
		ImageId      string
		OsName       string
		ImageState   string
		Platform     string
		Architecture string
	}
}

type describeRegionsResponse struct {
	RegionSet *[]struct {
		Region      string
		RegionState string
	}
}
