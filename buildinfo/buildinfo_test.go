package buildinfo

import (
	"runtime/debug"
	"testing"
)

// Issue 20 item 17: a build from a clone says which commit it is (the VCS
// settings the go command stamps), not only "dev".
func TestDescribe(t *testing.T) {
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "053d2077f3a1c9e8b2d4f6a8c0e1b3d5f7a9c2e4"},
			{Key: "vcs.time", Value: "2026-11-30T18:04:05Z"},
			{Key: "vcs.modified", Value: modified},
		}
	}
	for _, c := range []struct {
		name       string
		bi         *debug.BuildInfo
		ldflags    string
		want, desc string
	}{
		{"clone, clean", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")}, "",
			"dev-053d2077f3a1", "revision 053d2077f3a1, committed 2026-11-30T18:04:05Z"},
		{"clone, local changes", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("true")}, "",
			"dev-053d2077f3a1-dirty", "revision 053d2077f3a1, committed 2026-11-30T18:04:05Z, with local changes"},
		{"pseudo-version stamped by go", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130180405-053d2077f3a1"}, Settings: vcs("false")}, "",
			"v0.0.0-20261130180405-053d2077f3a1", "revision 053d2077f3a1, committed 2026-11-30T18:04:05Z"},
		{"go install of a tag", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "", "v1.4.0", ""},
		{"release ldflags win", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")}, "1.5.0",
			"1.5.0", "revision 053d2077f3a1, committed 2026-11-30T18:04:05Z"},
		{"no VCS at all (-buildvcs=false)", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "", "dev", ""},
		{"no build info", nil, "", "dev", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, d := Describe(c.bi, c.ldflags)
			if v != c.want || d != c.desc {
				t.Errorf("Describe = %q, %q; want %q, %q", v, d, c.want, c.desc)
			}
		})
	}
}
