package slack

import (
	"time"

	slackapi "github.com/slack-go/slack"
)

// The helpers below let other renderers (the weekly digest) build messages
// with the same escaping and limits as alerts.

// Escape makes text safe inside mrkdwn (&, < and >).
func Escape(s string) string { return escape(s) }

// EscapeField escapes one text from outside (a cloud, the config, a stored
// error), folds its whitespace and caps it at 100 characters.
func EscapeField(s string) string { return escapeField(s) }

// Truncate cuts s to at most n runes, ending in "…", never splitting an
// escape sequence, a link or a date token.
func Truncate(s string, n int) string { return truncate(s, n) }

// Header is a plain-text header block, capped at MaxHeaderChars.
func Header(text string) slackapi.Block { return header(text) }

// Section is a mrkdwn section block, capped at MaxSectionChars.
func Section(mrkdwn string) slackapi.Block { return section(mrkdwn) }

// Context is a mrkdwn context block, capped at MaxSectionChars.
func Context(mrkdwn string) slackapi.Block { return contextBlock(mrkdwn) }

// Divider is a divider block.
func Divider() slackapi.Block { return slackapi.NewDividerBlock() }

// DateToken shows t in each reader's time zone, with UTC as the fallback.
func DateToken(t time.Time) string { return dateToken(t) }

// Marshal encodes a payload the way the outbox stores it (no HTML escaping
// of &, < and >, which are already mrkdwn entities).
func Marshal(p Payload) ([]byte, error) { return marshal(p) }
