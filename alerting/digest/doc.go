// Package digest renders the weekly FinOps digest that analysis/digest
// computes: as text, Markdown, JSON, Slack Block Kit (which the Slack
// notifier calls when it sends a queued digest) and the PNG chart. The
// digest's data is built and judged there; the renderers and their callers
// use that package's types and values directly (both packages are named
// digest, so a file using both imports this one under another name).
package digest
