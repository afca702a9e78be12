package fetchers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/pricewatch/pricewatch/origin"
)

// ErrForeignOrigin: a link in a response (a next page, a price file) or a
// redirect points away from the origin the fetcher was configured with. It
// is never followed: a hostile or compromised mirror must not make
// pricewatch fetch, and store as prices, whatever another host serves, or
// downgrade https to http.
var ErrForeignOrigin = errors.New("link to another origin refused")

// Origin is a URL's origin (see package origin).
func Origin(u *url.URL) string { return origin.Of(u) }

// CheckOrigin returns an error wrapping ErrForeignOrigin unless link has
// base's origin. what names the link in the message. Neither URL's path or
// query is shown: they may carry signatures.
func CheckOrigin(base, link *url.URL, what string) error {
	if Origin(base) == Origin(link) {
		return nil
	}
	return fmt.Errorf("%s points to %s, not the configured %s: %w", what, Origin(link), Origin(base), ErrForeignOrigin)
}

// maxRedirects bounds a redirect chain, as net/http's default does.
const maxRedirects = 10

// SameOriginRedirects is an http.Client CheckRedirect that follows a
// redirect only within the origin of the first request.
func SameOriginRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return CheckOrigin(via[0].URL, req.URL, "redirect")
}
