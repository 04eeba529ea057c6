package k8s

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	gwebsocket "github.com/gorilla/websocket"
	"k8s.io/client-go/transport/websocket"
)

// The channel protocol of pods/exec over a websocket (the subprotocols
// v5.channel.k8s.io and v4.channel.k8s.io): each binary message starts
// with its channel's byte. cfzt-runner speaks it itself rather than
// through client-go's remotecommand, which links the generated API types
// (k8s.io/api/core/v1) into the binary for a few constants.
const (
	chanStdin  = 0
	chanStdout = 1
	chanStderr = 2
	chanError  = 3
	// chanClose (v5) closes the channel named by the next byte: how the
	// client ends stdin.
	chanClose = 255

	protoV5 = "v5.channel.k8s.io"
	protoV4 = "v4.channel.k8s.io"
)

// execProtocols are the subprotocols offered, preferred first (a
// variable so that tests can offer v4 alone, as an older apiserver
// would accept).
var execProtocols = []string{protoV5, protoV4}

// execStatus is the Status the error channel carries when the command
// ends: Success, or Failure with the exit code as an ExitCode cause.
type execStatus struct {
	Status  string `json:"status"`
	Message string `json:"message"`
	Reason  string `json:"reason"`
	Details *struct {
		Causes []struct {
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"causes"`
	} `json:"details"`
}

// exitCode reads the command's exit code from the error channel's Status.
func (st *execStatus) exitCode() (int, error) {
	if st.Status == "Success" {
		return 0, nil
	}
	if st.Reason == "NonZeroExitCode" && st.Details != nil {
		for _, c := range st.Details.Causes {
			if c.Reason == "ExitCode" {
				n, err := strconv.Atoi(c.Message)
				if err != nil {
					return 0, fmt.Errorf("invalid exit code %q in the exec status", c.Message)
				}
				return n, nil
			}
		}
	}
	if st.Message == "" {
		return 0, errors.New("the exec failed without a message")
	}
	return 0, errors.New(st.Message)
}

// wsExec runs the exec at u over a websocket and copies its streams.
func wsExec(ctx context.Context, c *Clients, u *url.URL, o execOpts) (int, error) {
	rt, holder, err := websocket.RoundTripperFor(c.Config)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, err
	}
	conn, err := websocket.Negotiate(rt, holder, req, execProtocols...)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	v5 := conn.Subprotocol() == protoV5
	var wmu sync.Mutex
	write := func(b []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		return conn.WriteMessage(gwebsocket.BinaryMessage, b)
	}
	// v4 cannot end stdin but by closing the connection, as the Python
	// client does once it has written stdin: the command's output and
	// status after that are not read.
	var stdinHungUp atomic.Bool
	if o.stdin != nil {
		go func() {
			buf := make([]byte, 32<<10)
			for {
				n, rerr := o.stdin.Read(buf)
				if n > 0 {
					if write(append([]byte{chanStdin}, buf[:n]...)) != nil {
						return
					}
				}
				if rerr != nil {
					if v5 {
						_ = write([]byte{chanClose, chanStdin})
					} else {
						stdinHungUp.Store(true)
						conn.Close()
					}
					return
				}
			}
		}()
	}
	var status []byte
	for {
		kind, data, err := conn.ReadMessage()
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			if stdinHungUp.Load() {
				break
			}
			var ce *gwebsocket.CloseError
			if errors.As(err, &ce) && ce.Code == gwebsocket.CloseNormalClosure || errors.Is(err, io.EOF) {
				break
			}
			return 0, err
		}
		if kind != gwebsocket.BinaryMessage || len(data) == 0 {
			continue
		}
		switch payload := data[1:]; data[0] {
		case chanStdout:
			if o.stdout != nil {
				if _, err := o.stdout.Write(payload); err != nil {
					return 0, err
				}
			}
		case chanStderr:
			if o.stderr != nil {
				if _, err := o.stderr.Write(payload); err != nil {
					return 0, err
				}
			}
		case chanError:
			if len(status)+len(payload) > 1<<20 {
				return 0, errors.New("the exec status is larger than 1 MiB")
			}
			status = append(status, payload...)
		}
	}
	if len(status) == 0 {
		return 0, nil
	}
	var st execStatus
	if err := json.Unmarshal(status, &st); err != nil {
		return 0, fmt.Errorf("error stream protocol error: %v in %q", err, string(status))
	}
	return st.exitCode()
}
