package aws

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind (the
// read-ahead goroutine of a download must always stop).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
