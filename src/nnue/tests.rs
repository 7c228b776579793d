//! The network file format, the buckets and the incremental accumulators against a
//! refresh from scratch.

use super::*;
use rand::{Rng, SeedableRng};

/// A network kept in `nets/` and the shape docs/networks.md gives it.
struct Kept {
    name: &'static str,
    bytes: &'static [u8],
    hidden: usize,
    base: Base,
    /// Output buckets.
    buckets: usize,
}

/// `"name": hidden, base, output buckets;` for each file `nets/name.nnue`.
macro_rules! kept {
    ($($name:literal: $hidden:literal, $base:ident, $buckets:literal;)*) => {
        &[$(Kept {
            name: $name,
            bytes: include_bytes!(concat!("../../nets/", $name, ".nnue")),
            hidden: $hidden,
            base: Base::$base,
            buckets: $buckets,
        },)*]
    };
}

/// Every network in `nets/`, oldest first.
const KEPT: &[Kept] = kept! {
    "n1": 128, Full, 1;
    "n2": 128, Full, 1;
    "n3": 128, Light, 1;
    "n4": 128, Light, 1;
    "n5": 128, Light, 1;
    "n6": 256, Light, 1;
    "n7": 256, Light, 1;
    "n8": 256, Light, 1;
    "n9": 256, Light, 1;
    "n10": 256, Light, 1;
    "n11": 256, Light, 1;
    "n12": 256, Light, 1;
    "n13": 256, Light, 1;
    "n14": 256, Light, 1;
    "n15": 256, Light, 1;
    "n16": 256, Light, 1;
    "n17": 256, Light, 8;
    "n18": 256, Light, 8;
};

mod kings;

/// Random walks through the game tree from positions with castling (also Chess960), en
/// passant and promotions, moving on (a move or a null move) or stepping back as a search
/// does: the entries derived on the way, asked for now and then, must equal a fresh sum.
#[test]
fn incremental_updates_match_a_fresh_sum() {
    let checked = check_incremental(&NETWORK);
    assert!(checked > 1500, "only {checked} positions checked");
}

/// Walks the tree with `net`'s accumulators along, comparing the derived entries with a fresh
/// sum now and then; returns how many positions it compared.
fn check_incremental<const B: usize, const K: usize>(net: &Network<B, K>) -> usize {
    let fens = [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", false),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", false),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", false),
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", false),
        ("rnbqkbnr/pp1p1ppp/8/2pPp3/8/8/PPP1PPPP/RNBQKBNR w KQkq c6 0 3", false),
        ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", true),
        ("2r1kr2/8/8/8/8/8/8/1R2K1R1 w GBfc - 0 1", true),
    ];
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut checked = 0;
    for (fen, chess960) in fens {
        for _ in 0..20 {
            let mut pos = Position::from_fen(fen).expect("test FEN");
            pos.set_chess960(chess960);
            let mut stack = AccumulatorStack::default();
            stack.set_root(net, &pos);
            // The moves made down to the current ply (None: a null move), to step back.
            let mut path = Vec::new();
            for step in 0..90 {
                let legal = pos.legal_moves();
                let back = !path.is_empty() && (legal.is_empty() || rng.gen_range(0..4) == 0);
                if back {
                    match path.pop() {
                        Some((Some(m), undo)) => pos.unmake(m, &undo),
                        Some((None, undo)) => pos.unmake_null(&undo),
                        None => unreachable!("the path is not empty"),
                    }
                } else if legal.is_empty() {
                    break;
                } else if rng.gen_range(0..10) == 0 && !pos.in_check() {
                    stack.push_null(path.len());
                    path.push((None, pos.make_null()));
                } else {
                    let m = legal[rng.gen_range(0..legal.len())];
                    stack.push(path.len(), &pos, m);
                    path.push((Some(m), pos.make(m)));
                }
                // Asked for now and then: an entry may be derived over several plies.
                if rng.gen_range(0..3) == 0 {
                    let fresh = refresh(net, &pos);
                    let derived = stack.get(net, path.len(), &pos);
                    for (d, f) in derived.iter().zip(&fresh) {
                        assert_eq!(d.0, f.0, "{fen} at step {step}, ply {}", path.len());
                    }
                    checked += 1;
                }
            }
        }
    }
    checked
}

