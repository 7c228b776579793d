//! The commands the fuzzer sends, each drawn at random with its arguments, and what each
//! leads it to expect of the engine's answers.

use super::*;

impl Fuzzer {
    pub(super) fn isready(&mut self) {
        let sent = self.send("isready");
        match self.pump(Instant::now() + Duration::from_secs(2), true) {
            Some(at) => {
                let took = at.duration_since(sent);
                self.ready_worst = self.ready_worst.max(took);
                // Since a `Hash` change, `readyok` waits for the new table, as long as the
                // kernel takes to supply its pages.
                let bound = if self.resized { RESIZE_READY_BOUND } else { self.ready_bound };
                if took > bound {
                    self.fault("late-readyok", format!("readyok after {took:?}"));
                }
                self.resized = false;
            }
            None => {
                self.fault("no-readyok", "no readyok within 2 s".into());
                self.resync();
            }
        }
    }

    pub(super) fn stop(&mut self) {
        self.release_all();
        self.send("stop");
    }

    pub(super) fn ponderhit(&mut self) {
        let now = Instant::now();
        for g in self.outstanding.iter_mut() {
            if g.ponder {
                g.ponder = false;
                if !g.infinite {
                    g.free_since.get_or_insert(now);
                }
            }
        }
        self.send("ponderhit");
    }

    pub(super) fn setoption(&mut self) {
        let line = match self.rng.gen_range(0..10) {
            0..=2 => format!("setoption name Threads value {}", [1, 1, 2, 2, 3, 4, 8][self.rng.gen_range(0..7)]),
            3 => {
                self.resized = true;
                format!("setoption name Hash value {}", [1, 2, 8, 16, 64][self.rng.gen_range(0..5)])
            }
            4 => "setoption name Clear Hash".to_string(),
            5 | 6 => format!("setoption name MultiPV value {}", self.rng.gen_range(1..5)),
            7 => format!("setoption name Ponder value {}", self.rng.gen_bool(0.5)),
            8 => format!("setoption name Move Overhead value {}", self.rng.gen_range(0..100)),
            _ => {
                let on = self.rng.gen_bool(0.5);
                if on != self.chess960 {
                    for g in self.outstanding.iter_mut() {
                        g.notation_changed = true;
                    }
                }
                self.chess960 = on;
                if let Some(p) = self.pos.as_mut() {
                    p.set_chess960(on);
                }
                self.kept.set_chess960(on);
                format!("setoption name UCI_Chess960 value {on}")
            }
        };
        // Resizing or clearing the table stops a search first.
        if line.contains("Hash") {
            self.release_all();
        }
        self.send(&line);
    }

