// Package focus writes stored prices as a FOCUS price sheet: the columns
// of the FinOps Open Cost and Usage Specification (FOCUS 1.2, with the
// 1.3 provider columns) that apply to a price list, filled to the
// specification's rules, then pricewatch's own with the x_ prefix. It also
// holds the checker of those rules (Validate), so that the sheet and its
// rules are kept in one place. docs/focus.md says where every column comes
// from and quotes the rule each follows.
package focus

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/pricewatch/pricewatch"
	cloudtable "github.com/pricewatch/pricewatch/clouds"
	"github.com/pricewatch/pricewatch/fx"
	"github.com/pricewatch/pricewatch/storage"
)

// SpecVersion is the FOCUS version whose column rules the sheet follows
// (HostProviderName and ServiceProviderName are FOCUS 1.3's).
const SpecVersion = "1.2"

// Header is the sheet's columns: FOCUS ones first, then x_ ones, as
// FOCUS's column-naming rules ask of custom columns.
var Header = []string{
	"BillingCurrency", "ChargeCategory", "ChargeDescription", "ChargeFrequency",
	"CommitmentDiscountCategory", "CommitmentDiscountType", "ContractedUnitPrice",
	"HostProviderName", "InvoiceIssuerName", "ListUnitPrice", "PricingCategory",
	"PricingCurrency", "PricingCurrencyContractedUnitPrice", "PricingCurrencyListUnitPrice",
	"PricingQuantity", "PricingUnit", "ProviderName", "PublisherName",
	"RegionId", "RegionName", "AvailabilityZone",
	"ServiceCategory", "ServiceName", "ServiceProviderName", "ServiceSubcategory",
	"SkuId", "SkuMeter", "SkuPriceDetails", "SkuPriceId",
	"x_InstanceType", "x_OperatingSystem", "x_GpuModel", "x_GpuCount",
	"x_GpuMemoryGb", "x_Vcpus", "x_MemoryGb", "x_Interconnect", "x_LocalStorage", "x_PriceType", "x_Term",
	"x_PaymentOption", "x_OfferingClass", "x_UpfrontPrice", "x_EffectiveHourlyPrice", "x_PricePerGpuHour",
	"x_SkuProductId", "x_Marketplace", "x_Location", "x_ListUnitPriceSource",
	"x_ExchangeRate", "x_ExchangeRateDate", "x_ExchangeRateSource", "x_ValidFrom",
}

// Quoter is the exchange-rate book the sheet converts with (fx.Book).
type Quoter interface {
	Quote(from, to string, on time.Time) (fx.Quote, error)
}

// services are the compute services the GPU prices belong to, as each
// cloud names them (FOCUS ServiceName); the ProviderName comes from the
// table of clouds.
var services = map[string]string{
	pricewatch.AWS:      "Amazon Elastic Compute Cloud",
	pricewatch.Azure:    "Virtual Machines",
	pricewatch.Alibaba:  "Elastic Compute Service",
	pricewatch.Tencent:  "Cloud Virtual Machine",
	pricewatch.Lambda:   "Lambda Cloud Instances",
	pricewatch.RunPod:   "Pods",
	pricewatch.VastAI:   "Vast.ai Instances",
	pricewatch.OCI:      "Compute",
	pricewatch.OVHcloud: "Public Cloud Instances",
	pricewatch.AWSChina: "Amazon Elastic Compute Cloud",
	// The sheet's serviceName, as Azure's.
	pricewatch.AzureChina: "Virtual Machines",
	pricewatch.Huawei:     "Elastic Cloud Server",
	// The catalogue's service 6F81-5844-456A, as Google's billing
	// exports name it.
	pricewatch.GCP: "Compute Engine",
	// The product names of the clouds' own consoles and price pages.
	pricewatch.Scaleway:     "Instances",
	pricewatch.Vultr:        "Cloud Compute",
	pricewatch.DigitalOcean: "GPU Droplets",
	// Shadeform bills its instances as one service under its own name.
	pricewatch.Shadeform: "Shadeform Instances",
	pricewatch.Verda:     "Cloud Instances",
	// Hyperstack's documentation calls what it bills virtual machines.
	pricewatch.Hyperstack: "Virtual Machines",
	// Nebius's console and price list call its VMs Compute.
	pricewatch.Nebius: "Compute",
}