#[test]
fn the_file_format_round_trips() {
    let bytes = NETWORK.to_bytes();
    let again = Network::<BUCKETS, KINGS>::read_boxed(&bytes).expect("its own bytes");
    assert_eq!(again.to_bytes(), bytes);
    assert!(NETWORK.scale > 0, "the embedded network has no scale");
}

/// A full-base network of one bucket keeps the first format (so `nets/n1`, `n2` are what
/// the trainer writes today); the other bases are named in the header and read back.
/// (One bucket whatever the embedded network has: the bucketed format has its own test.)
#[test]
fn the_file_names_its_base() {
    for base in [Base::Full, Base::Light, Base::None] {
        let mut net = bucketed::<1>();
        net.base = base;
        let bytes = net.to_bytes();
        assert_eq!(&bytes[..8], if base == Base::Full { MAGIC } else { MAGIC_BASE });
        let again = Network::<1, 1>::read_boxed(&bytes).expect("its own bytes");
        assert_eq!(again.base, base);
        assert_eq!(again.to_bytes(), bytes);
    }
    assert_eq!(BASE, NETWORK.base);
}

/// `nets/` files of the engine's width load and write back byte for byte, and the
/// embedded one is what the engine plays with.
#[test]
fn the_kept_networks_load_unchanged() {
    assert_eq!(NETWORK.to_bytes(), EMBEDDED);
    for k in KEPT {
        assert_eq!(read_header(k.bytes).map(|h| h.buckets), Ok(k.buckets), "{}", k.name);
        if read_i32(k.bytes, 8) as usize == HIDDEN {
            let bytes = match k.buckets {
                1 => Network::<1, 1>::read_boxed(k.bytes).map(|n| n.to_bytes()),
                8 => Network::<8, 1>::read_boxed(k.bytes).map(|n| n.to_bytes()),
                b => panic!("{}: {b} output buckets, a count no kept network had", k.name),
            };
            assert_eq!(bytes.expect("a kept network"), k.bytes, "{}", k.name);
        }
    }
}

/// The list above names every file in `nets/`, so a new network cannot skip these tests.
#[test]
fn every_file_in_nets_is_listed() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/nets");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("nets/ beside Cargo.toml")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|name| name.strip_suffix(".nnue").map(str::to_owned))
        .collect();
    files.sort();
    let mut listed: Vec<String> = KEPT.iter().map(|k| k.name.to_owned()).collect();
    listed.sort();
    assert_eq!(files, listed);
}

/// `read_layers` reads every kept network, whatever its width, back to its own bytes,
/// and tells a damaged file from a good one instead of panicking.
#[test]
fn layers_read_back_and_damage_is_an_error() {
    for k in KEPT {
        let l = read_layers(k.bytes).expect("a kept network");
        assert_eq!((l.b1.len(), l.base, l.b2.len()), (k.hidden, k.base, k.buckets), "{}", k.name);
        assert_eq!(file_bytes(l.scale, l.base, &l.kings, &l.w1, &l.b1, &l.w2, &l.b2), k.bytes, "{}", k.name);
    }
    let l = read_layers(EMBEDDED).expect("embedded");
    assert_eq!((l.b1.len(), l.b2.len(), l.base), (HIDDEN, BUCKETS, BASE));
    let n = EMBEDDED.len();
    assert_eq!(read_layers(&EMBEDDED[..n - 1]).err(), Some(NetworkFileError::Truncated { expected: n, found: n - 1 }));
    assert_eq!(read_layers(b"OX88NNB2").err(), Some(NetworkFileError::BadMagic));
    let mut bad = EMBEDDED.to_vec();
    bad[0] = b'X';
    assert_eq!(read_layers(&bad).err(), Some(NetworkFileError::BadMagic));
    let mut bad = file_bytes(l.scale, Base::Light, &l.kings, &l.w1, &l.b1, &l.w2, &l.b2);
    bad[16] = 9;
    assert_eq!(read_layers(&bad).err(), Some(NetworkFileError::UnknownBase(9)));
    let mut bad = bad.clone();
    bad[8..12].copy_from_slice(&17u32.to_le_bytes());
    bad[16] = 1;
    assert_eq!(read_layers(&bad).err(), Some(NetworkFileError::HiddenSize(17)));
}

