//! What [`Position::from_fen_repaired`] mends in a FEN, each repair typed and printable, so
//! that the UCI layer can say what it did (`info string …`) instead of refusing the position.
//!
//! The repairs are those that Stockfish and python-chess make: a castling right whose king or
//! rook is not in place is dropped (python-chess's `clean_castling_rights`), an en passant
//! square that no double push can have left is dropped (Stockfish's `Position::set`), and a
//! move counter too large for the board's `u16` is read as 65,535 rather than refused.

use crate::piece::Color;
#[cfg(doc)]
use crate::position::Position;
use crate::square::Square;
use std::fmt;

/// One repair of a FEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenRepair {
    /// The castling letter `right` was dropped.
    CastlingRightDropped { right: char, fault: CastlingFault },
    /// The en passant square was dropped.
    EnPassantDropped { square: Square, fault: EnPassantFault },
    /// A counter beyond 65,535 (`given` as written) was read as 65,535.
    CounterSaturated { counter: Counter, given: String },
}

/// Why a castling right cannot stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastlingFault {
    /// The king (on this square) is not on its first rank.
    KingOffBackRank(Square),
    /// Standard chess: the king (on this square) is not on the e-file.
    KingOffStartSquare(Square),
    /// There is no rook of the king's colour on this square.
    NoRookOn(Square),
    /// Chess960 `KQkq`: no rook of the king's colour on that side of it.
    NoRookBesideKing,
    /// The same right was given twice.
    Repeated,
}

/// Why a square cannot be the en passant square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnPassantFault {
    /// Not on the sixth rank (third for Black to move) of the side to move.
    WrongRank,
    /// No pawn of the side that just moved on this square, in front of the en passant square.
    NoPawnOn(Square),
    /// This square, which the pushed pawn crossed or started from, is occupied.
    Occupied(Square),
}

/// The two counters of a FEN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    Halfmove,
    Fullmove,
}

fn colour_of(letter: char) -> &'static str {
    if letter.is_ascii_uppercase() {
        "white"
    } else {
        "black"
    }
}

