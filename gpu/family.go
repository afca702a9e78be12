package gpu

import "strings"

// BaseFamily strips a variant suffix from an instance family name, so that
// a variant is resolved as the family it derives from: Alibaba's
// confidential-computing gn8v-tdx and gn8v-tee are gn8v, the workstation
// vgn6i-vws is vgn6i, regional or customer variants (gn7i-xr, ebmgn7ix-ant,
// sgn8ga-wy, ebmgn9ge-1.5t) are the family before the dash. Variants carry
// the GPU of their base; only the platform around it differs.
func BaseFamily(family string) string {
	family = strings.TrimPrefix(strings.TrimSpace(family), "ecs.")
	if i := strings.Index(family, "-"); i > 0 {
		return family[:i]
	}
	return family
}