/// The 31 piece counts in order over every bucket, in runs whose lengths differ by one at
/// most; with 8 buckets, four counts each from 2 pieces up.
#[test]
fn the_bucket_rule_spreads_piece_counts_evenly() {
    for buckets in 1..=MAX_BUCKETS {
        let mut run = vec![0; buckets];
        for pieces in 2..=32 {
            let k = bucket(pieces, buckets);
            assert!(k < buckets, "{pieces} pieces in bucket {k} of {buckets}");
            if pieces == 2 {
                assert_eq!(k, 0);
            } else {
                let step = k - bucket(pieces - 1, buckets);
                assert!(step <= 1, "{pieces} pieces skip a bucket of {buckets}");
            }
            run[k] += 1;
        }
        assert_eq!(bucket(32, buckets), buckets - 1);
        let (shortest, longest) = (run.iter().min().copied(), run.iter().max().copied());
        assert!(shortest >= Some(1) && longest <= shortest.map(|s| s + 1), "{buckets} buckets: runs {run:?}");
    }
    for pieces in 2..=32 {
        assert_eq!(bucket(pieces, 8), (pieces - 2) / 4);
    }
}

/// The bias step between [`bucketed`]'s buckets. It dwarfs a real position's weighted sum (a
/// few thousand), so no two buckets give one output by chance: with a step of 4096, a network
/// whose sum for a test position came to −6144 gave buckets 1 and 4 the same output.
const BUCKET_STEP: i32 = 1 << 22;

/// The embedded network's layers with `B` output buckets that differ: bucket `k` has the
/// embedded output weights, negated in odd buckets, and a bias raised by `k` times
/// [`BUCKET_STEP`]; one king bucket, the embedded network's first.
fn bucketed<const B: usize>() -> Box<Network<B, 1>> {
    let mut w2 = [[0; 2 * HIDDEN]; B];
    let mut b2 = [0; B];
    for (k, (w2, b2)) in w2.iter_mut().zip(&mut b2).enumerate() {
        for (w, &x) in w2.iter_mut().zip(&NETWORK.w2[0]) {
            *w = if k % 2 == 1 { -x } else { x };
        }
        *b2 = NETWORK.b2[0] + BUCKET_STEP * k as i32;
    }
    let mut net = Network::boxed_zero();
    net.w1[0] = NETWORK.w1[0];
    (net.b1, net.w2, net.b2, net.scale, net.base) = (NETWORK.b1, w2, b2, NETWORK.scale, NETWORK.base);
    net
}

/// A network of several buckets is written in the third format, whatever its base, and
/// reads back to the same weights and the same bytes.
#[test]
fn a_bucketed_file_round_trips() {
    for base in [Base::Full, Base::Light, Base::None] {
        let mut net = bucketed::<8>();
        net.base = base;
        let bytes = net.to_bytes();
        assert_eq!(&bytes[..8], MAGIC_BUCKETS);
        assert_eq!(read_i32(&bytes, 16), base as i32);
        assert_eq!(read_i32(&bytes, 20), 8);
        assert_eq!(bytes.len(), 24 + 2 * (INPUTS * HIDDEN + HIDDEN + 8 * 2 * HIDDEN) + 4 * 8);
        let again = Network::<8, 1>::read_boxed(&bytes).expect("its own bytes");
        assert!(again.w1 == net.w1 && again.b1 == net.b1 && again.w2 == net.w2, "{base:?}");
        assert_eq!((again.b2, again.scale, again.base), (net.b2, net.scale, base));
        assert_eq!(again.to_bytes(), bytes);
    }
    let three = bucketed::<3>().to_bytes();
    let again = Network::<3, 1>::read_boxed(&three).expect("its own bytes");
    assert_eq!(again.to_bytes(), three);
}