fn colour_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl fmt::Display for FenRepair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenRepair::CastlingRightDropped { right, fault } => {
                let colour = colour_of(*right);
                write!(f, "castling right '{right}' dropped: ")?;
                match fault {
                    CastlingFault::KingOffBackRank(sq) => {
                        write!(f, "the {colour} king is on {sq}, not on its first rank")
                    }
                    CastlingFault::KingOffStartSquare(sq) => {
                        write!(f, "the {colour} king is on {sq}, not on the e-file (set UCI_Chess960 for Chess960)")
                    }
                    CastlingFault::NoRookOn(sq) => write!(f, "no {colour} rook on {sq}"),
                    CastlingFault::NoRookBesideKing => {
                        write!(f, "no {colour} rook on that side of the king")
                    }
                    CastlingFault::Repeated => write!(f, "given twice"),
                }
            }
            FenRepair::EnPassantDropped { square, fault } => {
                // The side that just moved is the one whose pawn would stand in front of it.
                let mover = if square.rank() == 5 { Color::Black } else { Color::White };
                write!(f, "en passant square {square} dropped: ")?;
                match fault {
                    EnPassantFault::WrongRank => {
                        write!(f, "not on the rank a double push of the side not to move crosses")
                    }
                    EnPassantFault::NoPawnOn(sq) => {
                        write!(f, "no {} pawn on {sq} that could have made a double push", colour_name(mover))
                    }
                    EnPassantFault::Occupied(sq) => {
                        write!(f, "{sq} is occupied, so no double push can have crossed it")
                    }
                }
            }
            FenRepair::CounterSaturated { counter, given } => {
                let name = match counter {
                    Counter::Halfmove => "halfmove clock",
                    Counter::Fullmove => "fullmove number",
                };
                write!(f, "{name} {given} read as 65535")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::FenError;
    use crate::position::Position;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    /// Repairs `fen` and checks what a repaired position must satisfy: the strict reader
    /// refuses `fen` (counters aside), the repaired position is consistent, and its own FEN reads back strictly
    /// as the same position.
    fn repaired(fen: &str, chess960: bool) -> (String, Vec<FenRepair>) {
        let (pos, repairs) = Position::from_fen_repaired(fen, chess960).unwrap_or_else(|e| panic!("{fen}: {e}"));
        pos.check_consistency().unwrap();
        let out = pos.to_fen();
        let reread = Position::from_fen_with(&out, pos.is_chess960()).unwrap_or_else(|e| panic!("{out}: {e}"));
        assert_eq!(reread.key(), pos.key(), "{out}");
        // Counters saturate in the strict reader too; every other repair mends what it refuses.
        if repairs.iter().any(|r| !matches!(r, FenRepair::CounterSaturated { .. })) {
            assert!(Position::from_fen_with(fen, chess960).is_err(), "{fen} needed no repair");
        }
        (out, repairs)
    }

    #[test]
    fn a_castling_right_without_its_rook_is_dropped() {
        let (fen, r) = repaired("r3k2r/8/8/8/8/8/8/R3K1R1 w KQkq - 0 1", false);
        assert_eq!(fen, "r3k2r/8/8/8/8/8/8/R3K1R1 w Qkq - 0 1");
        assert_eq!(r, vec![FenRepair::CastlingRightDropped { right: 'K', fault: CastlingFault::NoRookOn(sq("h1")) }]);
        assert_eq!(r[0].to_string(), "castling right 'K' dropped: no white rook on h1");
        // Both black rights, no rooks at all.
        let (fen, r) = repaired("4k3/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false);
        assert_eq!(fen, "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        assert_eq!(r.len(), 2);
        assert!(r[1].to_string().contains("no black rook on a8"), "{}", r[1]);
    }

    #[test]
    fn a_castling_right_of_a_moved_king_is_dropped() {
        let (fen, r) = repaired("r3k2r/8/8/8/8/8/4K3/R6R w KQkq - 0 1", false);
        assert_eq!(fen, "r3k2r/8/8/8/8/8/4K3/R6R w kq - 0 1");
        assert_eq!(
            r[0],
            FenRepair::CastlingRightDropped { right: 'K', fault: CastlingFault::KingOffBackRank(sq("e2")) }
        );
        // Standard chess: a king on d1 has no KQ rights, however the rooks stand.
        let (fen, r) = repaired("4k3/8/8/8/8/8/8/R2K3R w KQ - 0 1", false);
        assert_eq!(fen, "4k3/8/8/8/8/8/8/R2K3R w - - 0 1");
        assert_eq!(
            r[0],
            FenRepair::CastlingRightDropped { right: 'K', fault: CastlingFault::KingOffStartSquare(sq("d1")) }
        );
        // The same FEN in Chess960 mode is fine.
        let (fen, r) = repaired("4k3/8/8/8/8/8/8/R2K3R w KQ - 0 1", true);
        assert!(r.is_empty(), "{r:?}");
        assert_eq!(fen, "4k3/8/8/8/8/8/8/R2K3R w HA - 0 1");
    }

    #[test]
    fn shredder_and_x_fen_letters_without_rooks_are_dropped() {
        let (fen, r) = repaired("1r2k1r1/8/8/8/8/8/8/RR2K2R w HBgc - 0 1", false);
        assert_eq!(fen, "1r2k1r1/8/8/8/8/8/8/RR2K2R w KBg - 0 1");
        assert_eq!(r, vec![FenRepair::CastlingRightDropped { right: 'c', fault: CastlingFault::NoRookOn(sq("c8")) }]);
        let (_, r) = repaired("4k3/8/8/8/8/8/8/R3K3 w K - 0 1", true);
        assert_eq!(r, vec![FenRepair::CastlingRightDropped { right: 'K', fault: CastlingFault::NoRookBesideKing }]);
        // A letter naming the king's own square; dropped, it does not make the game Chess960.
        let (fen, r) = repaired("4k3/8/8/8/8/8/8/R3K2R w E - 0 1", false);
        assert_eq!(fen, "4k3/8/8/8/8/8/8/R3K2R w - - 0 1");
        assert_eq!(r, vec![FenRepair::CastlingRightDropped { right: 'E', fault: CastlingFault::NoRookOn(sq("e1")) }]);
    }

    #[test]
    fn a_repeated_right_is_dropped_once() {
        let (fen, r) = repaired("4k3/8/8/8/8/8/8/4K2R w KK - 0 1", false);
        assert_eq!(fen, "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        assert_eq!(r, vec![FenRepair::CastlingRightDropped { right: 'K', fault: CastlingFault::Repeated }]);
    }

    #[test]
    fn an_impossible_en_passant_square_is_dropped() {
        // No black pawn on e5.
        let (fen, r) = repaired("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", false);
        assert_eq!(fen, crate::fen::STARTPOS);
        assert_eq!(
            r,
            vec![FenRepair::EnPassantDropped { square: sq("e6"), fault: EnPassantFault::NoPawnOn(sq("e5")) }]
        );
        assert_eq!(
            r[0].to_string(),
            "en passant square e6 dropped: no black pawn on e5 that could have made a double push"
        );
        // The wrong rank for the side to move (e3 with White to move).
        let (fen, r) = repaired("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1", false);
        assert_eq!(fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(r, vec![FenRepair::EnPassantDropped { square: sq("e3"), fault: EnPassantFault::WrongRank }]);
        // The pawn's start square is occupied: it cannot have come from there.
        let (_, r) = repaired("4k3/4b3/8/3Pp3/8/8/8/4K3 w - e6 0 1", false);
        assert_eq!(
            r,
            vec![FenRepair::EnPassantDropped { square: sq("e6"), fault: EnPassantFault::Occupied(sq("e7")) }]
        );
        // A square no pawn can use is not a fault: FEN writes it after every double push.
        let (fen, r) = repaired("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", false);
        assert!(r.is_empty(), "{r:?}");
        assert!(fen.contains(" b KQkq - "), "{fen}");
        // A square one pawn can use stays.
        let (fen, r) = repaired("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", false);
        assert!(r.is_empty());
        assert!(fen.contains(" f6 "), "{fen}");
    }

    #[test]
    fn counters_beyond_u16_saturate() {
        let (fen, r) = repaired("4k3/8/8/8/8/8/8/4K3 w - - 70000 99999999999999999999999", false);
        assert_eq!(fen, "4k3/8/8/8/8/8/8/4K3 w - - 65535 65535");
        assert_eq!(
            r,
            vec![
                FenRepair::CounterSaturated { counter: Counter::Halfmove, given: "70000".into() },
                FenRepair::CounterSaturated { counter: Counter::Fullmove, given: "99999999999999999999999".into() }
            ]
        );
        assert_eq!(r[0].to_string(), "halfmove clock 70000 read as 65535");
        // The strict reader saturates too (a count is no reason to refuse a position).
        let strict = Position::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 65536 65536").unwrap();
        assert_eq!((strict.halfmove_clock(), strict.fullmove_number()), (65535, 65535));
        // 65,535 itself is no repair; signs and other text are still errors.
        assert!(repaired("4k3/8/8/8/8/8/8/4K3 w - - 65535 65535", false).1.is_empty());
        assert_eq!(
            Position::from_fen_repaired("4k3/8/8/8/8/8/8/4K3 w - - -1 1", false).unwrap_err(),
            FenError::BadHalfmoveClock("-1".into())
        );
        assert_eq!(
            Position::from_fen_repaired("4k3/8/8/8/8/8/8/4K3 w - - 0 1x", false).unwrap_err(),
            FenError::BadFullmoveNumber("1x".into())
        );
    }

    #[test]
    fn several_repairs_at_once_in_field_order() {
        let (fen, r) = repaired("4k3/8/8/8/8/8/8/4K3 b KQkq e3 100000 1", false);
        assert_eq!(fen, "4k3/8/8/8/8/8/8/4K3 b - - 65535 1");
        assert_eq!(r.len(), 6, "{r:?}");
        assert!(matches!(r[4], FenRepair::EnPassantDropped { .. }));
        assert!(matches!(r[5], FenRepair::CounterSaturated { .. }));
    }

    #[test]
    fn unusable_fens_stay_errors() {
        use crate::piece::Color;
        for (fen, error) in [
            ("8/8/8/8/8/8/8/4K3 w - - 0 1", FenError::MissingKing(Color::Black)),
            ("4k2P/8/8/8/8/8/8/4K3 w - - 0 1", FenError::PawnOnBackRank(sq("h8"))),
            ("4k2R/8/8/8/8/8/8/4K3 w - - 0 1", FenError::OpponentInCheck),
            ("4k3/8/8/8/8/8/8/4K2R w Kx - 0 1", FenError::BadCastling("Kx".into())),
            ("4k3/8/8/8/8/8/8/4K2R w - e9 0 1", FenError::BadEnPassant("e9".into())),
            ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", FenError::BadSideToMove("x".into())),
            ("hello", FenError::FieldCount(1)),
            ("4k3/8/8/8/8/8/8/4KK2 w - - 0 1", FenError::TooManyKings(Color::White)),
            // Three checkers: no legal sequence of moves leads here.
            ("4k3/8/3N4/1B6/8/8/8/4R1K1 b - - 0 1", FenError::ImpossibleCheck),
        ] {
            assert_eq!(Position::from_fen_repaired(fen, false).unwrap_err(), error, "{fen}");
            assert_eq!(Position::from_fen_repaired(fen, true).unwrap_err(), error, "{fen}");
        }
    }

    #[test]
    fn good_fens_need_no_repair() {
        for fen in [
            crate::fen::STARTPOS,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -",
        ] {
            for chess960 in [false, true] {
                let (pos, repairs) = Position::from_fen_repaired(fen, chess960).unwrap();
                assert!(repairs.is_empty(), "{fen}: {repairs:?}");
                assert_eq!(pos.key(), Position::from_fen_with(fen, chess960).unwrap().key());
            }
        }
    }
}
