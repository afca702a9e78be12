package analysis

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fx"
)

// Fixtures for compare and recommend: current offers of four clouds in two
// currencies, as the fetchers normalise them (Tencent prepaid and Alibaba
// subscriptions are reserved offers with the whole term paid upfront).
//
// Instance types, GPU models and counts are real; the prices are made up
// for hand computation, except where a comment says otherwise. The
// exchange rates are the ECB's real ones of 2022-07-08 (1 EUR = 1.0163 USD
// = 6.8095 CNY, so 1 CNY = 0.14924737499… USD).

var fixtureAt = ts("2022-07-10T09:00:00Z") // a Sunday: Friday's rates carry over

func ecbBook(t *testing.T) *fx.Book {
	t.Helper()
	b, err := fx.NewBook([]fx.Rates{{Date: ts("2022-07-08"), Source: fx.SourceECB,
		PerEUR: map[string]decimal.Decimal{"USD": dec("1.0163"), "CNY": dec("6.8095")}}}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func offer(provider, region, zone, instanceType string, pt pricewatch.PriceType, term, payment, currency, upfront, hourly, model string, gpus float64) pricewatch.Offer {
	o := pricewatch.Offer{Provider: provider, Region: region, Zone: zone, InstanceType: instanceType, PriceType: pt,
		Term: term, Payment: payment, OS: pricewatch.Linux, Currency: currency, Upfront: dec(upfront), Hourly: dec(hourly),
		Hardware: pricewatch.Hardware{GPUModel: model, GPUCount: gpus}}
	if pt == pricewatch.Reserved && provider == pricewatch.AWS {
		o.OfferingClass = pricewatch.Standard
	}
	if pt == pricewatch.SavingsPlan {
		o.OfferingClass = pricewatch.ComputeSavingsPlan
	}
	return o
}

// A10 offers, one GPU each.
func a10Offers() []pricewatch.Offer {
	const (
		az  = pricewatch.Azure
		ali = pricewatch.Alibaba
		tc  = pricewatch.Tencent
	)
	return []pricewatch.Offer{
		offer(az, "eastus", "", "Standard_NV36ads_A10_v5", pricewatch.OnDemand, "", "", "USD", "0", "3.20", "A10", 1),
		// 16,819.20 / 8,760 = 1.92 USD per hour.
		offer(az, "eastus", "", "Standard_NV36ads_A10_v5", pricewatch.Reserved, "1y", pricewatch.AllUpfront, "USD", "16819.20", "0", "A10", 1),
		offer(ali, "cn-hangzhou", "", "ecs.gn7i-c32g1.8xlarge", pricewatch.OnDemand, "", "", "CNY", "0", "8.40", "A10", 1),
		// 42,048 / 8,760 = 4.8 CNY per hour.
		offer(ali, "cn-hangzhou", "", "ecs.gn7i-c32g1.8xlarge", pricewatch.Reserved, "1y", pricewatch.AllUpfront, "CNY", "42048", "0", "A10", 1),
		offer(ali, "cn-hangzhou", "", "ecs.gn7i-c32g1.8xlarge", pricewatch.Spot, "", "", "CNY", "0", "2.10", "A10", 1),
		offer(tc, "ap-guangzhou", "ap-guangzhou-6", "PNV4.7XLARGE116", pricewatch.OnDemand, "", "", "CNY", "0", "9.00", "A10", 1),
		// Not an A10: must not match --gpu A10.
		offer(pricewatch.AWS, "us-east-1", "", "g5.xlarge", pricewatch.OnDemand, "", "", "USD", "0", "1.006", "A10G", 1),
		// A currency the rate book does not hold: shown, never ranked.
		offer(ali, "cn-hongkong", "", "ecs.gn7i-c32g1.8xlarge", pricewatch.OnDemand, "", "", "HKD", "0", "9.99", "A10", 1),
	}
}

// A100 offers for the seed question (8 GPUs).
func a100Offers() []pricewatch.Offer {
	const (
		az  = pricewatch.Azure
		ali = pricewatch.Alibaba
		tc  = pricewatch.Tencent
		aws = pricewatch.AWS
	)
	win := offer(az, "eastus", "", "Standard_ND96amsr_A100_v4", pricewatch.OnDemand, "", "", "USD", "0", "1.00", "A100-80GB", 8)
	win.OS = pricewatch.Windows
	return []pricewatch.Offer{
		offer(az, "eastus", "", "Standard_ND96amsr_A100_v4", pricewatch.OnDemand, "", "", "USD", "0", "32.77", "A100-80GB", 8),
		offer(az, "eastus", "", "Standard_ND96amsr_A100_v4", pricewatch.Reserved, "1y", pricewatch.AllUpfront, "USD", "180000", "0", "A100-80GB", 8),
		offer(az, "eastus", "", "Standard_ND96amsr_A100_v4", pricewatch.Reserved, "3y", pricewatch.AllUpfront, "USD", "420000", "0", "A100-80GB", 8),
		offer(az, "eastus", "", "Standard_ND96amsr_A100_v4", pricewatch.SavingsPlan, "3y", "", "USD", "0", "18.50", "A100-80GB", 8),
		win,
		offer(az, "eastus", "", "Standard_NC96ads_A100_v4", pricewatch.OnDemand, "", "", "USD", "0", "14.69", "A100-80GB-PCIe", 4),
		offer(ali, "cn-hangzhou", "", "ecs.ebmgn7e.32xlarge", pricewatch.OnDemand, "", "", "CNY", "0", "220", "A100-80GB", 8),
		offer(ali, "cn-hangzhou", "", "ecs.ebmgn7e.32xlarge", pricewatch.Reserved, "1m", pricewatch.AllUpfront, "CNY", "102200", "0", "A100-80GB", 8),
		offer(ali, "cn-hangzhou", "", "ecs.ebmgn7e.32xlarge", pricewatch.Reserved, "1y", pricewatch.AllUpfront, "CNY", "1051200", "0", "A100-80GB", 8),
		offer(ali, "cn-hangzhou", "", "ecs.ebmgn7e.32xlarge", pricewatch.Reserved, "3y", pricewatch.AllUpfront, "CNY", "2522880", "0", "A100-80GB", 8),
		offer(ali, "cn-hangzhou", "", "ecs.ebmgn7e.32xlarge", pricewatch.Spot, "", "", "CNY", "0", "66", "A100-80GB", 8),
		offer(tc, "ap-guangzhou", "ap-guangzhou-6", "GT4.41XLARGE948", pricewatch.OnDemand, "", "", "CNY", "0", "230", "A100-40GB", 8),
		offer(tc, "ap-guangzhou", "ap-guangzhou-6", "GT4.41XLARGE948", pricewatch.Reserved, "3y", pricewatch.AllUpfront, "CNY", "2759400", "0", "A100-40GB", 8),
		offer(aws, "us-east-1", "", "p4d.24xlarge", pricewatch.OnDemand, "", "", "USD", "0", "32.77", "A100-40GB", 8),
		offer(aws, "us-east-1", "", "p4d.24xlarge", pricewatch.Reserved, "3y", pricewatch.PartialUpfront, "USD", "200000", "8.00", "A100-40GB", 8),
	}
}

func availabilityFixture() []pricewatch.Availability {
	rec := func(provider, region, zone, instanceType string, s pricewatch.AvailabilityState) pricewatch.Availability {
		return pricewatch.Availability{Provider: provider, Region: region, Zone: zone, InstanceType: instanceType, State: s}
	}
	return []pricewatch.Availability{
		rec(pricewatch.Azure, "eastus", "", "Standard_NV36ads_A10_v5", pricewatch.Offered),
		rec(pricewatch.Azure, "eastus", "", "Standard_ND96amsr_A100_v4", pricewatch.Offered),
		rec(pricewatch.Azure, "eastus", "", "Standard_NC96ads_A100_v4", pricewatch.Offered),
		rec(pricewatch.Alibaba, "cn-hangzhou", "cn-hangzhou-h", "ecs.gn7i-c32g1.8xlarge", pricewatch.InStock),
		rec(pricewatch.Alibaba, "cn-hangzhou", "cn-hangzhou-i", "ecs.gn7i-c32g1.8xlarge", pricewatch.SoldOut),
		rec(pricewatch.Alibaba, "cn-hangzhou", "cn-hangzhou-h", "ecs.ebmgn7e.32xlarge", pricewatch.InStock),
		rec(pricewatch.Tencent, "ap-guangzhou", "ap-guangzhou-6", "PNV4.7XLARGE116", pricewatch.SoldOut),
		rec(pricewatch.Tencent, "ap-guangzhou", "ap-guangzhou-6", "GT4.41XLARGE948", pricewatch.SoldOut),
	}
}
