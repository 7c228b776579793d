//! A search on its thread: the job the facade hands over, the one best move it ends in, and
//! the watchdog that keeps it inside its time.

use super::{lock_searcher, Event, EventSink, SEARCH_STACK_BYTES, STOP_GRACE};
use crate::mv::Move;
use crate::nnue::Network;
use crate::position::Position;
use crate::search::params::Params;
use crate::search::{Report, SearchLimits, SearchOutcome, Searcher, SharedControl};
use crate::tablebase::TbConfig;
use crate::threads::Executor;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// The best and ponder moves to send: the search's if legal (and allowed by `searchmoves`),
/// otherwise the first allowed legal move; `None` only when there is no legal move.
pub(super) fn checked_moves(
    pos: &Position,
    searchmoves: &[Move],
    outcome: SearchOutcome,
) -> (Option<Move>, Option<Move>) {
    let legal = pos.legal_moves();
    let allowed = |m: &Move| legal.contains(*m) && (searchmoves.is_empty() || searchmoves.contains(m));
    let best = outcome
        .best
        .filter(|m| allowed(m))
        .or_else(|| legal.iter().copied().find(|m| allowed(m)))
        .or_else(|| legal.iter().copied().next());
    let ponder = match (best, outcome.ponder) {
        (Some(b), Some(p)) if outcome.best == Some(b) => {
            let mut after = pos.clone();
            after.make(b);
            after.legal_moves().contains(p).then_some(p)
        }
        _ => None,
    };
    (best, ponder)
}

/// The executor in `slot`, started if it is not running yet; `None` if the system refuses
/// the thread (the next call tries again).
pub(super) fn started<'a>(slot: &'a mut Option<Executor>, name: &str, stack: Option<usize>) -> Option<&'a Executor> {
    if slot.is_none() {
        *slot = Executor::new(name, stack).ok();
    }
    slot.as_ref()
}

/// Runs `job` on the executor in `slot` (started if need be); false if it could not run.
pub(super) fn run_on(slot: &mut Option<Executor>, name: &str, job: impl FnOnce() + Send + 'static) -> bool {
    let queued = started(slot, name, Some(SEARCH_STACK_BYTES)).is_some_and(|runner| runner.run(job).is_ok());
    if !queued {
        // Its thread is gone: start another next time.
        *slot = None;
    }
    queued
}

/// Everything a search thread needs, moved into it.
pub(super) struct SearchJob {
    pub(super) pos: Position,
    pub(super) history: Vec<u64>,
    pub(super) limits: SearchLimits,
    pub(super) threads: usize,
    pub(super) params: Params,
    pub(super) tablebases: Option<TbConfig>,
    /// `EvalFile`'s network; `None`: the embedded one.
    pub(super) network: Option<Arc<Network>>,
    /// The least time before the answer (a limited strength does not answer at once).
    pub(super) pace: Option<Duration>,
    pub(super) control: Arc<SharedControl>,
    /// Hold the best move until `stop` (infinite or unlimited search).
    pub(super) hold: bool,
    pub(super) answer: Arc<Answer>,
    /// The thread the watchdog waits on; `None`: no watchdog.
    pub(super) watchdog: Option<Executor>,
}

impl SearchJob {
    pub(super) fn run(self, searcher: &Mutex<Searcher>) {
        let mut report = |report: Report| self.answer.report(report);
        let watchdog = RefCell::new(self.limits.time.hard.map(|hard| {
            Watchdog::start(self.watchdog.as_ref(), Arc::clone(&self.control), Arc::clone(&self.answer), hard)
        }));
        let finish = |outcome: &SearchOutcome| {
            drop(watchdog.borrow_mut().take());
            // Held while the search must not end yet (infinite, pondering).
            let hold = self.hold;
            self.control.wait_while(None, |c| !c.stopped() && (hold || c.is_pondering()));
            if let Some(pace) = self.pace {
                self.control.wait_while(Some(pace.saturating_sub(self.control.elapsed())), |c| !c.stopped());
            }
            self.answer.send(Some(*outcome));
        };
        {
            let mut searcher = lock_searcher(searcher);
            // Stopped and answered while it waited for the searcher: nobody waits for this
            // search. Running it anyway would start all its helpers for nothing, and a stream of
            // `go` lines, each stopping the one before, would leave searches waiting for the
            // searcher faster than they drain (thousands of threads, until threads or memory
            // run out).
            if self.answer.is_sent() {
                return;
            }
            searcher.set_threads(self.threads);
            searcher.set_params(self.params);
            searcher.set_tablebases(self.tablebases.clone());
            searcher.set_network(self.network.clone());
            let result = catch_unwind(AssertUnwindSafe(|| {
                searcher
                    .search_then(&self.pos, &self.history, &self.limits, &self.control, &mut report, &mut |o| finish(o))
            }));
            if result.is_err() {
                // A panicking search may leave its tables half-written: start afresh.
                searcher.clear();
            }
        }
        // Still one best move when the search panicked before it had one.
        self.answer.send(None);
    }
}

