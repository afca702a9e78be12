package digest

import (
	"testing"

	"github.com/shopspring/decimal"
)

// TestMoveShown: a move reads per GPU-hour when both ends have a GPU
// count, else as the whole instance's price, never mixing the two.
func TestMoveShown(t *testing.T) {
	d := decimal.RequireFromString
	perGPU := Move{From: d("98.32"), To: d("88.488"),
		FromPerGPU: decimal.NewNullDecimal(d("12.29")), ToPerGPU: decimal.NewNullDecimal(d("11.061"))}
	if from, to := perGPU.Shown(); !from.Equal(d("12.29")) || !to.Equal(d("11.061")) {
		t.Errorf("per GPU: %s → %s", from, to)
	}
	oneEnd := perGPU
	oneEnd.FromPerGPU = decimal.NullDecimal{}
	if from, to := oneEnd.Shown(); !from.Equal(d("98.32")) || !to.Equal(d("88.488")) {
		t.Errorf("one end without a GPU count: %s → %s, want the instance's prices", from, to)
	}
}
