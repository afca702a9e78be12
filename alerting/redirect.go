package alerting

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/pricewatch/pricewatch/origin"
)

// ErrForeignRedirect: the notifier's endpoint redirected to another
// origin. A 307 or 308 re-sends the POST, with the Slack bot token in the
// form body or the webhook's signed alert, so it is never followed; the
// fetchers refuse such redirects the same way (fetchers.SameOriginRedirects).
var ErrForeignRedirect = errors.New("redirect to another origin refused")

// maxRedirects bounds a same-origin redirect chain, as net/http's default
// does.
const maxRedirects = 10

// SameOriginRedirects is an http.Client CheckRedirect that follows a
// redirect only within the origin of the first request (an https
// downgrade is another origin). Only the target's origin is named in the
// error: the configured URL's path is a secret.
func SameOriginRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if origin.Of(via[0].URL) != origin.Of(req.URL) {
		return fmt.Errorf("redirected to %s: %w", origin.Of(req.URL), ErrForeignRedirect)
	}
	return nil
}

// HTTPClient returns the client a notifier posts with: hc (a client with
// timeout when nil), copied, so that it follows no redirect off its origin
// whatever the caller's client would have done.
func HTTPClient(hc *http.Client, timeout time.Duration) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	} else {
		c.Timeout = timeout
	}
	c.CheckRedirect = SameOriginRedirects
	return &c
}

// RedirectFailure returns err as a permanent failure of every message
// when it is a refused redirect (the endpoint is not where the
// configuration says; resending cannot fix that), and false otherwise.
// what says what was being done, key names the setting to fix.
func RedirectFailure(err error, what, key string) (error, bool) {
	if !errors.Is(err, ErrForeignRedirect) {
		return nil, false
	}
	// The *url.Error around it quotes the configured URL: keep only ours.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return Permanent(fmt.Errorf("%s: %w (the message was not sent there)", what, err), ScopeAll,
		"check "+key+": it must be the endpoint itself, not a URL that redirects to another host"), true
}
