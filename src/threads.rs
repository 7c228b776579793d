//! Threads that end safely: every short-lived thread is either joined or detached before it
//! can end, never detached while it may be ending.
//!
//! Dropping a `JoinHandle` detaches its thread (`pthread_detach`). glibc's detach marks the
//! thread detached and only then reads the thread's descriptor, which lives in the thread's
//! own stack mapping; a thread ending at that moment sees the mark and hands its stack back,
//! and once the stack cache is full (it holds 40 MB, about one 32 MB search stack) the stack
//! is unmapped, so the detaching thread's read faults. ox88 met it as a SIGSEGV inside
//! `pthread_detach` in a thread named `search`, about once in several million threads
//! started and stopped at once by many-thread searches on a loaded 2-core computer.
//!
//! The threads a search runs on are not short-lived: an [`Executor`] is the engine's search
//! thread and a [`Pool`] holds the helpers, both started once and reused by every `go`.

use std::io;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::thread::{Builder, JoinHandle, ScopedJoinHandle};

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

/// A job for an [`Executor`].
type Job = Box<dyn FnOnce() + Send>;

/// One thread that runs the jobs sent to it one after another, for as long as its owner
/// keeps it (a clone shares the thread). A job that panics ends, not the thread.
#[derive(Clone)]
pub struct Executor {
    jobs: mpsc::Sender<Job>,
}

impl Executor {
    /// Starts the thread, named `name`, with `stack` bytes of stack. It is detached as it
    /// starts (see [`spawn_detached`]) and ends once every clone is dropped and its last job
    /// is done.
    pub fn new(name: &str, stack: Option<usize>) -> io::Result<Executor> {
        let (jobs, queue) = mpsc::channel::<Job>();
        spawn_detached(name, stack, move || {
            for job in queue {
                let _ = catch_unwind(AssertUnwindSafe(job));
            }
        })?;
        Ok(Executor { jobs })
    }

    /// Queues `job` behind those before it.
    pub fn run(&self, job: impl FnOnce() + Send + 'static) -> Result<(), ThreadGone> {
        self.jobs.send(Box::new(job)).map_err(|_| ThreadGone)
    }
}

/// An [`Executor`]'s thread has ended, so the job was not queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadGone;

impl std::fmt::Display for ThreadGone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the executor's thread has ended")
    }
}

impl std::error::Error for ThreadGone {}

/// Threads that wait for work lent to them for the length of a scope (borrowing from its
/// caller, as `std::thread::scope` does) and stay for the next one: a search's helpers. They
/// are joined when the pool is dropped.
pub struct Pool {
    // Dropped first (fields drop in order), which tells the threads to end...
    pool: rayon_core::ThreadPool,
    // ...and then they are joined, not detached.
    _threads: JoinOnDrop,
    size: usize,
}

/// The handles of a pool's threads, joined when dropped.
struct JoinOnDrop(Arc<Mutex<Vec<JoinHandle<()>>>>);

impl Drop for JoinOnDrop {
    fn drop(&mut self) {
        let handles = std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner));
        for handle in handles {
            let _ = handle.join();
        }
    }
}

impl Pool {
    /// Starts `size` threads named `name 1`, `name 2`, ..., each with `stack` bytes of stack;
    /// fails (with none left running) if one cannot be started.
    pub fn new(size: usize, name: &'static str, stack: usize) -> io::Result<Pool> {
        let handles = JoinOnDrop(Arc::new(Mutex::new(Vec::new())));
        let kept = Arc::clone(&handles.0);
        let built = rayon_core::ThreadPoolBuilder::new()
            .num_threads(size)
            .thread_name(move |i| format!("{name} {}", i + 1))
            .spawn_handler(move |thread| {
                let mut builder = Builder::new().stack_size(stack);
                if let Some(name) = thread.name() {
                    builder = builder.name(name.to_owned());
                }
                let handle = builder.spawn(|| thread.run())?;
                kept.lock().unwrap_or_else(PoisonError::into_inner).push(handle);
                Ok(())
            })
            .build();
        match built {
            Ok(pool) => Ok(Pool { pool, _threads: handles, size }),
            // The builder has told the threads it started to end; `handles` joins them.
            Err(error) => Err(io::Error::other(error)),
        }
    }

