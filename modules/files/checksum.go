package files

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"io"
	"os"

	"github.com/cfzt/cfzt-runner/engine/module"
)

// newHash returns the digest named as Python's hashlib names it.
func newHash(algorithm string) hash.Hash {
	switch algorithm {
	case "md5":
		return md5.New()
	case "sha1":
		return sha1.New()
	case "sha224":
		return sha256.New224()
	case "sha256":
		return sha256.New()
	case "sha384":
		return sha512.New384()
	case "sha512":
		return sha512.New()
	}
	return nil
}

// fileDigest is AnsibleModule.digest_from_file: the hex digest of a file
// (symlinks followed), None for a missing one, a failure for a directory.
func fileDigest(path, algorithm string) (any, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil
	}
	if st.IsDir() {
		return nil, module.Fail("attempted to take checksum of directory: " + path)
	}
	h := newHash(algorithm)
	if h == nil {
		return nil, module.Fail("Could not hash file '" + path + "' with algorithm '" + algorithm + "'. Available algorithms: md5, sha1, sha224, sha256, sha384, sha512")
	}
	if err := hashFile(path, h); err != nil {
		return nil, err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile feeds a file's content to h.
func hashFile(path string, h hash.Hash) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(h, f)
	return err
}

// digestHex is the hex digest of data (sha1 is Ansible's checksum_s).
func digestHex(algorithm string, data []byte) string {
	h := newHash(algorithm)
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
