//! The progress line of long runs: on stderr, only when stderr is a terminal, and only once a
//! run has lasted a few seconds, so short runs and pipes see nothing of it.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a run goes before its progress line appears.
const DELAY: Duration = Duration::from_secs(3);
/// How often the line is redrawn.
const PERIOD: Duration = Duration::from_millis(250);

/// Runs `work` on this thread while another redraws `status(elapsed)`. `work` prints its own
/// lines through [`Output::line`], which lifts the progress line out of the way first.
pub fn run_with_progress<T>(status: impl Fn(Duration) -> String + Sync, work: impl FnOnce(&Output) -> T) -> T {
    let bar = ProgressBar::hidden();
    bar.set_style(ProgressStyle::with_template("{msg}").unwrap_or_else(|_| ProgressStyle::default_spinner()));
    let out = Output { bar };
    let finished = AtomicBool::new(false);
    let start = Instant::now();
    let result = std::thread::scope(|scope| {
        let mut painter = None;
        if std::io::stderr().is_terminal() {
            painter = Some(scope.spawn(|| {
                let mut shown = false;
                let mut last = Duration::ZERO;
                while !finished.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(20));
                    let elapsed = start.elapsed();
                    if elapsed < DELAY || elapsed - last < PERIOD {
                        continue;
                    }
                    last = elapsed;
                    if !shown {
                        out.bar.set_draw_target(ProgressDrawTarget::stderr());
                        shown = true;
                    }
                    out.bar.set_message(status(elapsed));
                }
            }));
        }
        let result = work(&out);
        finished.store(true, Ordering::Relaxed);
        crate::threads::join_all(painter);
        result
    });
    out.bar.finish_and_clear();
    result
}

/// Standard output beside a progress line.
pub struct Output {
    bar: ProgressBar,
}

impl Output {
    /// Output with no progress line beside it.
    pub fn plain() -> Output {
        Output { bar: ProgressBar::hidden() }
    }

    /// Prints one line on stdout. When the reader has gone (`| head`, a GUI that died) the
    /// program ends at once with exit code 0: there is no one left to tell.
    pub fn line(&self, text: &str) {
        self.bar.suspend(|| {
            let _ = writeln!(super::Stdout, "{text}");
        });
    }
}

/// "1 m 05 s" style durations for the estimate.
pub fn short_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} m {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} m", s / 3600, s / 60 % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_short() {
        assert_eq!(short_duration(Duration::from_secs(7)), "7 s");
        assert_eq!(short_duration(Duration::from_secs(65)), "1 m 05 s");
        assert_eq!(short_duration(Duration::from_secs(7322)), "2 h 02 m");
    }
}
