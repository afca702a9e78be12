package alibaba

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// num is a number as ECS sends it: usually a JSON number, sometimes a
// string ("0.4200"). The text is kept as given so that a price is read into
// a decimal exactly, never through a float.
type num struct {
	text string
	set  bool
}

func (n *num) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		*n = num{}
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
		*n = num{text: s, set: s != ""}
		return nil
	}
	var probe json.Number
	if err := json.Unmarshal(b, &probe); err != nil {
		return fmt.Errorf("want a number, got %s", b)
	}
	*n = num{text: string(b), set: true}
	return nil
}

// price reads the number as an exact decimal; a missing value is an error,
// never zero.
func (n num) price(field string) (decimal.Decimal, error) {
	if !n.set {
		return decimal.Decimal{}, fmt.Errorf("%s is missing", field)
	}
	d, err := pricewatch.ParsePrice(n.text)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%s: %w", field, err)
	}
	return d, nil
}

// float reads a non-price quantity (GiB, GPU count); zero when missing.
func (n num) float() (float64, error) {
	if !n.set {
		return 0, nil
	}
	return strconv.ParseFloat(n.text, 64)
}

func (n num) int() (int, error) {
	f, err := n.float()
	if err != nil {
		return 0, err
	}
	if f != float64(int(f)) {
		return 0, fmt.Errorf("%s is not a whole number", n.text)
	}
	return int(f), nil
}

func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return err
	}
	// A second value (or junk) after the object means the body is not
	// what we think it is.
	if dec.More() {
		return fmt.Errorf("unexpected data after the JSON object")
	}
	return nil
}

// DescribeInstanceTypes (only the fields pricewatch reads).
type instanceTypesResponse struct {
	RequestID     string `json:"RequestId"`
	NextToken     string `json:"NextToken"`
	InstanceTypes *struct {
		InstanceType []instanceTypeJSON `json:"InstanceType"`
	} `json:"InstanceTypes"`
}

type instanceTypeJSON struct {
	InstanceTypeID     string `json:"InstanceTypeId"`
	InstanceTypeFamily string `json:"InstanceTypeFamily"`
	CPUCoreCount       num    `json:"CpuCoreCount"`
	MemorySize         num    `json:"MemorySize"`    // GiB
	GPUAmount          num    `json:"GPUAmount"`     // GPUs per instance
	GPUSpec            string `json:"GPUSpec"`       // "NVIDIA A10"
	GPUMemorySize      num    `json:"GPUMemorySize"` // GiB per GPU
	// Local disks: how many, GiB each, and their kind (local_ssd_pro,
	// local_hdd_pro, local_nvme…); absent or 0 on types without any.
	LocalStorageAmount   num    `json:"LocalStorageAmount"`
	LocalStorageCapacity num    `json:"LocalStorageCapacity"`
	LocalStorageCategory string `json:"LocalStorageCategory"`
}

// DescribeAvailableResource with DestinationResource=InstanceType. The
// doubled wrappers (AvailableZones.AvailableZone) are the JSON rendering of
// the XML original.
type availableResourceResponse struct {
	RequestID      string `json:"RequestId"`
	AvailableZones *struct {
		AvailableZone []struct {
			ZoneID             string `json:"ZoneId"`
			RegionID           string `json:"RegionId"`
			Status             string `json:"Status"`
			StatusCategory     string `json:"StatusCategory"`
			AvailableResources struct {
				AvailableResource []struct {
					Type               string `json:"Type"`
					SupportedResources struct {
						SupportedResource []struct {
							Value          string `json:"Value"`
							Status         string `json:"Status"`
							StatusCategory string `json:"StatusCategory"`
						} `json:"SupportedResource"`
					} `json:"SupportedResources"`
				} `json:"AvailableResource"`
			} `json:"AvailableResources"`
		} `json:"AvailableZone"`
	} `json:"AvailableZones"`
}

