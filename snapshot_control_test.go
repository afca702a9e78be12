package pricewatch

import "testing"

// Issue 20 item 8: hostile names (an OSC window-title sequence, ESC/CSI,
// BEL, a bidi override) lose their control characters; HTML stays text for
// the HTML writers to escape.
func TestStripControlAndPrintable(t *testing.T) {
	cases := []struct {
		in, stripped, printable string
	}{
		{"H100 SXM", "H100 SXM", "H100 SXM"},
		{"RTX 4090\x1b]0;owned\x07", "RTX 4090]0;owned", `RTX 4090\x1b]0;owned\x07`},
		{"\x1b[2J\x1b[31mgn8v", "[2J[31mgn8v", `\x1b[2J\x1b[31mgn8v`},
		{"GN7.LARGE20\r\nFAKE ROW", "GN7.LARGE20FAKE ROW", `GN7.LARGE20\x0d\x0aFAKE ROW`},
		{"ab\u202ecd", "abcd", `ab\u202ecd`},
		{"\u009b31m", "31m", `\x9b31m`},
		{"<script>alert(1)</script>", "<script>alert(1)</script>", "<script>alert(1)</script>"},
		{"Zürich-1", "Zürich-1", "Zürich-1"},
	}
	for _, tc := range cases {
		if got := StripControl(tc.in); got != tc.stripped {
			t.Errorf("StripControl(%q) = %q, want %q", tc.in, got, tc.stripped)
		}
		if got := Printable(tc.in); got != tc.printable {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.printable)
		}
	}
	if got := Printable("bad\xffbyte"); got != `bad\xffbyte` {
		t.Errorf("Printable of a non-UTF-8 byte = %q", got)
	}

	snap := &Snapshot{Provider: VastAI,
		Offers: []Offer{{Provider: VastAI, Region: "US\x07", InstanceType: "1x RTX 4090\x1b]0;x\x07", PriceType: OnDemand, OS: Linux,
			Currency: "USD", Hardware: Hardware{GPUModel: "RTX 4090\x1b[5m", GPUCount: 1}}},
		Availability: []Availability{{Provider: VastAI, Region: "US", InstanceType: "1x RTX 4090\x1b]0;x\x07", State: InStock,
			StockDetail: "3 rentable offers\x1b[8m"}},
	}
	if n := snap.StripControl(); n != 5 {
		t.Errorf("StripControl changed %d fields, want 5", n)
	}
	o, a := snap.Offers[0], snap.Availability[0]
	if o.Region != "US" || o.InstanceType != "1x RTX 4090]0;x" || o.GPUModel != "RTX 4090[5m" || a.InstanceType != o.InstanceType ||
		a.StockDetail != "3 rentable offers[8m" {
		t.Errorf("after StripControl: %+v %+v", o, a)
	}
}
