package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// readPasswordFile reads a --become-password-file or
// --connection-password-file as ansible-core's
// CLI.get_password_from_file does: "-" is standard input, an executable
// file is run and its output used, any other file is read; the password
// loses surrounding line breaks and must not be empty. The password
// itself is never shown.
func readPasswordFile(name string) (string, error) {
	var secret []byte
	st, statErr := os.Stat(name)
	switch {
	case name == "-":
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return "", fmt.Errorf("Could not read password file '%s'.", name)
		}
		secret = data
	case statErr != nil:
		return "", fmt.Errorf("The password file %s was not found", name)
	case !st.IsDir() && st.Mode()&0o111 != 0:
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(name)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			return "", fmt.Errorf("The password script %s returned an error (rc=%d): %s", name, exit.ExitCode(), stderr.String())
		case err != nil:
			return "", fmt.Errorf("Problem occurred when trying to run the password script %s (%v). If this is not a script, remove the executable bit from the file.", name, err)
		}
		secret = stdout.Bytes()
	default:
		data, err := os.ReadFile(name)
		if err != nil {
			return "", fmt.Errorf("Could not read password file '%s'.", name)
		}
		secret = bytes.TrimSpace(data)
	}
	secret = bytes.Trim(secret, "\r\n")
	if len(secret) == 0 {
		return "", fmt.Errorf("Empty password was provided from file (%s)", name)
	}
	return string(secret), nil
}
