package pricewatch

import (
	"encoding/json"
	"testing"
)

// TestOfferKeyJSON: a row embedding the key carries the nine vocabulary
// names in one order at the embed's place, and the key reads back whole.
func TestOfferKeyJSON(t *testing.T) {
	keys := []OfferKey{
		{Provider: "aws", Region: "us-east-1", Zone: "us-east-1a", InstanceType: "p5.48xlarge", PriceType: Reserved,
			Term: "1y", Payment: PartialUpfront, OfferingClass: Convertible, OS: "windows"},
		{Provider: "azure", Region: "eastus", InstanceType: "Standard_ND96isr_H100_v5", PriceType: OnDemand, OS: "linux"},
		{},
	}
	for _, k := range keys {
		if got := k.JSON().Key(); got != k {
			t.Errorf("%v read back as %v", k, got)
		}
		if got, want := k.JSON().HowBought(), k.HowBought(); got != want {
			t.Errorf("%v: HowBought %q, the key's %q", k, got, want)
		}
	}
	row := struct {
		Rank int `json:"rank"`
		OfferKeyJSON
		GPUModel string `json:"gpu_model"`
	}{Rank: 1, OfferKeyJSON: keys[0].JSON(), GPUModel: "H100"}
	got, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"rank":1,"provider":"aws","region":"us-east-1","zone":"us-east-1a","instance_type":"p5.48xlarge",` +
		`"price_type":"reserved","term":"1y","payment":"partial_upfront","offering_class":"convertible","os":"windows","gpu_model":"H100"}`
	if string(got) != want {
		t.Errorf("row JSON\n got %s\nwant %s", got, want)
	}
}

// TestOfferKeyStoredForm: OfferKey keeps its Go-named JSON form, which
// queued digest documents hold (chart_keys); a document queued by an
// earlier build still decodes.
func TestOfferKeyStoredForm(t *testing.T) {
	queued := `{"Provider":"aws","Region":"us-east-1","Zone":"","InstanceType":"p5.48xlarge","PriceType":"savings_plan",` +
		`"Term":"3y","Payment":"no_upfront","OfferingClass":"compute","OS":"linux"}`
	var k OfferKey
	if err := json.Unmarshal([]byte(queued), &k); err != nil {
		t.Fatal(err)
	}
	want := OfferKey{Provider: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", PriceType: SavingsPlan,
		Term: "3y", Payment: NoUpfront, OfferingClass: ComputeSavingsPlan, OS: "linux"}
	if k != want {
		t.Errorf("decoded %+v, want %+v", k, want)
	}
	again, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != queued {
		t.Errorf("OfferKey's JSON form changed (queued documents would not decode):\n got %s\nwant %s", again, queued)
	}
}
