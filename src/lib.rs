//! ox88: a UCI chess engine on a 0x88 board with table-based attack detection.
//!
//! The modules stand on floors, each importing only from its own floor and those below
//! (docs/design.md, "Layout"), from the ground up:
//! - ground: squares, pieces and moves (`square`, `piece`, `mv`), the compile-time attack
//!   and direction tables (`tables`), Zobrist keys (`zobrist`), scores, bounds and piece
//!   values (`value`), piece-square tables (`psqt`), SplitMix64 (`rng`), the hash tables'
//!   memory and lockless buckets, and threads that end safely (`threads`);
//! - rules: the position with make/unmake (`position`), FEN (`fen`), attack detection
//!   (`attacks`), legal move generation (`movegen`);
//! - knowledge: the evaluation (`eval`, `nnue`), static exchange (`see`), the transposition
//!   table (`tt`), time budgets (`time`), win/draw/loss (`wdl`), Syzygy tables (`tablebase`),
//!   the playing-strength limit (`strength`);
//! - the search (`search`);
//! - tools: perft (`perft`, `movecount`), `bench`, `tactics`, openings (`genfens`), the
//!   self-play record (`packed`);
//! - the engine (`engine`), the UCI text layer (`uci`) and the command line (`cli`).
//!
//! The independent 10x12 mailbox reference the move generator is tested against is the
//! dev-only crate `ox88-mailbox`.

pub mod attacks;
pub mod bench;
pub mod cli;
pub mod engine;
pub mod eval;
pub mod fen;
pub mod genfens;
mod lockless;
mod memory;
pub mod movecount;
pub mod movegen;
pub mod mv;
pub mod nnue;
pub mod packed;
pub mod perft;
pub mod piece;
pub mod position;
pub mod psqt;
pub mod rng;
pub mod search;
pub mod see;
pub mod square;
pub mod strength;
pub mod tablebase;
pub mod tables;
pub mod tactics;
pub mod threads;
pub mod time;
pub mod tt;
pub mod uci;
pub mod value;
pub mod wdl;
pub mod zobrist;

pub use fen::FenError;
pub use movegen::MoveError;
pub use mv::{Move, MoveList};
pub use piece::{Color, Kind, Piece};
pub use position::Position;
pub use square::Square;
