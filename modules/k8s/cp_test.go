package k8s

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/internal/kubetest/kubelet"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), mode))
	require.NoError(t, os.Chmod(path, mode))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	return fi.Mode().Perm()
}

func TestCpToPod(t *testing.T) {
	ns := namespace(t, "cp-to")
	p := runningPod(t, ns, "box", "main")
	root := p.Root("main")
	local := t.TempDir()
	writeFile(t, filepath.Join(local, "run.sh"), "#!/bin/sh\necho hi\n", 0o777)

	args := func(extra string) string { return "{namespace: " + ns + ", pod: box, " + extra + "}" }

	// A file to an absolute path that does not exist: that name.
	res := ok(t, call{mod: "k8s_cp", args: args("local_path: " + local + "/run.sh, remote_path: /opt/run.sh")})
	require.True(t, changed(res))
	require.Equal(t, local+"/run.sh successfully copied into remote Pod into /opt/run.sh", get(t, res, "result"))
	require.Equal(t, "#!/bin/sh\necho hi\n", readFile(t, filepath.Join(root, "opt/run.sh")))
	require.Equal(t, os.FileMode(0o777), mode(t, filepath.Join(root, "opt/run.sh")))

	// no_preserve: the pod's umask applies.
	ok(t, call{mod: "k8s_cp", args: args("local_path: " + local + "/run.sh, remote_path: /opt/run2.sh, no_preserve: true")})
	require.Equal(t, os.FileMode(0o755), mode(t, filepath.Join(root, "opt/run2.sh")))

	// To an existing directory: the file's name inside it.
	ok(t, call{mod: "k8s_cp", args: args("local_path: " + local + "/run.sh, remote_path: /opt/")})
	// (the same file again, now at /opt/run.sh through the directory)
	require.FileExists(t, filepath.Join(root, "opt/run.sh"))

	// A directory, to a new path and into an existing directory.
	writeFile(t, filepath.Join(local, "site/index.html"), "<h1>hi</h1>", 0o644)
	writeFile(t, filepath.Join(local, "site/css/main.css"), "body{}", 0o600)
	ok(t, call{mod: "k8s_cp", args: args("local_path: " + local + "/site, remote_path: /srv/www")})
	require.Equal(t, "<h1>hi</h1>", readFile(t, filepath.Join(root, "srv/www/index.html")))
	require.Equal(t, "body{}", readFile(t, filepath.Join(root, "srv/www/css/main.css")))
	require.Equal(t, os.FileMode(0o600), mode(t, filepath.Join(root, "srv/www/css/main.css")))
	ok(t, call{mod: "k8s_cp", args: args("local_path: " + local + "/site, remote_path: /srv/www")})
	require.Equal(t, "<h1>hi</h1>", readFile(t, filepath.Join(root, "srv/www/site/index.html")))

	// A relative remote path: under the container's working directory.
	ok(t, call{mod: "k8s_cp", args: args("local_path: " + local + "/run.sh, remote_path: rel/run.sh")})
	require.FileExists(t, filepath.Join(root, "rel/run.sh"))

	// content: a file with that text.
	res = ok(t, call{mod: "k8s_cp", args: args("content: \"key: value\\n\", remote_path: /etc/app.conf")})
	require.Equal(t, "Content successfully copied into /etc/app.conf on remote Pod", get(t, res, "result"))
	require.Equal(t, "key: value\n", readFile(t, filepath.Join(root, "etc/app.conf")))
	_, msg := fails(t, call{mod: "k8s_cp", args: args("content: x, remote_path: /etc")})
	require.Equal(t, "When content is specified, remote path should not be an existing directory", msg)

	// Check mode: changed, nothing written.
	res = ok(t, call{mod: "k8s_cp", check: true, args: args("local_path: " + local + "/run.sh, remote_path: /check/run.sh")})
	require.True(t, changed(res))
	require.NoDirExists(t, filepath.Join(root, "check"))
	noSecrets(t, res)
}

