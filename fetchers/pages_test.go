package fetchers

import (
	"errors"
	"testing"
)

// TokenPages follows tokens to the end, and refuses a repeated token and a
// runaway answer as incomplete; a page's error ends the reading as it is.
func TestTokenPages(t *testing.T) {
	answers := func(tokens ...string) func(string) (string, error) {
		i := 0
		return func(string) (string, error) {
			next := tokens[i]
			i++
			return next, nil
		}
	}
	var asked []string
	err := TokenPages("test", 5, func(tok string) (string, error) {
		asked = append(asked, tok)
		return map[string]string{"": "a", "a": " b ", "b": ""}[tok], nil
	})
	if err != nil || len(asked) != 3 || asked[0] != "" || asked[1] != "a" || asked[2] != "b" {
		t.Errorf("asked %q, error %v; want the three pages in order", asked, err)
	}
	if err := TokenPages("test", 5, answers("a", "b", "a")); !errors.Is(err, ErrIncomplete) {
		t.Errorf("repeated token: %v, want ErrIncomplete", err)
	}
	if err := TokenPages("test", 2, answers("a", "b", "")); !errors.Is(err, ErrIncomplete) {
		t.Errorf("more pages than the bound: %v, want ErrIncomplete", err)
	}
	boom := errors.New("boom")
	if err := TokenPages("test", 5, func(string) (string, error) { return "", boom }); err != boom {
		t.Errorf("page error: %v, want it as it is", err)
	}
}
