package display

import (
	"fmt"
	"io"
	"os"
	"os/user"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Log is log_path (DEFAULT_LOG_PATH): every message the display shows is
// also appended to the file in ansible-core's logging format,
//
//	2026-11-28 09:36:32,409 p=10428 u=root n=ansible INFO| PLAY [p1] ****
//
// without colour, at INFO, or WARNING and ERROR for warnings and errors.
type Log struct {
	mu   sync.Mutex
	file io.WriteCloser
	pid  int
	user string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// OpenLog opens the log file as ansible-core's display does: a directory
// or a file that cannot be written gives its warning (printed to stderr,
// as ansible-core prints it) and no log.
func OpenLog(path string, stderr io.Writer) *Log {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		fmt.Fprintf(stderr, "[WARNING]: DEFAULT_LOG_PATH can not be a directory '%s', aborting\n", path)
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintf(stderr, "[WARNING]: log file at '%s' is not writeable and we cannot create it, aborting\n\n", path)
		return nil
	}
	return &Log{file: f, pid: os.Getpid(), user: logUser()}
}

// logUser is getpass.getuser(): LOGNAME, USER, LNAME or USERNAME, else
// the account's name.
func logUser() string {
	for _, k := range []string{"LOGNAME", "USER", "LNAME", "USERNAME"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "unknown"
}

// Close closes the file.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	return l.file.Close()
}

var ansiSeq = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// record logs one displayed message: the text one display call wrote.
// As ansible-core's display, it logs the message without its leading
// line breaks; a message that ended in a single line break had it added
// by the display, so it is not part of the message.
func (l *Log) record(text string, stderr bool) {
	msg := strings.TrimLeft(ansiSeq.ReplaceAllString(text, ""), "\n")
	if !strings.HasSuffix(msg, "\n\n") {
		msg = strings.TrimSuffix(msg, "\n")
	}
	if msg == "" {
		return
	}
	level := "INFO"
	switch {
	case strings.HasPrefix(msg, "[ERROR]"):
		level = "ERROR"
	case stderr && (strings.HasPrefix(msg, "[WARNING]") || strings.HasPrefix(msg, "[DEPRECATION WARNING]")):
		level = "WARNING"
	}
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	t := now()
	stamp := fmt.Sprintf("%s,%03d", t.Format("2006-01-02 15:04:05"), t.Nanosecond()/1e6)
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.file, "%s p=%d u=%s n=ansible %s| %s\n", stamp, l.pid, l.user, level, msg)
}

// Tee returns a writer that writes to w and logs each write as one
// message (stderr marks the display's stderr).
func (l *Log) Tee(w io.Writer, stderr bool) io.Writer {
	if l == nil {
		return w
	}
	return &logTee{w: w, log: l, stderr: stderr}
}

type logTee struct {
	w      io.Writer
	log    *Log
	stderr bool
}

func (t *logTee) Write(p []byte) (int, error) {
	t.log.record(string(p), t.stderr)
	return t.w.Write(p)
}
