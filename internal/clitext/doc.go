// Package clitext holds the wording and number formats the CLI's commands
// share: the exchange-rate notes under a converted report, the compact
// "how it's bought" label of a table and its legend, place, GPU and
// availability labels, how amounts, rates and percentages print, and the
// terminal chart of price series (WriteChart). The tables themselves are
// laid out by internal/table.
package clitext