    /// A `position` command, and the position the engine must take from it.
    pub(super) fn position(&mut self) {
        self.release_all();
        let chess960 = self.chess960;
        let (start_text, start) = if self.rng.gen_bool(0.1) && self.odd {
            let fen = *ODD_FENS.choose(&mut self.rng).unwrap_or(&"hello");
            (format!("fen {fen}"), Position::from_fen_repaired(fen, chess960).ok().map(|(p, _)| p))
        } else {
            let mut fen = *STARTS.choose(&mut self.rng).unwrap_or(&STARTPOS);
            // Only well-formed input: an X-FEN that needs Chess960 is repairable without it.
            if !self.odd && Position::from_fen_with(fen, chess960).is_err() {
                fen = STARTPOS;
            }
            let text =
                if fen == STARTPOS && self.rng.gen_bool(0.5) { "startpos".to_string() } else { format!("fen {fen}") };
            (text, Position::from_fen_repaired(fen, chess960).ok().map(|(p, _)| p))
        };
        let mut moves: Vec<String> = Vec::new();
        let mut pos = start;
        if let Some(p) = pos.as_mut() {
            let plies = self.rng.gen_range(0..30);
            for _ in 0..plies {
                let legal = p.legal_moves();
                let Some(&m) = legal.as_slice().choose(&mut self.rng) else {
                    break;
                };
                // Castling sometimes in the other notation: both must be read (row B).
                let notation = if m.is_castle() && self.rng.gen_bool(0.2) && self.odd { !chess960 } else { chess960 };
                moves.push(m.to_uci(notation));
                p.make(m);
            }
        }
        // Some bad move lists: an illegal move, a null move, garbage.
        if pos.is_some() && self.rng.gen_bool(0.05) && self.odd {
            let bad = ["e2e5", "0000", "a1a1", "zz", "e7e8k"][self.rng.gen_range(0..5)];
            moves.push(bad.to_string());
        }
        // What the engine must read, by the library's own rules.
        let expected = match &pos {
            None => None,
            Some(_) => {
                let fen_pos = if start_text == "startpos" {
                    Position::from_fen_with(STARTPOS, chess960).ok()
                } else {
                    let fen = start_text.trim_start_matches("fen ");
                    Position::from_fen_repaired(fen, chess960).ok().map(|(p, _)| p)
                };
                fen_pos.and_then(|mut p| {
                    for text in &moves {
                        let m = p.parse_uci_move(text).ok()?;
                        p.make(m);
                    }
                    Some(p)
                })
            }
        };
        // An engine that reads FENs strictly and keeps its position on any error.
        let strict = if start_text == "startpos" {
            Position::from_fen_with(STARTPOS, chess960).ok()
        } else {
            Position::from_fen_with(start_text.trim_start_matches("fen "), chess960).ok()
        };
        let strict = strict.and_then(|mut p| {
            for text in &moves {
                let m = p.parse_uci_move(text).ok()?;
                p.make(m);
            }
            Some(p)
        });
        self.repaired = strict.is_none() && expected.is_some();
        if let Some(p) = strict {
            self.kept = p;
        }
        let line = if moves.is_empty() {
            format!("position {start_text}")
        } else {
            format!("position {start_text} moves {}", moves.join(" "))
        };
        self.pos = expected;
        self.send(&line);
    }

    pub(super) fn go(&mut self) {
        self.release_all();
        let mut parts: Vec<String> = vec!["go".into()];
        let (mut ponder, mut infinite, mut limited) = (false, false, false);
        match self.rng.gen_range(0..12) {
            0 => infinite = true,
            1 => {}
            2 | 3 => {
                ponder = true;
                limited = true;
                parts.push("ponder".into());
                self.push_clock(&mut parts);
            }
            4 => {
                limited = true;
                parts.push(format!("movetime {}", self.rng.gen_range(0..300)));
            }
            5 => {
                limited = true;
                parts.push(format!("depth {}", self.rng.gen_range(1..7)));
            }
            6 => {
                limited = true;
                parts.push(format!("nodes {}", self.rng.gen_range(1..200_000)));
            }
            7 => {
                limited = true;
                parts.push(format!("mate {}", self.rng.gen_range(1..4)));
            }
            8 => {
                // Infinite wins over any limit (row C).
                infinite = true;
                parts.push("infinite".into());
                let movetime = self.rng.gen_range(0..300);
                if self.odd {
                    parts.push(format!("movetime {movetime}"));
                }
            }
            _ => {
                limited = true;
                self.push_clock(&mut parts);
            }
        }
        if infinite && !parts.iter().any(|p| p == "infinite") && self.rng.gen_bool(0.5) {
            parts.push("infinite".into());
        }
        infinite |= !limited;
        let mut searchmoves = Vec::new();
        if let Some(p) = &self.pos {
            if self.rng.gen_bool(0.1) {
                let legal = p.legal_moves();
                let n = self.rng.gen_range(1..4).min(legal.len());
                let picked: Vec<Move> = legal.as_slice().choose_multiple(&mut self.rng, n).copied().collect();
                if !picked.is_empty() {
                    parts.push("searchmoves".into());
                    parts.extend(picked.iter().map(|m| m.to_uci(self.chess960)));
                    searchmoves = picked;
                }
            }
        }
        // Rarely a token the parser rejects, next to a limit it understands (row I).
        if limited && !ponder && self.rng.gen_bool(0.03) && self.odd {
            parts.push(["frobnicate", "depth x", "wtime abc"][self.rng.gen_range(0..3)].into());
        }
        let text = parts.join(" ");
        let sent = self.send(&text);
        self.outstanding.push_back(Go {
            step: self.step,
            text,
            pos: self.pos.clone(),
            kept: self.kept.clone(),
            repaired: self.repaired,
            chess960: self.chess960,
            notation_changed: false,
            searchmoves,
            ponder,
            infinite,
            released: false,
            free_since: (!ponder && !infinite).then_some(sent),
        });
    }

