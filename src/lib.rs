//! ox88: a UCI chess engine on a 0x88 board with table-based attack detection.
//!
//! Layout follows one module per concern: squares and pieces, the compile-time attack and
//! direction tables, the position with make/unmake, FEN, attack detection, legal move
//! generation and perft (the independent 10x12 mailbox reference the generator is tested
//! against is the dev-only crate `ox88-mailbox`).

pub mod attacks;
pub mod bench;
pub mod cli;
pub mod engine;
pub mod eval;
pub mod fen;
pub mod genfens;
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
pub mod search;
pub mod see;
pub mod square;
pub mod strength;
pub mod tablebase;
pub mod tables;
pub mod tactics;
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