// DescribePrice. DiscountPrice is the amount taken off, not a price;
// TradePrice (= OriginalPrice − DiscountPrice) is what is paid.
type priceResponse struct {
	RequestID string `json:"RequestId"`
	PriceInfo *struct {
		Price *struct {
			Currency      string `json:"Currency"`
			OriginalPrice num    `json:"OriginalPrice"`
			DiscountPrice num    `json:"DiscountPrice"`
			TradePrice    num    `json:"TradePrice"`
			DetailInfos   struct {
				DetailInfo []struct {
					Resource      string `json:"Resource"`
					OriginalPrice num    `json:"OriginalPrice"`
					DiscountPrice num    `json:"DiscountPrice"`
					TradePrice    num    `json:"TradePrice"`
				} `json:"DetailInfo"`
			} `json:"DetailInfos"`
		} `json:"Price"`
	} `json:"PriceInfo"`
}

// tradePrice is the price paid for the instance itself.
//
// The top-level TradePrice covers everything the quote priced: the
// instance plus the default system disk (and bandwidth, image) that
// DescribePrice adds when they are not specified. When the response breaks
// the total down (DetailInfos, returned for ResourceType=instance), the
// instanceType line is the GPU instance's own price and is what pricewatch
// compares; otherwise the total is all there is.
func (r *priceResponse) tradePrice() (price decimal.Decimal, currency string, err error) {
	if r.PriceInfo == nil || r.PriceInfo.Price == nil {
		return decimal.Decimal{}, "", fmt.Errorf("no PriceInfo.Price")
	}
	p := r.PriceInfo.Price
	currency = strings.TrimSpace(p.Currency)
	if currency == "" {
		return decimal.Decimal{}, "", fmt.Errorf("no Currency")
	}
	for _, d := range p.DetailInfos.DetailInfo {
		if !strings.EqualFold(d.Resource, "instanceType") {
			continue
		}
		if d.TradePrice.set {
			price, err = d.TradePrice.price("DetailInfo[instanceType].TradePrice")
			return price, currency, err
		}
		// The documented identity, for responses that leave the line's
		// TradePrice out.
		orig, err := d.OriginalPrice.price("DetailInfo[instanceType].OriginalPrice")
		if err != nil {
			return decimal.Decimal{}, "", err
		}
		disc := decimal.Zero
		if d.DiscountPrice.set {
			if disc, err = d.DiscountPrice.price("DetailInfo[instanceType].DiscountPrice"); err != nil {
				return decimal.Decimal{}, "", err
			}
		}
		if disc.GreaterThan(orig) {
			return decimal.Decimal{}, "", fmt.Errorf("instanceType discount %s exceeds its price %s", disc, orig)
		}
		return orig.Sub(disc), currency, nil
	}
	price, err = p.TradePrice.price("TradePrice")
	return price, currency, err
}

// DescribeSpotPriceHistory.
type spotHistoryResponse struct {
	RequestID  string `json:"RequestId"`
	Currency   string `json:"Currency"`
	NextOffset num    `json:"NextOffset"`
	SpotPrices *struct {
		SpotPriceType []spotPriceJSON `json:"SpotPriceType"`
	} `json:"SpotPrices"`
}

type spotPriceJSON struct {
	ZoneID       string `json:"ZoneId"`
	InstanceType string `json:"InstanceType"`
	IoOptimized  string `json:"IoOptimized"`
	NetworkType  string `json:"NetworkType"`
	Timestamp    string `json:"Timestamp"`
	OriginPrice  num    `json:"OriginPrice"`
	SpotPrice    num    `json:"SpotPrice"`
}

// DescribeRegions, used when no regions are configured.
type regionsResponse struct {
	RequestID string `json:"RequestId"`
	Regions   *struct {
		Region []struct {
			RegionID string `json:"RegionId"`
		} `json:"Region"`
	} `json:"Regions"`
}
