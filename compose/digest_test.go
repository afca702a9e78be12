package compose

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/pricewatch/pricewatch/config"
)

func TestScheduleInterval(t *testing.T) {
	from := time.Date(2022, 10, 3, 9, 0, 0, 0, time.UTC)
	for spec, want := range map[string]time.Duration{
		"":              time.Hour,
		"5 * * * *":     time.Hour,
		"17 */6 * * *":  6 * time.Hour,
		"0 6 * * *":     24 * time.Hour,
		"0 6 * * 1,4":   4 * 24 * time.Hour,
		"0 9 * * 1-5":   3 * 24 * time.Hour,
		"not a cronjob": 0,
	} {
		if got := scheduleInterval(spec, from); got != want {
			t.Errorf("%q: %s, want %s", spec, got, want)
		}
	}
}

// ExpectedIntervals is worked out once per minute of the clock (every
// kept answer's key asks for it at each request: 22.6 ms of CPU a call
// with the default config's providers) and is what working it out afresh
// gives, at any second of the minute; the next minute works it out again.
func TestExpectedIntervalsOncePerMinute(t *testing.T) {
	cfg, err := config.Parse(strings.NewReader("providers:\n  aws:\n    schedule: \"0 9 1 12 *\"\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w := &Wiring{Config: cfg}
	fresh := func(now time.Time) map[string]time.Duration {
		return (&Wiring{Config: cfg}).ExpectedIntervals(now)
	}
	// A yearly run on 1 December at 09:00: in force until that minute's
	// firing is past, then none within the next two weeks.
	before := time.Date(2026, 12, 1, 8, 59, 0, 0, time.UTC)
	for _, now := range []time.Time{before, before.Add(30 * time.Second), before.Add(59*time.Second + 999*time.Millisecond),
		before.Add(time.Minute), before.Add(time.Minute + 30*time.Second)} {
		got, want := w.ExpectedIntervals(now), fresh(now)
		if !maps.Equal(got, want) {
			t.Errorf("at %s: %v, worked out afresh %v", now.Format(time.TimeOnly), got, want)
		}
	}
	if a, b := fresh(before)["aws"], fresh(before.Add(time.Minute))["aws"]; a == b {
		t.Fatalf("the schedule's interval is %s at both minutes: the test tells no minute from the next", a)
	}
}

func BenchmarkExpectedIntervals(b *testing.B) {
	w := &Wiring{Config: config.Default()}
	now := time.Date(2026, 12, 6, 16, 0, 0, 0, time.UTC)
	for b.Loop() {
		w.ExpectedIntervals(now)
	}
}
