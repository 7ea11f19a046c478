// Correct: a worker panics and main catches it (join() returns Err, which it
// handles): the default hook still prints the panic message, but the
// program survives and exits 0. Not a bug: a panic is one only when it ends
// the program (exit status 101, or an abort under panic=abort).
use std::thread;

fn main() {
    let worker = thread::spawn(|| {
        let empty: Vec<u32> = Vec::new();
        if empty.is_empty() {
            panic!("nothing to do");
        }
        empty[0]
    });
    match worker.join() {
        Ok(v) => println!("{}", v),
        Err(_) => println!("the worker gave up; carrying on"),
    }
}
