package main

import (
	"net/http"

	"github.com/spf13/cobra"

	"github.com/pricewatch/pricewatch/alerting/digest"
	"github.com/pricewatch/pricewatch/mcpserver"
	"github.com/pricewatch/pricewatch/report"
	"github.com/pricewatch/pricewatch/web"
)

func (a *app) mcpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Answer an AI agent over MCP on stdin and stdout, from the store",
		Long: `Serve the Model Context Protocol on stdin and stdout for a local agent (Claude
Desktop, VS Code, any MCP client that starts a command): tools that answer
from the store, never from a cloud, with the rows --format json gives
(cheapest, history, price_changes, availability, availability_changes,
capacity_blocks, savings, recommend, freshness), and the GPU catalogue and
provider list as resources. The daemon serves the same under /mcp.`,
		Example: `  pricewatch mcp
  pricewatch mcp --config /etc/pricewatch/pricewatch.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := a.openReader(cmd.Context())
			if err != nil {
				return err
			}
			api := http.NewServeMux()
			srv := &web.Server{Store: db, FX: func() report.FX { return reportFX(a.cfg.FX) }, Expected: a.wiring().ExpectedIntervals, AlertSummary: digest.AlertSummary, Log: a.log}
			srv.Mount(api)
			// stdout is the protocol's: logs go to stderr (a.log).
			return mcpserver.ServeStdio(cmd.Context(), api, buildVersion(), a.stdin, a.stdout)
		},
	}
}
