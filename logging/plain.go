package logging

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"

	"github.com/pricewatch/pricewatch/secret"
)

// NewPlain is the CLI's logger: one line of plain text per entry on
// stderr, "pricewatch: warning: provider skipped (provider=aws, error=…)",
// no timestamp, caller or JSON, secrets masked as in the daemon's lines.
// The daemon (`pricewatch run`) keeps New's structured lines.
func NewPlain(level string, stderr io.Writer, opts ...Option) (*zap.Logger, zap.AtomicLevel, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.secrets == nil {
		o.secrets = secret.New()
	}
	lvl := zap.NewAtomicLevelAt(zapcore.WarnLevel)
	if level != "" {
		if err := lvl.UnmarshalText([]byte(level)); err != nil {
			return nil, lvl, fmt.Errorf("log level %q: want debug, info, warn or error", level)
		}
	}
	sink := zapcore.Lock(zapcore.AddSync(stderr))
	enc := &plainEncoder{MapObjectEncoder: zapcore.NewMapObjectEncoder(), secrets: o.secrets}
	return zap.New(zapcore.NewCore(enc, sink, lvl), zap.ErrorOutput(sink)), lvl, nil
}

// plainEncoder collects fields in a map and prints them as key=value.
type plainEncoder struct {
	*zapcore.MapObjectEncoder
	secrets *secret.Set
}

func (e *plainEncoder) Clone() zapcore.Encoder {
	c := &plainEncoder{MapObjectEncoder: zapcore.NewMapObjectEncoder(), secrets: e.secrets}
	for k, v := range e.Fields {
		c.Fields[k] = v
	}
	return c
}

var plainPool = buffer.NewPool()

func (e *plainEncoder) EncodeEntry(ent zapcore.Entry, fields []zapcore.Field) (*buffer.Buffer, error) {
	all := e.Clone().(*plainEncoder)
	for _, f := range fields {
		f.AddTo(all.MapObjectEncoder)
	}
	keys := make([]string, 0, len(all.Fields))
	for k := range all.Fields {
		keys = append(keys, k)
	}
	// The cause reads last: "(provider=aws, run=3, error=…)".
	sort.Slice(keys, func(i, j int) bool {
		if (keys[i] == "error") != (keys[j] == "error") {
			return keys[j] == "error"
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	b.WriteString("pricewatch: ")
	b.WriteString(plainLevel(ent.Level) + ": ")
	b.WriteString(ent.Message)
	if len(keys) > 0 {
		b.WriteString(" (")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s=%v", k, all.Fields[k])
		}
		b.WriteString(")")
	}
	line := plainPool.Get()
	line.AppendString(e.secrets.String(strings.ReplaceAll(b.String(), "\n", " ")))
	line.AppendByte('\n')
	return line, nil
}

func plainLevel(l zapcore.Level) string {
	switch l {
	case zapcore.WarnLevel:
		return "warning"
	case zapcore.InfoLevel, zapcore.DebugLevel:
		return l.String()
	default:
		return "error"
	}
}
