package aws

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// validators names the Snapshot.Versions keys under which a file read by
// conditional GET (the spot feed, the Spot Advisor file) keeps its ETag
// and Last-Modified between runs.
type validators struct{ etag, lastMod string }

var (
	spotValidators    = validators{etag: versionSpotETag, lastMod: versionSpotLastMod}
	advisorValidators = validators{etag: versionAdvisorETag, lastMod: versionAdvisorLastMod}
)

// keep records etag and lastMod, those that are set, in the run's
// snapshot.
func (v validators) keep(r *run, etag, lastMod string) {
	if etag != "" {
		r.snap.Versions[v.etag] = etag
	}
	if lastMod != "" {
		r.snap.Versions[v.lastMod] = lastMod
	}
}

// keepAnswer records the validators of an answer read in full.
func (v validators) keepAnswer(r *run, h http.Header) {
	v.keep(r, h.Get("ETag"), h.Get("Last-Modified"))
}

// version is what the file's validators say of its version, for the run's
// description: the ETag, else Last-Modified, else "".
func (v validators) version(vs map[string]string) string {
	if e := vs[v.etag]; e != "" {
		return e
	}
	return vs[v.lastMod]
}

// getIfChanged reads u whole (up to limit bytes, which only stops a
// runaway body), asking for it only if it changed since the validators
// kept last run. A type new to the catalogue had its entries left out of
// the last read (it was not known to be a GPU type), so the file is then
// read whole even if it did not change. An unchanged file (304) keeps the
// last validators and returns unchanged; otherwise the caller keeps the
// answer's validators (keepAnswer) once it has read the body it was given.
func (f *Fetcher) getIfChanged(ctx context.Context, r *run, u string, v validators, limit int64) (body []byte, h http.Header, unchanged bool, err error) {
	hdr := http.Header{}
	if e := r.prev[v.etag]; e != "" && !r.newType {
		hdr.Set("If-None-Match", e)
	}
	if lm := r.prev[v.lastMod]; lm != "" && !r.newType {
		hdr.Set("If-Modified-Since", lm)
	}
	resp, err := f.get(ctx, u, hdr)
	if err != nil {
		return nil, nil, false, err // the client's error names the method and URL already
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotModified {
		v.keep(r, r.prev[v.etag], r.prev[v.lastMod])
		return nil, resp.Header, true, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, false, fmt.Errorf("GET %s: unexpected HTTP %d", u, resp.StatusCode)
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, limit))
	r.bytes += int64(len(body))
	if err != nil {
		return nil, nil, false, fmt.Errorf("GET %s: %w", u, err)
	}
	return body, resp.Header, false, nil
}