// ProviderName is the FOCUS ProviderName of a pricewatch provider id (the
// table of clouds'); displayName names a cloud the table does not list.
func ProviderName(provider string, displayName func(string) string) string {
	if _, ok := cloudtable.Lookup(provider); ok {
		return cloudtable.FOCUSProviderName(provider)
	}
	return displayName(provider)
}

// odKey finds the on-demand price of the same SKU: the same instance type
// and OS in the same place.
type odKey struct{ provider, region, zone, instance, os string }

type onDemand struct {
	hourly        decimal.Decimal
	currency      string
	skuID         string
	regionName    string
	effectiveFrom time.Time
}

// Sheet writes the rows. Learn every on-demand price first (the list price
// of a commitment or a spot price of the same SKU, and the region names
// AWS's spot and savings-plan files lack), then Write every price: only
// one entry per on-demand offer is held, never the rows.
type Sheet struct {
	// header is the dataset's columns (Header or SKUPriceHeader) and col
	// their places: a column the dataset lacks is not written.
	header      []string
	col         map[string]int
	history     bool
	cw          *csv.Writer
	billing     string
	fx          Quoter
	at          time.Time
	displayName func(string) string
	od          map[odKey]onDemand
	// odHistory (the SKU Price dataset only) is every on-demand price of
	// each SKU over time, so that a commitment's list price is the one in
	// force when the commitment's interval began (listAt).
	odHistory map[odKey][]odSpan
	// odBig and odCurrencies hold what odSpan refers to by index.
	odBig        []decimal.Decimal
	odCurrencies []string
	regionNames  map[[2]string]string
	wroteHeader  bool
}

// NewSheet writes to w in billing currency, converting with q at the
// moment at (the sheet's time). displayName names clouds the package does
// not list.
func NewSheet(w io.Writer, billing string, q Quoter, at time.Time, displayName func(string) string) *Sheet {
	return &Sheet{header: Header, col: col, cw: csv.NewWriter(w), billing: strings.ToUpper(billing), fx: q, at: at, displayName: displayName,
		od: map[odKey]onDemand{}, regionNames: map[[2]string]string{}}
}

// set fills column name of r, when the dataset has it.
func (s *Sheet) set(r []string, name, v string) {
	if i, ok := s.col[name]; ok {
		r[i] = v
	}
}

// Learn records a standard on-demand price, the list price of its SKU
// (others are ignored: a DWS flex-start or calendar-mode price, or a
// marketplace host's, is not the SKU's list price).
func (s *Sheet) Learn(p *storage.PriceInterval) {
	if p.RegionName != "" {
		s.regionNames[[2]string{p.Provider, p.Region}] = p.RegionName
	}
	if !isListPrice(p) {
		return
	}
	k := odKey{p.Provider, p.Region, p.Zone, p.InstanceType, p.OS}
	if s.history {
		s.learnSpan(k, p)
		if o, ok := s.od[k]; ok && o.effectiveFrom.After(p.ValidFrom) {
			// The SKU's newest price gives its SkuId, as the price
			// sheet's current one does.
			return
		}
	}
	s.od[k] = onDemand{hourly: p.Hourly, currency: p.Currency,
		skuID: p.SkuID, regionName: p.RegionName, effectiveFrom: p.ValidFrom}
}

// onDemandOf is the on-demand price of the SKU p prices: in p's zone, else
// the region's.
func (s *Sheet) onDemandOf(p *storage.PriceInterval) (onDemand, bool) {
	k := odKey{p.Provider, p.Region, p.Zone, p.InstanceType, p.OS}
	if o, ok := s.od[k]; ok {
		return o, true
	}
	k.zone = ""
	o, ok := s.od[k]
	return o, ok
}

// onDemandAt is the on-demand price of the SKU p prices in force at t (the
// SKU Price dataset's): in p's zone, else the region's.
func (s *Sheet) onDemandAt(p *storage.PriceInterval, t time.Time) (odSpan, bool) {
	k := odKey{p.Provider, p.Region, p.Zone, p.InstanceType, p.OS}
	if o, ok := spanAt(s.odHistory[k], t); ok {
		return o, true
	}
	k.zone = ""
	return spanAt(s.odHistory[k], t)
}

// isListPrice: the standard on-demand price, the one a commitment's list
// price is: not Google's DWS flex-start or calendar-mode price of the same
// machine (sold beside on-demand at its own, lower price: a list price
// taken from it put a3-highgpu-8g's list below its commitments' rates),
// nor a marketplace host's.
func isListPrice(p *storage.PriceInterval) bool {
	return p.PriceType == pricewatch.OnDemand && !isDWS(p) && !cloudtable.IsMarketplace(p.Provider, p.OfferingClass)
}

