package aws

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pricewatch/pricewatch"
	"github.com/shopspring/decimal"
)

// spotFeed is the public feed behind aws.amazon.com/ec2/spot/pricing
// (spot.json): one price per region and instance type, per operating
// system column.
type spotFeed struct {
	Config struct {
		Regions []struct {
			Region        string `json:"region"`
			InstanceTypes []struct {
				Type  string `json:"type"`
				Sizes []struct {
					Size         string `json:"size"`
					ValueColumns []struct {
						Name   string            `json:"name"`
						Prices map[string]string `json:"prices"`
					} `json:"valueColumns"`
				} `json:"sizes"`
			} `json:"instanceTypes"`
		} `json:"regions"`
	} `json:"config"`
}

// legacySpotRegions are the names the old spot.js feed used; spot.json uses
// region codes, but a mirror of the old feed may be configured.
var legacySpotRegions = map[string]string{
	"us-east":    "us-east-1",
	"us-west":    "us-west-1",
	"eu-ireland": "eu-west-1",
	"apac-sin":   "ap-southeast-1",
	"apac-syd":   "ap-southeast-2",
	"apac-tokyo": "ap-northeast-1",
}

type spotPrice struct {
	InstanceType string
	Currency     string
	Price        decimal.Decimal
}

// parseSpotFeed reads the Linux column of the feed, by region. "N/A*" (and
// any other "N/A") means no price, never zero; "9.0E-4" is a price. The
// JSONP wrapper of the legacy feed ("callback(…);") is stripped.
func parseSpotFeed(body []byte) (map[string][]spotPrice, error) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] != '{' {
		open, close := bytes.IndexByte(body, '('), bytes.LastIndexByte(body, ')')
		if open < 0 || close < open {
			return nil, fmt.Errorf("%w: spot feed is neither JSON nor a callback(...) wrapper", errLayout)
		}
		body = body[open+1 : close]
	}
	var feed spotFeed
	if err := json.Unmarshal(body, &feed); err != nil {
		return nil, fmt.Errorf("spot feed: %w", err)
	}
	if len(feed.Config.Regions) == 0 {
		return nil, fmt.Errorf("%w: spot feed lists no regions", errLayout)
	}
	out := map[string][]spotPrice{}
	for _, r := range feed.Config.Regions {
		region := r.Region
		if alias, ok := legacySpotRegions[region]; ok {
			region = alias
		}
		prices := out[region]
		for _, cat := range r.InstanceTypes {
			for _, size := range cat.Sizes {
				for _, col := range size.ValueColumns {
					if col.Name != "linux" {
						continue
					}
					for ccy, v := range col.Prices {
						if strings.HasPrefix(strings.TrimSpace(v), "N/A") {
							continue
						}
						p, err := pricewatch.ParsePrice(v)
						if err != nil {
							return nil, fmt.Errorf("spot feed %s %s: %w", region, size.Size, err)
						}
						if p.IsZero() {
							continue
						}
						prices = append(prices, spotPrice{InstanceType: size.Size, Currency: ccy, Price: p})
					}
				}
			}
		}
		out[region] = prices
	}
	return out, nil
}
