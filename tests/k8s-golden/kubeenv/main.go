// Command kubeenv starts a kube-apiserver from internal/kubetest, writes the
// connection as shell variables (K8S_AUTH_*, KUBECONFIG) to the file named by
// -env, and keeps the apiserver running until it receives SIGINT or SIGTERM
// or its standard input closes (with -stdin). hack/record-k8s-goldens.sh uses
// it to point the reference ansible-playbook at a fresh apiserver.
//
// `kubeenv normalize [DIR]` instead copies standard input to standard output
// through the golden-file normalizer.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/cfzt/cfzt-runner/internal/kubetest/kubelet"
	"github.com/cfzt/cfzt-runner/tests/k8s-golden/normalize"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "normalize" {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kubeenv:", err)
			os.Exit(1)
		}
		dir := ""
		if len(os.Args) > 2 {
			dir = os.Args[2]
		}
		fmt.Print(normalize.Output(string(data), dir))
		return
	}
	envFile := flag.String("env", "", "file to write the connection variables to (default: stdout)")
	onStdin := flag.Bool("stdin", false, "also stop when standard input reaches EOF")
	node := flag.String("kubelet", "", "also run the kubelet stand-in (internal/kubetest/kubelet) as this Node's kubelet")
	flag.Parse()

	c, err := kubetest.Start(kubetest.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer c.Stop()
	if *node != "" {
		k, err := kubelet.ForCluster(c, *node)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kubeenv:", err)
			c.Stop()
			os.Exit(1)
		}
		defer k.Close()
	}

	if err := writeEnv(*envFile, c); err != nil {
		fmt.Fprintln(os.Stderr, "kubeenv:", err)
		c.Stop()
		os.Exit(1)
	}

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	eof := make(chan struct{})
	if *onStdin {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			close(eof)
		}()
	}
	select {
	case <-stop:
	case <-eof:
	}
}

// writeEnv writes the admin connection as `export NAME='value'` lines.
func writeEnv(path string, c *kubetest.Cluster) error {
	vars := [][2]string{
		{"K8S_AUTH_HOST", c.Host},
		{"K8S_AUTH_API_KEY", c.AdminToken},
		{"K8S_AUTH_SSL_CA_CERT", c.CAFile},
		{"K8S_AUTH_VERIFY_SSL", "true"},
		{"KUBECONFIG", c.AdminKubeconfig},
		{"CFZT_KUBE_OPERATOR_KUBECONFIG", c.OperatorKubeconfig},
	}
	var b strings.Builder
	for _, kv := range vars {
		fmt.Fprintf(&b, "export %s='%s'\n", kv[0], kv[1])
	}
	if path == "" {
		_, err := os.Stdout.WriteString(b.String())
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