// isDWS: Google Cloud's Dynamic Workload Scheduler models, stored as
// on_demand with their own offering class.
func isDWS(p *storage.PriceInterval) bool {
	return p.PriceType == pricewatch.OnDemand && (p.OfferingClass == pricewatch.FlexStart || p.OfferingClass == pricewatch.CalendarMode)
}

// subscriptions are the clouds whose reserved prices are prepaid
// subscriptions: the instance bought for a month or years at once, which
// the cloud calls no reservation or commitment discount, with what the
// cloud calls them.
var subscriptions = map[string]string{
	pricewatch.Alibaba: "PrePaid",
	pricewatch.Tencent: "PREPAID",
	// ListRateOnPeriodDetail: the "yearly/monthly" (包年/包月) billing
	// mode, paid when the instance is bought, as Alibaba's and Tencent's.
	pricewatch.Huawei: "yearly/monthly",
}

// isSubscription: a prepaid subscription price (subscriptions).
func isSubscription(p *storage.PriceInterval) bool {
	_, ok := subscriptions[p.Provider]
	return p.PriceType == pricewatch.Reserved && ok
}

// isMonthlyPlan: OVHcloud's monthly billing, stored as reserved 1m. It is
// its own plan in the catalogue (plan code <flavor>.monthly.postpaid, an
// own SKU beside <flavor>.consumption), billed at the month's end with
// nothing upfront; OVHcloud sells no commitment discount that reduces the
// hourly plan's usage, so it is a Standard price of its own SKU, whose list
// price is its own.
func isMonthlyPlan(p *storage.PriceInterval) bool {
	return p.PriceType == pricewatch.Reserved && p.Provider == pricewatch.OVHcloud
}

// isDynamic: spot prices, and every price of a marketplace whose host may
// change it without notice (Vast.ai), are FOCUS's Dynamic.
func isDynamic(p *storage.PriceInterval) bool {
	return p.PriceType == pricewatch.Spot || p.Provider == pricewatch.VastAI
}

// isGlobal: the clouds that sell one price list for every place (Lambda,
// RunPod, OCI, OVHcloud store "global"), and Vast.ai, whose "region" is
// the host's country, not a region one provisions in.
func isGlobal(p *storage.PriceInterval) bool {
	return p.Region == "global" || p.Region == pricewatch.AllRegions || p.Provider == pricewatch.VastAI
}

// skuID is the cloud's own SKU id where it gives one (for AWS spot, the
// on-demand product of the same instance, which is what spot usage is
// billed against), else a stable id derived from what defines the SKU.
func (s *Sheet) skuID(p *storage.PriceInterval) string {
	if p.SkuID != "" {
		return p.SkuID
	}
	if o, ok := s.onDemandOf(p); ok && o.skuID != "" {
		return o.skuID
	}
	return strings.Join([]string{"pricewatch", p.Provider, p.Region, p.InstanceType, p.OS}, ":")
}

// skuPriceID identifies exactly one unit price: AWS's rate code as it is
// (one per price); else the cloud's price id (Azure's meterId, shared by a
// meter's on-demand, reservation and savings-plan prices) or the SKU id,
// followed by what tells the prices of it apart.
//
// A cloud's SKU id (p.SkuID, not a price id) may price many machines in
// many places: OCI's part number is one GPU hour of every shape of the
// GPU; Google's component SKUs are per GPU, core and memory and per region
// group ("running in Americas"), shared by every shape of a family
// (a2-highgpu-1g … 8g) and every region of the group. So after such an id
// come the region (unless the cloud sells globally) and the instance type
// as well; the derived SKU id holds both already.
func (s *Sheet) skuPriceID(p *storage.PriceInterval, sku string) string {
	if (p.Provider == pricewatch.AWS || p.Provider == pricewatch.AWSChina) && p.SkuPriceID != "" {
		return p.SkuPriceID
	}
	base := p.SkuPriceID
	if base == "" {
		base = sku
	}
	parts := []string{base, string(p.PriceType)}
	for _, v := range []string{p.Term, p.Payment, p.OfferingClass, p.Zone} {
		if v != "" {
			parts = append(parts, v)
		}
	}
	if p.SkuPriceID == "" && p.SkuID != "" && base == p.SkuID {
		if !isGlobal(p) {
			parts = append(parts, p.Region)
		}
		parts = append(parts, p.InstanceType)
	}
	if p.SkuPriceID != "" && p.OS != "" {
		// A cloud meter does not always say the OS; the derived base does.
		parts = append(parts, p.OS)
	}
	return strings.Join(parts, "|")
}

