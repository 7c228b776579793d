//! The engine's own tests: one position, one search, one `bestmove` per `go`.

use super::*;
use std::sync::Mutex;
use std::time::Instant;

fn engine() -> (Engine, Arc<Mutex<Vec<Event>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let e2 = Arc::clone(&events);
    let sink: EventSink = Arc::new(move |e| e2.lock().unwrap().push(e));
    (Engine::new(sink), events)
}

/// The integration tests' loaded-machine relaxation (`relaxed` in tests/common): a bound
/// on latency is twice as wide on CI (`CI=true`), whose shared cores answer later.
fn relaxed(bound: Duration) -> Duration {
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        bound * 2
    } else {
        bound
    }
}

fn bestmoves(events: &Mutex<Vec<Event>>) -> Vec<(Option<Move>, Option<Move>)> {
    events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            Event::BestMove { best, ponder, .. } => Some((*best, *ponder)),
            _ => None,
        })
        .collect()
}

#[test]
fn bad_move_keeps_the_previous_position() {
    let (mut e, _) = engine();
    e.set_position(&StartPosition::Startpos, &["e2e4"], false).unwrap();
    let fen = e.position().to_fen();
    for bad in [&["e2e4", "0000"][..], &["e7e5"], &["e2e4", "e7e5", "e1e3"], &["e2e4", "e7e8k"]] {
        assert!(e.set_position(&StartPosition::Startpos, bad, false).is_err(), "{bad:?}");
        assert_eq!(e.position().to_fen(), fen);
        assert_eq!(e.history().len(), 1);
    }
    assert!(e.set_position(&StartPosition::Fen("hello".into()), &[], false).is_err());
    assert_eq!(e.position().to_fen(), fen);
}

#[test]
fn history_holds_the_keys_before_the_current_position() {
    let (mut e, _) = engine();
    e.set_position(&StartPosition::Startpos, &["g1f3", "g8f6", "f3g1", "f6g8"], false).unwrap();
    assert_eq!(e.history().len(), 4);
    assert_eq!(e.history()[0], e.position().key());
}

#[test]
fn one_bestmove_per_go_even_when_go_interrupts_go() {
    let (mut e, events) = engine();
    e.go(&GoParams { infinite: true, ..GoParams::default() }).unwrap();
    e.go(&GoParams { depth: Some(2), ..GoParams::default() }).unwrap();
    e.wait();
    assert_eq!(bestmoves(&events).len(), 2);
    e.stop();
    e.wait();
    assert_eq!(bestmoves(&events).len(), 2);
}

#[test]
fn mated_side_gets_no_move_and_searchmoves_restrict_the_root() {
    let (mut e, events) = engine();
    e.set_position(&StartPosition::Startpos, &["f2f3", "e7e5", "g2g4", "d8h4"], false).unwrap();
    e.go(&GoParams { depth: Some(3), ..GoParams::default() }).unwrap();
    e.wait();
    assert_eq!(bestmoves(&events), vec![(None, None)]);
    e.set_position(&StartPosition::Startpos, &[], false).unwrap();
    e.go(&GoParams { depth: Some(2), searchmoves: vec!["a2a3".into()], ..GoParams::default() }).unwrap();
    e.wait();
    assert_eq!(bestmoves(&events)[1].0.map(|m| m.to_string()), Some("a2a3".into()));
    assert!(e.go(&GoParams { searchmoves: vec!["e2e5".into()], ..GoParams::default() }).is_err());
    assert!(!e.is_searching());
}

