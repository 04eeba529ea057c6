// Package helmtest renders the Helm chart in deploy/chart with Helm's own Go
// library and checks the result against a real kube-apiserver with a
// server-side dry run.
//
// It is a separate Go module so that helm.sh/helm/v3 and its dependencies
// stay out of the main module's go.mod. Run it with
// `cd internal/tools/helmtest && go test ./...` (make test does).
package helmtest
