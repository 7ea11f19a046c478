// A cgo Go program: two goroutines each checksum half of a file through a C
// function and add the result to a total under a sync.Mutex; main waits
// for them with a sync.WaitGroup and prints the total. Correct: ctrl must
// find no bug, every execution printing what the native run prints.
//
// The Go runtime runs it on several OS threads (sysmon, the Ms running the
// goroutines, an M in the C call), which park on raw futex system calls
// and are preempted by SIGURG: what ctrl checks here is the interleaving of
// those threads (their futexes, locked instructions and signals), not of
// the goroutines, which Go's scheduler multiplexes on them.
package main

/*
static unsigned long checksum(const unsigned char *p, long n) {
	unsigned long sum = 0;
	for (long i = 0; i < n; i++) sum = sum * 31 + p[i];
	return sum;
}
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"unsafe"
)

func sum(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	return uint64(C.checksum((*C.uchar)(unsafe.Pointer(&b[0])), C.long(len(b))))
}

func main() {
	data := []byte("no input file: a fixed text instead")
	if len(os.Args) > 1 {
		var err error
		if data, err = os.ReadFile(os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := uint64(0)
	half := len(data) / 2
	for _, part := range [][]byte{data[:half], data[half:]} {
		wg.Add(1)
		go func(p []byte) {
			defer wg.Done()
			s := sum(p)
			mu.Lock()
			total += s
			mu.Unlock()
		}(part)
	}
	wg.Wait()
	fmt.Printf("%d bytes, checksum total %d\n", len(data), total)
}
