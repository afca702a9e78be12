package aws

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	pos int   // next unread byte
	end int   // end of valid data in buf
	off int64 // stream offset of buf[0], for error messages
	err error // sticky read error; io.EOF once the stream is done
	key []byte
}

// scanBufSize bounds the longest string the scanner can return and is the
// unit of reading. Price-file strings are under a kilobyte.
const scanBufSize = 512 << 10

func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, scanBufSize)}
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

// next skips whitespace and returns the next byte without consuming it.
func (s *scanner) next(what string) (byte, error) {
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; c {
			case ' ', '\n', '\r', '\t':
				s.pos++
			default:
				return c, nil
			}
		}
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
	from := start + 1
	for {
		if i := bytes.IndexByte(s.buf[from:s.end], '"'); i >= 0 {
			q := from + i
			if escapedQuote(s.buf, start+1, q) {
				from = q + 1
				continue
			}
			s.pos = q + 1
			raw := s.buf[start+1 : q]
			if bytes.IndexByte(raw, '\\') < 0 {
				return raw, nil
			}
			var v string
			if err := json.Unmarshal(s.buf[start:q+1], &v); err != nil {
				return nil, s.fail("bad string escape in %s", what)
			}
			return []byte(v), nil
		}
		from = s.end
		s.pos = start
		shift, ok := s.refill()
		if !ok {
			return nil, s.eofError("a string in " + what)
		}
		start -= shift
		from -= shift
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

// skipString skips a string value without unescaping it.
func (s *scanner) skipString(what string) error {
	start := s.pos
	from := start + 1
	for {
		if i := bytes.IndexByte(s.buf[from:s.end], '"'); i >= 0 {
			q := from + i
			if escapedQuote(s.buf, start+1, q) {
				from = q + 1
				continue
			}
			s.pos = q + 1
			return nil
		}
		from = s.end
		s.pos = start
		shift, ok := s.refill()
		if !ok {
			return s.eofError("a string in " + what)
		}
		start -= shift
		from -= shift
	}
}

// escapedQuote reports whether the quote at q is preceded by an odd number
// of backslashes (and so belongs to the string).
func escapedQuote(b []byte, lo, q int) bool {
	n := 0
	for i := q - 1; i >= lo && b[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// object reads the members of an object. For each key it calls member,
// which must consume the value (read it or skipValue). The key slice is
// only valid until member reads a nested object.
func (s *scanner) object(what string, member func(key []byte) error) error {
	if err := s.expect('{', what); err != nil {
		return err
	}
	c, err := s.next(what)
	if err != nil {
		return err
	}
	if c == '}' {
		s.pos++
		return nil
	}
	for {
		raw, err := s.readString(what + " key")
		if err != nil {
			return err
		}
		// Copy the key: reaching the ':' may refill the buffer under it.
		s.key = append(s.key[:0], raw...)
		if err := s.expect(':', what); err != nil {
			return err
		}
		key := s.key
		if err := member(key); err != nil {
			return err
		}
		c, err := s.next(what)
		if err != nil {
			return err
		}
		s.pos++
		switch c {
		case ',':
		case '}':
			return nil
		default:
			s.pos--
			return s.fail("want ',' or '}' in %s, found %q", what, c)
		}
	}
}

// array reads the elements of an array, calling elem for each; elem must
// consume the element.
func (s *scanner) array(what string, elem func() error) error {
	if err := s.expect('[', what); err != nil {
		return err
	}
	c, err := s.next(what)
	if err != nil {
		return err
	}
	if c == ']' {
		s.pos++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		c, err := s.next(what)
		if err != nil {
			return err
		}
		s.pos++
		switch c {
		case ',':
		case ']':
			return nil
		default:
			s.pos--
			return s.fail("want ',' or ']' in %s, found %q", what, c)
		}
	}
}

// byteClass marks the bytes skipComposite stops at.
var byteClass = func() (t [256]uint8) {
	t['"'] = 1
	t['{'], t['['] = 2, 2
	t['}'], t[']'] = 3, 3
	return t
}()

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

// skipComposite skips an object or array, matching brackets and stepping
// over strings. It does not check what lies between (commas, colons): a
// skipped part only has to be well-bracketed, which is what a cut-off or
// spliced download breaks.
func (s *scanner) skipComposite(what string) error {
	// Open brackets as a bit stack: 1 for '{', 0 for '['.
	var stack [4]uint64
	depth := 0
	i := s.pos
	for {
		buf := s.buf[:s.end]
		for i < len(buf) {
			c := buf[i]
			switch byteClass[c] {
			case 0:
				i++
				continue
			case 1: // string: jump to its closing quote
				j := i + 1
				for {
					k := bytes.IndexByte(buf[j:], '"')
					if k < 0 {
						j = -1
						break
					}
					j += k
					if !escapedQuote(buf, i+1, j) {
						break
					}
					j++
				}
				if j < 0 {
					// The string continues past the buffer; keep it
					// from its opening quote so escapes stay checkable.
					s.pos = i
					shift, ok := s.refill()
					if !ok {
						return s.eofError(what)
					}
					i -= shift
					buf = s.buf[:s.end]
					continue
				}
				i = j + 1
			case 2:
				if depth == len(stack)*64 {
					s.pos = i
					return s.fail("nesting deeper than %d in %s", depth, what)
				}
				w, b := depth/64, uint(depth%64)
				if c == '{' {
					stack[w] |= 1 << b
				} else {
					stack[w] &^= 1 << b
				}
				depth++
				i++
			case 3:
				if depth == 0 {
					s.pos = i
					return s.fail("unbalanced %q in %s", c, what)
				}
				depth--
				isObj := stack[depth/64]&(1<<uint(depth%64)) != 0
				if isObj != (c == '}') {
					s.pos = i
					return s.fail("mismatched %q in %s", c, what)
				}
				i++
				if depth == 0 {
					s.pos = i
					return nil
				}
			}
		}
		s.pos = i
		shift, ok := s.refill()
		if !ok {
			return s.eofError(what)
		}
		i -= shift
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
