package aws

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// scanner reads a JSON document from a stream without building it in
// memory. It is written for the AWS price files: hundreds of megabytes in
// which the few values pricewatch wants sit among millions it does not. The
// caller walks the structure it cares about (objects, keys, strings) and
// skips everything else with skipValue, which only matches brackets and
// string quotes and so runs close to memory speed.
//
// Strings are returned as slices of the internal buffer, valid until the
// next call; callers copy what they keep.
type scanner struct {
	r   io.Reader
	buf []byte
	pos int    // next unread byte
	end int    // end of valid data in buf
	off int64  // stream offset of buf[0], for error messages
	err error  // sticky read error; io.EOF once the stream is done
	key []byte // a copy of the current key, when reaching its ':' refilled
	// slash is the index of the first backslash at or after some point
	// already passed, len(buf) if there is none, or -1 after a refill.
	slash int
}

// nextSlash returns the index of the first backslash at or after i, or
// the end of the data. The buffer is searched once per refill, not once
// per call: AWS files have no escapes.
func (s *scanner) nextSlash(i int) int {
	if s.slash < i {
		s.slash = s.end
		if j := bytes.IndexByte(s.buf[i:s.end], '\\'); j >= 0 {
			s.slash = i + j
		}
	}
	return s.slash
}

// scanBufSize bounds the longest string the scanner can return and is the
// unit of reading. Price-file strings are under a kilobyte.
const scanBufSize = 512 << 10

func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, scanBufSize), slash: -1}
}

// reset points the scanner at a complete document held in b (not copied).
func (s *scanner) reset(b []byte) {
	*s = scanner{buf: b, end: len(b), err: io.EOF, key: s.key[:0], slash: -1}
}

// syntaxError is a malformed or cut-off document.
type syntaxError struct {
	Offset int64
	Msg    string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("JSON at byte %d: %s", e.Offset, e.Msg) }

func (s *scanner) fail(format string, args ...any) error {
	return &syntaxError{Offset: s.off + int64(s.pos), Msg: fmt.Sprintf(format, args...)}
}

// eofError reports running out of input: a read error if the stream
// failed, otherwise a document cut off mid-way.
func (s *scanner) eofError(what string) error {
	if s.err != nil && !errors.Is(s.err, io.EOF) {
		return fmt.Errorf("reading %s at byte %d: %w", what, s.off+int64(s.end), s.err)
	}
	return &syntaxError{Offset: s.off + int64(s.end), Msg: "document ends inside " + what}
}

// refill discards buf[:pos], moves the rest to the front and reads more.
// It returns how far the kept bytes moved (callers shift their indexes), or
// ok=false when nothing more can be read.
func (s *scanner) refill() (shift int, ok bool) {
	if s.err != nil {
		return 0, false
	}
	shift = s.pos
	s.slash = -1
	if shift > 0 {
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.off += int64(shift)
		s.pos = 0
	}
	if s.end == len(s.buf) {
		s.err = fmt.Errorf("a single JSON token is longer than %d bytes", len(s.buf))
		return shift, false
	}
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.err = err
			return shift, n > 0
		}
		if n > 0 {
			return shift, true
		}
	}
}

// SWAR (SIMD within a register) helpers: eight bytes are tested at once.
const (
	lo8     = 0x0101010101010101
	hi8     = 0x8080808080808080
	spaces8 = 0x2020202020202020
	quotes8 = 0x2222222222222222
	slash8  = 0x5c5c5c5c5c5c5c5c
)

// zeroBytes flags (with 0x80) the zero bytes of v; the lowest flag is
// exact, higher ones may be false, so only the lowest is ever used.
func zeroBytes(v uint64) uint64 { return (v - lo8) &^ v & hi8 }

