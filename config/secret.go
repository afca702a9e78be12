package config

import (
	"reflect"

	"github.com/pricewatch/pricewatch/section"
)

// Secret holds a token or key; it prints as "<secret>" in every format
// (see section.Secret, where it lives so that fetchers can read their
// credentials without importing config).
type Secret = section.Secret

// NewSecret wraps a value.
func NewSecret(v string) Secret { return section.NewSecret(v) }

// ReadSecret resolves a secret from the environment variable env, the
// inline value, then the file; see section.ReadSecret.
func ReadSecret(env string, inline Secret, file string) (Secret, error) {
	return section.ReadSecret(env, inline, file)
}

func reflectValue(c *Config) reflect.Value { return reflect.ValueOf(c).Elem() }
