package kubelet

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// maxRunLogLines bounds the log kept of a container whose command runs.
const maxRunLogLines = 10000

// SetRunCommands makes the pods adopted from now on run each container's
// command and args (when it has either) as a process on this machine,
// started in the container's root directory with a minimal environment:
// its output is the container's log, and its end the container's
// termination (the pod Succeeded or Failed once all have ended, unless
// its restartPolicy is Always). There is no isolation of any kind: it is
// for harnesses whose pod specs are trusted test input, such as
// kubernetes.core's integration targets (`echo`, `seq` and shell loops
// whose output k8s_log reads). The processes end at Close.
func (k *Kubelet) SetRunCommands() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.runCtx == nil {
		k.runCtx, k.endRun = context.WithCancel(context.Background())
	}
}

// runContainers starts the processes of a pod's containers and reports
// their ends in the pod's status.
func (k *Kubelet) runContainers(ctx context.Context, cs kubernetes.Interface, p *Pod, pod *corev1.Pod) {
	var wg sync.WaitGroup
	codes := make([]*int, len(pod.Spec.Containers))
	var mu sync.Mutex
	started := 0
	for i, c := range pod.Spec.Containers {
		argv := append(append([]string(nil), c.Command...), c.Args...)
		if len(argv) == 0 {
			continue
		}
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		// Its own process group, all of which ends with it (a shell
		// loop's sleep too).
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.Dir = p.dirs[c.Name]
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/root"}
		r, w := io.Pipe()
		cmd.Stdout, cmd.Stderr = w, w
		if err := cmd.Start(); err != nil {
			p.appendLog(c.Name, err.Error())
			code := 128
			codes[i] = &code
			continue
		}
		started++
		wg.Add(1)
		go func(i int, name string) {
			defer wg.Done()
			done := make(chan struct{})
			go func() {
				defer close(done)
				sc := bufio.NewScanner(r)
				sc.Buffer(make([]byte, 64*1024), 1024*1024)
				for sc.Scan() {
					p.appendLog(name, sc.Text())
				}
				_, _ = io.Copy(io.Discard, r)
			}()
			err := cmd.Wait()
			_ = w.Close()
			<-done
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
				if code < 0 {
					code = 137
				}
			}
			mu.Lock()
			codes[i] = &code
			mu.Unlock()
		}(i, c.Name)
	}
	if started == 0 && !anySet(codes) {
		return
	}
	go func() {
		wg.Wait()
		if ctx.Err() != nil {
			return
		}
		k.reportEnds(ctx, cs, pod, codes)
	}()
}

func anySet(codes []*int) bool {
	for _, c := range codes {
		if c != nil {
			return true
		}
	}
	return false
}

// appendLog adds a line to a container's log, keeping the last
// maxRunLogLines.
func (p *Pod) appendLog(container, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := append(p.logs[container], LogLine{Time: time.Now(), Text: text})
	if len(l) > maxRunLogLines {
		l = l[len(l)-maxRunLogLines:]
	}
	p.logs[container] = l
}

// reportEnds writes the containers that ended as terminated, and the
// pod's phase once all its containers have ended.
func (k *Kubelet) reportEnds(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod, codes []*int) {
	pods := cs.CoreV1().Pods(pod.Namespace)
	_ = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil || cur.UID != pod.UID {
			return nil
		}
		now := metav1.Now()
		allEnded, failed := true, false
		for i, c := range cur.Spec.Containers {
			if codes[i] == nil {
				allEnded = false
				continue
			}
			reason := "Completed"
			if *codes[i] != 0 {
				reason, failed = "Error", true
			}
			for j := range cur.Status.ContainerStatuses {
				st := &cur.Status.ContainerStatuses[j]
				if st.Name != c.Name {
					continue
				}
				started := now
				if st.State.Running != nil {
					started = st.State.Running.StartedAt
				}
				st.Ready, st.Started = false, new(bool)
				st.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: int32(*codes[i]), Reason: reason, StartedAt: started, FinishedAt: now,
					ContainerID: st.ContainerID,
				}}
			}
		}
		for j := range cur.Status.Conditions {
			switch cur.Status.Conditions[j].Type {
			case corev1.PodReady, corev1.ContainersReady:
				cur.Status.Conditions[j].Status = corev1.ConditionFalse
				cur.Status.Conditions[j].Reason = "PodCompleted"
				cur.Status.Conditions[j].LastTransitionTime = now
			}
		}
		if allEnded && cur.Spec.RestartPolicy != corev1.RestartPolicyAlways {
			cur.Status.Phase = corev1.PodSucceeded
			if failed {
				cur.Status.Phase = corev1.PodFailed
			}
		}
		_, err = pods.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
}
