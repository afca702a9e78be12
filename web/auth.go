package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// OpenPaths answer without a token: a load balancer's, systemd's or
// Kubernetes' probe must not need the secret (issue 20 item 18). What they
// answer names no secret (see ReadyHandler).
var OpenPaths = []string{"/healthz", "/readyz"}

// RequireToken wraps next so that every request but OpenPaths carries
// "Authorization: Bearer <token>". A browser cannot send a bearer header,
// so HTTP Basic with the token as the password (any user name) is taken
// too: the browser asks for it once and the dashboard's links work. The
// comparison takes the same time
// whatever the token sent (both sides are hashed first, so not even the
// length leaks), and the token is never logged or echoed.
func RequireToken(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range OpenPaths {
			if r.URL.Path == p {
				next.ServeHTTP(w, r)
				return
			}
		}
		got, ok := bearer(r.Header.Get("Authorization"))
		if !ok {
			_, got, ok = r.BasicAuth()
		}
		sum := sha256.Sum256([]byte(got))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Add("WWW-Authenticate", `Bearer realm="pricewatch"`)
			w.Header().Add("WWW-Authenticate", `Basic realm="pricewatch (user: any, password: the token)", charset="UTF-8"`)
			writeError(w, http.StatusUnauthorized, "this listener needs a bearer token: send Authorization: Bearer <the token in http.token_file>")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}