#[test]
#[should_panic(expected = "a different number of output buckets")]
fn a_file_is_read_with_its_own_bucket_count() {
    let bytes = bucketed::<8>().to_bytes();
    let _: Box<Network<4, 1>> = Box::new(parse(&bytes));
}

/// The output by the textbook formula, in wide integers, summed from the board (no
/// accumulators, no SIMD), through the output weights of `bucket`.
fn plain_output<const B: usize, const K: usize>(net: &Network<B, K>, pos: &Position, bucket: usize) -> i32 {
    let mut acc = [[0i64; HIDDEN]; 2];
    for (acc, perspective) in acc.iter_mut().zip([Color::White, Color::Black]) {
        for (a, &b) in acc.iter_mut().zip(&net.b1) {
            *a = b as i64;
        }
        let kb = net.kings[oriented(perspective, pos.king(perspective))] as usize;
        for sq in Square::all().filter(|&sq| pos.piece_at(sq).is_some()) {
            let f = feature(perspective, pos.piece_at(sq), sq);
            for (a, &w) in acc.iter_mut().zip(&net.w1[kb][f * HIDDEN..(f + 1) * HIDDEN]) {
                *a += w as i64;
            }
        }
    }
    let us = pos.side_to_move().index();
    let mut sum = 0i64;
    for (half, acc) in [&acc[us], &acc[1 - us]].into_iter().enumerate() {
        for (&a, &w) in acc.iter().zip(&net.w2[bucket][half * HIDDEN..(half + 1) * HIDDEN]) {
            let c = a.clamp(0, QA as i64);
            sum += c * c * w as i64;
        }
    }
    let raw = sum / QA as i64 + net.b2[bucket] as i64;
    (raw * net.scale as i64 / (QA * QB) as i64) as i32
}

/// Positions and their piece counts, kings included.
const COUNTED: [(&str, usize); 9] = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 32),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 5 4", 32),
    ("r1bqk2r/pppp1ppp/2n5/4p3/4P3/8/PPPP1PPP/R1BQK2R w KQkq - 0 1", 27),
    ("r4rk1/pp3ppp/2n1b3/8/3P4/2N5/PP3PPP/R4RK1 w - - 0 15", 20),
    ("8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 1", 14),
    ("r7/pp3k2/4p3/8/8/4P3/PP3K2/R7 w - - 0 1", 10),
    ("8/8/4k3/3r4/8/2B1K3/5PP1/8 w - - 0 1", 6),
    ("8/8/4k3/3r4/8/2B1K3/8/8 w - - 0 1", 4),
    ("8/8/8/4k3/8/8/8/R3K3 b - - 0 1", 3),
];

#[test]
fn the_counted_positions_are_counted_right() {
    for (fen, pieces) in COUNTED {
        let pos = Position::from_fen(fen).expect("test FEN");
        assert_eq!(Square::all().filter(|&sq| pos.piece_at(sq).is_some()).count(), pieces, "{fen}");
    }
}

/// The network that plays: its output through the optimised path is the textbook formula's.
#[test]
fn the_embedded_network_gives_the_plain_formula() {
    for (fen, pieces) in COUNTED {
        let pos = Position::from_fen(fen).expect("test FEN");
        assert_eq!(evaluate(&NETWORK, &pos), plain_output(&NETWORK, &pos, bucket(pieces, BUCKETS)), "{fen}");
    }
}

