package aws

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// maxResumes bounds how often one download picks up after a dropped
// connection before the run gives up.
const maxResumes = 3

// errStartOver marks a download that stopped where it cannot be picked
// up again: the server serves no ranges or no ETag to pin them to, or the
// object changed (If-Range answered with the whole, new object). Bytes
// already parsed belong to the old object, so only reading the file
// again from its first byte is sound (readFile does, a bounded number of
// times).
var errStartOver = errors.New("the download cannot be resumed where it stopped")

// download is a response body that counts bytes, shows progress and, when
// the connection drops mid-way, asks for the rest with a Range request
// pinned to the same object (If-Range on its ETag) instead of starting a
// several-hundred-megabyte file again. A body that ends short of its
// Content-Length is an error, never a quiet end of file.
//
// The body is read ahead by a goroutine into a few fixed chunks, so that
// network reads (and their system calls) overlap with parsing on another
// core; memory stays at readAheadChunks × readAheadSize.
type download struct {
	ctx     context.Context
	cancel  context.CancelFunc
	f       *Fetcher
	url     string
	body    io.ReadCloser
	n       int64 // bytes received; read it after Close
	size    int64 // Content-Length of the whole object, -1 if unknown
	etag    string
	ranges  bool
	resumes int
	prog    *progress

	full, free chan []byte
	stopped    chan struct{}
	err        error  // why the goroutine stopped; read after full is closed
	cur, last  []byte // the chunk being consumed
	closed     bool
}

const (
	readAheadChunks = 4
	readAheadSize   = 256 << 10
)

// errUnframed marks a response whose end cannot be told from a cut: no
// Content-Length, no chunked encoding, no compression with a trailer of
// its own. open refuses it where the caller asked for framing (CSV).
var errUnframed = errors.New("response framed by neither Content-Length nor chunked encoding")

// open starts the download of url. With framed, a response whose end
// cannot be told from a cut is closed unread (errUnframed): a body
// shorter than its Content-Length, a chunked body without its last chunk
// and a cut gzip stream each end in an error, a connection simply closed
// does not.
func (f *Fetcher) open(ctx context.Context, url, label string, b *board, framed bool) (*download, error) {
	ctx, cancel := context.WithCancel(ctx)
	resp, err := f.get(ctx, url, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("GET %s: unexpected HTTP %d", url, resp.StatusCode)
	}
	if framed && resp.ContentLength < 0 && !slices.Contains(resp.TransferEncoding, "chunked") && !resp.Uncompressed {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("GET %s: %w", url, errUnframed)
	}
	d := &download{
		ctx: ctx, cancel: cancel, f: f, url: url, body: resp.Body, size: resp.ContentLength,
		etag: resp.Header.Get("ETag"),
		// A body the transport decompressed cannot be resumed by range:
		// ranges count compressed bytes.
		ranges:  strings.EqualFold(resp.Header.Get("Accept-Ranges"), "bytes") && !resp.Uncompressed,
		full:    make(chan []byte, readAheadChunks),
		free:    make(chan []byte, readAheadChunks),
		stopped: make(chan struct{}),
	}
	if b != nil {
		d.prog = &progress{b: b, label: label, size: d.size, start: time.Now()}
	}
	for range readAheadChunks {
		d.free <- make([]byte, readAheadSize)
	}
	go d.pump()
	return d, nil
}

// pump fills free chunks from the body until it ends or fails. There are
// as many chunks as places in full, so sending never blocks.
func (d *download) pump() {
	defer close(d.stopped)
	defer close(d.full)
	for {
		var b []byte
		select {
		case b = <-d.free:
		case <-d.ctx.Done():
			d.err = d.ctx.Err()
			return
		}
		n := 0
		var err error
		for n < len(b) && err == nil {
			var k int
			k, err = d.readBody(b[n:])
			n += k
		}
		if n > 0 {
			d.full <- b[:n]
		}
		if err != nil {
			d.err = err
			return
		}
	}
}

// Read hands out the chunks the goroutine filled.
func (d *download) Read(p []byte) (int, error) {
	for len(d.cur) == 0 {
		if d.last != nil {
			d.free <- d.last[:cap(d.last)]
			d.last = nil
		}
		b, ok := <-d.full
		if !ok {
			return 0, d.err
		}
		d.cur, d.last = b, b
	}
	n := copy(p, d.cur)
	d.cur = d.cur[n:]
	return n, nil
}