func load8(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

// stringEnd finds the closing quote of a string whose contents start at
// buf[i]. It returns -1 if buf ends first, and whether the string holds
// escapes.
func stringEnd(buf []byte, i int) (end int, escaped bool) {
	for {
		for i+8 <= len(buf) {
			x := load8(buf, i)
			if m := zeroBytes(x^quotes8) | zeroBytes(x^slash8); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		for i < len(buf) && buf[i] != '"' && buf[i] != '\\' {
			i++
		}
		if i >= len(buf) {
			return -1, escaped
		}
	special:
		if buf[i] == '"' {
			return i, escaped
		}
		escaped = true
		i += 2
		if i > len(buf) {
			return -1, escaped
		}
	}
}

// next skips whitespace and returns the next byte without consuming it.
func (s *scanner) next(what string) (byte, error) {
	for {
		buf := s.buf[:s.end]
		i := s.pos
		for i < len(buf) {
			c := buf[i]
			if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
				s.pos = i
				return c, nil
			}
			i++
			// Indentation comes in runs of spaces.
			for i+8 <= len(buf) && load8(buf, i) == spaces8 {
				i += 8
			}
		}
		s.pos = i
		if _, ok := s.refill(); !ok {
			return 0, s.eofError(what)
		}
	}
}

func (s *scanner) expect(c byte, what string) error {
	got, err := s.next(what)
	if err != nil {
		return err
	}
	if got != c {
		return s.fail("want %q in %s, found %q", c, what, got)
	}
	s.pos++
	return nil
}

// readString reads a string value and returns its contents, unescaped.
func (s *scanner) readString(what string) ([]byte, error) {
	c, err := s.next(what)
	if err != nil {
		return nil, err
	}
	if c != '"' {
		return nil, s.fail("want a string for %s, found %q", what, c)
	}
	start := s.pos // the opening quote stays in the buffer until we return
	for {
		if end, escaped := stringEnd(s.buf[:s.end], start+1); end >= 0 {
			s.pos = end + 1
			if !escaped {
				return s.buf[start+1 : end], nil
			}
			var v string
			if err := json.Unmarshal(s.buf[start:end+1], &v); err != nil {
				return nil, s.fail("bad string escape in %s", what)
			}
			return []byte(v), nil
		}
		s.pos = start
		shift, ok := s.refill()
		if !ok {
			return nil, s.eofError(what)
		}
		start -= shift
	}
}

// readScalar reads a string's contents or a number's text (the savings
// plan files give lease durations as numbers).
func (s *scanner) readScalar(what string) ([]byte, error) {
	c, err := s.next(what)
	if err != nil {
		return nil, err
	}
	if c == '"' {
		return s.readString(what)
	}
	if c != '-' && (c < '0' || c > '9') {
		return nil, s.fail("want a string or number for %s, found %q", what, c)
	}
	start, err := s.skipScalar(what)
	if err != nil {
		return nil, err
	}
	return s.buf[start:s.pos], nil
}

// skipString skips a string value without unescaping it; buf[pos] is its
// opening quote.
func (s *scanner) skipString(what string) error {
	start := s.pos
	for {
		if end, _ := stringEnd(s.buf[:s.end], start+1); end >= 0 {
			s.pos = end + 1
			return nil
		}
		s.pos = start
		shift, ok := s.refill()
		if !ok {
			return s.eofError(what)
		}
		start -= shift
	}
}

// object reads the members of an object. For each key it calls member,
// which must consume the value (read it or skipValue). The key slice is
// only valid until member reads a nested object.
func (s *scanner) object(what string, member func(key []byte) error) error {
	if empty, err := s.opens('{', '}', what); empty || err != nil {
		return err
	}
	for {
		key, err := s.readString(what)
		if err != nil {
			return err
		}
		if j := s.pos; j < s.end && s.buf[j] == ':' {
			s.pos++ // the usual case: the key slice stays valid
		} else {
			// Reaching the ':' may refill the buffer under the key.
			s.key = append(s.key[:0], key...)
			if err := s.expect(':', what); err != nil {
				return err
			}
			key = s.key
		}
		if err := member(key); err != nil {
			return err
		}
		if more, err := s.more('}', what); !more {
			return err
		}
	}
}

// field is a member an object reader keeps (see stringMember): its key
// and where its string value goes, or, for an object member, the fields
// of that object.
type field struct {
	key string
	dst *string
	sub []field
}

// stringMember reads the value of the member key as a string into the
// dst of its field (or, for a field with sub, as an object of those
// fields), or skips it if fields does not name it; errors name what, the
// object. (Naming the member by f.key would make fields escape,
// and with it what its dst point to: the term being parsed, on the hot
// path.) Call it from an object's member function.
func (s *scanner) stringMember(what string, key []byte, fields []field) error {
	for _, f := range fields {
		switch {
		case string(key) != f.key:
			continue
		case f.sub != nil:
			return s.stringObject(what, f.sub)
		}
		v, err := s.readString(what)
		*f.dst = string(v)
		return err
	}
	return s.skipValue(what)
}

// stringObject reads an object whose members of interest are all strings
// (see stringMember).
func (s *scanner) stringObject(what string, fields []field) error {
	return s.object(what, func(k []byte) error { return s.stringMember(what, k, fields) })
}

// array reads the elements of an array, calling elem for each; elem must
// consume the element.
func (s *scanner) array(what string, elem func() error) error {
	if empty, err := s.opens('[', ']', what); empty || err != nil {
		return err
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		if more, err := s.more(']', what); !more {
			return err
		}
	}
}

// opens reads the open byte of an object or array and reports whether it
// is empty: close follows at once (and is consumed).
func (s *scanner) opens(open, close byte, what string) (empty bool, err error) {
	if err := s.expect(open, what); err != nil {
		return false, err
	}
	c, err := s.next(what)
	if err != nil {
		return false, err
	}
	if c == close {
		s.pos++
		return true, nil
	}
	return false, nil
}

// more reads what follows a member or element: ',' (more follow) or
// close (the object or array ends).
func (s *scanner) more(close byte, what string) (bool, error) {
	c, err := s.next(what)
	if err != nil {
		return false, err
	}
	s.pos++
	switch c {
	case ',':
		return true, nil
	case close:
		return false, nil
	}
	s.pos--
	return false, s.fail("want ',' or '%c' in %s, found %q", close, what, c)
}

// skipValue skips one value of any kind.
func (s *scanner) skipValue(what string) error {
	c, err := s.next(what)
	if err != nil {
		return err
	}
	switch c {
	case '"':
		return s.skipString(what)
	case '{', '[':
		return s.skipComposite(what)
	}
	_, err = s.skipScalar(what)
	return err
}

// skipScalar skips a number, true, false or null, returning where it
// starts in the buffer.
func (s *scanner) skipScalar(what string) (start int, err error) {
	start = s.pos
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; {
			case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c == '-', c == '+', c == '.', c == 'E':
				s.pos++
			default:
				if s.pos == start {
					return start, s.fail("unexpected %q in %s", c, what)
				}
				return start, nil
			}
		}
		keep := s.pos
		s.pos = start
		shift, ok := s.refill()
		start -= shift
		s.pos = keep - shift
		if !ok {
			if s.pos > start && errors.Is(s.err, io.EOF) {
				return start, nil
			}
			return start, s.eofError(what)
		}
	}
}

