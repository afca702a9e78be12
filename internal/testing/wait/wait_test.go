package wait

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// A condition another goroutine makes true ends the wait; one that never
// holds fails the test, naming what was awaited.
func TestFor(t *testing.T) {
	var done atomic.Bool
	time.AfterFunc(20*time.Millisecond, func() { done.Store(true) })
	For(t, "the flag", 5*time.Second, done.Load)

	ft := &fakeTB{TB: t}
	func() {
		defer func() { _ = recover() }()
		For(ft, "nothing", 20*time.Millisecond, func() bool { return false })
	}()
	if ft.msg != "timed out after 20ms waiting for nothing" {
		t.Errorf("failure %q", ft.msg)
	}
}

// fakeTB records a Fatalf and stops the wait as the testing package would.
type fakeTB struct {
	testing.TB
	msg string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic("fatal")
}