/// A position is read through the output weights of its piece count's bucket, and with
/// buckets that differ, another bucket would have given another output.
#[test]
fn each_position_reads_its_own_bucket() {
    let net = bucketed::<8>();
    let mut seen = [false; 8];
    for (fen, pieces) in COUNTED {
        let pos = Position::from_fen(fen).expect("test FEN");
        let own = (pieces - 2) / 4;
        seen[own] = true;
        let got = output_for(&net, &refresh(&net, &pos), &pos);
        assert_eq!(got, plain_output(&net, &pos, own), "{fen}");
        for other in (0..8).filter(|&k| k != own) {
            assert_ne!(got, plain_output(&net, &pos, other), "{fen}: buckets {own} and {other}");
        }
    }
    assert_eq!(seen.iter().filter(|&&s| s).count(), 7, "the positions cover seven buckets");
}

/// Every SIMD path computes each bucket's output sums alike on real accumulators.
#[test]
fn every_path_agrees_in_every_bucket() {
    let net = bucketed::<8>();
    for (fen, _) in COUNTED {
        let acc = refresh(&net, &Position::from_fen(fen).expect("test FEN"));
        for (acc, w2) in acc.iter().flat_map(|a| net.w2.iter().map(move |w| (a, w))) {
            for w in [&w2[..HIDDEN], &w2[HIDDEN..]] {
                let expected = simd::portable::activated_dot(&acc.0, w);
                assert_eq!(simd::activated_dot(&acc.0, w), expected);
                #[cfg(target_arch = "x86_64")]
                assert_eq!(simd::sse2::activated_dot(&acc.0, w), expected);
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: AVX2 checked; `w` holds HIDDEN elements.
                    assert_eq!(unsafe { simd::avx2::activated_dot(&acc.0, w) }, expected);
                }
            }
        }
    }
}

/// The same position with colours swapped (and the board mirrored) gets the same output.
#[test]
fn both_sides_are_seen_alike() {
    let pairs = [
        (
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "rnbqk2r/pppp1ppp/5n2/2b1p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4",
        ),
        ("8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 1", "8/8/p4p1k/Pp2pP1p/1P1pP2P/3P4/5K2/8 w - - 0 1"),
    ];
    for (a, b) in pairs {
        let (a, b) = (Position::from_fen(a).expect("test FEN"), Position::from_fen(b).expect("test FEN"));
        assert_eq!(evaluate(&NETWORK, &a), evaluate(&NETWORK, &b));
    }
}

/// The run-time loader takes every kept network of this build's shape, to the same weights
/// as the compile-time parser, and refuses the others by what differs.
#[test]
fn the_loader_takes_the_kept_networks_of_this_shape() {
    let again = Network::from_bytes(EMBEDDED).expect("the embedded file");
    assert!(again.w1 == NETWORK.w1 && again.b1 == NETWORK.b1 && again.w2 == NETWORK.w2);
    assert_eq!((again.b2, again.scale, again.base), (NETWORK.b2, NETWORK.scale, NETWORK.base));
    let mut loaded = 0;
    for k in KEPT {
        match Network::from_bytes(k.bytes) {
            Ok(net) => {
                assert_eq!((k.hidden, k.base, k.buckets), (HIDDEN, BASE, BUCKETS), "{}", k.name);
                assert!(net.to_bytes() == k.bytes, "{} reads back to other bytes", k.name);
                loaded += 1;
            }
            Err(NetworkFileError::OtherHidden { found, build }) => {
                assert_eq!((found, build), (k.hidden, HIDDEN), "{}", k.name);
                assert_ne!(k.hidden, HIDDEN, "{}", k.name);
            }
            Err(NetworkFileError::OtherBuckets { found, build }) => {
                assert_eq!((found, build), (k.buckets, BUCKETS), "{}", k.name);
                assert_ne!(k.buckets, BUCKETS, "{}", k.name);
            }
            // The kept networks have one king bucket; a build may embed one with more.
            Err(NetworkFileError::OtherKings { found, build }) => assert_eq!((found, build), (1, KINGS), "{}", k.name),
            Err(e) => panic!("{}: {e}", k.name),
        }
    }
    // The table says which kept networks have the embedded one's shape (the default
    // build's own among them); with king buckets compiled in, none of one king bucket loads.
    let same_shape = KEPT.iter().filter(|k| (k.hidden, k.base, k.buckets) == (HIDDEN, BASE, BUCKETS)).count();
    assert_eq!(loaded, if KINGS == 1 { same_shape } else { 0 });
}