// termUnit is the PricingUnit of a term bought at once (PricingQuantity
// 1): FOCUS's unit format allows a time unit with a count before it.
func termUnit(term string) string {
	switch term {
	case "1m":
		return "Months"
	case "1y":
		return "Years"
	case "3y":
		return "3 Years"
	case "1d":
		return "Days"
	}
	// A capacity block's window of several days ("7d" is "7 Days").
	if n, ok := strings.CutSuffix(term, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d > 1 {
			return n + " Days"
		}
	}
	return "Units"
}

// isBlock: an EC2 Capacity Block (issue 23 item 3), a one-time purchase of
// one instance for a window at its fee: no commitment discount, no usage
// row (its hourly rate is 0 by construction).
func isBlock(p *storage.PriceInterval) bool { return p.PriceType == pricewatch.CapacityBlockPrice }

// commitment is the commitment discount a reserved or savings-plan price
// is (FOCUS CommitmentDiscountType and CommitmentDiscountCategory); ""
// for any other price, and for the prepaid subscriptions and monthly plans,
// which the clouds do not sell as commitment discounts.
func commitment(p *storage.PriceInterval) (typ, category string) {
	switch {
	case isSubscription(p) || isMonthlyPlan(p):
		return "", ""
	case p.PriceType == pricewatch.Reserved && p.Provider == pricewatch.GCP:
		// Google's own name: resource-based committed use discounts
		// commit to an amount of GPUs, vCPUs and memory (Usage).
		return "Committed Use Discount", "Usage"
	case p.PriceType == pricewatch.Reserved:
		return "Reservation", "Usage"
	case p.PriceType == pricewatch.SavingsPlan:
		return "Savings Plan", "Spend"
	}
	return "", ""
}

var paymentNames = map[string]string{
	pricewatch.NoUpfront: "No Upfront", pricewatch.PartialUpfront: "Partial Upfront", pricewatch.AllUpfront: "All Upfront",
}

// details is SkuPriceDetails: the properties of the price (FOCUS keys
// where FOCUS names them, x_ keys for the rest).
func details(p *storage.PriceInterval) (string, error) {
	m := map[string]string{}
	switch {
	case isSubscription(p):
		m["x_PurchaseOption"] = "Subscription"
	case isMonthlyPlan(p):
		m["x_PurchaseOption"] = "Monthly Billing"
	case isDWS(p) && p.OfferingClass == pricewatch.FlexStart:
		m["x_PurchaseOption"] = "DWS Flex Start"
	case isDWS(p):
		m["x_PurchaseOption"] = "DWS Calendar Mode"
	case p.PriceType == pricewatch.Reserved || p.PriceType == pricewatch.SavingsPlan:
		m["x_PurchaseOption"] = "Commitment"
		m["x_CommitmentDiscountType"], m["x_CommitmentDiscountCategory"] = commitment(p)
	case p.PriceType == pricewatch.Spot:
		m["x_PurchaseOption"] = "Spot"
	case isBlock(p):
		m["x_PurchaseOption"] = "Capacity Block"
	default:
		m["x_PurchaseOption"] = "On-Demand"
	}
	if p.Term != "" {
		m["x_Term"] = p.Term
	}
	if n := paymentNames[p.Payment]; n != "" {
		m["x_PaymentOption"] = n
	}
	if p.OfferingClass != "" {
		m["x_OfferingClass"] = p.OfferingClass
	}
	m["x_InstanceType"], m["x_OperatingSystem"] = p.InstanceType, p.OS
	b, err := json.Marshal(m)
	return string(b), err
}

func subcategory(p *storage.PriceInterval) string {
	switch {
	case p.Provider == pricewatch.RunPod || p.Provider == pricewatch.VastAI:
		return "Containers"
	case p.Provider == pricewatch.OCI && strings.HasPrefix(p.InstanceType, "BM."):
		return "Bare Metal"
	}
	return "Virtual Machines"
}

func text(d decimal.Decimal) string { return d.String() }

