package storage

import (
	"context"
	"testing"

	"github.com/pricewatch/pricewatch"
	"github.com/pricewatch/pricewatch/alerting"
)

// TestLargeMovesWaitForConfirmation replays price sequences of one offer
// (one run each) and checks which moves each run lets alert.
func TestLargeMovesWaitForConfirmation(t *testing.T) {
	backends(t, func(t *testing.T) {
		const typ = "Standard_ND96isr_H100_v5"
		tests := []struct {
			name   string
			prices []string // "" = the offer is missing from the run; "held" = the guard holds 0.001
			alerts [][2]string
		}{
			{"−60% alerted once, when confirmed", []string{"10", "4", "4", "4"}, [][2]string{{}, {}, {"10", "4"}, {}}},
			{"a reverting move never alerts", []string{"10", "4", "10", "10"}, [][2]string{{}, {}, {}, {}}},
			{"a small move alerts at once", []string{"10", "9", "9"}, [][2]string{{}, {"10", "9"}, {}}},
			{"moving on is judged from the last price told", []string{"10", "4", "4.4", "4.4"}, [][2]string{{}, {}, {}, {"10", "4.4"}}},
			{"moving back close to the old price alerts what it is", []string{"10", "4", "9.6"}, [][2]string{{}, {}, {"10", "9.6"}}},
			{"a rise of 60% waits too", []string{"10", "16", "16"}, [][2]string{{}, {}, {"10", "16"}}},
			{"an offer that is gone ends the wait", []string{"10", "4", "", "4"}, [][2]string{{}, {}, {}, {}}},
			{"a held price leaves the wait as it is", []string{"10", "4", "held", "4"}, [][2]string{{}, {}, {}, {"10", "4"}}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				path := string(newStore(t))
				steady := offer("Standard_NC24ads_A100_v4", "eastus", pricewatch.OnDemand, "3.673")
				steady.Hardware.GPUModel = "A100-80GB"
				for i, p := range tt.prices {
					// A new process (and connection) for every run: pending moves
					// live in the database.
					db, err := OpenURL(context.Background(), path, Options{})
					if err != nil {
						t.Fatal(err)
					}
					offers := []pricewatch.Offer{steady}
					var opts SaveOptions
					opts.Policy = alerting.NewPolicy(50, 1)
					switch p {
					case "":
					case "held":
						o := offer(typ, "eastus", pricewatch.OnDemand, "0.001")
						offers = append(offers, o)
						opts.Held = []HeldPrice{{Offer: o, Reason: HeldBelowFloor, Detail: "test"}}
					default:
						offers = append(offers, offer(typ, "eastus", pricewatch.OnDemand, p))
					}
					res, err := save(t, db, snapshot(offers...), opts)
					db.Close()
					if err != nil {
						t.Fatalf("run %d: %v", i+1, err)
					}
					var got [2]string
					n := 0
					for _, c := range res.AlertChanges() {
						if c.Kind != pricewatch.PriceChanged {
							continue
						}
						n++
						got = [2]string{c.Old.Decimal.String(), c.New.Decimal.String()}
						if c.Offer.InstanceType != typ || c.GPUModel != "H100" || c.GPUCount != 8 {
							t.Errorf("run %d: alert change %+v", i+1, c)
						}
					}
					if n > 1 {
						t.Errorf("run %d: %d price moves alert, want at most 1", i+1, n)
					}
					if got != tt.alerts[i] {
						t.Errorf("run %d (%s): alerts %v, want %v", i+1, p, got, tt.alerts[i])
					}
					// Storage records every move at once, whatever waits.
					for _, c := range res.Changes {
						if c.Kind == pricewatch.PriceChanged && c.New.Decimal.String() != p {
							t.Errorf("run %d: stored change to %s, want %s", i+1, c.New.Decimal, p)
						}
					}
				}
			})
		}
	})
}

// TestConfirmationOffAlertsAtOnce: with confirmation off (no policy, or
// alerts.confirm_change_pct 0) a large move is in the run's alert changes
// at once.
func TestConfirmationOffAlertsAtOnce(t *testing.T) {
	backends(t, func(t *testing.T) {
		for _, tt := range []struct {
			name string
			opts SaveOptions
		}{
			{"no policy", SaveOptions{}},
			{"confirm_change_pct 0", SaveOptions{Policy: alerting.NewPolicy(0, 1)}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				db, _ := openTest(t)
				for i, p := range []string{"10", "1"} {
					res := mustSaveWith(t, db, snapshot(offer("x", "eastus", pricewatch.OnDemand, p)), tt.opts)
					if i == 1 && (len(res.AlertChanges()) != 1 || len(res.Awaiting) != 0) {
						t.Errorf("alert changes %v, awaiting %v; want the move at once", res.AlertChanges(), res.Awaiting)
					}
				}
			})
		}
	})
}

// TestNoPolicyLeavesWaitingMoves: issue 21 item 4, a save without a policy
// (SaveOptions.Policy nil, as tools and tests store runs) rules on
// nothing: a move waiting from an earlier run stays in pending_moves until
// a run with the policy settles it.
func TestNoPolicyLeavesWaitingMoves(t *testing.T) {
	backends(t, func(t *testing.T) {
		db, _ := openTest(t)
		policy := SaveOptions{Policy: alerting.NewPolicy(50, 1)}
		for i, run := range []struct {
			price         string
			opts          SaveOptions
			wantConfirmed int
			wantPending   int
		}{
			{"10", policy, 0, 0},
			{"4", policy, 0, 1}, // −60%: waits
			{"4", SaveOptions{}, 0, 1},
			{"4", policy, 1, 0},
		} {
			res := mustSaveWith(t, db, snapshot(offer("x", "eastus", pricewatch.OnDemand, run.price)), run.opts)
			if len(res.Confirmed) != run.wantConfirmed {
				t.Errorf("run %d: confirmed %v, want %d", i+1, res.Confirmed, run.wantConfirmed)
			}
			var n int
			if err := db.write.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM pending_moves`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != run.wantPending {
				t.Errorf("run %d: %d pending moves, want %d", i+1, n, run.wantPending)
			}
		}
	})
}