/// Damaged and foreign files are refused with the error that names the damage.
#[test]
fn the_loader_refuses_damaged_and_foreign_files() {
    let n = EMBEDDED.len();
    let err = |b: &[u8]| Network::from_bytes(b).err();
    assert_eq!(err(&EMBEDDED[..n - 1]), Some(NetworkFileError::Truncated { expected: n, found: n - 1 }));
    assert_eq!(err(&EMBEDDED[..100]), Some(NetworkFileError::Truncated { expected: n, found: 100 }));
    let mut long = EMBEDDED.to_vec();
    long.push(0);
    assert_eq!(err(&long), Some(NetworkFileError::TrailingBytes { expected: n }));
    assert_eq!(err(b""), Some(NetworkFileError::BadMagic));
    assert_eq!(err(&EMBEDDED[..20]), Some(NetworkFileError::BadMagic));
    let mut garbled = EMBEDDED.to_vec();
    garbled[3] ^= 0x20;
    assert_eq!(err(&garbled), Some(NetworkFileError::BadMagic));
    let mut odd = EMBEDDED.to_vec();
    odd[8..12].copy_from_slice(&(HIDDEN as u32 + 8).to_le_bytes());
    assert_eq!(err(&odd), Some(NetworkFileError::HiddenSize(HIDDEN as u32 + 8)));

    let other = if BASE == Base::Full { Base::None } else { Base::Full };
    let mut foreign = Network::<BUCKETS, KINGS>::read_boxed(EMBEDDED).expect("the embedded file");
    foreign.base = other;
    assert_eq!(err(&foreign.to_bytes()), Some(NetworkFileError::OtherBase { found: other, build: BASE }));
    let mut unknown = bucketed::<1>();
    unknown.base = Base::None;
    let mut unknown = unknown.to_bytes();
    unknown[16] = 7;
    assert_eq!(err(&unknown), Some(NetworkFileError::UnknownBase(7)));

    let eight = bucketed::<8>().to_bytes();
    if BUCKETS != 8 {
        assert_eq!(err(&eight), Some(NetworkFileError::OtherBuckets { found: 8, build: BUCKETS }));
    }
    let mut many = eight.clone();
    many[20..24].copy_from_slice(&40u32.to_le_bytes());
    assert_eq!(err(&many), Some(NetworkFileError::BucketCount(40)));
}

/// A file on disk: loaded when good; a missing file, a directory and a garbled file are
/// errors, not panics.
#[test]
fn the_loader_reads_files() {
    let dir = std::env::temp_dir().join(format!("ox88-nnue-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let good = dir.join("good.nnue");
    std::fs::write(&good, EMBEDDED).expect("write");
    let net = Network::load(&good).expect("the embedded network's bytes");
    assert!(net.to_bytes() == EMBEDDED, "the file read back to other bytes");
    assert!(matches!(Network::load(&dir.join("missing.nnue")), Err(NetworkLoadError::Io(_))));
    assert!(matches!(Network::load(&dir), Err(NetworkLoadError::Io(_))));
    let huge = dir.join("huge.nnue");
    let mut bytes = EMBEDDED.to_vec();
    bytes.resize(8 << 20, 0);
    std::fs::write(&huge, &bytes).expect("write");
    let e = Network::load(&huge).err().map(|e| e.to_string());
    assert_eq!(e, Some(NetworkFileError::TrailingBytes { expected: EMBEDDED.len() }.to_string()));
    let _ = std::fs::remove_dir_all(&dir);
}
