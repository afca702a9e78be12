// Package buyflags holds the flags of what a buyer can act on (issue 31):
// whose capacity (--seller) and what hardware (--min-gpu-memory,
// --min-vcpus, --min-memory, --interconnect, --max-price), registered,
// read and passed on to the API the same way by every command that takes
// them.
package buyflags

import (
	"net/url"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/analysis"
	"github.com/pricewatch/pricewatch/report"
)

// sellerHelp is --seller's help, one text for every command.
const sellerHelp = "whose capacity: cloud (the clouds' own), marketplace (third-party hosts: Vast.ai, RunPod Community Cloud) or any"

// AddSeller adds --seller.
func AddSeller(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "seller", "any", sellerHelp)
}

// Seller reads --seller.
func Seller(s string) (analysis.Seller, error) { return report.ParseSeller("--seller", s) }

// AddHardware adds the hardware bounds of compare and recommend.
func AddHardware(cmd *cobra.Command, dst *report.HardwareParams) {
	cmd.Flags().StringVar(&dst.MinGPUMemory, "min-gpu-memory", "", "only machines with at least this many GB of memory per GPU")
	cmd.Flags().StringVar(&dst.MinVCPUs, "min-vcpus", "", "only machines with at least this many vCPUs")
	cmd.Flags().StringVar(&dst.MinMemory, "min-memory", "", "only machines with at least this many GB of RAM")
	cmd.Flags().StringVar(&dst.Interconnect, "interconnect", "", "only machines whose stated interconnect contains this text (efa, 3200, infiniband)")
	cmd.Flags().StringVar(&dst.MaxPrice, "max-price", "", "only prices up to this, in the answer's currency: per hour (30) or per GPU-hour (2.5/gpu-hour)")
}

// Hardware reads the hardware flags.
func Hardware(p report.HardwareParams) (analysis.HardwareFilter, error) {
	return report.ParseHardware(p, report.HardwareFlagNames)
}

// Buyer reads --seller and the hardware flags, for a command taking both.
func Buyer(seller string, p report.HardwareParams) (analysis.Seller, analysis.HardwareFilter, error) {
	s, err := Seller(seller)
	if err != nil {
		return "", analysis.HardwareFilter{}, err
	}
	hw, err := Hardware(p)
	return s, hw, err
}

// SetParams sets the seller and the hardware bounds given as API
// parameters, for --server (empty ones left out).
func SetParams(q url.Values, seller analysis.Seller, p report.HardwareParams) {
	n := report.HardwareParamNames
	for name, v := range map[string]string{"seller": string(seller), n.MinGPUMemory: p.MinGPUMemory, n.MinVCPUs: p.MinVCPUs,
		n.MinMemory: p.MinMemory, n.Interconnect: p.Interconnect, n.MaxPrice: p.MaxPrice} {
		if v != "" {
			q.Set(name, v)
		}
	}
}
