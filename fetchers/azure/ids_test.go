package azure

import (
	"testing"

	"github.com/pricewatch/pricewatch"
)

// TestCloudIDsFromRealRows: every offer keeps the identifiers of the row it
// came from (verbatim B16als v2 rows): its skuId, its meterId (the meter
// bills carry), its productId and the region's display name. Savings-plan
// prices, which come inside the consumption row, share that row's ids; a
// reservation row has a skuId of its own on the same meter.
func TestCloudIDsFromRealRows(t *testing.T) {
	b := readItems(t, "retail-prices-B16als_v2-australiacentral-items.json")
	consumption := pricewatch.CloudIDs{SkuID: "DZH318Z0K9JH/00QW", SkuPriceID: "25385797-d48b-5b47-9e0c-6ee37b6b9a8d", ProductID: "DZH318Z0K9JH", RegionName: "AU Central"}
	reservation := consumption
	reservation.SkuID = "DZH318Z0K9JH/03RM"
	tests := []struct {
		it    item
		count int
		want  pricewatch.CloudIDs
	}{
		{b[1], 3, consumption}, // on-demand and two savings-plan terms
		{b[2], 1, reservation},
	}
	for _, tt := range tests {
		offers := mapOne(t, tt.it, b16als)
		if len(offers) != tt.count {
			t.Fatalf("%d offers, want %d", len(offers), tt.count)
		}
		for _, o := range offers {
			if o.CloudIDs != tt.want {
				t.Errorf("%s: ids %+v, want %+v", o.Key(), o.CloudIDs, tt.want)
			}
		}
	}
}
