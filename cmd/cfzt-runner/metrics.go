package main

import "github.com/cfzt/cfzt-runner/operator/promtext"

// The version in cfzt_build_info, which both operator modes serve on
// /metrics.
func init() { promtext.Version = version }
