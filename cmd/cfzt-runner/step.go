package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
)

// stepper is --step: before each task it asks, as ansible-core's
// strategy does (_take_step), whether to run it. Like ansible-playbook it
// reads the answer from standard input whether or not that is a terminal;
// at the end of the input it stops the run with the error ansible-core's
// unexpected EOFError gives (exit status 250).
type stepper struct {
	in  *bufio.Reader
	out io.Writer
	// off is set once the answer was (c)ontinue.
	off bool
}

func newStepper(in io.Reader, out io.Writer) *stepper {
	return &stepper{in: bufio.NewReader(in), out: out}
}

// Step asks about task (its name as ansible-core shows a task, "TASK:
// name") and reports whether to run it.
func (s *stepper) Step(task string) (bool, error) {
	if s.off {
		return true, nil
	}
	msg := "Perform task: " + task + " (N)o/(y)es/(c)ontinue: "
	fmt.Fprint(s.out, msg)
	line, err := s.in.ReadString('\n')
	if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
		return false, &diag.Diagnostic{Severity: diag.Error, Summary: "Unexpected Exception, this is probably a bug: EOF when reading a line", Code: 250}
	}
	run := false
	switch strings.ToLower(strings.TrimRight(line, "\r\n")) {
	case "y", "yes":
		run = true
	case "c", "continue":
		run, s.off = true, true
	}
	banner := strings.TrimSpace(msg)
	stars := 79 - len([]rune(banner))
	if stars <= 3 {
		stars = 3
	}
	fmt.Fprintf(s.out, "\n%s %s\n", banner, strings.Repeat("*", stars))
	return run, nil
}
