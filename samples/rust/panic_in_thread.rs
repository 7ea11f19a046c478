// Buggy, in every interleaving: a worker thread panics (its index is out of
// bounds), main's join().unwrap() panics in turn, and the process exits with
// status 101 (panic=unwind, Rust's default). ctrl reports the first panic,
// the worker's, as a bug of kind panic with its message.
use std::thread;

fn main() {
    let table = vec![1u32, 2, 3];
    let worker = thread::spawn(move || {
        let wanted = table.len() + 2;
        let v = table.get(wanted).copied();
        if v.is_none() {
            panic!("no entry {} in a table of {}", wanted, table.len());
        }
        v.unwrap()
    });
    let v = worker.join().unwrap();
    println!("{}", v);
}
