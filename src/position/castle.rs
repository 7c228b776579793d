//! The squares each castling right needs empty or safe, worked out once when the right is read.

use crate::mv::Move;
use crate::square::Square;

/// The squares a castling move needs: those that must be empty (all between king, rook and
/// their targets, but for king and rook themselves) and those the king crosses, which must
/// not be attacked. Fixed for the game once the castling rights are read.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CastlePath {
    pub empty: [u8; 8],
    pub empty_len: u8,
    pub king_path: [u8; 8],
    pub king_path_len: u8,
}

impl CastlePath {
    pub(crate) fn new(king: Square, rook: Square) -> CastlePath {
        let m = Move::castle(king, rook);
        let (king_to, rook_to) = (m.castle_king_target(), m.castle_rook_target());
        let rank = king.rank();
        let files = [king.file(), rook.file(), king_to.file(), rook_to.file()];
        let lo = files.iter().copied().min().unwrap_or(0);
        let hi = files.iter().copied().max().unwrap_or(7);
        let mut path = CastlePath::default();
        for f in lo..=hi {
            let sq = Square::from_coords(f, rank);
            if sq != king && sq != rook {
                path.empty[path.empty_len as usize] = sq.raw();
                path.empty_len += 1;
            }
        }
        // The king's own square is left out when the king moves: castling is only tried when
        // not in check, and an attack on it through the lifted rook would also hit the king's
        // target square. A king that stays (c1 with the rook on b1) keeps it.
        let (a, b) = (king.file().min(king_to.file()), king.file().max(king_to.file()));
        for f in a..=b {
            if f != king.file() || king == king_to {
                path.king_path[path.king_path_len as usize] = Square::from_coords(f, rank).raw();
                path.king_path_len += 1;
            }
        }
        path
    }
}