/// The one best move of a search, sent by whoever comes first: the search when it ends, or
/// the facade or the watchdog when a stop is not answered in time, with the line last
/// reported. Reports after it are dropped, so the last line shown is the line played.
pub(super) struct Answer {
    pos: Position,
    searchmoves: Vec<Move>,
    sink: EventSink,
    control: Arc<SharedControl>,
    state: Mutex<AnswerState>,
    /// Taken and sent on by the one send.
    done: Mutex<Option<Sender<()>>>,
}

#[derive(Default)]
struct AnswerState {
    sent: bool,
    /// The search's time from `go` (or `ponderhit`) to its best move; `None` until sent, and
    /// for a ponder search that was stopped, whose time no clock counted.
    spent: Option<Duration>,
    /// The first two moves of the last principal variation reported, and its depth.
    best: Option<Move>,
    ponder: Option<Move>,
    depth: u32,
}

impl Answer {
    pub(super) fn new(
        pos: Position,
        searchmoves: Vec<Move>,
        sink: EventSink,
        control: Arc<SharedControl>,
        done: Sender<()>,
    ) -> Answer {
        Answer { pos, searchmoves, sink, control, state: Mutex::default(), done: Mutex::new(Some(done)) }
    }

    fn state(&self) -> MutexGuard<'_, AnswerState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn report(&self, report: Report) {
        let mut state = self.state();
        if state.sent {
            return;
        }
        if let Report::Iteration { multipv: 1, pv, depth, .. } = &report {
            (state.best, state.ponder, state.depth) = (pv.first().copied(), pv.get(1).copied(), *depth);
        }
        (self.sink)(Event::Report(report));
    }

    /// Sends the best move unless it has been sent: the search's `outcome`, or with `None`
    /// the last line reported. A ponder move the search did not give comes from that line.
    pub(super) fn send(&self, outcome: Option<SearchOutcome>) {
        let mut state = self.state();
        if state.sent {
            return;
        }
        state.sent = true;
        state.spent = (!self.control.is_pondering()).then(|| self.control.elapsed());
        let mut outcome = outcome.unwrap_or(SearchOutcome { best: state.best, ponder: state.ponder, nodes: 0 });
        if outcome.ponder.is_none() && outcome.best.is_some() && outcome.best == state.best {
            outcome.ponder = state.ponder;
        }
        let (best, ponder) = checked_moves(&self.pos, &self.searchmoves, outcome);
        (self.sink)(Event::BestMove { best, ponder });
        drop(state);
        if let Some(done) = self.done.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = done.send(());
        }
        self.control.wake();
    }

    /// The time the search took by the GUI's clock, from `go` or `ponderhit` to the best move;
    /// `None` until it is sent or when no clock ran (a ponder search stopped).
    pub(super) fn spent(&self) -> Option<Duration> {
        self.state().spent
    }

    /// The depth of the last principal variation reported (0: none yet).
    pub(super) fn depth(&self) -> u32 {
        self.state().depth
    }

    fn is_sent(&self) -> bool {
        self.state().sent
    }

    /// Waits at most `limit` for the best move to be sent.
    pub(super) fn wait_sent(&self, limit: Duration) {
        self.control.wait_while(Some(limit), |_| !self.state().sent);
    }
}

/// Stops the search at its hard time limit even if the search misses the limit itself (a
/// long node, a search without time checks): a safety net against losing on time.
struct Watchdog {
    done: Arc<AtomicBool>,
    control: Arc<SharedControl>,
}

impl Watchdog {
    /// Watches on `thread`'s executor, behind the watchdog of the search before (which ends
    /// as its search does).
    fn start(thread: Option<&Executor>, control: Arc<SharedControl>, answer: Arc<Answer>, hard: Duration) -> Watchdog {
        let done = Arc::new(AtomicBool::new(false));
        let (flag, watched) = (Arc::clone(&done), Arc::clone(&control));
        let watch = move || {
            let over = |c: &SharedControl| flag.load(Ordering::SeqCst) || c.stopped();
            while !over(&watched) {
                let pondering = watched.is_pondering();
                // While pondering the clock has not started: sleep until something changes.
                let left = if pondering {
                    None
                } else {
                    let elapsed = watched.elapsed();
                    if elapsed >= hard {
                        watched.request_stop();
                        answer.wait_sent(STOP_GRACE);
                        answer.send(None);
                        break;
                    }
                    Some(hard - elapsed)
                };
                watched.wait_while(left, |c| !over(c) && c.is_pondering() == pondering);
            }
        };
        // Without a thread the search's own checks remain.
        if let Some(thread) = thread {
            let _ = thread.run(watch);
        }
        Watchdog { done, control }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
        self.control.wake();
    }
}
