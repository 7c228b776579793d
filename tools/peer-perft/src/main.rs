//! A bitboard perft over the cozy-chess crate (PEXT sliders, counting the last ply in bulk),
//! a peer for `tools/perft_speed.py --other`: `peer-perft FEN DEPTH` prints `Nodes searched: N`.
//!
//! ```sh
//! RUSTFLAGS="-C target-cpu=native" cargo build --release --manifest-path tools/peer-perft/Cargo.toml
//! tools/perft_speed.py --other 'cozy=tools/peer-perft/target/release/peer-perft {fen} {depth}'
//! ```
use cozy_chess::Board;

fn perft(board: &Board, depth: u32) -> u64 {
    let mut nodes = 0;
    if depth == 1 {
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
        return nodes;
    }
    board.generate_moves(|moves| {
        for mv in moves {
            let mut next = board.clone();
            next.play_unchecked(mv);
            nodes += perft(&next, depth - 1);
        }
        false
    });
    nodes
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: peer-perft FEN DEPTH");
        std::process::exit(2);
    }
    let board: Board = match args[1].parse() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("bad FEN: {e:?}");
            std::process::exit(2);
        }
    };
    let depth: u32 = match args[2].parse() {
        Ok(d) if d >= 1 => d,
        _ => {
            eprintln!("bad depth");
            std::process::exit(2);
        }
    };
    println!("Nodes searched: {}", perft(&board, depth));
}
