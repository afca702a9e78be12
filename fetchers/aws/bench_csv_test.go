package aws

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"testing"

	"github.com/pricewatch/pricewatch/fetchers/aws/awstest"
)

// The price list also comes as CSV (index.csv): one row per price
// dimension, every product attribute repeated on each row. This file
// measures the fastest CSV reading we could write, to decide between the
// two forms (see README.md, "JSON or CSV"). It is benchmark code only; the
// fetcher reads JSON.

// csvFile repeats the 44 rows of the real 2025-09-12 CSV excerpt, SKUs
// patched per repetition, after its five preamble lines and header.
type csvFile struct {
	head []byte
	rows []byte
	reps int
	size int64
}

func newCSVFile(tb testing.TB, target int64) *csvFile {
	raw := awstest.SampleFile(tb, "ec2-offer-index-excerpt-20250912.csv")
	lines := bytes.SplitAfter(raw, []byte("\n"))
	head := bytes.Join(lines[:6], nil)
	rows := bytes.Join(lines[6:], nil)
	if !bytes.HasSuffix(rows, []byte("\n")) {
		rows = append(rows, '\n')
	}
	reps := int((target - int64(len(head)) + int64(len(rows)) - 1) / int64(len(rows)))
	return &csvFile{head: head, rows: rows, reps: reps, size: int64(len(head)) + int64(reps)*int64(len(rows))}
}

func (c *csvFile) reader() io.Reader {
	rs := []io.Reader{bytes.NewReader(c.head)}
	// Patching SKUs does not change the cost of skimming; the same rows
	// are served again, which is what a reader sees anyway.
	for i := 0; i < c.reps; i++ {
		rs = append(rs, bytes.NewReader(c.rows))
	}
	return io.MultiReader(rs...)
}

// csvSkim reads rows and finds those with a non-empty GPU column, walking
// fields with bytes.IndexByte (quoted fields may hold commas; "" is an
// escaped quote) up to that column and jumping to the end of the row.
// It is the CSV counterpart of the JSON scanner's skipping.
func csvSkim(r io.Reader) (rows, gpuRows int, err error) {
	buf := make([]byte, scanBufSize)
	start, end := 0, 0
	eof := false
	gpuCol := -1
	skipped := 0
	for {
		// Make sure a whole row is in the buffer.
		nl := bytes.IndexByte(buf[start:end], '\n')
		for nl >= 0 && bytes.Count(buf[start:start+nl], quote)%2 == 1 {
			next := bytes.IndexByte(buf[start+nl+1:end], '\n')
			if next < 0 {
				nl = -1
				break
			}
			nl += 1 + next
		}
		if nl < 0 {
			if eof {
				if start != end {
					return rows, gpuRows, fmt.Errorf("file ends inside a row")
				}
				return rows, gpuRows, nil
			}
			end = copy(buf, buf[start:end])
			start = 0
			n, rerr := io.ReadFull(r, buf[end:])
			end += n
			if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
				eof = true
			} else if rerr != nil {
				return rows, gpuRows, rerr
			}
			continue
		}
		row := buf[start : start+nl]
		start += nl + 1
		if skipped < 5 {
			skipped++
			continue
		}
		if gpuCol < 0 {
			rec, err := csv.NewReader(bytes.NewReader(row)).Read()
			if err != nil {
				return rows, gpuRows, err
			}
			for i, name := range rec {
				if name == "GPU" {
					gpuCol = i
				}
			}
			if gpuCol < 0 {
				return rows, gpuRows, fmt.Errorf("no GPU column")
			}
			continue
		}
		rows++
		i := 0
		for col := 0; col < gpuCol; col++ {
			if i < len(row) && row[i] == '"' {
				for {
					q := bytes.IndexByte(row[i+1:], '"')
					if q < 0 {
						return rows, gpuRows, fmt.Errorf("unterminated field")
					}
					i += q + 2
					if i < len(row) && row[i] == '"' {
						continue // "" inside the field
					}
					break
				}
			} else if c := bytes.IndexByte(row[i:], ','); c >= 0 {
				i += c
			} else {
				return rows, gpuRows, fmt.Errorf("short row")
			}
			i++ // the comma
		}
		if i < len(row) && row[i] != ',' {
			gpuRows++
		}
	}
}

func TestCSVSkim(t *testing.T) {
	c := newCSVFile(t, 1<<20)
	rows, gpu, err := csvSkim(c.reader())
	if err != nil {
		t.Fatal(err)
	}
	// One row in 44 is the g5.48xlarge row (GPU "8").
	if rows != 44*c.reps || gpu != c.reps {
		t.Errorf("%d rows, %d GPU rows, want %d and %d", rows, gpu, 44*c.reps, c.reps)
	}
}

// BenchmarkCSVSkim measures csvSkim; ns/row is what one price dimension
// costs to pass over in the CSV form.
func BenchmarkCSVSkim(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			c := newCSVFile(b, sz.size)
			b.SetBytes(c.size)
			var rows int
			for i := 0; i < b.N; i++ {
				n, _, err := csvSkim(c.reader())
				if err != nil {
					b.Fatal(err)
				}
				rows = n
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
		})
	}
}
