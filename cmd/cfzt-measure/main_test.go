package main

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// childMiB is what the child process of TestTreeAnonCountsChildren keeps
// resident.
const childMiB = 32

func TestMain(m *testing.M) {
	if os.Getenv("CFZT_MEASURE_TEST_CHILD") != "" {
		b := make([]byte, childMiB<<20)
		for i := range b {
			b[i] = 1
		}
		time.Sleep(time.Minute)
		os.Exit(int(b[0]) - 1)
	}
	os.Exit(m.Run())
}

func TestTreeAnonCountsChildren(t *testing.T) {
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "CFZT_MEASURE_TEST_CHILD=1")
	require.NoError(t, child.Start())
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	require.Eventually(t, func() bool { return rssAnon(child.Process.Pid) >= childMiB<<10 }, 20*time.Second, 20*time.Millisecond)

	self := rssAnon(os.Getpid())
	require.Less(t, self, int64(childMiB<<10), "the test process alone holds less than its child")
	require.GreaterOrEqual(t, treeAnon(os.Getpid()), self+childMiB<<10-1024, "the tree's sum includes the child")
	require.Zero(t, rssAnon(1<<22+1), "a process that does not exist holds nothing")
}

func TestSamplePeakKeepsTheLargest(t *testing.T) {
	values := []int64{3, 9, 4}
	calls := 0
	stop := make(chan struct{})
	read := func(int) int64 {
		v := values[min(calls, len(values)-1)]
		if calls++; calls == len(values) {
			close(stop)
		}
		return v
	}
	require.EqualValues(t, 9, samplePeak(0, time.Millisecond, read, stop))
}