func TestCpFromPod(t *testing.T) {
	ns := namespace(t, "cp-from")
	p := runningPod(t, ns, "box", "main")
	root := p.Root("main")
	writeFile(t, filepath.Join(root, "etc/motd"), "welcome\n", 0o644)
	writeFile(t, filepath.Join(root, "data/a.txt"), "A", 0o644)
	writeFile(t, filepath.Join(root, "data/sub/b.txt"), "B", 0o644)
	writeFile(t, filepath.Join(root, "data/.hidden"), "H", 0o644)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "empty"), 0o755))
	local := t.TempDir()
	args := func(extra string) string { return "{namespace: " + ns + ", pod: box, state: from_pod, " + extra + "}" }

	res := ok(t, call{mod: "k8s_cp", args: args("remote_path: /etc/motd, local_path: " + local + "/motd")})
	require.True(t, changed(res))
	require.Equal(t, "/etc/motd successfully copied locally into "+local+"/motd", get(t, res, "result"))
	require.Equal(t, "welcome\n", readFile(t, filepath.Join(local, "motd")))

	// A directory into an existing local directory: under its name.
	ok(t, call{mod: "k8s_cp", args: args("remote_path: /data, local_path: " + local)})
	require.Equal(t, "A", readFile(t, filepath.Join(local, "data/a.txt")))
	require.Equal(t, "B", readFile(t, filepath.Join(local, "data/sub/b.txt")))
	require.Equal(t, "H", readFile(t, filepath.Join(local, "data/.hidden")))
	// Into a new local path: that path is the directory.
	ok(t, call{mod: "k8s_cp", args: args("remote_path: /data, local_path: " + local + "/copy")})
	require.Equal(t, "B", readFile(t, filepath.Join(local, "copy/sub/b.txt")))

	res = ok(t, call{mod: "k8s_cp", args: args("remote_path: /empty, local_path: " + local + "/e")})
	require.False(t, changed(res))
	require.Equal(t, "No file found from directory '/empty' into remote Pod.", get(t, res, "warning"))

	_, msg := fails(t, call{mod: "k8s_cp", args: args("remote_path: /nothere, local_path: " + local + "/x")})
	require.Equal(t, "/nothere does not exist in remote pod filesystem", msg)

	// Check mode: changed, nothing written.
	res = ok(t, call{mod: "k8s_cp", check: true, args: args("remote_path: /data, local_path: " + local + "/checked")})
	require.True(t, changed(res))
	require.NoDirExists(t, filepath.Join(local, "checked"))

	// Without find in the pod, the shell's echo lists the files.
	p.OnExec(func(e *kubelet.Exec) (int, bool) {
		if e.Command[0] == "find" {
			fmt.Fprintln(e.Stderr, "sh: find: not found")
			return 127, true
		}
		return 0, false
	})
	defer p.OnExec(nil)
	ok(t, call{mod: "k8s_cp", args: args("remote_path: /data, local_path: " + local + "/echoed")})
	require.Equal(t, "A", readFile(t, filepath.Join(local, "echoed/a.txt")))
	require.Equal(t, "B", readFile(t, filepath.Join(local, "echoed/sub/b.txt")))
	require.Equal(t, "H", readFile(t, filepath.Join(local, "echoed/.hidden")))
}

func TestCpFailures(t *testing.T) {
	ns := namespace(t, "cp-fail")
	runningPod(t, ns, "two", "a", "b")
	runningPod(t, ns, "one", "main")
	local := t.TempDir()
	for _, c := range []struct{ args, msg string }{
		{"{pod: one, remote_path: /x, local_path: " + local + "}", "missing required arguments: namespace"},
		{"{namespace: " + ns + ", pod: one, remote_path: /x}", "one of the following is required: local_path, content"},
		{"{namespace: " + ns + ", pod: one, remote_path: /x, local_path: /a, content: b}", "parameters are mutually exclusive: local_path|content"},
		{"{namespace: " + ns + ", pod: one, remote_path: /x, content: b, state: from_pod}", "state is from_pod but all of the following are missing: local_path"},
		{"{namespace: " + ns + ", pod: two, remote_path: /x, local_path: " + local + "}", "Pod contains more than 1 container, option 'container' should be set"},
		{"{namespace: " + ns + ", pod: two, container: c, remote_path: /x, local_path: " + local + "}", "Pod has no container c"},
		{"{namespace: " + ns + ", pod: one, remote_path: /x, local_path: " + local + "/nothere}", local + "/nothere does not exist in local filesystem"},
	} {
		_, msg := fails(t, call{mod: "k8s_cp", args: c.args})
		require.Equal(t, c.msg, msg, c.args)
	}
	res, msg := fails(t, call{mod: "k8s_cp", args: "{namespace: " + ns + ", pod: nonesuch, remote_path: /x, local_path: " + local + "}"})
	require.True(t, strings.HasPrefix(msg, "Namespace="+ns+" Kind=Pod Name=nonesuch: Failed requested object: b'{\"kind\":\"Status\""), msg)
	require.Equal(t, 404, get(t, res, "status"))
	require.Equal(t, "Not Found", get(t, res, "reason"))
	// The operator's token may read nothing: the pod read fails first.
	_, msg = fails(t, call{mod: "k8s_cp", env: env(cluster.OperatorToken), args: "{namespace: " + ns + ", pod: one, remote_path: /x, local_path: " + local + "}"})
	require.Contains(t, msg, "forbidden")
}

