//go:build !linux

package k8s

import (
	"fmt"
	"os"
)

// statFingerprint is what stat says of a file: "missing", or its size and
// modification time.
func statFingerprint(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "missing"
	}
	return fmt.Sprintf("%d:%d", st.Size(), st.ModTime().UnixNano())
}
