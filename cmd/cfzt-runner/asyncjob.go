package main

import (
	"context"

	"github.com/cfzt/cfzt-runner/engine/asyncjob"
)

// runAsyncJob is the hidden `cfzt-runner __async_job` command: the
// detached background job of an async task, which the executor starts by
// re-executing this binary (see engine/asyncjob).
func runAsyncJob(ctx context.Context, args []string) int {
	reg, err := newRegistry(nil)
	if err != nil {
		return startupError(err)
	}
	return asyncjob.RunChild(ctx, reg, args)
}
