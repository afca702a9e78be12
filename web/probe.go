package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// The probes, /healthz and /readyz, answer without the token (OpenPaths):
// systemd, Kubernetes and load balancers call them with none. So what they
// say is fixed text and states: never an error's message (a database
// path, a provider's answer, a file name), which only the log gets.

// Readiness is what /readyz answers when the daemon can serve.
type Readiness struct {
	// Providers are each provider's latest run: its status and start.
	Providers map[string]ProviderRun
	// Role is RoleLeader when this replica runs the schedules, alert
	// delivery and the digest, RoleFollower when another replica does
	// (both serve the API, the dashboard and /metrics).
	Role string
}

// The roles /readyz names.
const (
	RoleLeader   = "leader"
	RoleFollower = "follower"
)

// ProviderRun is one provider's latest run as /readyz shows it. A failed
// run's error is not shown (it may quote a provider's answer); `pricewatch
// runs` and the token-guarded /api/v1/runs have it.
type ProviderRun struct {
	Status    string
	StartedAt time.Time
}

// ProbeFailure is why the daemon is not ready, in words fit for an open
// endpoint. A readiness check wraps its detail in one of these (with %w);
// any other error is answered as NotReady.
type ProbeFailure string

func (f ProbeFailure) Error() string { return string(f) }

// The reasons /readyz gives.
const (
	NotReady            ProbeFailure = "not ready"
	SchedulerStalled    ProbeFailure = "scheduler stalled"
	DatabaseUnavailable ProbeFailure = "database unavailable"
)

// readyBody and notReadyBody are /readyz's JSON: {"ready": true, "role":
// "leader", "providers": {...}} or {"ready": false, "error": "scheduler
// stalled"}.
type readyBody struct {
	Ready     bool                       `json:"ready"`
	Role      string                     `json:"role,omitempty"`
	Providers map[string]readyProviderJS `json:"providers"`
}

type notReadyBody struct {
	Ready bool   `json:"ready"`
	Error string `json:"error"`
}

type readyProviderJS struct {
	Status    string `json:"status"`
	StartedAt string `json:"started_at"`
}

// HealthHandler is /healthz: the process answers.
func HealthHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Cache-Control", "no-store")
		w.Write([]byte("ok\n"))
	})
}

// ReadyHandler is /readyz: 200 with each provider's latest run when check
// passes, else 503 with the ProbeFailure's words; the error itself goes to
// log. check gets 5 s.
func ReadyHandler(check func(context.Context) (Readiness, error), log *zap.Logger) http.Handler {
	if log == nil {
		log = zap.NewNop()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		rd, err := check(ctx)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if err != nil {
			reason := NotReady
			errors.As(err, &reason)
			log.Warn("/readyz: not ready", zap.String("reason", string(reason)), zap.Error(err))
			w.WriteHeader(http.StatusServiceUnavailable)
			json.NewEncoder(w).Encode(notReadyBody{Error: string(reason)})
			return
		}
		body := readyBody{Ready: true, Role: rd.Role, Providers: map[string]readyProviderJS{}}
		for name, p := range rd.Providers {
			body.Providers[name] = readyProviderJS{Status: p.Status, StartedAt: p.StartedAt.UTC().Format(time.RFC3339)}
		}
		json.NewEncoder(w).Encode(body)
	})
}
