// A Rust program (std only) for the realworld suite: two threads count
// the words of a text file's lines they take from a shared index under an
// Arc<Mutex>, add to an Arc<AtomicU64>, and send their per-thread counts
// through an mpsc channel to the main thread. The printed totals do not
// depend on the schedule.
// Usage: rust_std FILE
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

fn main() {
    let path = std::env::args().nth(1).expect("usage: rust_std FILE");
    let text = std::fs::read_to_string(&path).expect("cannot read the file");
    let lines: Arc<Vec<String>> = Arc::new(text.lines().map(String::from).collect());
    let next = Arc::new(Mutex::new(0usize));
    let letters = Arc::new(AtomicU64::new(0));
    let (tx, rx) = mpsc::channel();
    let mut handles = Vec::new();
    for _ in 0..2 {
        let (lines, next, letters, tx) = (lines.clone(), next.clone(), letters.clone(), tx.clone());
        handles.push(thread::spawn(move || {
            let mut words = 0u64;
            loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    let i = *n;
                    *n += 1;
                    i
                };
                if i >= lines.len() {
                    break;
                }
                words += lines[i].split_whitespace().count() as u64;
                letters.fetch_add(lines[i].len() as u64, Ordering::Relaxed);
            }
            tx.send(words).unwrap();
        }));
    }
    drop(tx);
    let words: u64 = rx.iter().sum();
    for h in handles {
        h.join().unwrap();
    }
    println!("lines {} words {} bytes {}", lines.len(), words, letters.load(Ordering::Relaxed));
}
