package pricewatch_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The documentation is README.md (the front door), CHANGELOG.md and the
// manual in docs/ (issue 21 item 7). These tests keep its links and its
// configuration reference true as pages move and keys are added.

// docPages are the pages whose relative links are checked.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "CHANGELOG.md", filepath.Join("systemd", "README.md")}
	more, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(more) == 0 {
		t.Fatal("docs/ holds no pages")
	}
	return append(pages, more...)
}

// prose drops fenced code blocks: a "#" line in a shell example is not a
// heading and a "](x)" in code is not a link.
func prose(md string) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

var (
	headingRE = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	slugDrop  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// anchors are the fragment ids GitHub gives a page's headings: lower case,
// punctuation dropped, spaces as hyphens, repeats numbered.
func anchors(md string) map[string]bool {
	ids := map[string]bool{}
	seen := map[string]int{}
	for _, m := range headingRE.FindAllStringSubmatch(prose(md), -1) {
		text := strings.ReplaceAll(m[1], "`", "")
		id := strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(text), ""), " ", "-")
		if n := seen[id]; n > 0 {
			ids[id+"-"+strconv.Itoa(n)] = true
		} else {
			ids[id] = true
		}
		seen[id]++
	}
	return ids
}

// Issue 21 item 7: every relative link of README.md, CHANGELOG.md,
// systemd/README.md and
// docs/*.md names a file that exists, and an anchor that page has.
func TestDocLinksResolve(t *testing.T) {
	cache := map[string]map[string]bool{}
	pageAnchors := func(path string) (map[string]bool, error) {
		if a, ok := cache[path]; ok {
			return a, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		cache[path] = anchors(string(b))
		return cache[path], nil
	}
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(prose(string(b)), -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(link, "#")
			target := page
			if file != "" {
				target = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
			}
			info, err := os.Stat(target)
			if err != nil {
				t.Errorf("%s: link %q: %v", page, link, err)
				continue
			}
			if frag == "" {
				continue
			}
			if info.IsDir() || !strings.HasSuffix(target, ".md") {
				t.Errorf("%s: link %q: an anchor into %s, which is not a markdown page", page, link, target)
				continue
			}
			a, err := pageAnchors(target)
			if err != nil {
				t.Fatal(err)
			}
			if !a[frag] {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", page, link, target, frag)
			}
		}
	}
}

// The anchors the link test relies on are GitHub's.
func TestAnchorsAreGitHubs(t *testing.T) {
	md := "# Title\n## Oracle Cloud (OCI)\n## Export: a price sheet aligned with FOCUS\n## Vast.ai\n```sh\n# not a heading\n```\n## Reload, restart, upgrade\n## Reload, restart, upgrade\n## `db stats` keys\n"
	got := anchors(md)
	for _, want := range []string{"title", "oracle-cloud-oci", "export-a-price-sheet-aligned-with-focus", "vastai",
		"reload-restart-upgrade", "reload-restart-upgrade-1", "db-stats-keys"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a comment in a code block was taken for a heading")
	}
}

// configKeys lists the dotted path of every key config.example.yaml sets;
// list items are named path[].key.
func configKeys(prefix string, n *yaml.Node, out *[]string) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			configKeys(prefix, c, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if prefix != "" {
				key = prefix + "." + key
			}
			*out = append(*out, key)
			configKeys(key, n.Content[i+1], out)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind == yaml.MappingNode {
				configKeys(prefix+"[]", c, out)
			}
		}
	}
}

// Issue 21 item 7: the configuration reference names every key
// config.example.yaml documents: a top-level key as `key` or by its own
// heading, a provider's key in that provider's row (the keys every
// provider shares are named once, above the table), the keys of a list
// item (alerts.rules, hardware.overrides) in the list's row.
func TestConfigReferenceNamesEveryKey(t *testing.T) {
	raw, err := os.ReadFile("config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var keys []string
	configKeys("", &doc, &keys)
	refB, err := os.ReadFile(filepath.Join("docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	ref := string(refB)
	row := func(first string) string {
		for _, line := range strings.Split(ref, "\n") {
			if strings.HasPrefix(line, "| "+first+" |") {
				return line
			}
		}
		return ""
	}
	shared := map[string]bool{"enabled": true, "endpoint": true, "schedule": true, "timeout": true, "regions": true}
	for _, k := range keys {
		parts := strings.Split(k, ".")
		switch {
		case len(parts) == 1:
			if !regexp.MustCompile(`(?m)^### .*\b` + regexp.QuoteMeta(k) + `\b`).MatchString(ref) {
				t.Errorf("docs/configuration.md has no heading for the section %s", k)
			}
		case parts[0] == "providers" && len(parts) == 2:
			if row("[`"+parts[1]+"`](clouds.md#"+cloudAnchor(parts[1])+")") == "" {
				t.Errorf("docs/configuration.md has no row for providers.%s", parts[1])
			}
		case parts[0] == "providers":
			if shared[parts[2]] {
				if !strings.Contains(ref, "`"+parts[2]+"`") {
					t.Errorf("docs/configuration.md does not name the shared provider key %s", parts[2])
				}
				continue
			}
			r := row("[`" + parts[1] + "`](clouds.md#" + cloudAnchor(parts[1]) + ")")
			if !strings.Contains(r, "`"+parts[2]) {
				t.Errorf("docs/configuration.md: the row of providers.%s lacks %s", parts[1], parts[2])
			}
		case strings.Contains(k, "[]."):
			list, item, _ := strings.Cut(k, "[].")
			if !strings.Contains(row("`"+list+"`"), "`"+item+"`") {
				t.Errorf("docs/configuration.md: the row of %s lacks %s", list, item)
			}
		case parts[0] == "guard" && len(parts) == 3 && parts[1] == "floor_per_gpu_hour":
			if !strings.Contains(row("`guard.floor_per_gpu_hour`"), "`"+parts[2]+":") {
				t.Errorf("docs/configuration.md: guard.floor_per_gpu_hour lacks the %s floor", parts[2])
			}
		case k == "storage.retention" || k == "metrics.offers":
			// a map whose keys are checked one by one
		default:
			if row("`"+k+"`") == "" {
				t.Errorf("docs/configuration.md has no row for %s", k)
			}
		}
	}
}

// cloudAnchor is the anchor of a provider's section in docs/clouds.md.
func cloudAnchor(name string) string {
	switch name {
	case "alibaba":
		return "alibaba-cloud"
	case "tencent":
		return "tencent-cloud"
	case "oci":
		return "oracle-cloud-oci"
	case "aws-cn":
		return "aws-china"
	case "gcp":
		return "google-cloud-gcp"
	case "azure-cn":
		return "azure-china"
	case "huawei":
		return "huawei-cloud"
	}
	return name
}