// TestCpFromHostilePod is an attack: the pod's listing names files
// outside remote_path, which would land outside local_path. Nothing may
// be written, anywhere. A file without end is bounded.
func TestCpFromHostilePod(t *testing.T) {
	ns := namespace(t, "cp-attack")
	p := runningPod(t, ns, "evil", "main")
	root := p.Root("main")
	writeFile(t, filepath.Join(root, "data/ok.txt"), "fine", 0o644)
	base := t.TempDir()
	local := filepath.Join(base, "into")
	require.NoError(t, os.Mkdir(local, 0o755))

	for _, listing := range []string{
		"/data/ok.txt\n/data/../../../escaped.txt\n",
		"/data/ok.txt\n/etc/escaped.txt\n",
		"/data/ok.txt\n/data/../escaped.txt\n",
		"/data/ok.txt\n../escaped.txt\n",
	} {
		p.OnExec(func(e *kubelet.Exec) (int, bool) {
			switch {
			case len(e.Command) == 4 && e.Command[0] == "find":
				fmt.Fprint(e.Stdout, listing)
				return 0, true
			case e.Command[0] == "cat":
				fmt.Fprint(e.Stdout, "pwned")
				return 0, true
			}
			return 0, false
		})
		_, msg := fails(t, call{mod: "k8s_cp", args: "{namespace: " + ns + ", pod: evil, state: from_pod, remote_path: /data, local_path: " + local + "}"})
		require.Contains(t, msg, "Failed to copy object due to: the pod listed ", listing)
		require.Contains(t, msg, "which is outside /data: nothing was copied")
		var found []string
		_ = filepath.Walk(base, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				found = append(found, p)
			}
			return nil
		})
		require.Empty(t, found, listing)
	}

	// A file without end: bounded.
	defer func(n int64) { maxCopyBytes = n }(maxCopyBytes)
	maxCopyBytes = 1 << 20
	p.OnExec(func(e *kubelet.Exec) (int, bool) {
		if e.Command[0] != "cat" {
			return 0, false
		}
		chunk := []byte(strings.Repeat("Z", 64<<10))
		for i := 0; i < 1<<14; i++ {
			if _, err := e.Stdout.Write(chunk); err != nil {
				break
			}
		}
		return 0, true
	})
	_, msg := fails(t, call{mod: "k8s_cp", args: "{namespace: " + ns + ", pod: evil, state: from_pod, remote_path: /data/ok.txt, local_path: " + local + "/big}"})
	require.Equal(t, "Failed to copy object due to: /data/ok.txt is larger than 1048576 bytes, cfzt-runner's limit for one copy", msg)
	fi, err := os.Stat(filepath.Join(local, "big"))
	require.NoError(t, err)
	require.LessOrEqual(t, fi.Size(), int64(1<<20))
}

// TestCpFromHostilePodEchoListing is the same attack through the shell
// listing kubernetes.core falls back on without find: the pod's echo
// names a file outside remote_path and its test says it is there.
func TestCpFromHostilePodEchoListing(t *testing.T) {
	ns := namespace(t, "cp-attack-echo")
	p := runningPod(t, ns, "evil", "main")
	base := t.TempDir()
	local := filepath.Join(base, "into")
	require.NoError(t, os.Mkdir(local, 0o755))
	p.OnExec(func(e *kubelet.Exec) (int, bool) {
		switch e.Command[0] {
		case "find":
			return 127, true
		case "test":
			if e.Command[1] == "-d" && e.Command[2] != "/data" {
				return 1, true
			}
			return 0, true
		case "/bin/sh":
			if len(e.Command) == 3 {
				fmt.Fprintln(e.Stdout, "/data/ok.txt /data/../../../escaped.txt /data/. /data/..")
			}
			return 0, true
		case "cat":
			fmt.Fprint(e.Stdout, "pwned")
			return 0, true
		}
		return 0, false
	})
	_, msg := fails(t, call{mod: "k8s_cp", args: "{namespace: " + ns + ", pod: evil, state: from_pod, remote_path: /data, local_path: " + local + "}"})
	require.Equal(t, "Failed to copy object due to: the pod listed /data/../../../escaped.txt, which is outside /data: nothing was copied", msg)
	var found []string
	_ = filepath.Walk(base, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			found = append(found, p)
		}
		return nil
	})
	require.Empty(t, found)
}

// TestCpToPodOverV4: an apiserver that offers only v4.channel.k8s.io
// cannot be told that stdin ended; the copy closes the connection once
// the archive is written (as the Python client does) instead of waiting
// for tar forever.
func TestCpToPodOverV4(t *testing.T) {
	defer func(p []string) { execProtocols = p }(execProtocols)
	execProtocols = []string{protoV4}
	ns := namespace(t, "cp-v4")
	p := runningPod(t, ns, "box", "main")
	local := t.TempDir()
	writeFile(t, filepath.Join(local, "f.txt"), "over v4\n", 0o644)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ok(t, call{mod: "k8s_cp", args: "{namespace: " + ns + ", pod: box, local_path: " + local + "/f.txt, remote_path: /opt/f.txt}"})
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("k8s_cp over v4 did not end: stdin's end never reached tar")
	}
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(filepath.Join(p.Root("main"), "opt/f.txt"))
		return err == nil && string(b) == "over v4\n"
	}, 10*time.Second, 50*time.Millisecond)
}
