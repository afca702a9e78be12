// Package origin names a URL's origin (scheme, host and port), the one
// comparison behind every "stay on the configured host" rule: the
// fetchers' links and redirects, and the notifiers' redirects.
package origin

import (
	"net"
	"net/url"
	"strings"
)

// Of is u's scheme, host and port, lower-cased, with the scheme's default
// port made explicit, so that https://prices.azure.com and
// https://prices.azure.com:443 (as Azure's NextPageLink names it) are one
// origin, and an https to http downgrade is another.
func Of(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
