package kubetest

import (
	"errors"
	"fmt"
	"time"
)

// Restart kills the apiserver and its embedded etcd with SIGKILL, as a
// crash or an evicted control-plane node would, and starts them again on
// the same port with the same etcd data, certificates and tokens, so that
// every client (rest.Config, kubeconfig, running operators) reconnects to
// the same address and finds every object it left. down is how long the
// apiserver stays away before it is started again. Restart returns once
// /readyz answers again.
func (c *Cluster) Restart(down time.Duration) error {
	if c == nil || c.cmd == nil {
		return errors.New("kubetest: Restart of a cluster that never started")
	}
	c.kill()
	time.Sleep(down)
	var err error
	// The port was free a moment ago, but another process may bind it in
	// between; retry briefly before giving up.
	for attempt := 1; attempt <= maxStartAttempts; attempt++ {
		if err = c.start(c.bin, c.port, c.opts, false); err == nil {
			return nil
		}
		if !c.portConflict() {
			break
		}
		time.Sleep(time.Second)
	}
	return fmt.Errorf("kubetest: restarting the apiserver on port %d: %w", c.port, err)
}
