package report

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/pricewatch/pricewatch/gpu"
	"github.com/pricewatch/pricewatch/storage"
)

// NameStore is what the name checks read: every name the database holds.
type NameStore interface {
	StoredNames(ctx context.Context) (storage.Names, error)
}

// NotStoredError is a request for a name nothing stored carries (an
// instance type, a GPU model). The CLI exits 4 on it and the API answers
// 404, with the same message and suggestions.
type NotStoredError struct {
	Msg string
	// What was asked for ("GPU model", "instance type"), the name asked,
	// and the nearest stored names (none when none is close), for a page
	// that words and links them itself; Stored counts the stored names of
	// that kind.
	What, Asked string
	Nearest     []string
	Stored      int
}

func (e *NotStoredError) Error() string { return e.Msg }

// ResolveInstanceType returns the stored spelling of an instance type asked
// for on the command line or in an API path. Clouds spell types in one case only, so a case
// difference (P5.48XLARGE) is not a different type. A name nothing stored
// carries is a not-found error suggesting the nearest stored names.
func ResolveInstanceType(ctx context.Context, st NameStore, asked string) (string, error) {
	names, err := st.StoredNames(ctx)
	if err != nil {
		return "", err
	}
	for _, n := range names.InstanceTypes {
		if n == asked {
			return n, nil
		}
	}
	for _, n := range names.InstanceTypes {
		if strings.EqualFold(n, asked) {
			return n, nil
		}
	}
	return "", notStored("instance type", fmt.Sprintf("no instance type %q is stored", asked), asked, names.InstanceTypes)
}

// CheckGPUModel fails with a suggestion when a GPU filter matches no GPU
// model stored in the database (gpu.Matches decides, as the reports do).
func CheckGPUModel(ctx context.Context, st NameStore, asked string) error {
	if strings.TrimSpace(asked) == "" {
		return nil
	}
	names, err := st.StoredNames(ctx)
	if err != nil {
		return err
	}
	for _, m := range names.GPUModels {
		if gpu.Matches(asked, m) {
			return nil
		}
	}
	return notStored("GPU model", fmt.Sprintf("no GPU model matching %q is stored", asked), asked, names.GPUModels)
}

// notStored is the error for a name asked that none of stored is: head
// and the "; did you mean …" tail of the nearest names, or a hint to
// fetch when the database holds none.
func notStored(what, head, asked string, stored []string) *NotStoredError {
	e := &NotStoredError{What: what, Asked: asked, Nearest: nearest(asked, stored), Stored: len(stored)}
	switch {
	case len(stored) == 0:
		e.Msg = head + " (the database holds none yet: run `pricewatch fetch`)"
	case len(e.Nearest) == 0:
		e.Msg = head + " (none is close; `pricewatch hardware unknown` and `pricewatch availability` list what is stored)"
	default:
		e.Msg = head + "; did you mean " + strings.Join(e.Nearest, ", ") + "?"
	}
	return e
}

// nearest are up to three stored names nearest to the asked one, nearest
// first.
func nearest(asked string, stored []string) []string {
	type cand struct {
		name string
		dist int
	}
	a := strings.ToLower(asked)
	var cands []cand
	for _, s := range stored {
		l := strings.ToLower(s)
		d := editDistance(a, l)
		// A stored name that contains the asked one (or the reverse) is a
		// likely meaning even when far in edits: "h100" → "H100-NVL".
		if strings.Contains(l, a) || strings.Contains(a, l) {
			d = min(d, 1+abs(len(l)-len(a))/4)
		}
		if d <= max(2, len(a)/3) {
			cands = append(cands, cand{s, d})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i, c := range cands {
		if i == 3 {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b in bytes
// (instance types and model names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
