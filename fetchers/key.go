package fetchers

import (
	"fmt"

	"github.com/pricewatch/pricewatch/section"
)

// Key says where a keyed API's key comes from: the environment variable
// Env first, then the file named by providers.<Provider>.api_key_file (a
// relative name is looked up in $CREDENTIALS_DIRECTORY). Written once, the
// resolver, the missing-key error and the refused-key hint say the same.
type Key struct {
	// Provider is the cloud's key ("lambda"); What names the key in
	// errors ("lambda API key").
	Provider, What string
	// Env names the environment variable ("LAMBDA_API_KEY").
	Env string
	// Required makes a missing key an error wrapping ErrNoCredentials, so
	// that the provider is skipped, not failed; otherwise the fetcher
	// reads what it can without one.
	Required bool
	// Note, when set, is added to the missing-key error in parentheses
	// ("a Google Cloud API key; …").
	Note string
}

// From resolves the key (see ReadKey); a required key that is set
// nowhere gives Missing.
func (k Key) From(file string) (section.Secret, error) {
	s, err := ReadKey(k.What, k.Env, file)
	if err == nil {
		err = k.Check(s)
	}
	return s, err
}

// Check refuses an empty required key with Missing.
func (k Key) Check(s section.Secret) error {
	if k.Required && s.Empty() {
		return k.Missing()
	}
	return nil
}

// Missing is the error of a required key set nowhere: it wraps
// ErrNoCredentials and says where to set it.
func (k Key) Missing() error {
	where := fmt.Sprintf("set %s or providers.%s.api_key_file", k.Env, k.Provider)
	if k.Note != "" {
		where += " (" + k.Note + ")"
	}
	return fmt.Errorf("%w: %s", ErrNoCredentials, where)
}

// Help is what the error of a refused key adds (KeyedSpec.KeyHelp):
// "check LAMBDA_API_KEY or providers.lambda.api_key_file".
func (k Key) Help() string {
	return "check " + k.Env + " or providers." + k.Provider + ".api_key_file"
}
