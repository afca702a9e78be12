package web

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// providerParts keeps an answer's parts, one per provider, each built
// again only when its provider's current rows were read again
// (CurrentState.ReadAt: it ran, or the state was read whole) or what else
// the part depends on moved (its key: the query, settings, rates and
// minute of the clock). Issue 30: a stored Azure run rebuilt the whole
// overview and GPU index, most of the work for the providers that had not
// run. Only the last key's parts are kept: another query (a currency, a
// filter) replaces them, which bounds the memory to one set.
type providerParts[P any] struct {
	mu    sync.Mutex
	parts map[string]*providerPart[P]
}

type providerPart[P any] struct {
	key  string
	part P
}

// get is the parts of every provider that ever ran (st.LastRuns), in
// provider order: kept where their key still holds, built with build
// where not.
func (pp *providerParts[P]) get(ctx context.Context, st providerReads, key string, build func(provider string) (P, error)) ([]P, error) {
	runs, err := st.LastRuns(ctx)
	if err != nil {
		return nil, err
	}
	providers := make([]string, 0, len(runs))
	for _, r := range runs {
		providers = append(providers, r.Provider)
	}
	slices.Sort(providers)
	providers = slices.Compact(providers)
	pp.mu.Lock()
	kept := pp.parts
	pp.mu.Unlock()
	parts := make(map[string]*providerPart[P], len(providers))
	out := make([]P, 0, len(providers))
	for _, p := range providers {
		pkey := st.ReadAt(p) + "\x00" + key
		part := kept[p]
		if part == nil || part.key != pkey {
			built, err := build(p)
			if err != nil {
				return nil, err
			}
			part = &providerPart[P]{key: pkey, part: built}
		}
		parts[p] = part
		out = append(out, part.part)
	}
	pp.mu.Lock()
	pp.parts = parts
	pp.mu.Unlock()
	return out, nil
}

// partKey joins what a part depends on besides its provider's rows.
func partKey(s ...string) string { return strings.Join(s, "\x00") }
