package aws

import (
	"bytes"
		"testing"
)

func BenchmarkMicroIndexByte(b *testing.B) {
	raw := make([]byte, 64<<20)
	b.SetBytes(int64(len(raw)))
	for i := 0; i < b.N; i++ {
		if bytes.IndexByte(raw, 1) >= 0 {
			b.Fatal()
		}
	}
}
