// Package awscntest fakes the AWS China price list: it lays the China
// partition's region index and version-pinned region files out in an
// awstest.Bucket (the global fake, whose serving is the same S3 behaviour)
// under /offers/v1.0/cn/. Its region file is testdata/cn-northwest-1-p4d.json
// (see testdata/README.md for what is documented and what constructed).
package awscntest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
)

// EC2RegionIndexPath is where the China partition's EC2 region index is.
const EC2RegionIndexPath = "/offers/v1.0/cn/AmazonEC2/current/region_index.json"

// EC2Path is the version-pinned path of a China region's price file.
func EC2Path(version, region string) string {
	return fmt.Sprintf("/offers/v1.0/cn/AmazonEC2/%s/%s/index.json", version, region)
}

// Region, Version, and the p4d.24xlarge rates of the stored file.
const (
	Region   = "cn-northwest-1"
	Version  = "20261201000000"
	OnDemand = "211.0496000000" // CNY per hour, Linux on-demand
	Reserved = "139.2927000000" // CNY per hour, 1yr standard No Upfront
)

//go:embed testdata/cn-northwest-1-p4d.json
var regionFile []byte

// BeijingRegion and the g4dn.xlarge rates of its stored file
// (testdata/cn-north-1-g4dn.json): on-demand, and the 1yr standard
// Partial Upfront term's hourly rate and upfront fee.
const (
	BeijingRegion          = "cn-north-1"
	BeijingOnDemand        = "4.517"
	BeijingReservedHourly  = "1.307"
	BeijingReservedUpfront = "11449"
)

//go:embed testdata/cn-north-1-g4dn.json
var beijingFile []byte

// BeijingFile is the stored cn-north-1 price file at version.
func BeijingFile(tb testing.TB, version string) []byte {
	tb.Helper()
	return awstest.SetStr(tb, beijingFile, "version", version)
}

// RegionFile is the stored cn-northwest-1 price file at version with the
// p4d.24xlarge Linux on-demand rate set to onDemand (as the file writes
// it, e.g. "199.8000000000").
func RegionFile(tb testing.TB, version, onDemand string) []byte {
	tb.Helper()
	raw := awstest.SetStr(tb, regionFile, "version", version)
	return awstest.Replace(raw, `"CNY": "`+OnDemand+`"`, `"CNY": "`+onDemand+`"`)
}

// Publish stores each region's file (region → body) at version and the
// China region index listing them.
func Publish(tb testing.TB, b *awstest.Bucket, version string, files map[string][]byte) {
	tb.Helper()
	regions := map[string]any{}
	for _, r := range slices.Sorted(maps.Keys(files)) {
		b.Put(EC2Path(version, r), files[r])
		regions[r] = map[string]string{"regionCode": r, "currentVersionUrl": EC2Path(version, r)}
	}
	idx, err := json.MarshalIndent(map[string]any{
		"formatVersion": "v1.0", "publicationDate": "2026-12-01T00:00:00Z", "regions": regions,
	}, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	b.Put(EC2RegionIndexPath, idx)
}
