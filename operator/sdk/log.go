package sdk

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Logger writes one JSON object per line in the shape of
// ansible-operator's (zap) logs: level, ts (Unix seconds), logger, msg,
// then the key/value pairs in order. A reconcile's lines carry the
// object's "key" (namespace/name) and a task's its "task", the fields the
// --watch operator's JSON lines share (docs/install.md, "Logs"). With
// Text, each line is text instead: time, level, logger, msg, then the
// pairs as key=value. It is safe for concurrent use.
type Logger struct {
	Out io.Writer
	// Now is the clock of ts (nil: time.Now).
	Now func() time.Time
	// Text writes text lines rather than JSON (--log-format text).
	Text bool

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
	if l.Text {
		l.writeText(now(), level, logger, msg, kv)
		return
	}
	var b strings.Builder
	b.WriteString(`{"level":"` + level + `","ts":`)
	fmt.Fprintf(&b, "%.6f", float64(now().UnixNano())/1e9)
	if logger != "" {
		field(&b, "logger", logger)
	}
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

// APIWarnings is the operator's client-go warning handler (a
// rest.WarningHandlerWithContext). Each warning the apiserver returns
// (such as "unknown field" for a status field the CRD's schema prunes) is
// logged at info, its text as the message, with the fields of the
// reconcile that made the request (see withReconcileLog), as
// controller-runtime's handler logs it with the reconcile's logger for
// ansible-operator; not client-go's klog line.
type APIWarnings struct {
	Log *Logger
}

// HandleWarningHeaderWithContext implements rest.WarningHandlerWithContext.
func (w *APIWarnings) HandleWarningHeaderWithContext(ctx context.Context, code int, _ string, text string) {
	if code != 299 || text == "" {
		return
	}
	kv, _ := ctx.Value(reconcileLogKey{}).([]any)
	w.Log.Info("", text, kv...)
}

type reconcileLogKey struct{}

// withReconcileLog returns ctx carrying the fields controller-runtime puts
// on a reconcile's log lines: the controller's name, the object, its
// namespace and name, and an ID of the reconcile.
func withReconcileLog(ctx context.Context, controller, namespace, name string) context.Context {
	object := map[string]any{"name": name}
	if namespace != "" {
		object["namespace"] = namespace
	}
	var id [16]byte
	_, _ = crand.Read(id[:])
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	h := hex.EncodeToString(id[:])
	uuid := h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	return context.WithValue(ctx, reconcileLogKey{}, []any{"controller", controller, "object", object,
		"namespace", namespace, "name", name, "reconcileID", uuid})
}

// writeText writes one text line: "TIME LEVEL LOGGER MSG key=value ...",
// a value quoted when it holds a space, a quote or a line break, and any
// value that is not a string or a number as JSON.
func (l *Logger) writeText(t time.Time, level, logger, msg string, kv []any) {
	var b strings.Builder
	b.WriteString(t.UTC().Format(time.RFC3339) + " " + strings.ToUpper(level))
	if logger != "" {
		b.WriteString(" " + logger)
	}
	if msg != "" {
		b.WriteString(" " + strconv.Quote(msg))
	}
	for i := 0; i+1 < len(kv); i += 2 {
		var v string
		switch x := kv[i+1].(type) {
		case string:
			v = x
			if q := strconv.Quote(v); v == "" || q[1:len(q)-1] != v || strings.ContainsAny(v, " =") {
				v = q // a space, a quote, a line break or a control character
			}
		case int, int64, float64, bool:
			v = fmt.Sprint(x)
		default:
			j, err := json.Marshal(x)
			if err != nil {
				j, _ = json.Marshal(fmt.Sprint(x))
			}
			v = string(j)
		}
		fmt.Fprintf(&b, " %v=%s", kv[i], v)
	}
	b.WriteString("\n")
	l.mu.Lock()
	io.WriteString(l.Out, b.String())
	l.mu.Unlock()
}

// objectKey is an object's key as a workqueue writes it: namespace/name,
// or the name of a cluster-scoped object.
func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
