// A cgo Go program with a concurrency bug: each goroutine calls wg.Add(1)
// itself, so main's wg.Wait() may return before a goroutine has added
// anything, and main then panics on a partial total (exit 2). Natively the
// goroutines run while main is in its C call, before the Wait, so the bug
// hardly ever shows; ctrl finds a schedule where main's thread reaches the
// Wait first (with --fail-on-exit: a Go panic is exit status 2).
package main

/*
static long twice(long x) { return 2 * x; }
static void work(void) { volatile long s = 0; for (long i = 0; i < 20000000; i++) s += i; }
*/
import "C"

import (
	"fmt"
	"sync"
)

func main() {
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for i := 1; i <= 2; i++ {
		go func(k int) {
			wg.Add(1) // the bug: belongs in main, before the go statement
			defer wg.Done()
			v := int(C.twice(C.long(k)))
			mu.Lock()
			total += v
			mu.Unlock()
		}(i)
	}
	C.work() // the goroutines usually run meanwhile
	wg.Wait()
	mu.Lock()
	t := total
	mu.Unlock()
	if t != 6 {
		panic(fmt.Sprintf("total %d, expected 6", t))
	}
	fmt.Println("total", t)
}