// skipComposite skips an object or array. It does not check what lies
// inside (commas, colons, nested brackets of the other kind): a skipped
// part only has to be well-bracketed, which is what a cut-off download
// breaks.
func (s *scanner) skipComposite(what string) error {
	_, err := s.skipCompositeFrom(false, what)
	return err
}

// captureComposite skips an object or array and returns its bytes, valid
// until the next read.
func (s *scanner) captureComposite(what string) ([]byte, error) {
	start, err := s.skipCompositeFrom(true, what)
	if err != nil {
		return nil, err
	}
	return s.buf[start:s.pos], nil
}

// skipCompositeFrom skips the object (or array) at buf[pos] by counting
// its kind of bracket outside strings until they balance. With keep, its
// bytes stay in the buffer across refills and the index of its start is
// returned.
//
// Go has no vector instructions outside assembly, but bytes.IndexByte and
// bytes.Count are written in it, so the work is phrased in their terms:
// jump to the next bracket, and decide whether it lies inside a string by
// the parity of the quotes counted since the last one. A stretch holding a
// backslash (an escape, which AWS files do not use) goes through a
// byte-at-a-time state machine instead, so escaped quotes are handled
// exactly.
func (s *scanner) skipCompositeFrom(keep bool, what string) (start int, err error) {
	start = s.pos
	st := skipState{open: s.buf[s.pos], close: '}'}
	if st.open == '[' {
		st.close = ']'
	}
	i := s.pos
	for {
		buf := s.buf[:s.end]
		// The next closing bracket, remembered: several opening ones may
		// come before it, and it is not searched for again each time.
		closeAt := -1
		for i < len(buf) {
			rest := buf[i:]
			if st.escape {
				// The byte after a backslash is taken literally.
				st.escape = false
				i++
				continue
			}
			if closeAt < i {
				closeAt = len(buf)
				if c := bytes.IndexByte(rest, st.close); c >= 0 {
					closeAt = i + c
				}
			}
			p := closeAt - i
			if o := bytes.IndexByte(rest[:p], st.open); o >= 0 {
				p = o
			}
			// rest[:p] has no bracket of ours; rest[p], if any, is one.
			seg := rest[:p]
			if i+p > s.nextSlash(i) {
				st.slow(seg)
			} else if bytes.Count(seg, quote)%2 == 1 {
				st.inString = !st.inString
			}
			i += p
			if p == len(rest) {
				break
			}
			i++
			if st.escape {
				// A bracket after a backslash: not valid JSON, but the
				// bracket is the escaped byte either way.
				st.escape = false
				continue
			}
			if st.inString {
				continue
			}
			if rest[p] == st.open {
				st.depth++
				continue
			}
			st.depth--
			if st.depth == 0 {
				s.pos = i
				return start, nil
			}
		}
		s.pos = i
		if keep {
			s.pos = start
		}
		shift, ok := s.refill()
		if !ok {
			return start, s.eofError(what)
		}
		i -= shift
		start -= shift
	}
}

var quote = []byte{'"'}

// skipState carries bracket depth and string state across stretches.
type skipState struct {
	open, close byte
	depth       int
	inString    bool
	escape      bool // the last byte seen was a backslash inside a string
}

// slow follows strings and escapes byte by byte through a stretch that
// holds no bracket of ours.
func (st *skipState) slow(b []byte) {
	for _, c := range b {
		switch {
		case st.escape:
			st.escape = false
		case !st.inString:
			st.inString = c == '"'
		case c == '\\':
			st.escape = true
		case c == '"':
			st.inString = false
		}
	}
}

// finish checks that nothing but whitespace follows the document.
func (s *scanner) finish(what string) error {
	for {
		for s.pos < s.end {
			switch s.buf[s.pos] {
			case ' ', '\n', '\r', '\t':
				s.pos++
			default:
				return s.fail("data after the end of %s", what)
			}
		}
		if _, ok := s.refill(); !ok {
			if errors.Is(s.err, io.EOF) {
				return nil
			}
			return s.eofError(what)
		}
	}
}
