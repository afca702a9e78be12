package main

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/alerting"
	"github.com/pricewatch/pricewatch/config"
	"github.com/pricewatch/pricewatch/internal/table"
)

func (a *app) alertsRulesCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Print the alert rules in effect (the built-in defaults unless alerts.rules is set)",
		Long: `Rules prints the alert rules pricewatch applies, with the channel each one
posts to. Without alerts.rules in the config these are the built-in defaults
(the ones config.example.yaml shows); alerts.rules: [] turns alerts off.`,
		Example: `  pricewatch alerts rules
  pricewatch alerts rules --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return writeRules(a.stdout, format, a.cfg, a.wiring().ConfiguredNotifiers())
		},
	}
	formatFlag(cmd, &format, "output format: table or json", formatTable, formatJSON)
	return cmd
}

// ruleRow is the JSON shape of `pricewatch alerts rules`: the config keys
// of a rule, with the channel resolved.
type ruleRow struct {
	Name                string   `json:"name"`
	Events              []string `json:"events"`
	GPUModels           []string `json:"gpu_models"`
	Providers           []string `json:"providers"`
	Regions             []string `json:"regions"`
	PriceTypes          []string `json:"price_types"`
	MinChangePct        float64  `json:"min_change_pct"`
	MinChangePerGPUHour float64  `json:"min_change_per_gpu_hour"`
	SpotBelowPerGPUHour float64  `json:"spot_below_per_gpu_hour"`
	Channel             string   `json:"channel"`
	Webhook             bool     `json:"webhook"`
	BuiltIn             bool     `json:"built_in"`
}

func list(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// writeRules lists the rules in effect where they post: the built-in rules
// go to every notifier configured (to), as the outbox routes them.
func writeRules(w io.Writer, format string, cfg *config.Config, to alerting.Configured) error {
	builtIn := reflect.DeepEqual(cfg.Alerts.Rules, config.DefaultRules())
	rows := make([]ruleRow, 0, len(cfg.Alerts.Rules))
	for i, r := range cfg.Alerts.Rules {
		name := strings.TrimSpace(r.Name)
		if name == "" {
			name = fmt.Sprintf("rule-%d", i+1)
		}
		ch := strings.TrimSpace(r.Channel)
		if ch == "" {
			ch = cfg.Slack.Channel
		}
		webhook := r.Webhook
		if builtIn && to.Webhook {
			webhook = true
			if !to.Slack {
				ch = "" // webhook only: no Slack channel is posted to
			}
		}
		rows = append(rows, ruleRow{Name: name, Events: list(r.Events), GPUModels: list(r.GPUModels), Providers: list(r.Providers),
			Regions: list(r.Regions), PriceTypes: list(r.PriceTypes), MinChangePct: r.MinChangePct, MinChangePerGPUHour: r.MinChangePerGPUHour,
			SpotBelowPerGPUHour: r.SpotBelowPerGPUHour, Channel: ch, Webhook: webhook, BuiltIn: builtIn})
	}
	if format == formatJSON {
		return writeJSON(w, rows)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No alert rules: alerts are off (alerts.rules is empty). Remove alerts.rules from the config for the built-in defaults.")
		return err
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	t := table.New("NAME", "EVENTS", "GPU MODELS", "FILTERS", "THRESHOLDS", "CHANNEL")
	perGPUThresholds := false
	for _, r := range rows {
		perGPUThresholds = perGPUThresholds || r.MinChangePerGPUHour > 0 || r.SpotBelowPerGPUHour > 0
		var filters, thresholds []string
		if len(r.Providers) > 0 {
			filters = append(filters, "providers "+strings.Join(r.Providers, ","))
		}
		if len(r.Regions) > 0 {
			filters = append(filters, "regions "+strings.Join(r.Regions, ","))
		}
		if len(r.PriceTypes) > 0 {
			filters = append(filters, strings.Join(r.PriceTypes, ","))
		}
		if r.MinChangePct > 0 {
			thresholds = append(thresholds, "≥ "+num(r.MinChangePct)+"%")
		}
		if r.MinChangePerGPUHour > 0 {
			thresholds = append(thresholds, "≥ "+num(r.MinChangePerGPUHour)+"/GPU-h")
		}
		if r.SpotBelowPerGPUHour > 0 {
			thresholds = append(thresholds, "spot < "+num(r.SpotBelowPerGPUHour)+"/GPU-h")
		}
		gpus := "any"
		if len(r.GPUModels) > 0 {
			gpus = strings.Join(r.GPUModels, ",")
		}
		ch := r.Channel
		switch {
		case ch == "" && r.Webhook && r.BuiltIn && !to.Slack:
			ch = "webhook"
		case ch == "":
			ch = "(none: set slack.channel)"
			if r.Webhook {
				ch += " + webhook"
			}
		case r.Webhook:
			ch += " + webhook"
		}
		t.Add(r.Name, strings.Join(r.Events, ","), gpus, dash(strings.Join(filters, "; ")), dash(strings.Join(thresholds, " and ")), ch)
	}
	if err := writeTable(w, t); err != nil {
		return err
	}
	source := "from alerts.rules in " + cfg.Source
	if builtIn {
		source = "the built-in defaults (set alerts.rules to replace them; alerts.rules: [] turns alerts off)"
	}
	if _, err := fmt.Fprintf(w, "\nThese are %s. Moves of at least %s%% alert only once the next run confirms them (alerts.confirm_change_pct).\n",
		source, num(cfg.Alerts.ConfirmChangePct)); err != nil {
		return err
	}
	if perGPUThresholds {
		// No exchange rate decides an alert: a threshold is compared with
		// each price in that price's own currency (the rule engine's rule).
		_, err := fmt.Fprintln(w, "Thresholds per GPU-hour are compared with each price in its own currency, without conversion (a USD price against the number as USD, a CNY price as CNY); narrow a rule with providers or regions to keep one currency.")
		return err
	}
	return nil
}
