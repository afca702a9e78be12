package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, errOut, code := runCLI(t, args...)
		if code != 0 || !strings.HasPrefix(out, "pricewatch ") || errOut != "" {
			t.Errorf("%v: %d %q %q", args, code, out, errOut)
		}
	}
}

// Completion offers flag values and, from the database, instance types,
// regions and GPU models.
func TestCompletion(t *testing.T) {
	cfg := analysisConfig(t, true)
	for _, c := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"compare", "--format", ""}, []string{"table", "json", "csv"}, nil},
		{[]string{"export", "--format", ""}, []string{"focus-csv", "jsonl"}, []string{"table"}},
		{[]string{"compare", "--price-type", ""}, []string{"on_demand", "spot", "reserved", "savings_plan", "capacity_block", "any"}, nil},
		{[]string{"recommend", "--seller", ""}, []string{"cloud", "marketplace", "any"}, nil},
		{[]string{"compare", "--by", ""}, []string{"price", "machine"}, nil},
		{[]string{"compare", "--per", ""}, []string{"hour", "day", "month", "year"}, nil},
		{[]string{"export", "--seller", ""}, []string{"cloud", "marketplace", "any"}, nil},
		{[]string{"compare", "--provider", ""}, []string{"aws", "azure", "alibaba", "tencent", "oci", "lambda", "runpod", "vastai", "aws-cn"}, nil},
		{[]string{"compare", "--currency", ""}, []string{"USD", "EUR", "CNY"}, nil},
		{[]string{"compare", "--gpu", ""}, []string{"A100", "A100-80GB", "A100-40GB"}, nil},
		{[]string{"history", "--region", "west"}, []string{"westus2"}, []string{"cn-hangzhou"}},
		{[]string{"history", "standard_nd"}, []string{"Standard_ND96amsr_A100_v4"}, []string{"ecs.gn7-c13g1.26xlarge"}},
		{[]string{"savings", ""}, []string{"Standard_ND96amsr_A100_v4", "ecs.gn7-c13g1.26xlarge"}, nil},
	} {
		out, errOut, code := runCLI(t, append([]string{"__complete", "--config", cfg}, c.args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d %s", c.args, code, errOut)
			continue
		}
		lines := strings.Split(out, "\n")
		for _, w := range c.want {
			if !contains(lines, w) {
				t.Errorf("%v: %q not offered:\n%s", c.args, w, out)
			}
		}
		for _, w := range c.not {
			if contains(lines, w) {
				t.Errorf("%v: %q offered:\n%s", c.args, w, out)
			}
		}
	}
}

func contains(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

// No flag's help has a backtick: pflag reads `x` as the value's name and
// garbles the line ("--failed pricewatch alerts retry --failed").
func TestHelpWithoutMarkup(t *testing.T) {
	a := newApp(nil, nil)
	root := a.rootCommand()
	cmds := []*cobra.Command{root}
	for len(cmds) > 0 {
		c := cmds[0]
		cmds = append(cmds[1:], c.Commands()...)
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				t.Errorf("%s --%s: backtick in %q", c.CommandPath(), f.Name, f.Usage)
			}
		})
	}
}
