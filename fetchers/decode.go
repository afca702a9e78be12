package fetchers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DecodeWhole decodes body, which must be exactly one complete JSON value,
// into v, numbers as json.Number. A body cut off in transit, one that is
// not the document (what names it: "an instance-type list"), or one with
// data after the value fails with ErrIncomplete: it must fail the run,
// never read as "no prices".
func DecodeWhole(body []byte, what string, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: body ends before the JSON does (%d bytes)", ErrIncomplete, len(body))
		}
		return fmt.Errorf("%w: not %s: %v", ErrIncomplete, what, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: data after the JSON object", ErrIncomplete)
	}
	return nil
}
