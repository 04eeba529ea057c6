package uri

import (
	"bytes"
	"fmt"
	"mime"
	"mime/multipart"
	"net/textproto"
	"os"
	"path/filepath"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// multipartBody is urls.prepare_multipart: string fields become text parts,
// dict fields with filename and/or content become file parts.
func multipartBody(body any, req *module.Request) (string, string, error) {
	d, ok := body.(*value.Dict)
	if !ok {
		return "", "", fmt.Errorf("Mapping is required, cannot be type %s", value.TypeName(body))
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	var err error
	d.Each(func(field string, v any) bool {
		switch x := v.(type) {
		case *value.Dict:
			filename := str(x.Default("filename", nil))
			content, hasContent := x.Get("content")
			if filename == "" && !hasContent {
				err = fmt.Errorf("at least one of filename or content must be provided")
				return false
			}
			var data []byte
			if hasContent && content != nil {
				data = []byte(value.Str(content))
			} else {
				data, err = os.ReadFile(findFile(req, filename))
				if err != nil {
					err = fmt.Errorf("[Errno 2] No such file or directory: %s", value.Repr(filename))
					return false
				}
			}
			mt := str(x.Default("mime_type", nil))
			if mt == "" {
				mt = mime.TypeByExtension(filepath.Ext(filename))
				if mt == "" {
					mt = "text/plain"
				}
			}
			h := textproto.MIMEHeader{}
			h.Set("Content-Type", mt)
			disp := map[string]string{"name": field}
			if filename != "" {
				disp["filename"] = filepath.Base(filename)
			}
			h.Set("Content-Disposition", mime.FormatMediaType("form-data", disp))
			var pw interface{ Write([]byte) (int, error) }
			pw, err = w.CreatePart(h)
			if err == nil {
				_, err = pw.Write(data)
			}
		case string, int, float64, bool:
			err = w.WriteField(field, value.Str(x))
		default:
			err = fmt.Errorf("value must be a string, or mapping, cannot be type %s", value.TypeName(v))
		}
		return err == nil
	})
	if err != nil {
		return "", "", err
	}
	if err := w.Close(); err != nil {
		return "", "", err
	}
	return w.FormDataContentType(), buf.String(), nil
}