    pub(super) fn push_clock(&mut self, parts: &mut Vec<String>) {
        let mut ms = || -> i64 {
            if self.rng.gen_bool(0.05) {
                -self.rng.gen_range(0..1000)
            } else {
                self.rng.gen_range(0..3000)
            }
        };
        let (w, b) = (ms(), ms());
        parts.push(format!("wtime {w} btime {b}"));
        if self.rng.gen_bool(0.5) {
            let inc = self.rng.gen_range(0..100);
            parts.push(format!("winc {inc} binc {inc}"));
        }
        if self.rng.gen_bool(0.2) {
            parts.push(format!("movestogo {}", self.rng.gen_range(0..40)));
        }
    }

    /// `go perft`, stopping a search first; waits for its total (or, when a `stop` or a
    /// `Clear Hash` races it, for either the total or the interruption).
    pub(super) fn perft(&mut self) {
        self.release_all();
        let depth = self.tasks.gen_range(1..=4);
        self.send(&format!("go perft {depth}"));
        let raced = self.tasks.gen_bool(0.3);
        if raced {
            let racer = ["stop", "setoption name Clear Hash"][self.tasks.gen_range(0..2)];
            self.send(racer);
        }
        // The count the engine must give, from the independent generator (depth 4 is left
        // unchecked: too slow there).
        let want = self
            .pos
            .as_ref()
            .filter(|_| !raced && depth <= 3)
            .and_then(|p| MailboxBoard::from_fen(&p.to_fen()).map(|b| b.perft(depth)));
        let deadline = Instant::now() + TASK_ANSWER;
        while let Some((_, line)) = self.e.next_timed(deadline) {
            if line.starts_with("bestmove") {
                self.on_bestmove(&line);
            } else if let Some(n) = line.strip_prefix("Nodes searched: ") {
                if let (Some(want), Ok(n)) = (want, n.trim().parse::<u64>()) {
                    if n != want {
                        self.fault("wrong-perft", format!("go perft {depth}: {n}, the mailbox counts {want}"));
                    }
                }
                return;
            } else if line == "info string perft interrupted" {
                if !raced {
                    self.fault("interrupted-perft", format!("go perft {depth} interrupted with nothing racing it"));
                }
                return;
            }
        }
        self.fault("no-perft-answer", format!("go perft {depth}: no total within {TASK_ANSWER:?}"));
    }

    /// `bench` at a small depth (it cannot be stopped, and the next commands wait for it).
    pub(super) fn bench(&mut self) {
        self.release_all();
        let depth = self.tasks.gen_range(1..=2);
        self.send(&format!("bench {depth}"));
        let deadline = Instant::now() + TASK_ANSWER;
        while let Some((_, line)) = self.e.next_timed(deadline) {
            if line.starts_with("bestmove") {
                self.on_bestmove(&line);
            } else if line.starts_with("Nodes/second") {
                return;
            }
        }
        self.fault("no-bench-answer", format!("bench {depth}: no end within {TASK_ANSWER:?}"));
    }

    pub(super) fn ucinewgame(&mut self) {
        self.release_all();
        self.send("ucinewgame");
        self.kept = Position::startpos();
        self.kept.set_chess960(self.chess960);
        self.repaired = false;
        if self.rng.gen_bool(0.5) {
            self.isready();
        }
        // As a GUI does, a position follows.
        self.position();
    }

    pub(super) fn sleep(&mut self) {
        let ms = self.rng.gen_range(0..=50);
        self.pump(Instant::now() + Duration::from_millis(ms), false);
    }
}
