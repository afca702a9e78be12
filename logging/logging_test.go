package logging

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"golang.org/x/sys/unix"

	"github.com/pricewatch/pricewatch/secret"
)

func TestLevels(t *testing.T) {
	cases := []struct {
		level   string
		want    zapcore.Level
		wantErr bool
	}{
		{level: "", want: zapcore.InfoLevel},
		{level: "debug", want: zapcore.DebugLevel},
		{level: "info", want: zapcore.InfoLevel},
		{level: "warn", want: zapcore.WarnLevel},
		{level: "error", want: zapcore.ErrorLevel},
		{level: "loud", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.level, func(t *testing.T) {
			var buf bytes.Buffer
			log, lvl, err := New(tc.level, "json", &buf)
			if !newOK(t, err, tc.wantErr, tc.level) {
				return
			}
			if lvl.Level() != tc.want {
				t.Errorf("level = %v, want %v", lvl.Level(), tc.want)
			}
			log.Debug("d")
			log.Info("i")
			log.Warn("w")
			log.Error("e")
			wantLines := int(zapcore.ErrorLevel-tc.want) + 1
			if got := strings.Count(buf.String(), "\n"); got != wantLines {
				t.Errorf("wrote %d lines at %v, want %d:\n%s", got, tc.want, wantLines, buf.String())
			}
		})
	}
}

// newOK checks New's error: with wantErr one that names the bad value,
// else none. It says whether the case goes on to use the logger.
func newOK(t *testing.T, err error, wantErr bool, bad string) bool {
	t.Helper()
	if wantErr {
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Fatalf("err = %v, want one naming %q", err, bad)
		}
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

func TestLevelChangesAtRunTime(t *testing.T) {
	var buf bytes.Buffer
	log, lvl, err := New("info", "json", &buf)
	if err != nil {
		t.Fatal(err)
	}
	log.Debug("hidden")
	if err := lvl.UnmarshalText([]byte("debug")); err != nil {
		t.Fatal(err)
	}
	log.Debug("shown")
	if out := buf.String(); strings.Contains(out, "hidden") || !strings.Contains(out, "shown") {
		t.Errorf("output after raising to debug:\n%s", out)
	}
}

func TestFormatSelection(t *testing.T) {
	cases := []struct {
		format   string
		wantJSON bool
		wantErr  bool
	}{
		{format: "", wantJSON: true}, // auto, and a buffer is no terminal
		{format: "auto", wantJSON: true},
		{format: "json", wantJSON: true},
		{format: "console", wantJSON: false},
		{format: "xml", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.format, func(t *testing.T) {
			var buf bytes.Buffer
			log, _, err := New("info", tc.format, &buf)
			if !newOK(t, err, tc.wantErr, tc.format) {
				return
			}
			log.Info("fetched", zap.String("cloud", "aws"), zap.Int("offers", 1234))
			line := strings.TrimSuffix(buf.String(), "\n")
			var obj map[string]any
			isJSON := json.Unmarshal([]byte(line), &obj) == nil
			if isJSON != tc.wantJSON {
				t.Fatalf("JSON = %v, want %v: %s", isJSON, tc.wantJSON, line)
			}
			if isJSON {
				for _, key := range []string{"ts", "level", "caller", "msg", "cloud", "offers"} {
					if _, ok := obj[key]; !ok {
						t.Errorf("JSON line lacks %q: %s", key, line)
					}
				}
				if obj["level"] != "info" || obj["msg"] != "fetched" {
					t.Errorf("level/msg = %v/%v", obj["level"], obj["msg"])
				}
				return
			}
			fields := strings.Split(line, "\t")
			if len(fields) < 5 || fields[1] != "INFO" || fields[3] != "fetched" || fields[4] != `{"cloud": "aws", "offers": 1234}` {
				t.Errorf("console line = %q", line)
			}
			if _, err := time.Parse("2006-01-02T15:04:05.000Z0700", fields[0]); err != nil {
				t.Errorf("console line starts with %q, want a timestamp: %v", fields[0], err)
			}
		})
	}
}

// openPTY returns both ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening pty slave: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

func TestAutoIsConsoleOnTerminal(t *testing.T) {
	for _, noColor := range []string{"", "1"} {
		t.Run("NO_COLOR="+noColor, func(t *testing.T) {
			t.Setenv("NO_COLOR", noColor)
			t.Setenv("JOURNAL_STREAM", "")
			master, slave := openPTY(t)
			log, _, err := New("info", "auto", slave)
			if err != nil {
				t.Fatal(err)
			}
			log.Warn("spot price below threshold", zap.String("type", "p5.48xlarge"))
			line, err := bufio.NewReader(master).ReadString('\n')
			if err != nil {
				t.Fatalf("reading terminal: %v", err)
			}
			if json.Valid([]byte(strings.TrimSpace(line))) {
				t.Fatalf("wrote JSON to a terminal: %q", line)
			}
			if !strings.Contains(line, "spot price below threshold") || !strings.Contains(line, `"type": "p5.48xlarge"`) {
				t.Errorf("console line = %q", line)
			}
			colored := strings.Contains(line, "\x1b[")
			if colored != (noColor == "") {
				t.Errorf("colour escapes = %v with NO_COLOR=%q: %q", colored, noColor, line)
			}
		})
	}
}

// journalFile is a file standing in for the journald stream, with
// JOURNAL_STREAM set to its device and inode as systemd would.
func journalFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "journal"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JOURNAL_STREAM", fmt.Sprintf("%d:%d", st.Dev, st.Ino))
	return f
}

