package logging

import "github.com/pricewatch/pricewatch/secret"

// Mask replaces whatever was redacted.
const Mask = secret.Mask

// Redactor masks secrets in log lines: the one scrubber of package secret.
type Redactor = secret.Scrubber

// NewRedactor returns a Redactor for the given secret values.
func NewRedactor(secrets ...string) *Redactor { return secret.New(secrets...) }

// RedactString masks the given secrets, and every credential shape, in s.
func RedactString(s string, secrets ...string) string { return secret.String(s, secrets...) }

// Redact returns err with the given secrets, and every credential shape,
// removed from its message.
func Redact(err error, secrets ...string) error { return secret.Error(err, secrets...) }
