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

// CheckHandedOut checks a link an API hands out for one download of its
// own (a short-lived signed URL to a storage host, as Azure China's price
// sheet answers): it may name another host, and is then the one foreign
// origin that download is allowed, but it must be an absolute http(s) URL
// with a host, carry no user info, and not go from https down to http.
// Redirects of that download stay within its origin (SameOriginRedirects).
// The link's path and query are never shown: they carry the signature.
func CheckHandedOut(base, link *url.URL, what string) error {
	switch {
	case link.Scheme != "http" && link.Scheme != "https":
		return fmt.Errorf("%s is not an http(s) URL: %w", what, ErrForeignOrigin)
	case link.Host == "" || link.User != nil:
		return fmt.Errorf("%s has no host, or user info: %w", what, ErrForeignOrigin)
	case base.Scheme == "https" && link.Scheme != "https":
		return fmt.Errorf("%s points to %s over http, not https as the configured %s: %w", what, Origin(link), Origin(base), ErrForeignOrigin)
	}
	return nil
}