// Write writes the rows of one price: its usage price (none for a
// subscription, which is bought only at once) and, where there is a fee
// paid at once, a purchase row of it.
func (s *Sheet) Write(p *storage.PriceInterval) error {
	if !s.wroteHeader {
		if err := s.cw.Write(s.header); err != nil {
			return fmt.Errorf("writing the FOCUS header: %w", err)
		}
		s.wroteHeader = true
	}
	q, err := s.quote(p)
	if err != nil {
		return err
	}
	sku := s.skuID(p)
	priceID := s.skuPriceID(p, sku)
	det, err := details(p)
	if err != nil {
		return fmt.Errorf("writing SkuPriceDetails of %s: %w", priceID, err)
	}
	provider := ProviderName(p.Provider, s.displayName)
	service, ok := services[p.Provider]
	if !ok {
		service = "Compute"
	}
	host := provider
	market := cloudtable.IsMarketplace(p.Provider, p.OfferingClass)
	if market {
		// The price is the cheapest of many hosts' machines: no one host.
		host = ""
	}
	region, regionName, location := p.Region, p.RegionName, ""
	if regionName == "" {
		regionName = s.regionNames[[2]string{p.Provider, p.Region}]
	}
	if regionName == "" {
		// Alibaba's, Tencent's, Google's and Huawei's price APIs name no
		// region; the id is the name the console shows beside the code.
		regionName = p.Region
	}
	if isGlobal(p) {
		location = p.Region
		if location == "global" || location == pricewatch.AllRegions {
			location = ""
		}
		region, regionName = "", ""
	}
	perGPU, okGPU := pricewatch.PerGPUHour(p.EffectiveHourly, p.GPUCount)
	perGPUText := ""
	if okGPU {
		perGPUText = perGPU.String()
	}
	rateText, rateDate := q.Rate.String(), ""
	if !q.Date.IsZero() {
		rateDate = q.Date.Format(time.DateOnly)
	}
	// row is a new row of the charge category and frequency, priced per
	// one unit, with what every row of the price carries.
	row := func(category, frequency, unit string) []string {
		r := make([]string, len(s.header))
		s.set(r, "ChargeCategory", category)
		s.set(r, "ChargeFrequency", frequency)
		s.set(r, "PricingQuantity", "1")
		s.set(r, "PricingUnit", unit)
		s.set(r, "BillingCurrency", s.billing)
		s.set(r, "InvoiceIssuerName", provider)
		s.set(r, "ProviderName", provider)
		s.set(r, "PublisherName", provider)
		s.set(r, "ServiceProviderName", provider)
		s.set(r, "HostProviderName", host)
		s.set(r, "PricingCurrency", p.Currency)
		s.set(r, "RegionId", region)
		s.set(r, "RegionName", regionName)
		s.set(r, "AvailabilityZone", p.Zone)
		s.set(r, "ServiceCategory", "Compute")
		s.set(r, "ServiceName", service)
		s.set(r, "ServiceSubcategory", subcategory(p))
		s.set(r, "SkuId", sku)
		s.set(r, "SkuPriceDetails", det)
		s.set(r, "x_InstanceType", p.InstanceType)
		s.set(r, "x_OperatingSystem", p.OS)
		s.set(r, "x_GpuModel", p.GPUModel)
		s.set(r, "x_GpuCount", decimal.NewFromFloat(p.GPUCount).String())
		// The machine beside the price (issue 25 item 2): empty where the
		// cloud does not say, as null is in the API.
		s.set(r, "x_GpuMemoryGb", knownNumber(p.GPUMemoryGB))
		s.set(r, "x_Vcpus", knownNumber(float64(p.VCPUs)))
		s.set(r, "x_MemoryGb", knownNumber(p.MemoryGB))
		s.set(r, "x_Interconnect", p.Interconnect)
		s.set(r, "x_LocalStorage", p.LocalStorage)
		s.set(r, "x_PriceType", string(p.PriceType))
		s.set(r, "x_Term", p.Term)
		s.set(r, "x_PaymentOption", p.Payment)
		s.set(r, "x_OfferingClass", p.OfferingClass)
		s.set(r, "x_UpfrontPrice", text(p.Upfront))
		s.set(r, "x_EffectiveHourlyPrice", text(p.EffectiveHourly))
		s.set(r, "x_PricePerGpuHour", perGPUText)
		s.set(r, "x_SkuProductId", p.ProductID)
		s.set(r, "x_Marketplace", fmt.Sprint(market))
		s.set(r, "x_Location", location)
		s.set(r, "x_ExchangeRate", rateText)
		s.set(r, "x_ExchangeRateDate", rateDate)
		s.set(r, "x_ExchangeRateSource", q.Source)
		s.set(r, "x_ValidFrom", p.ValidFrom.UTC().Format(time.RFC3339))
		if s.history {
			s.set(r, "SkuPriceEffectiveStart", p.ValidFrom.UTC().Format(time.RFC3339))
			if p.ValidTo != nil {
				s.set(r, "SkuPriceEffectiveEnd", p.ValidTo.UTC().Format(time.RFC3339))
			}
			typ, category := commitment(p)
			s.set(r, "CommitmentDiscountType", typ)
			s.set(r, "CommitmentDiscountCategory", category)
		}
		return r
	}
	// write prices a row and writes it.
	write := func(r []string, list, contracted decimal.Decimal) error {
		s.set(r, "PricingCurrencyListUnitPrice", text(list))
		s.set(r, "PricingCurrencyContractedUnitPrice", text(contracted))
		s.set(r, "ListUnitPrice", text(q.Convert(list)))
		s.set(r, "ContractedUnitPrice", text(q.Convert(contracted)))
		if err := s.cw.Write(r); err != nil {
			return fmt.Errorf("writing FOCUS row %s: %w", priceID, err)
		}
		return nil
	}
	option := strings.ReplaceAll(string(p.PriceType), "_", "-")
	if p.Term != "" {
		option += " " + p.Term
	}
	if p.Payment != "" {
		option += " " + paymentNames[p.Payment]
	}
	list, source := p.Hourly, "this_price"
	if p.PriceType.IsCommitment() && !isSubscription(p) && !isMonthlyPlan(p) {
		if s.history {
			if o, ok := s.onDemandAt(p, p.ValidFrom); ok && s.odCurrencies[o.cur] == p.Currency {
				list, source = s.hourly(o), "on_demand"
			}
		} else if o, ok := s.onDemandOf(p); ok && o.currency == p.Currency {
			list, source = o.hourly, "on_demand"
		}
	}
	// A usage row needs a list price. An all-upfront commitment whose SKU
	// has no stored on-demand price has none to give (its own hourly rate
	// is 0, a placeholder, not a list price): its purchase row alone
	// carries the price.
	usage := !isSubscription(p) && list.IsPositive()
	if usage {
		r := row("Usage", "Usage-Based", "Hours")
		s.set(r, "SkuMeter", "Instance Hours")
		s.set(r, "SkuPriceId", priceID)
		s.set(r, "ChargeDescription", fmt.Sprintf("%s %s, %s, per hour", p.InstanceType, p.OS, option))
		switch {
		case isDynamic(p):
			s.set(r, "PricingCategory", "Dynamic")
		case p.PriceType.IsCommitment() && !isMonthlyPlan(p):
			s.set(r, "PricingCategory", "Committed")
		default:
			s.set(r, "PricingCategory", "Standard")
		}
		s.set(r, "x_ListUnitPriceSource", source)
		if err := write(r, list, p.Hourly); err != nil {
			return err
		}
	}
	if p.Upfront.IsPositive() {
		r := row("Purchase", "One-Time", termUnit(p.Term))
		s.set(r, "PricingCategory", "Standard")
		meter := "Commitment Upfront Fee"
		switch {
		case isSubscription(p):
			meter = "Subscription Fee"
			s.set(r, "SkuPriceId", priceID)
		case isBlock(p):
			// The fee is the whole price: no hourly part shares its id.
			meter = "Capacity Block Fee"
			s.set(r, "SkuPriceId", priceID)
		default:
			s.set(r, "SkuPriceId", priceID+"|upfront")
		}
		s.set(r, "SkuMeter", meter)
		s.set(r, "ChargeDescription", fmt.Sprintf("%s %s, %s, paid at once", p.InstanceType, p.OS, option))
		s.set(r, "x_ListUnitPriceSource", "this_price")
		if err := write(r, p.Upfront, p.Upfront); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes the header if no row came, and flushes.
func (s *Sheet) Flush() error {
	if !s.wroteHeader {
		if err := s.cw.Write(s.header); err != nil {
			return fmt.Errorf("writing the FOCUS header: %w", err)
		}
		s.wroteHeader = true
	}
	s.cw.Flush()
	if err := s.cw.Error(); err != nil {
		return fmt.Errorf("writing the FOCUS sheet: %w", err)
	}
	return nil
}

var col = columns(Header)

// knownNumber is a hardware figure as the sheet writes it: "" for the 0 a
// record holds where the cloud did not say.
func knownNumber(v float64) string {
	if v <= 0 {
		return ""
	}
	return decimal.NewFromFloat(v).String()
}
