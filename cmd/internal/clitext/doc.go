// Package clitext holds the wording and number formats the CLI's commands
// share: the exchange-rate notes under a converted report, the compact
// "how it's bought" label of a table and its legend, place, GPU and
// availability labels, and how amounts, rates and percentages print. It
// sits with the binary (under cmd/) because it reads the reports and
// analysis it words; the tables themselves are laid out by internal/table,
// a leaf, and the terminal chart is cmd/internal/termchart.
package clitext