// Close stops the goroutine and releases the connection; n is final after.
func (d *download) Close() error {
	if d.closed {
		return nil
	}
	d.closed = true
	d.cancel()
	<-d.stopped
	return d.body.Close()
}

// readBody reads the response body, resuming after a dropped connection.
func (d *download) readBody(p []byte) (int, error) {
	for {
		n, err := d.body.Read(p)
		d.n += int64(n)
		d.prog.update(d.n)
		switch {
		case err == nil:
			return n, nil
		case errors.Is(err, io.EOF) && (d.size < 0 || d.n == d.size):
			d.prog.done(d.n)
			return n, io.EOF
		case errors.Is(err, io.EOF):
			err = io.ErrUnexpectedEOF
		}
		if d.ctx.Err() != nil || d.resumes >= maxResumes {
			return n, fmt.Errorf("GET %s: body cut off after %d of %s bytes: %w", d.url, d.n, sizeText(d.size), err)
		}
		if !d.ranges || d.etag == "" {
			return n, fmt.Errorf("GET %s: body cut off after %d of %s bytes (%w: no byte ranges on an ETag served): %w",
				d.url, d.n, sizeText(d.size), errStartOver, err)
		}
		if rerr := d.resume(); rerr != nil {
			return n, fmt.Errorf("GET %s: body cut off after %d bytes (%v); resuming failed: %w", d.url, d.n, err, rerr)
		}
		if n > 0 {
			return n, nil
		}
	}
}

func (d *download) resume() error {
	d.resumes++
	d.body.Close()
	d.body = io.NopCloser(strings.NewReader(""))
	hdr := http.Header{}
	hdr.Set("Range", "bytes="+strconv.FormatInt(d.n, 10)+"-")
	hdr.Set("If-Range", d.etag)
	resp, err := d.f.get(d.ctx, d.url, hdr)
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusOK {
		// If-Range did not match: the whole object again, a new one.
		resp.Body.Close()
		return fmt.Errorf("%w: the object changed (HTTP 200 to a range request pinned to ETag %s, now %s)",
			errStartOver, d.etag, resp.Header.Get("ETag"))
	}
	if resp.StatusCode != http.StatusPartialContent {
		resp.Body.Close()
		return fmt.Errorf("server answered HTTP %d to a range request", resp.StatusCode)
	}
	var start int64 = -1
	if cr := resp.Header.Get("Content-Range"); strings.HasPrefix(cr, "bytes ") {
		from, _, _ := strings.Cut(strings.TrimPrefix(cr, "bytes "), "-")
		start, _ = strconv.ParseInt(from, 10, 64)
	}
	if start != d.n {
		resp.Body.Close()
		return fmt.Errorf("range answer starts at byte %d, want %d", start, d.n)
	}
	d.body = resp.Body
	d.f.log.Info("resumed download", zap.String("url", d.url), zap.Int64("offset", d.n), zap.Int("attempt", d.resumes))
	return nil
}

// board is the terminal the status lines of the downloads running at once
// share: one line is written at a time, each over the last ("\r"), and a
// finished download's line is left standing.
type board struct {
	mu sync.Mutex
	w  io.Writer
}

// progress writes a one-line status for long downloads to a terminal.
type progress struct {
	b     *board
	label string
	size  int64
	start time.Time
	last  time.Time
}

func (p *progress) update(n int64) {
	if p == nil {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < time.Second {
		return
	}
	p.last = now
	p.print(n, now, "")
}

func (p *progress) done(n int64) {
	if p == nil {
		return
	}
	p.print(n, time.Now(), "\n")
}

func (p *progress) print(n int64, now time.Time, end string) {
	rate := float64(n) / max(now.Sub(p.start).Seconds(), 1e-3)
	total := ""
	if p.size > 0 {
		total = fmt.Sprintf(" of %s (%d%%)", mb(p.size), n*100/p.size)
	}
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	fmt.Fprintf(p.b.w, "\r%s: %s%s, %s/s   %s", p.label, mb(n), total, mb(int64(rate)), end)
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func sizeText(n int64) string {
	if n < 0 {
		return "unknown"
	}
	return strconv.FormatInt(n, 10)
}
