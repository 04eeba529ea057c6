// Command uri-test-server runs the uri module's test servers for recording
// golden output with the reference ansible-playbook. It writes the
// playbook variables as JSON to -vars and serves until stdin closes.
// With -normalize it instead copies stdin to stdout normalized.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cfzt/cfzt-runner/modules/uri/uritest"
)

func main() {
	dir := flag.String("dir", "", "directory for the CA and client certificate")
	vars := flag.String("vars", "", "file to write the playbook variables to")
	normalize := flag.Bool("normalize", false, "normalize stdin to stdout")
	playDir := flag.String("playdir", "", "with -normalize: the playbook directory to replace by PLAYDIR")
	flag.Parse()
	if *normalize {
		b, _ := io.ReadAll(os.Stdin)
		fmt.Print(uritest.Normalize(string(b), map[string]string{*playDir: "PLAYDIR", *dir: "CERTDIR"}))
		return
	}
	s, err := uritest.Start(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer s.Close()
	b, _ := json.Marshal(s.Vars())
	if err := os.WriteFile(*vars, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	io.Copy(io.Discard, os.Stdin)
}
