// Command kube-controllers is a test-only multi-call build of the upstream
// kube-controller-manager and kube-scheduler, from the same k8s.io/kubernetes
// release as the test kube-apiserver (../apiserver), so that one build cache
// serves both.
//
// The first argument picks the component; all other arguments go to it
// unchanged:
//
//	kube-controllers controller-manager [kube-controller-manager flags]
//	kube-controllers scheduler          [kube-scheduler flags]
//
// When the binary is invoked through a link named kube-controller-manager or
// kube-scheduler, the name picks the component instead.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	_ "time/tzdata" // for CronJob time zones

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // for JSON log format registration
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // load all the prometheus client-go plugins
	_ "k8s.io/component-base/metrics/prometheus/version"  // for version metric registration
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

const usage = "usage: kube-controllers controller-manager|scheduler [flags]"

func main() {
	os.Exit(run(filepath.Base(os.Args[0]), os.Args[1:]))
}

func run(self string, args []string) int {
	component := self
	switch self {
	case "kube-controller-manager", "kube-scheduler":
	default:
		if len(args) == 0 {
			fmt.Fprintln(os.Stderr, usage)
			return 2
		}
		component, args = args[0], args[1:]
	}

	var cmd *cobra.Command
	switch component {
	case "controller-manager", "kube-controller-manager":
		cmd = controllermanager.NewControllerManagerCommand()
	case "scheduler", "kube-scheduler":
		cmd = scheduler.NewSchedulerCommand()
	default:
		fmt.Fprintf(os.Stderr, "kube-controllers: unknown component %q\n%s\n", component, usage)
		return 2
	}
	cmd.SetArgs(args)
	return cli.Run(cmd)
}
