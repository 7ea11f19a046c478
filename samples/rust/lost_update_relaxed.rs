// Buggy: two threads increment with a relaxed load, then a relaxed store.
//
// `x.store(x.load(Relaxed) + 1, Relaxed)` compiles (rustc -O) to one
// instruction without a lock prefix, `addq $1, X(%rip)`: another thread's
// increment can come between its load and its store and be lost. The
// program aborts on a lost update (a panic exits with 101, which ctrl does
// not count as a bug by itself).
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::thread;

static X: AtomicU64 = AtomicU64::new(0);

#[inline(never)]
fn increment() {
    X.store(X.load(Relaxed) + 1, Relaxed);
}

fn main() {
    let a = thread::spawn(increment);
    let b = thread::spawn(increment);
    a.join().unwrap();
    b.join().unwrap();
    if X.load(Relaxed) != 2 {
        eprintln!("lost update: {}", X.load(Relaxed));
        std::process::abort();
    }
}