    /// Threads in the pool.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Runs `work` on the calling thread; what it spawns on the scope runs on the pool's
    /// threads, and the call returns once all of it has ended, passing on a panic of any.
    pub fn scope<'scope, R>(&self, work: impl FnOnce(&rayon_core::Scope<'scope>) -> R) -> R {
        self.pool.in_place_scope(work)
    }
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

    /// The ids of the threads named `name` in this process, from the kernel's view.
    #[cfg(target_os = "linux")]
    fn threads_named(name: &str) -> Vec<String> {
        let mut ids: Vec<String> = std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(|task| {
                let task = task.ok()?;
                let comm = std::fs::read_to_string(task.path().join("comm")).ok()?;
                comm.trim().starts_with(name).then(|| task.file_name().to_string_lossy().into_owned())
            })
            .collect();
        ids.sort();
        ids
    }

    #[test]
    fn a_pool_reuses_its_threads_and_joins_them_when_dropped() {
        let pool = Pool::new(3, "pooltest", 256 << 10).unwrap();
        // Each thread that runs a job counts itself here as it ends (its thread-local values
        // are dropped before the thread is done, so before a join of it returns).
        let ended = Arc::new(AtomicUsize::new(0));
        let ran_on = |pool: &Pool| {
            let ids = Mutex::new(Vec::new());
            let data = vec![1, 2, 3];
            let sum = AtomicUsize::new(0);
            pool.scope(|s| {
                for x in &data {
                    let (ids, sum, ended) = (&ids, &sum, &ended);
                    s.spawn(move |_| {
                        ON_END.with(|guard| {
                            guard.borrow_mut().get_or_insert_with(|| CountOnEnd(Arc::clone(ended)));
                        });
                        // Each job waits for the others, so that each runs on its own thread.
                        sum.fetch_add(*x, Ordering::SeqCst);
                        while sum.load(Ordering::SeqCst) < 6 {
                            std::thread::yield_now();
                        }
                        ids.lock().unwrap().push(std::thread::current().id());
                    });
                }
            });
            assert_eq!(sum.load(Ordering::SeqCst), 6, "the scope ends after its work");
            let mut ids = ids.into_inner().unwrap();
            ids.sort_by_key(|id| format!("{id:?}"));
            ids
        };
        let first = ran_on(&pool);
        assert_eq!(first.len(), 3);
        assert_eq!(ran_on(&pool), first, "the second scope runs on the same threads");
        #[cfg(target_os = "linux")]
        {
            assert_eq!(threads_named("pooltest").len(), 3);
        }
        assert_eq!(ended.load(Ordering::SeqCst), 0);
        drop(pool);
        assert_eq!(ended.load(Ordering::SeqCst), 3, "dropping the pool joins its threads");
        let pool = Pool::new(2, "pooltest2", 256 << 10).unwrap();
        let caught = catch_unwind(AssertUnwindSafe(|| pool.scope(|s| s.spawn(|_| panic!("helper")))));
        assert!(caught.is_err(), "a job's panic reaches the caller");
        assert_eq!(ran_on_two(&pool), 2, "the pool survives a job's panic");
    }

    struct CountOnEnd(Arc<AtomicUsize>);

    impl Drop for CountOnEnd {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    thread_local! {
        static ON_END: std::cell::RefCell<Option<CountOnEnd>> = const { std::cell::RefCell::new(None) };
    }

    fn ran_on_two(pool: &Pool) -> usize {
        let count = AtomicUsize::new(0);
        pool.scope(|s| {
            for _ in 0..2 {
                let count = &count;
                s.spawn(move |_| {
                    count.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
        count.load(Ordering::SeqCst)
    }

    #[test]
    fn an_executor_runs_jobs_in_order_on_one_thread_and_outlives_a_panic() {
        let executor = Executor::new("exectest", Some(256 << 10)).unwrap();
        let (tx, rx) = mpsc::channel();
        for i in 0..20 {
            let tx = tx.clone();
            executor.run(move || tx.send((i, std::thread::current().id())).unwrap()).unwrap();
            if i == 10 {
                executor.run(|| panic!("a job")).unwrap();
            }
        }
        drop(tx);
        let got: Vec<_> = rx.iter().collect();
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), (0..20).collect::<Vec<_>>());
        assert!(got.iter().all(|g| g.1 == got[0].1), "one thread runs every job");
        assert_ne!(got[0].1, std::thread::current().id());
    }
}
