package waitfor

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// gone reports whether the path no longer exists, or the port no longer
// accepts connections.
func (w *wait) gone() (bool, *value.Dict, error) {
	if path := w.p.Str("path"); path != "" {
		_, err := os.Stat(path)
		return err != nil, nil, nil
	}
	conn, err := net.DialTimeout("tcp", w.address(), w.seconds(w.p.Int("connect_timeout")))
	if err != nil {
		return true, nil, nil
	}
	_ = conn.Close()
	return false, nil, nil
}

// present reports whether the path exists, or the port accepts
// connections, and (with search_regex) the file or the first data the
// port sends matches it. A path that cannot be examined for another
// reason than not existing fails the task.
func (w *wait) present() (bool, *value.Dict, error) {
	if path := w.p.Str("path"); path != "" {
		_, err := os.Stat(path)
		var errno syscall.Errno
		switch {
		case err == nil:
			return w.fileMatches(path), nil, nil
		case errors.As(err, &errno) && errno != syscall.ENOENT:
			return false, w.failure(fmt.Sprintf("Failed to stat %s, %s", path, py.Strerror(errno))), nil
		}
		return false, nil, nil
	}
	remaining := math.Ceil(w.end.Sub(w.clock.Now()).Seconds())
	timeout := min(float64(w.p.Int("connect_timeout")), remaining)
	conn, err := net.DialTimeout("tcp", w.address(), time.Duration(timeout*float64(time.Second)))
	if err != nil {
		return false, nil, nil
	}
	defer conn.Close()
	if w.re == nil {
		return true, nil, nil
	}
	return w.portSends(conn), nil, nil
}

// fileMatches reports whether the file matches search_regex (true when
// there is none); an unreadable file does not match yet.
func (w *wait) fileMatches(path string) bool {
	if w.re == nil {
		return true
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	// A match the backtracking engine timed out on counts as none: the
	// wait goes on until its own timeout.
	loc, _ := w.re.FindSubmatchIndex(data)
	if loc == nil {
		return false
	}
	w.recordMatch(data, loc)
	return true
}

// portSends reads from the connection until what it received matches
// search_regex, the peer closes it, or the timeout passes.
func (w *wait) portSends(conn net.Conn) bool {
	var data []byte
	buf := make([]byte, 1024)
	for w.clock.Now().Before(w.end) {
		_ = conn.SetReadDeadline(w.end)
		n, err := conn.Read(buf)
		data = append(data, buf[:n]...)
		if loc, _ := w.re.FindSubmatchIndex(data); n > 0 && loc != nil {
			w.recordMatch(data, loc)
			return true
		}
		if err != nil && !isTimeout(err) {
			return false
		}
		if w.ctx.Err() != nil {
			return false
		}
	}
	return false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (w *wait) address() string {
	return net.JoinHostPort(w.p.Str("host"), strconv.Itoa(w.p.Int("port")))
}

func (w *wait) seconds(n int) time.Duration { return time.Duration(n) * time.Second }

// addPathInfo adds what ansible-core's add_path_info reports about an
// existing path: owner and group of what it points to (names, or ids when
// unknown), its own mode, the kind of file as `state`, and its size.
func addPathInfo(res *value.Dict, path string) {
	lfi, err := os.Lstat(path)
	if err != nil {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		fi = lfi
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	lst, lok := lfi.Sys().(*syscall.Stat_t)
	if !ok || !lok {
		return
	}
	uid, gid := int(st.Uid), int(st.Gid)
	res.Set("uid", uid)
	res.Set("gid", gid)
	res.Set("owner", userName(uid))
	res.Set("group", groupName(gid))
	res.Set("mode", fmt.Sprintf("0%03o", lst.Mode&0o7777))
	state := "file"
	switch {
	case lfi.Mode()&fs.ModeSymlink != 0:
		state = "link"
	case fi.IsDir():
		state = "directory"
	case st.Nlink > 1:
		state = "hard"
	}
	res.Set("state", state)
	res.Set("size", int(lfi.Size()))
}
