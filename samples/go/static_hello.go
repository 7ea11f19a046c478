// A Go program built without cgo: statically linked, with no dynamic
// loader to preload ctrl's agent. ctrl refuses it (exit 2) and says how to
// build it so that it can be checked.
package main

import (
	"fmt"
	"sync"
)

func main() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); fmt.Println("hello from a goroutine") }()
	wg.Wait()
}
