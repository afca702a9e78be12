// Package awscn registers AWS China (the Beijing and Ningxia regions,
// cn-north-1 and cn-northwest-1) as a cloud of its own: its price list is
// a separate partition of the Price List Bulk API, served from
// pricing.cn-north-1.amazonaws.com.cn in the global list's schema with
// prices in CNY, and it is bought through a separate account. The reading
// is package aws's streaming reader; this package only gives it the China
// partition and name.
//
// Savings plans and spot prices are left off: no savings-plan index or
// spot feed for the China partition is documented, so there is no source
// to read them from.
package awscn

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/fetchers"
	"github.com/pricewatch/pricewatch/fetchers/aws"
	"github.com/pricewatch/pricewatch/section"
)

// DefaultEndpoint is the China partition's Price List Bulk API host; the
// fetcher appends /offers/v1.0/cn/AmazonEC2/current/region_index.json.
const DefaultEndpoint = "https://pricing.cn-north-1.amazonaws.com.cn"

// Section is providers.aws-cn: the public China price list (no account).
type Section struct {
	section.Common `yaml:",inline"`
	// Concurrency is how many region files are read at once (the aws
	// reader's providers.aws.concurrency).
	Concurrency int `yaml:"concurrency"`
	// Format is the form of the price files read, as aws's
	// providers.aws.format: "csv" (default) or "json".
	Format string `yaml:"format"`
}

// Validate checks concurrency and that every region is a China one (the
// shared checks cover the rest): us-east-1 is not in the China
// partition's index, so a run would read nothing and say nothing of why.
func (s *Section) Validate(k section.Checker) error {
	errs := []error{aws.CheckConcurrency(k, s.Concurrency), aws.CheckFormat(k, s.Format)}
	for i, r := range s.Regions {
		if !strings.HasPrefix(r, "cn-") {
			errs = append(errs, k.Errorf(fmt.Sprintf("regions[%d]", i), "%q is not an AWS China region (cn-north-1, cn-northwest-1)", r))
		}
	}
	return errors.Join(errs...)
}

// Provider registers AWS China (see package providers).
var Provider = fetchers.Provider{
	Name:  pricewatch.AWSChina,
	Facts: section.Facts{NeedsEndpoint: true},
	Section: func() section.Section {
		// Two regions' price files, far smaller than the global ones;
		// the schedule is offset from aws's so the two never overlap.
		return &Section{Common: section.Common{Enabled: true, Endpoint: DefaultEndpoint, Schedule: "47 */6 * * *", Timeout: 30 * time.Minute},
			Concurrency: aws.DefaultConcurrency, Format: aws.FormatCSV}
	},
	Build: fetchers.Builder(func(s *Section, env fetchers.Env) (fetchers.Fetcher, error) {
		return New(s.Common, s.Concurrency, s.Format, env)
	}),
}

// New builds the aws fetcher for the China partition from the shared keys,
// the number of region files read at once (0: the aws default) and the
// form of the files ("": CSV).
func New(c section.Common, concurrency int, format string, env fetchers.Env) (*aws.Fetcher, error) {
	endpoint := c.Endpoint
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	return aws.New(aws.Config{Name: pricewatch.AWSChina, Partition: aws.PartitionChina, Endpoint: endpoint,
		Regions: c.Regions, Concurrency: concurrency, Format: format, Progress: env.Progress, Now: env.Now}, env.Client, env.Log)
}
