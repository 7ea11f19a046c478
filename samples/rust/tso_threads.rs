// Correct: std threads with closures, an Arc<Mutex<Vec<_>>> and a channel.
//
// Under --model tso ctrl reported a false SIGSEGV here (the program jumped
// to a heap address): Rust code stores to stack slots through registers
// other than rsp (store sites, buffered), and later calls pushed return
// addresses over those bytes; switching threads undid the pushes. Aborts
// on a wrong result; prints "3 3".
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
fn main() {
    let data = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = mpsc::channel();
    let mut hs = Vec::new();
    for i in 0..3 {
        let d = Arc::clone(&data);
        let tx = tx.clone();
        hs.push(thread::spawn(move || {
            d.lock().unwrap().push(i * 10);
            tx.send(i).unwrap();
        }));
    }
    drop(tx);
    let s: i32 = rx.iter().sum();
    for h in hs { h.join().unwrap(); }
    let v = data.lock().unwrap();
    if s != 3 || v.len() != 3 { std::process::abort(); }
    println!("{} {}", s, v.len());
}