#[test]
fn two_threads_give_a_legal_move_and_stop_promptly() {
    let (mut e, events) = engine();
    e.set_threads(2);
    e.set_hash(32).unwrap(); // resizing with helpers present
    e.set_position(&StartPosition::Startpos, &["e2e4", "e7e5", "g1f3"], false).unwrap();
    e.go(&GoParams { depth: Some(8), ..GoParams::default() }).unwrap();
    e.wait();
    let moves = bestmoves(&events);
    let best = moves[0].0.expect("a move");
    assert!(e.position().legal_moves().contains(best));

    e.go(&GoParams { infinite: true, ..GoParams::default() }).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    e.stop();
    e.wait();
    assert!(asked.elapsed() < relaxed(Duration::from_millis(500)), "stop took {:?}", asked.elapsed());
    assert_eq!(bestmoves(&events).len(), 2);
    e.set_threads(1);
    e.go(&GoParams { depth: Some(4), ..GoParams::default() }).unwrap();
    e.wait();
    assert_eq!(bestmoves(&events).len(), 3);
}

#[test]
fn timed_searches_teach_the_trip_meter_and_a_stopped_ponder_does_not() {
    let (mut e, events) = engine();
    let timed = |t: i64, ponder: bool| GoParams {
        clock: Clock { wtime: Some(t), btime: Some(t), movetime: Some(5), ..Clock::default() },
        ponder,
        ..GoParams::default()
    };
    // A ponder search stopped before `ponderhit`: no clock ran, nothing learnt from the
    // clock of the `go` after it.
    e.go(&timed(5000, true)).unwrap();
    e.stop();
    e.wait();
    e.go(&timed(4900, false)).unwrap();
    e.wait();
    assert_eq!(e.trip_ms(), crate::time::PIPE_MS_PER_MOVE);
    // A GUI whose clock drops 40 ms for searches of a few ms: trips of more than 30 ms.
    let mut t = 4900;
    for _ in 0..12 {
        t -= 40;
        e.go(&timed(t, false)).unwrap();
        e.wait();
    }
    assert!(e.trip_ms() >= 20, "{}", e.trip_ms());
    // A ponder search that was hit counts from `ponderhit`, as the GUI's clock does.
    let learnt = e.trip_ms();
    for _ in 0..4 {
        t -= 10;
        e.go(&timed(t, true)).unwrap();
        e.ponderhit();
        e.wait();
    }
    assert!(e.trip_ms() < learnt, "{} {learnt}", e.trip_ms());
    assert_eq!(bestmoves(&events).len(), 18);
}

/// Starts a ponder search with `clock` and waits until it has reported a line deeper than
/// `AT_ONCE_DEPTH`.
fn pondering_deep(e: &mut Engine, clock: Clock) {
    e.go(&GoParams { clock, ponder: true, ..GoParams::default() }).unwrap();
    let depth = crate::time::AT_ONCE_DEPTH as u32 + 2;
    let deep = || e.running.as_ref().and_then(|r| r.answer.as_ref()).is_some_and(|a| a.depth() >= depth);
    let began = Instant::now();
    while !deep() {
        assert!(began.elapsed() < Duration::from_secs(10), "the ponder search never reached depth {depth}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn ponderhit_with_nothing_to_spend_answers_at_once() {
    let (mut e, events) = engine();
    // 20 ms left, inside the 50 ms overhead: nothing to spend. The pondering went deeper than
    // a move at once would search, so `ponderhit` stops it there and then.
    pondering_deep(&mut e, Clock { wtime: Some(20), btime: Some(20), ..Clock::default() });
    e.ponderhit();
    assert!(e.running.as_ref().is_some_and(|r| r.control.stopped()));
    e.wait();
    let moves = bestmoves(&events);
    assert_eq!(moves.len(), 1);
    assert!(moves[0].0.is_some_and(|m| e.position().legal_moves().contains(m)));
    // A minute left: the search goes on after `ponderhit` within its budget.
    pondering_deep(&mut e, Clock { wtime: Some(60_000), btime: Some(60_000), ..Clock::default() });
    e.ponderhit();
    assert!(e.running.as_ref().is_some_and(|r| !r.control.stopped()));
    e.stop();
    e.wait();
    assert_eq!(bestmoves(&events).len(), 2);
}
