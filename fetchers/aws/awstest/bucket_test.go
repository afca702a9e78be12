package awstest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func get(t *testing.T, url string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// The bucket answers like S3: validators, 304, ranges; it counts bytes per
// path; a published region is listed in a valid index; a truncated file is
// a short object; WriteDir lays out the same paths.
func TestBucketServesLikeS3(t *testing.T) {
	b := NewBucket(t)
	b.PublishEC2(map[string]Region{"eu-west-1": {Version: "20261201000000", Types: []GPUType{
		{Type: "p5.48xlarge", OnDemand: "55.0400000000", Reserved: SixByClass(55.04), Decoys: []string{"windows"}},
	}}})
	b.SetSpot(map[string]map[string]string{"eu-west-1": {"p5.48xlarge": "21.5"}})

	resp, body := get(t, b.URL()+EC2RegionIndexPath, nil)
	var idx struct {
		Regions map[string]struct{ CurrentVersionURL string } `json:"regions"`
	}
	if err := json.Unmarshal(body, &idx); err != nil || resp.StatusCode != 200 {
		t.Fatalf("index: %d %v", resp.StatusCode, err)
	}
	path := idx.Regions["eu-west-1"].CurrentVersionURL
	if path != EC2Path("20261201000000", "eu-west-1") || len(idx.Regions) != 1 {
		t.Fatalf("index lists %+v", idx.Regions)
	}
	resp, file := get(t, b.URL()+path, nil)
	var doc map[string]any
	if err := json.Unmarshal(file, &doc); err != nil || !strings.Contains(string(file), `"EU-BoxUsage:p5.48xlarge"`) {
		t.Fatalf("region file: %v", err)
	}
	etag, mod := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if etag == "" || mod == "" {
		t.Fatalf("validators %q %q", etag, mod)
	}

	b.BytesSent()
	sr, spot := get(t, b.SpotURL(), nil)
	if same, _ := get(t, b.SpotURL(), map[string]string{"If-None-Match": sr.Header.Get("ETag")}); same.StatusCode != http.StatusNotModified {
		t.Errorf("an unchanged feed: %s, want 304", same.Status)
	}
	if other, _ := get(t, b.SpotURL(), map[string]string{"If-None-Match": `"other"`, "If-Modified-Since": sr.Header.Get("Last-Modified")}); other.StatusCode != 200 {
		t.Errorf("another ETag must be served in full, got %s", other.Status)
	}
	r3, _ := get(t, b.URL()+path, map[string]string{"If-None-Match": etag})
	rg, part := get(t, b.URL()+path, map[string]string{"Range": "bytes=100-", "If-Range": etag})
	if r3.StatusCode != http.StatusNotModified || rg.StatusCode != http.StatusPartialContent || string(part) != string(file[100:]) {
		t.Errorf("conditional %s, range %s (%d bytes)", r3.Status, rg.Status, len(part))
	}
	sent := b.BytesSent()
	if sent[path] != int64(len(file)-100) || sent[SpotPath] != 2*int64(len(spot)) || b.Gets(path) != 3 {
		t.Errorf("sent %v, %d GETs", sent, b.Gets(path))
	}

	b.Truncate(path, len(file)/2)
	if _, short := get(t, b.URL()+path, nil); len(short) != len(file)/2 {
		t.Errorf("truncated file served %d bytes", len(short))
	}
	b.AddType("eu-west-1", "20261208000000", GPUType{Type: "p6-b200.48xlarge", OnDemand: "113.9300000000"})
	_, body = get(t, b.URL()+EC2RegionIndexPath, nil)
	if !strings.Contains(string(body), EC2Path("20261208000000", "eu-west-1")) {
		t.Errorf("index after AddType: %s", body)
	}

	dir := t.TempDir()
	if err := b.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{EC2RegionIndexPath, path, EC2Path("20261208000000", "eu-west-1"), SpotPath} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			t.Error(err)
		}
	}
}

// The byte count of a download is complete as soon as the client has read
// the body: a test may read it right after a Fetch returns. (It used to be
// added when the handler returned, which under load came after the next
// fetch had begun: the TestSavingsPlans flake.)
func TestBytesSentIsCompleteWhenTheClientHasTheBody(t *testing.T) {
	b := NewBucket(t)
	body := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	b.Put("/big.json", body)
	for i := range 200 {
		b.BytesSent()
		_, got := get(t, b.URL()+"/big.json", nil)
		if n := b.BytesSent()["/big.json"]; n != int64(len(got)) || len(got) != len(body) {
			t.Fatalf("round %d: %d bytes counted, %d read, want %d", i, n, len(got), len(body))
		}
	}
}
