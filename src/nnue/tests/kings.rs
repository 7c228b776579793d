//! King buckets: the file format, the rows each king reads, and the accumulators across king
//! moves from one bucket to another.

use super::*;

/// The embedded network's layers with `K` king buckets mapped by `map`: with `shift`, king
/// bucket `k`'s rows are the embedded rows plus `16k - 24`, so that every bucket reads the
/// board differently; without, every bucket has the embedded rows.
fn kinged<const K: usize>(map: [u8; 64], shift: bool) -> Box<Network<BUCKETS, K>> {
    let mut net = Network::<BUCKETS, K>::boxed_zero();
    for (k, rows) in net.w1.iter_mut().enumerate() {
        let step = if shift { 16 * k as i16 - 24 } else { 0 };
        for (w, &x) in rows.iter_mut().zip(&NETWORK.w1[0]) {
            *w = x.wrapping_add(step);
        }
    }
    (net.b1, net.w2, net.b2, net.scale, net.base, net.kings) =
        (NETWORK.b1, NETWORK.w2, NETWORK.b2, NETWORK.scale, NETWORK.base, map);
    net
}

fn four() -> [u8; 64] {
    king_layout(4).expect("the four-bucket layout")
}

/// Positions with the kings in several buckets of the four-bucket layout: (White's, Black's).
const KINGS_AT: [(&str, (u8, u8)); 6] = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", (1, 1)),
    ("r4rk1/pp3ppp/2n1b3/8/3P4/2N5/PP3PPP/2KR3R w - - 0 15", (0, 1)),
    ("8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 1", (3, 3)),
    ("r7/pp3k2/4p3/8/8/4P3/PP1K4/R7 w - - 0 1", (2, 3)),
    ("2kr4/8/8/8/8/8/8/R3K3 b - - 0 1", (1, 0)),
    ("8/8/2k5/8/8/8/3K4/8 w - - 0 1", (2, 2)),
];

#[test]
fn the_positions_have_their_kings_where_said() {
    for (fen, (white, black)) in KINGS_AT {
        let pos = Position::from_fen(fen).expect("test FEN");
        let net = kinged::<4>(four(), false);
        let got = (
            net.king_bucket(Color::White, pos.king(Color::White)),
            net.king_bucket(Color::Black, pos.king(Color::Black)),
        );
        assert_eq!(got, (white as usize, black as usize), "{fen}");
    }
}

/// A king-bucketed network is written in the fourth format with its map, reads back to the
/// same weights and bytes, and `read_layers` gives the trainer its map and every row.
#[test]
fn a_king_bucketed_file_round_trips_with_its_map() {
    let net = kinged::<4>(four(), true);
    let bytes = net.to_bytes();
    assert_eq!(&bytes[..8], MAGIC_KINGS);
    assert_eq!((read_i32(&bytes, 20), read_i32(&bytes, 24)), (BUCKETS as i32, 4));
    assert_eq!(bytes[28..92], four());
    assert_eq!(bytes.len(), 92 + 2 * (4 * INPUTS * HIDDEN + HIDDEN + BUCKETS * 2 * HIDDEN) + 4 * BUCKETS);
    let again = Network::<BUCKETS, 4>::read_boxed(&bytes).expect("its own bytes");
    assert!(again.w1 == net.w1 && again.kings == four());
    assert_eq!(again.to_bytes(), bytes);
    let l = read_layers(&bytes).expect("its own bytes");
    assert_eq!((l.kings, l.w1.len()), (four(), 4 * INPUTS * HIDDEN));
    assert_eq!(file_bytes(l.scale, l.base, &l.kings, &l.w1, &l.b1, &l.w2, &l.b2), bytes);
}

/// A damaged king header is refused by what is wrong with it, and a good file of another
/// king-bucket count by the count.
#[test]
fn damaged_king_headers_are_refused() {
    let bytes = kinged::<4>(four(), true).to_bytes();
    let mut one = bytes.clone();
    one[24..28].copy_from_slice(&1u32.to_le_bytes());
    assert_eq!(read_layers(&one).err(), Some(NetworkFileError::KingCount(1)));
    let mut many = bytes.clone();
    many[24..28].copy_from_slice(&(MAX_KINGS as u32 + 1).to_le_bytes());
    assert_eq!(read_layers(&many).err(), Some(NetworkFileError::KingCount(MAX_KINGS as u32 + 1)));
    let mut beyond = bytes.clone();
    beyond[28 + 10] = 4;
    assert_eq!(read_layers(&beyond).err(), Some(NetworkFileError::KingMap { square: 10, bucket: 4 }));
    assert_eq!(read_layers(&bytes[..60]).err(), Some(NetworkFileError::Truncated { expected: 92, found: 60 }));
    let n = bytes.len();
    assert_eq!(read_layers(&bytes[..n - 2]).err(), Some(NetworkFileError::Truncated { expected: n, found: n - 2 }));
    if KINGS != 4 {
        assert_eq!(Network::from_bytes(&bytes).err(), Some(NetworkFileError::OtherKings { found: 4, build: KINGS }));
    }
    assert_eq!(
        Network::<BUCKETS, 2>::read_boxed(&bytes).err(),
        Some(NetworkFileError::OtherKings { found: 4, build: 2 })
    );
}

/// One network's rows copied to every king bucket evaluates every position as that network
/// does: a plain network refined with king buckets starts from what it was.
#[test]
fn the_same_rows_in_every_king_bucket_change_nothing() {
    let net = kinged::<4>(four(), false);
    for (fen, _) in KINGS_AT {
        let pos = Position::from_fen(fen).expect("test FEN");
        assert_eq!(evaluate(&*net, &pos), evaluate(&NETWORK, &pos), "{fen}");
    }
}

/// Each side reads the board through the rows of its own king's bucket: the optimised path
/// gives the textbook formula's output, and another bucket's rows would have given another.
#[test]
fn each_king_reads_its_own_rows() {
    let net = kinged::<4>(four(), true);
    let mut seen = [false; 4];
    for (fen, (white, black)) in KINGS_AT {
        let pos = Position::from_fen(fen).expect("test FEN");
        let pieces = Square::all().filter(|&sq| pos.piece_at(sq).is_some()).count();
        let got = evaluate(&*net, &pos);
        assert_eq!(got, plain_output(&*net, &pos, bucket(pieces, BUCKETS)), "{fen}");
        let mut moved = net.clone();
        moved.kings = [(white + 1) % 4; 64];
        assert_ne!(got, evaluate(&*moved, &pos), "{fen}: White's rows matter");
        (seen[white as usize], seen[black as usize]) = (true, true);
    }
    assert_eq!(seen, [true; 4], "the positions cover every bucket");
}

/// Random games (castling on both wings, Chess960, promotions) with buckets that differ: the
/// accumulators derived along the way, and summed again when a king changes bucket, equal a
/// fresh sum.
#[test]
fn incremental_updates_follow_kings_across_buckets() {
    let checked = check_incremental(&*kinged::<4>(four(), true));
    assert!(checked > 1500, "only {checked} positions checked");
    let seven = king_layout(7).expect("the seven-bucket layout");
    let checked = check_incremental(&*kinged::<7>(seven, true));
    assert!(checked > 1500, "only {checked} positions checked");
}
