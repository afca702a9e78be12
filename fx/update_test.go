package fx

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// memStore is a Store in memory.
type memStore struct{ days []Rates }

func (m *memStore) SaveRates(_ context.Context, r Rates) error {
	m.days = append(m.days, r)
	return nil
}

func (m *memStore) HasRates(context.Context) (bool, error) { return len(m.days) > 0, nil }

// AfterCycle stores the day and says so; a failed fetch stores nothing and
// says what the reports fall back on (earlier rates, or none); off, it
// fetches nothing; Update, off, says which key turns it on.
func TestUpdaterAfterCycle(t *testing.T) {
	body := readTestdata(t, "eurofxref-daily-2022-07-08.xml")
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }))
	defer ok.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body[:300])) }))
	defer broken.Close()
	earlier := Rates{Date: date("2022-07-07"), Source: SourceECB}
	tests := []struct {
		name     string
		u        Updater
		stored   []Rates
		wantLine string // a prefix; empty: no line
		wantErr  bool
		wantDays int
	}{
		{"stored", Updater{Enabled: true, Client: testClient(), Endpoint: ok.URL}, nil, "fx       ok       ECB rates of 2022-07-08 (", false, 1},
		{"failed, earlier rates", Updater{Enabled: true, Client: testClient(), Endpoint: broken.URL}, []Rates{earlier}, "fx       failed   updating exchange rates:", true, 1},
		{"failed, none stored", Updater{Enabled: true, Client: testClient(), Endpoint: broken.URL}, nil, "fx       failed   updating exchange rates:", true, 0},
		{"off", Updater{Client: testClient(), Endpoint: ok.URL}, nil, "", false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := &memStore{days: tc.stored}
			lines, err := tc.u.AfterCycle(context.Background(), store)
			if (err != nil) != tc.wantErr || len(store.days) != tc.wantDays {
				t.Fatalf("error %v, %d days stored", err, len(store.days))
			}
			if tc.wantLine == "" {
				if len(lines) != 0 {
					t.Errorf("lines %q, want none", lines)
				}
				return
			}
			if len(lines) != 1 || !strings.HasPrefix(lines[0], tc.wantLine) {
				t.Fatalf("lines %q, want one starting %q", lines, tc.wantLine)
			}
			switch {
			case tc.name == "failed, earlier rates" && !strings.HasSuffix(lines[0], "(the rates stored earlier still apply)"),
				tc.name == "failed, none stored" && !strings.Contains(lines[0], "no rates are stored yet"):
				t.Errorf("fallback not said: %q", lines[0])
			}
		})
	}
	if _, err := (&Updater{}).Update(context.Background(), &memStore{}); err == nil || !strings.Contains(err.Error(), "fx.enabled") {
		t.Errorf("Update while off: %v", err)
	}
}
