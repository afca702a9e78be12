package tencent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
)

// number is a numeric field decoded without ever passing through float64.
//
// CVM documents its prices as floats, yet older responses return some of
// them as strings ("Discount": "100.000000"), and the nullable ones come
// back as null. number accepts a JSON number, a string holding one, or null;
// Set tells a present value from an absent one.
type number struct {
	Dec decimal.Decimal
	Set bool
}

func (n *number) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*n = number{}
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("number %s: %w", b, err)
		}
		s = strings.TrimSpace(s)
		if s == "" {
			*n = number{}
			return nil
		}
	}
	d, err := pricewatch.ParseAmount(s)
	if err != nil {
		return err
	}
	*n = number{Dec: d, Set: true}
	return nil
}

// positive reports the value when it is present and above zero. CVM fills
// every price field of a row with 0 where the field does not apply (the
// prepaid totals of an hourly row, the hourly prices of a prepaid row), so a
// zero is "no price here", never a price.
func (n number) positive() (decimal.Decimal, bool) {
	if !n.Set || !n.Dec.IsPositive() {
		return decimal.Decimal{}, false
	}
	return n.Dec, true
}

// float is for hardware figures (GPU count, memory), which the domain keeps
// as float64; they are small and exact in binary (0.25, 0.5, 1, 8).
func (n number) float() float64 {
	if !n.Set {
		return 0
	}
	return n.Dec.InexactFloat64()
}
