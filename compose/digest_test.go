package compose

import (
	"testing"
	"time"
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
