package fetchers

import "github.com/pricewatch/pricewatch"

// What the Chinese clouds' APIs share in layout, said once for the
// fetchers that read them: Volcengine's ECS OpenAPI copies Alibaba ECS's
// DescribeAvailableResource answer, field names and values alike.

// AvailableResourceStatus maps the Status of a DescribeAvailableResource
// zone or SupportedResource as Alibaba documents it: Available is in
// stock, SoldOut is sold out. Any other value is not one the layout
// knows, and ok is false: the caller decides whether that fails the
// answer or leaves the row out.
func AvailableResourceStatus(status string) (state pricewatch.AvailabilityState, ok bool) {
	switch status {
	case "Available":
		return pricewatch.InStock, true
	case "SoldOut":
		return pricewatch.SoldOut, true
	}
	return "", false
}
