//! Threads that end safely: every short-lived thread is either joined or detached before it
//! can end, never detached while it may be ending.
//!
//! Dropping a `JoinHandle` detaches its thread (`pthread_detach`). glibc's detach marks the
//! thread detached and only then reads the thread's descriptor, which lives in the thread's
//! own stack mapping; a thread ending at that moment sees the mark and hands its stack back,
//! and once the stack cache is full (it holds 40 MB, about one 32 MB search stack) the stack
//! is unmapped, so the detaching thread's read faults. ox88 met it as a SIGSEGV inside
//! `pthread_detach` in a thread named `search`, about once in several million threads
//! started and stopped at once by many-thread searches on a loaded 2-core machine.

use std::panic::resume_unwind;
use std::sync::mpsc;
use std::thread::{Builder, ScopedJoinHandle};

/// Starts `work` on a thread that nobody joins, named `name`, with `stack` bytes of stack
/// (the default where `None`). The thread waits until it has been detached before it runs
/// `work`, so it cannot be ending while it is detached.
pub fn spawn_detached(name: &str, stack: Option<usize>, work: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    let (detached, gate) = mpsc::channel::<()>();
    let mut builder = Builder::new().name(name.into());
    if let Some(bytes) = stack {
        builder = builder.stack_size(bytes);
    }
    let handle = builder.spawn(move || {
        // Err only if the spawner is gone, which also means the detach is done.
        let _ = gate.recv();
        work();
    })?;
    drop(handle);
    let _ = detached.send(());
    Ok(())
}

/// Joins every thread of `handles`, then passes on the first panic among them, as the end of
/// `std::thread::scope` would (which, left to itself, detaches the threads whose handles were
/// dropped).
pub fn join_all<'scope, T>(handles: impl IntoIterator<Item = ScopedJoinHandle<'scope, T>>) -> Vec<T> {
    let mut results = Vec::new();
    let mut panic = None;
    for handle in handles {
        match handle.join() {
            Ok(value) => results.push(value),
            Err(payload) => {
                panic.get_or_insert(payload);
            }
        }
    }
    if let Some(payload) = panic {
        resume_unwind(payload);
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn detached_threads_run_their_work() {
        let (tx, rx) = mpsc::channel();
        for i in 0..50 {
            let tx = tx.clone();
            spawn_detached("test", Some(64 << 10), move || tx.send(i).unwrap()).unwrap();
        }
        drop(tx);
        let mut got: Vec<i32> = rx.iter().collect();
        got.sort();
        assert_eq!(got, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn join_all_waits_for_every_thread_and_passes_a_panic_on() {
        let ran = Arc::new(AtomicUsize::new(0));
        let sums = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|i| {
                    let ran = Arc::clone(&ran);
                    s.spawn(move || {
                        ran.fetch_add(1, Ordering::SeqCst);
                        i * 2
                    })
                })
                .collect();
            join_all(handles)
        });
        assert_eq!(sums, (0..8).map(|i| i * 2).collect::<Vec<_>>());
        assert_eq!(ran.load(Ordering::SeqCst), 8);
        let caught = std::panic::catch_unwind(|| {
            std::thread::scope(|s| {
                let handles = vec![s.spawn(|| 1), s.spawn(|| panic!("helper")), s.spawn(|| 3)];
                join_all(handles)
            })
        });
        assert!(caught.is_err(), "a thread's panic reaches the caller");
    }
}
