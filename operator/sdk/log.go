package sdk

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Logger writes one JSON object per line in the shape of
// ansible-operator's (zap) logs: level, ts (Unix seconds), logger, msg,
// then the key/value pairs in order. It is safe for concurrent use.
type Logger struct {
	Out io.Writer
	// Now is the clock of ts (nil: time.Now).
	Now func() time.Time

	mu sync.Mutex
}

// Info logs at level info.
func (l *Logger) Info(logger, msg string, kv ...any) { l.write("info", logger, msg, kv) }

// Error logs at level error with the error's text.
func (l *Logger) Error(logger, msg string, err error, kv ...any) {
	if err != nil {
		kv = append(kv, "error", err.Error())
	}
	l.write("error", logger, msg, kv)
}

func (l *Logger) write(level, logger, msg string, kv []any) {
	if l == nil || l.Out == nil {
		return
	}
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	var b strings.Builder
	b.WriteString(`{"level":"` + level + `","ts":`)
	fmt.Fprintf(&b, "%.6f", float64(now().UnixNano())/1e9)
	field(&b, "logger", logger)
	field(&b, "msg", msg)
	for i := 0; i+1 < len(kv); i += 2 {
		field(&b, fmt.Sprint(kv[i]), kv[i+1])
	}
	b.WriteString("}\n")
	l.mu.Lock()
	io.WriteString(l.Out, b.String())
	l.mu.Unlock()
}

func field(b *strings.Builder, k string, v any) {
	kj, _ := json.Marshal(k)
	vj, err := json.Marshal(v)
	if err != nil {
		vj, _ = json.Marshal(fmt.Sprint(v))
	}
	b.WriteString(",")
	b.Write(kj)
	b.WriteString(":")
	b.Write(vj)
}

// APIWarnings is the operator's client-go warning handler: each warning
// the apiserver returns (such as "unknown field" for a status field the
// CRD's schema prunes) is logged once, at info, by the
// "KubeAPIWarningLogger" logger, as controller-runtime's deduplicating
// handler does for ansible-operator, instead of client-go's klog line on
// every request.
type APIWarnings struct {
	Log *Logger

	mu   sync.Mutex
	seen map[string]bool
}

// HandleWarningHeader implements rest.WarningHandler.
func (w *APIWarnings) HandleWarningHeader(code int, _ string, text string) {
	if code != 299 || text == "" {
		return
	}
	w.mu.Lock()
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	dup := w.seen[text]
	w.seen[text] = true
	w.mu.Unlock()
	if !dup {
		w.Log.Info("KubeAPIWarningLogger", text)
	}
}
