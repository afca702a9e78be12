package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
	"github.com/pricewatch/pricewatch/providers"
	"github.com/pricewatch/pricewatch/storage"
)

// testConfig is the pricewatch.yaml a test runs on. Every provider of the
// registry that the test does not enable is written disabled, so that a
// provider added later never sends an existing test to its real API; the
// FX update is off and the digest is off unless the test sets one.
//
// The database is pw.db in the folder the config is written for.
type testConfig struct {
	// database holds further keys under database:, indented two spaces.
	database string
	// logLevel defaults to error; noLogLevel leaves the key out, so that
	// the CLI's own default shows.
	logLevel   string
	noLogLevel bool
	logJSON    bool
	// http is the whole http section. It stands right after log, where
	// the tests that assert its line numbers expect it.
	http string
	// clouds are the enabled providers, in the order written.
	clouds []cloud
	// fx holds further keys under fx: (after enabled: false).
	fx string
	// digest is the whole digest section; empty writes it disabled.
	digest string
	// slack is the whole slack section (see fakeSlackSection).
	slack string
	// alerts is the whole alerts section.
	alerts string
	// extra is further top-level YAML, written last.
	extra string
}

// cloud is one enabled provider of a testConfig.
type cloud struct {
	name string
	// endpoint is the base URL of the test's fake; empty writes none.
	endpoint string
	// keys are the provider's further keys, one a line, indented four
	// spaces.
	keys string
}

// fakeSlackSection points Slack at a fake Web API on channel.
func fakeSlackSection(slackURL, channel string) string {
	return fmt.Sprintf("slack:\n  channel: %s\n  api_url: %s/api/\n", channel, slackURL)
}

// yaml renders the config for a file in dir.
func (c testConfig) yaml(dir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "database:\n  path: %s\n%s", filepath.Join(dir, "pw.db"), c.database)
	if !c.noLogLevel || c.logJSON {
		b.WriteString("log:\n")
	}
	if !c.noLogLevel {
		level := c.logLevel
		if level == "" {
			level = "error"
		}
		fmt.Fprintf(&b, "  level: %s\n", level)
	}
	if c.logJSON {
		b.WriteString("  format: json\n")
	}
	b.WriteString(c.http)
	b.WriteString("providers:\n")
	for _, name := range providers.Names() {
		if !slices.ContainsFunc(c.clouds, func(e cloud) bool { return e.name == name }) {
			fmt.Fprintf(&b, "  %s: {enabled: false}\n", name)
		}
	}
	for _, e := range c.clouds {
		fmt.Fprintf(&b, "  %s:\n    enabled: true\n", e.name)
		if e.endpoint != "" {
			fmt.Fprintf(&b, "    endpoint: %s\n", e.endpoint)
		}
		b.WriteString(e.keys)
	}
	fmt.Fprintf(&b, "fx:\n  enabled: false\n%s", c.fx)
	if c.digest == "" {
		b.WriteString("digest:\n  enabled: false\n")
	} else {
		b.WriteString(c.digest)
	}
	b.WriteString(c.slack)
	b.WriteString(c.alerts)
	b.WriteString(c.extra)
	return b.String()
}

// write writes the config as dir/pricewatch.yaml and returns its path.
func (c testConfig) write(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "pricewatch.yaml")
	if err := os.WriteFile(path, []byte(c.yaml(dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// azureCloud is Azure at a fake Retail Prices API.
func azureCloud(fakeURL, keys string) cloud {
	return cloud{name: "azure", endpoint: fakeURL + "/api/retail/prices", keys: keys}
}

// unreachableOCI is OCI at an address where nothing listens.
var unreachableOCI = cloud{name: "oci", endpoint: "http://127.0.0.1:1"}

// westus2 is the regions key for the region the Azure fake's pages are
// from.
const westus2 = "    regions: [westus2]\n"

// awsBucketCloud is AWS at a fake price-list bucket and its spot feed.
func awsBucketCloud(b *awstest.Bucket, keys string) cloud {
	if !strings.Contains(keys, "spot_advisor") {
		// The Spot Advisor is on by default, at AWS: a test that does not
		// ask for it reads none (the signals tests point it at the bucket).
		keys += "    spot_advisor: false\n"
	}
	return cloud{name: "aws", endpoint: b.URL(), keys: "    spot_endpoint: " + b.SpotURL() + "\n" + keys}
}

// openTestDB opens (and migrates) the database at path for the test to
// fill or read beside the commands; the caller closes it.
func openTestDB(t *testing.T, path string) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}
