// A cache service for cgmem's Go example (examples/go.toml): each request
// to /set stores `batch` fresh values under random keys of a fixed key
// space (16 of 16 KiB: the study's 256 KiB a step), so the live heap grows
// to keys x size and every overwrite leaves the old value to the garbage
// collector. Once a second it prints the collector's
// state to stdout (command.stdout in the run directory), so a run shows
// how the collector answered the limits: with GOMEMLIMIT it collects more
// often as the heap nears the limit; without it, it lets the heap grow to
// twice the live data (GOGC=100), whatever memory.high says.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address to serve on")
	keys := flag.Int("keys", 8000, "size of the key space")
	size := flag.Int("size", 16384, "bytes per value")
	batch := flag.Int("batch", 16, "values stored per request")
	flag.Parse()

	var mu sync.Mutex
	cache := make(map[int][]byte, *keys)
	http.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		var n int
		for b := 0; b < *batch; b++ {
			value := make([]byte, *size)
			for i := 0; i < len(value); i += 512 { // touch every page, as a real value would
				value[i] = byte(i)
			}
			key := rand.Intn(*keys)
			mu.Lock()
			cache[key] = value
			n = len(cache)
			mu.Unlock()
		}
		fmt.Fprintf(w, "%d\n", n)
	})

	limit := debug.SetMemoryLimit(-1) // GOMEMLIMIT, or math.MaxInt64 when unset
	fmt.Printf("start keys=%d size=%d batch=%d gomemlimit=%d gogc=%q\n", *keys, *size, *batch, limit, os.Getenv("GOGC"))
	go func() {
		var m runtime.MemStats
		for range time.Tick(time.Second) {
			runtime.ReadMemStats(&m)
			mu.Lock()
			n := len(cache)
			mu.Unlock()
			fmt.Printf("t=%d keys=%d heap_alloc=%d heap_sys=%d next_gc=%d num_gc=%d gc_cpu=%.4f\n",
				time.Now().Unix(), n, m.HeapAlloc, m.HeapSys, m.NextGC, m.NumGC, m.GCCPUFraction)
		}
	}()
	log.Fatal(http.ListenAndServe(*listen, nil))
}
