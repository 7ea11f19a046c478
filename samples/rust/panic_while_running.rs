// Buggy: a worker panics while another worker still runs; main's join
// unwraps the worker's panic and panics too (exit 101). Rust's panic hook
// prints each panicking thread's kernel id: under --visible all, formatting
// it takes as many steps as the id has digits, so a replay whose threads got
// ids of another length diverged before ctrl made them virtual
// (agent/VirtualThreadIds.h).
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::thread;

fn main() {
    let ticks = Arc::new(AtomicU32::new(0));
    let failing = {
        let ticks = Arc::clone(&ticks);
        thread::spawn(move || {
            let seen = ticks.load(Ordering::Relaxed);
            panic!("worker gave up after {} ticks", seen);
        })
    };
    let busy = {
        let ticks = Arc::clone(&ticks);
        thread::spawn(move || {
            for _ in 0..200 {
                ticks.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    // Joined last: main's own panic (its id is the process's, not virtual)
    // comes when it is alone.
    busy.join().unwrap();
    failing.join().unwrap();
}
