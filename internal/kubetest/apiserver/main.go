// Command kube-apiserver is a test-only build of the upstream kube-apiserver
// with an embedded, single-member etcd running in the same process.
//
// Flags handled here (all other arguments go to kube-apiserver unchanged):
//
//	--embedded-etcd-dir=DIR   etcd data directory (env CFZT_ETCD_DATA_DIR);
//	                          a temporary directory is created and removed when empty
//	--embedded-etcd-port=N    loopback client port for etcd (env CFZT_ETCD_PORT);
//	                          a free port is picked when 0 or empty
//	--embedded-etcd-log=PATH  file for etcd's own log, level error and above
//	                          (env CFZT_ETCD_LOG); default stderr
//
// If the arguments already contain --etcd-servers, no etcd is embedded.
//
// On SIGTERM or SIGINT kube-apiserver shuts down first (it installs its own
// handler) and then etcd is closed. If that takes longer than
// shutdownTimeout, etcd is closed anyway and the process exits.
package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "time/tzdata" // for CronJob time zones

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // for JSON log format registration
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // load all the prometheus client-go plugins
	_ "k8s.io/component-base/metrics/prometheus/version"  // for version metric registration
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

const (
	flagDir  = "--embedded-etcd-dir"
	flagPort = "--embedded-etcd-port"
	flagLog  = "--embedded-etcd-log"

	envDir  = "CFZT_ETCD_DATA_DIR"
	envPort = "CFZT_ETCD_PORT"
	envLog  = "CFZT_ETCD_LOG"

	etcdStartTimeout = 30 * time.Second
	shutdownTimeout  = 30 * time.Second
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	own, rest, err := splitArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kube-apiserver:", err)
		return 2
	}

	cmd := app.NewAPIServerCommand()

	if hasFlag(rest, "--etcd-servers") || isHelp(rest) {
		cmd.SetArgs(rest)
		return cli.Run(cmd)
	}

	dir, port := own.dir, own.port
	removeDir := false
	if dir == "" {
		dir, err = os.MkdirTemp("", "embedded-etcd-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "kube-apiserver: creating etcd data dir:", err)
			return 1
		}
		removeDir = true
	}
	defer func() {
		if removeDir {
			_ = os.RemoveAll(dir)
		}
	}()

	etcd, clientURL, err := startEtcd(dir, port, own.log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kube-apiserver: starting embedded etcd:", err)
		return 1
	}
	var (
		closeOnce sync.Once
		stopping  atomic.Bool
	)
	closeEtcd := func() { closeOnce.Do(etcd.Close) }
	defer func() {
		stopping.Store(true)
		closeEtcd()
	}()

	// kube-apiserver installs its own SIGTERM/SIGINT handler and shuts down
	// gracefully. This watchdog only makes sure that the process ends even
	// if that shutdown hangs, and that etcd is not left running if etcd
	// itself fails.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		select {
		case <-sigs:
			time.Sleep(shutdownTimeout)
			fmt.Fprintln(os.Stderr, "kube-apiserver: graceful shutdown timed out, closing etcd")
		case err := <-etcd.Err():
			if stopping.Load() {
				return // normal shutdown closed etcd
			}
			fmt.Fprintln(os.Stderr, "kube-apiserver: embedded etcd failed:", err)
		}
		closeEtcd()
		if removeDir {
			_ = os.RemoveAll(dir)
		}
		os.Exit(1)
	}()

	cmd.SetArgs(append([]string{"--etcd-servers=" + clientURL}, rest...))
	return cli.Run(cmd)
}

// startEtcd starts a single-member etcd in dir. When port is 0 a free port is
// chosen; because another process may take it between the check and the bind,
// a failed start is retried with new ports.
func startEtcd(dir string, port int, logPath string) (*embed.Etcd, string, error) {
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		cport := port
		if cport == 0 {
			p, err := freePort()
			if err != nil {
				return nil, "", err
			}
			cport = p
		}
		pport, err := freePort()
		if err != nil {
			return nil, "", err
		}
		e, u, err := tryStartEtcd(dir, cport, pport, logPath)
		if err == nil {
			return e, u, nil
		}
		lastErr = err
		if port != 0 {
			break
		}
		// A failed start may leave a partially initialised member behind.
		if err := clearDir(dir); err != nil {
			return nil, "", err
		}
	}
	return nil, "", lastErr
}

func tryStartEtcd(dir string, clientPort, peerPort int, logPath string) (*embed.Etcd, string, error) {
	clientURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(clientPort))}
	peerURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(peerPort))}

	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = true
	cfg.TickMs = 10
	cfg.ElectionMs = 100
	cfg.WarningUnaryRequestDuration = embed.DefaultWarningUnaryRequestDuration
	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	cfg.LogOutputs = []string{"stderr"}
	if logPath != "" {
		cfg.LogOutputs = []string{logPath}
	}

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", err
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, clientURL.String(), nil
	case err := <-e.Err():
		e.Close()
		return nil, "", err
	case <-time.After(etcdStartTimeout):
		e.Server.Stop()
		e.Close()
		return nil, "", errors.New("etcd did not become ready in time")
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func clearDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(dir + string(os.PathSeparator) + e.Name()); err != nil {
			return err
		}
	}
	return nil
}

type ownFlags struct {
	dir  string
	port int
	log  string
}

// splitArgs removes this wrapper's own flags from args. The values default to
// the environment variables.
func splitArgs(args []string) (own ownFlags, rest []string, err error) {
	own.dir = os.Getenv(envDir)
	own.log = os.Getenv(envLog)
	portStr := os.Getenv(envPort)
	values := map[string]*string{flagDir: &own.dir, flagPort: &portStr, flagLog: &own.log}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(a, "=")
		target, ok := values[name]
		if !ok {
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return own, nil, fmt.Errorf("flag %s needs a value", name)
			}
			i++
			value = args[i]
		}
		*target = value
	}
	if portStr != "" {
		own.port, err = strconv.Atoi(portStr)
		if err != nil || own.port < 0 || own.port > 65535 {
			return own, nil, fmt.Errorf("invalid etcd port %q", portStr)
		}
	}
	return own, rest, nil
}

func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

func isHelp(args []string) bool {
	return hasFlag(args, "--help") || hasFlag(args, "-h") || hasFlag(args, "--version")
}
