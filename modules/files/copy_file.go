package files

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// destStatus is what the copy action learns about a destination from the
// stat module (_execute_remote_stat): checksum is "1" for a missing file
// and "" when there is none (a directory).
type destStatus struct {
	exists, isDir, isLink bool
	checksum, lnkSource   string
}

func remoteStat(path string, follow, withChecksum bool) destStatus {
	st, err := statPath(path, follow)
	if err != nil {
		return destStatus{checksum: "1"}
	}
	ds := destStatus{exists: true, isDir: st.IsDir(), isLink: st.Mode()&os.ModeSymlink != 0}
	if ds.isLink {
		ds.lnkSource = py.Realpath(path)
	}
	if st.Mode().IsRegular() && withChecksum && readable(path) {
		if sum, _ := fileDigest(path, "sha1"); sum != nil {
			ds.checksum = sum.(string)
		}
	}
	return ds
}

// copyFile copies one source file (_copy_file): the copy module when the
// checksums differ, else the file module for the attributes. A nil
// result means the file was skipped (it exists and force is off).
func (a *copyAction) copyFile(sourceFull, sourceRel, contentFile, dest string, follow bool) (*value.Dict, error) {
	force := a.flag("force", true)
	res := value.DictOf("diff", []any{})
	if a.flag("decrypt", true) {
		// A vault-encrypted source is copied decrypted (get_real_file).
		real, cleanup, err := module.DecryptedFile(a.req, sourceFull)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		sourceFull = real
	}
	srcSt, err := os.Stat(sourceFull)
	if err != nil {
		res.Set("failed", true)
		res.Set("msg", "could not find src="+sourceFull+", "+pyOSError(err))
		return res, nil
	}
	var lmode any
	if a.arg("mode") == "preserve" {
		lmode = octalMode(permOf(srcSt))
	}
	destFile := dest
	if strings.HasSuffix(dest, "/") {
		destFile = py.Join([]string{dest, sourceRel})
	}
	ds := remoteStat(destFile, follow, force)
	if ds.exists && ds.isDir {
		if contentFile != "" {
			return module.ActionFailed("can not use content with a dir as dest"), nil
		}
		destFile = py.Join([]string{dest, sourceRel})
		ds = remoteStat(destFile, follow, force)
	}
	if ds.exists && !force {
		return nil, nil
	}
	localSum, _ := fileDigest(sourceFull, "sha1")
	var out *value.Dict
	if localSum != ds.checksum {
		if a.req.Diff && !a.flag("raw", false) {
			res.Set("diff", []any{a.diffData(destFile, sourceFull, contentFile != "")})
		}
		if a.req.Check {
			res.Set("changed", true)
			return res, nil
		}
		if out, err = a.transferAndCopy(sourceFull, sourceRel, destFile, dest, follow, localSum, lmode); err != nil {
			return nil, err
		}
	} else {
		if out, err = a.fileAttributesOnly(sourceRel, destFile, dest, follow, lmode); err != nil {
			return nil, err
		}
	}
	if !value.Truthy(out.Default("checksum", nil)) {
		out.Set("checksum", localSum)
	}
	res.Update(out)
	return res, nil
}

// transferAndCopy puts the source in the task's remote temp directory as
// .source<ext> and runs the copy module on it.
func (a *copyAction) transferAndCopy(sourceFull, sourceRel, destFile, dest string, follow bool, localSum, lmode any) (*value.Dict, error) {
	if a.remoteTmp == "" {
		dir, err := remoteTmpDir(a.req)
		if err != nil {
			return nil, module.ActionFail("Failed to create temporary directory: "+pyOSError(err), nil)
		}
		a.remoteTmp = dir
	}
	_, ext := py.Splitext(destFile)
	tmpSrc := filepath.Join(a.remoteTmp, ".source"+ext)
	if err := copyFileContents(sourceFull, tmpSrc); err != nil {
		return nil, module.ActionFail("failed to transfer file to "+tmpSrc+": "+pyOSError(err), nil)
	}
	args := a.args.Copy()
	args.Delete("content")
	args.Delete("decrypt")
	args.Set("src", tmpSrc)
	args.Set("dest", dest)
	args.Set("_original_basename", sourceRel)
	args.Set("follow", follow)
	if !value.Truthy(a.arg("checksum")) {
		args.Set("checksum", localSum)
	}
	if lmode != nil {
		args.Set("mode", lmode)
	}
	return copyModuleDef().invoke(a.req, args, "ansible.legacy.copy")
}

// fileAttributesOnly runs the file module on an unchanged destination so
// that mode and ownership still apply.
func (a *copyAction) fileAttributesOnly(sourceRel, destFile, dest string, follow bool, lmode any) (*value.Dict, error) {
	if follow {
		if nf := remoteStat(destFile, false, true); nf.isLink && nf.lnkSource != "" {
			dest = nf.lnkSource
		}
	}
	args := realFileArgs(a.args)
	args.Set("dest", dest)
	args.Set("_original_basename", sourceRel)
	args.Set("recurse", false)
	args.Set("state", "file")
	args.Delete("src")
	if lmode != nil {
		args.Set("mode", lmode)
	}
	return fileDef().invoke(a.req, args, "ansible.legacy.file")
}

// readable is os.access(path, R_OK).
func readable(path string) bool { return accessOK(path, 4) }
