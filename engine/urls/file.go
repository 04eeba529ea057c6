package urls

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// openFile answers a file:// URL from the local file system, as urllib's
// FileHandler does: whatever the method, with no status code, and the
// content type, length and modification time as headers.
func openFile(u *url.URL, r *Request, res *Response) (*Response, error) {
	path, _ := url.PathUnescape(u.Path)
	f, err := os.Open(path)
	if err != nil {
		return res, &URLError{py.OSErrorText(err, path)}
	}
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		f.Close()
		return res, &URLError{"[Errno 21] Is a directory: " + value.Repr(path)}
	}
	res.File = true
	res.Header = http.Header{}
	res.Header.Set("Content-Type", "text/plain")
	res.Header.Set("Content-Length", strconv.FormatInt(st.Size(), 10))
	res.Header.Set("Last-Modified", st.ModTime().UTC().Format(http.TimeFormat))
	if r.Stream {
		res.Stream = f
		return res, nil
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(f, int64(maxBody)+1)); err != nil {
		return res, &OSError{errnoText(err)}
	}
	if buf.Len() > maxBody {
		return res, &OSError{fmt.Sprintf("the file is longer than %d MiB, cfzt-runner's limit", maxBody>>20)}
	}
	res.Body = buf.Bytes()
	return res, nil
}
