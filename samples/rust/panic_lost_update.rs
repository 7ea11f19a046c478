// Buggy in some interleavings: two threads add to a counter with a relaxed
// load and a relaxed store (not fetch_add), so one thread's store can
// overwrite the other's; main then panics with the counter's value and the
// process exits with status 101. ctrl reports a bug of kind panic with the
// message "counter is 1 after 2 increments".
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::thread;

fn main() {
    let counter = Arc::new(AtomicU32::new(0));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let counter = Arc::clone(&counter);
            thread::spawn(move || {
                let v = counter.load(Ordering::Relaxed);
                // Kept apart: fused, the two would compile to one
                // read-modify-write instruction.
                let v = std::hint::black_box(v);
                counter.store(v + 1, Ordering::Relaxed);
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let n = counter.load(Ordering::Relaxed);
    assert!(n == 2, "counter is {} after 2 increments", n);
}
