package fetchers

import (
	"fmt"
	"strings"
)

// TokenPages reads an answer paged by continuation tokens (EC2's
// nextToken, Resource Graph's $skipToken): page is called with "" and then
// with each token the previous page handed out, until one hands out none.
// A token handed out twice (a server looping) or more than max pages is
// ErrIncomplete, naming what, so a looping or runaway answer never reads
// as a complete one; page's own error ends the reading as it is.
func TokenPages(what string, max int, page func(token string) (next string, err error)) error {
	seen := map[string]bool{}
	token := ""
	for n := 0; ; n++ {
		if n >= max {
			return fmt.Errorf("%w: %s: more than %d pages", ErrIncomplete, what, max)
		}
		next, err := page(token)
		if err != nil {
			return err
		}
		next = strings.TrimSpace(next)
		if next == "" {
			return nil
		}
		if seen[next] {
			return fmt.Errorf("%w: %s: page token repeated", ErrIncomplete, what)
		}
		seen[next] = true
		token = next
	}
}
