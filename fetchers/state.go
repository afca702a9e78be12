package fetchers

import (
	"encoding/json"
	"fmt"
)

// stateDoc is how a fetcher's state is stored: its own struct under
// "data", with the version of that struct's shape, so that a fetcher whose
// state changes shape recognises (and drops) what an older one stored.
type stateDoc struct {
	Version int             `json:"version"`
	Data    json.RawMessage `json:"data"`
}

// EncodeState encodes a fetcher's state (a struct of its own, marshalled
// as JSON) at the given shape version, for Snapshot.State.
func EncodeState(version int, v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding fetcher state: %w", err)
	}
	return json.Marshal(stateDoc{Version: version, Data: data})
}

// DecodeState reads Previous.State into v. It reports false, leaving v
// alone, when nothing is stored or what is stored has another shape
// version; an error means the stored document is unreadable.
func DecodeState(raw []byte, version int, v any) (bool, error) {
	if len(raw) == 0 {
		return false, nil
	}
	var doc stateDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return false, fmt.Errorf("reading fetcher state: %w", err)
	}
	if doc.Version != version {
		return false, nil
	}
	if err := json.Unmarshal(doc.Data, v); err != nil {
		return false, fmt.Errorf("reading fetcher state (version %d): %w", version, err)
	}
	return true, nil
}