func readAll(t *testing.T, f *os.File) string {
	t.Helper()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestJournalPriorities(t *testing.T) {
	for _, format := range []string{"json", "console"} {
		t.Run(format, func(t *testing.T) {
			f := journalFile(t)
			log, _, err := New("debug", format, f)
			if err != nil {
				t.Fatal(err)
			}
			log.Debug("d")
			log.Info("i")
			log.Warn("w")
			log.Error("e", zap.Error(errors.New("azure: 503")))
			log.DPanic("p") // development mode is off, so this only logs

			lines := strings.Split(strings.TrimSuffix(readAll(t, f), "\n"), "\n")
			want := []string{"<7>", "<6>", "<4>", "<3>", "<2>"}
			if len(lines) < len(want) {
				t.Fatalf("got %d lines, want at least %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
			}
			for i, prefix := range want {
				if !strings.HasPrefix(lines[i], prefix) {
					t.Errorf("line %d = %q, want prefix %s", i, lines[i], prefix)
				}
			}
			// DPanic carries a stack trace; in console format it spans
			// lines, and every one must keep the priority or journald
			// files the frames at info.
			for _, l := range lines[len(want)-1:] {
				if !strings.HasPrefix(l, "<2>") {
					t.Errorf("stack line without priority: %q", l)
				}
			}
			if format == "json" {
				var obj map[string]any
				if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[1], "<6>")), &obj); err != nil {
					t.Fatalf("JSON after prefix: %v", err)
				}
				if _, ok := obj["ts"]; ok {
					t.Errorf("timestamp written under journald: %s", lines[1])
				}
			} else if _, err := time.Parse("2006-01-02T15:04:05.000Z0700", strings.SplitN(strings.TrimPrefix(lines[1], "<6>"), "\t", 2)[0]); err == nil {
				t.Errorf("timestamp written under journald: %s", lines[1])
			}
		})
	}
}

func TestJournalStreamMustMatchStderr(t *testing.T) {
	journalFile(t) // sets JOURNAL_STREAM to a different file
	other, err := os.Create(filepath.Join(t.TempDir(), "redirected"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	log, _, err := New("info", "json", other)
	if err != nil {
		t.Fatal(err)
	}
	log.Error("e")
	out := readAll(t, other)
	if strings.HasPrefix(out, "<") || !strings.Contains(out, `"ts":`) {
		t.Errorf("stderr redirected away from the journal still got journal treatment: %s", out)
	}
}

func TestNoSampling(t *testing.T) {
	var buf bytes.Buffer
	log, _, err := New("info", "json", &buf)
	if err != nil {
		t.Fatal(err)
	}
	// zap's production config keeps the first 100 identical messages per
	// second and drops the rest; every fetch error must be kept.
	const n = 500
	for i := 0; i < n; i++ {
		log.Error("fetch failed", zap.String("cloud", "tencent"))
	}
	if got := strings.Count(buf.String(), "\n"); got != n {
		t.Errorf("wrote %d of %d identical lines", got, n)
	}
}

func TestSecretsNeverWritten(t *testing.T) {
	const (
		token   = "xoxb-111-222-SLACKBOTTOKENSECRET"
		aliKey  = "aliSecret/With+Odd\"Chars"
		webhook = "https://hooks.slack.com/services/T0001/B0002/abcdefghijklmnopqrstuvwx"
	)
	secretParts := []string{"SLACKBOTTOKENSECRET", "aliSecret", "abcdefghijklmnopqrstuvwx"}
	for _, format := range []string{"json", "console"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			red := secret.New()
			log, _, err := New("debug", format, &buf, WithSecrets(red))
			if err != nil {
				t.Fatal(err)
			}
			// Secrets learnt after the logger (and a child logger) exist,
			// as they are when the config is read after logging starts.
			child := log.With(zap.String("key_in_context", aliKey))
			red.Add(token, aliKey)

			log.Info("token is " + token)
			log.Warn("alibaba", zap.String("secret", aliKey), zap.Strings("list", []string{aliKey}))
			log.Error("slack delivery failed", zap.Error(fmt.Errorf("posting: %w", errors.New(`Post "`+webhook+`": EOF`))))
			child.Info("child logger")
			log.Debug("signed", zap.String("url", "https://ecs.aliyuncs.com/?AccessKeyId=LTAI5tQ8xQ8xQ8xQ8xQ8&Signature=x"))

			out := buf.String()
			for _, part := range secretParts {
				if strings.Contains(out, part) {
					t.Errorf("output contains %q:\n%s", part, out)
				}
			}
			if strings.Contains(out, "LTAI5tQ8") {
				t.Errorf("access key id in output:\n%s", out)
			}
			if got := strings.Count(out, secret.Mask); got < 6 {
				t.Errorf("found %d masks, want at least 6:\n%s", got, out)
			}
			if !strings.Contains(out, "hooks.slack.com/services/"+secret.Mask) {
				t.Errorf("webhook host no longer recognisable:\n%s", out)
			}
		})
	}
}
