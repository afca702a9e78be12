// Package logging builds pricewatch's zap logger: readable console lines on
// a terminal, JSON elsewhere, syslog priorities under journald, no sampling,
// and secrets masked in every line it writes.
package logging

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/pricewatch/pricewatch/secret"
)

// Formats accepted by New (config key log.format).
const (
	FormatAuto    = "auto"    // console on a terminal, JSON otherwise
	FormatJSON    = "json"    // one JSON object per line
	FormatConsole = "console" // tab-separated, for people
)

// Option adjusts New.
type Option func(*options)

type options struct {
	secrets *secret.Set
}

// WithSecrets masks s's secrets (added to it later too) in every line.
// Without it New still masks URL query strings, URL user info, Slack
// webhook paths and recognisable token shapes, but cannot know the
// configured keys themselves.
func WithSecrets(s *secret.Set) Option { return func(o *options) { o.secrets = s } }

// New returns a logger writing to stderr (os.Stderr when nil) and the level
// handle that changes it at run time (SIGHUP reload: lvl.UnmarshalText).
//
// level is debug, info, warn or error ("" means info). format is auto,
// json or console ("" means auto); auto picks console only when stderr is a
// terminal. When stderr is the journal (systemd sets $JOURNAL_STREAM to its
// device and inode), each line starts with its syslog priority, so
// `journalctl -p err` finds errors, and carries no timestamp, since journald
// stamps every line itself.
//
// Sampling is off: pricewatch logs little, and a dropped fetch error costs
// more than a few repeated lines.
func New(level, format string, stderr io.Writer, opts ...Option) (*zap.Logger, zap.AtomicLevel, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.secrets == nil {
		o.secrets = secret.New()
	}
	if stderr == nil {
		stderr = os.Stderr
	}

	lvl := zap.NewAtomicLevel()
	if level != "" {
		if err := lvl.UnmarshalText([]byte(level)); err != nil {
			return nil, lvl, fmt.Errorf("log level %q: want debug, info, warn or error", level)
		}
	}

	tty := isTerminal(stderr)
	journal := isJournal(stderr)
	switch format {
	case "", FormatAuto:
		format = FormatJSON
		if tty {
			format = FormatConsole
		}
	case FormatJSON, FormatConsole:
	default:
		return nil, lvl, fmt.Errorf("log format %q: want auto, json or console", format)
	}

	cfg := zapcore.EncoderConfig{
		TimeKey:        "ts",
		LevelKey:       "level",
		NameKey:        "logger",
		CallerKey:      "caller",
		MessageKey:     "msg",
		StacktraceKey:  "stacktrace",
		LineEnding:     zapcore.DefaultLineEnding,
		EncodeLevel:    zapcore.LowercaseLevelEncoder,
		EncodeTime:     zapcore.ISO8601TimeEncoder,
		EncodeDuration: zapcore.StringDurationEncoder,
		EncodeCaller:   zapcore.ShortCallerEncoder,
	}
	if journal {
		cfg.TimeKey = ""
	}
	var enc zapcore.Encoder
	if format == FormatConsole {
		cfg.EncodeLevel = zapcore.CapitalLevelEncoder
		if tty && os.Getenv("NO_COLOR") == "" {
			cfg.EncodeLevel = zapcore.CapitalColorLevelEncoder
		}
		enc = zapcore.NewConsoleEncoder(cfg)
	} else {
		enc = zapcore.NewJSONEncoder(cfg)
	}
	enc = &lineEncoder{Encoder: enc, secrets: o.secrets, priority: journal}

	sink := zapcore.Lock(zapcore.AddSync(stderr))
	core := zapcore.NewCore(enc, sink, lvl)
	logger := zap.New(core,
		zap.AddCaller(),
		// Stack traces only for programming errors: an expected failure
		// (a cloud timing out) at error level would otherwise bury its
		// one-line cause under thirty lines of goroutine frames.
		zap.AddStacktrace(zapcore.DPanicLevel),
		zap.ErrorOutput(sink),
	)
	return logger, lvl, nil
}

// fder is what *os.File offers and a bytes.Buffer does not.
type fder interface{ Fd() uintptr }

func isTerminal(w io.Writer) bool {
	f, ok := w.(fder)
	return ok && term.IsTerminal(int(f.Fd()))
}

// isJournal reports whether w is the stream systemd connected to journald:
// $JOURNAL_STREAM holds "device:inode" of that stream, and it only counts
// when w is that very file — a child whose stderr was redirected elsewhere
// inherits the variable but not the stream.
func isJournal(w io.Writer) bool {
	stream := os.Getenv("JOURNAL_STREAM")
	if stream == "" {
		return false
	}
	f, ok := w.(fder)
	if !ok {
		return false
	}
	devText, inoText, ok := strings.Cut(stream, ":")
	if !ok {
		return false
	}
	dev, err1 := strconv.ParseUint(devText, 10, 64)
	ino, err2 := strconv.ParseUint(inoText, 10, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return false
	}
	return uint64(st.Dev) == dev && uint64(st.Ino) == ino
}

// syslogPriority maps zap levels to the sd-daemon(3) prefixes journald
// turns into PRIORITY=.
func syslogPriority(l zapcore.Level) string {
	switch {
	case l <= zapcore.DebugLevel:
		return "<7>"
	case l == zapcore.InfoLevel:
		return "<6>"
	case l == zapcore.WarnLevel:
		return "<4>"
	case l == zapcore.ErrorLevel:
		return "<3>"
	default: // dpanic, panic, fatal
		return "<2>"
	}
}

var linePool = buffer.NewPool()

// lineEncoder post-processes every encoded entry: it masks secrets and, under
// journald, prefixes each physical line with the entry's priority (journald
// reads the prefix per line, so a console stack trace's continuation lines
// would otherwise land at info).
type lineEncoder struct {
	zapcore.Encoder
	secrets  *secret.Set
	priority bool
}

func (e *lineEncoder) Clone() zapcore.Encoder {
	return &lineEncoder{Encoder: e.Encoder.Clone(), secrets: e.secrets, priority: e.priority}
}

func (e *lineEncoder) EncodeEntry(ent zapcore.Entry, fields []zapcore.Field) (*buffer.Buffer, error) {
	inner, err := e.Encoder.EncodeEntry(ent, fields)
	if err != nil {
		return nil, err
	}
	text := e.secrets.String(inner.String())
	inner.Free()

	out := linePool.Get()
	if !e.priority {
		out.AppendString(text)
		return out, nil
	}
	prefix := syslogPriority(ent.Level)
	for text != "" {
		line, rest, found := strings.Cut(text, "\n")
		out.AppendString(prefix)
		out.AppendString(line)
		if found {
			out.AppendByte('\n')
		}
		text = rest
	}
	return out, nil
}
