package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts the profiles that developers ask for with
// CFZT_CPUPROFILE and CFZT_MEMPROFILE (file paths), for finding where a
// run's time and memory go (bench/README.md). The returned function
// writes them; the heap profile is taken at the end of the run, after a
// garbage collection, so its in-use figures are what the run still held and
// its allocation figures cover the whole run.
func startProfiles() func() {
	cpu, mem := os.Getenv("CFZT_CPUPROFILE"), os.Getenv("CFZT_MEMPROFILE")
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "[WARNING]: CFZT_CPUPROFILE:", err)
		} else {
			cpuFile = f
		}
	}
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			cpuFile.Close()
		}
		if mem != "" {
			f, err := os.Create(mem)
			if err == nil {
				runtime.GC() // up-to-date statistics of what is still reachable
				err = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "[WARNING]: CFZT_MEMPROFILE:", err)
			}
		}
	}
}
