//! The network file format: one reader of the header and the length, shared by the
//! compile-time parser of the embedded file, the run-time loader (`EvalFile`) and the
//! trainer (`read_layers`), so that the three never disagree on what a file is.

use super::{Base, Network, BASE, BUCKETS, HIDDEN, INPUTS, KINGS, MAX_BUCKETS, MAX_KINGS};

/// The first format: a residual network over the full hand-written evaluation (n1, n2).
pub(super) const MAGIC: &[u8; 8] = b"OX88NNUE";
/// The second: the header names the [`Base`] the network was trained on.
pub(super) const MAGIC_BASE: &[u8; 8] = b"OX88NNB2";
/// The third: the header also gives the number of output buckets (2 or more; a network of
/// one bucket keeps one of the formats above, so its file stays what it was).
pub(super) const MAGIC_BUCKETS: &[u8; 8] = b"OX88NNB3";
/// The fourth: after the output buckets, the number of king buckets (2 or more) and the map
/// of the 64 squares to them (a byte each); a network of one king bucket keeps a format above.
pub(super) const MAGIC_KINGS: &[u8; 8] = b"OX88NNB4";
/// The fourth format's header: magic, hidden size, scale, base, output and king buckets, map.
const KINGS_HEADER_LEN: usize = 28 + 64;

/// The widest hidden layer a file may announce: a bound, so that a garbled header never asks
/// for gigabytes.
const MAX_HIDDEN: usize = 4096;
/// The longest file any header can announce (the widest layer, every bucket, the longest
/// header): the loader reads no more than one byte past it.
const MAX_FILE_LEN: usize = file_len(KINGS_HEADER_LEN, MAX_HIDDEN, MAX_BUCKETS, MAX_KINGS);

const fn has_magic(b: &[u8], magic: &[u8; 8]) -> bool {
    let mut i = 0;
    while i < 8 {
        if b[i] != magic[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// What a file's header says.
#[derive(Clone, Copy)]
pub(super) struct Header {
    pub hidden: usize,
    pub scale: i32,
    pub base: Base,
    pub buckets: usize,
    /// King buckets, and the bucket of each square of a perspective's own king.
    pub kings: usize,
    pub map: [u8; 64],
    /// Where the weights start.
    pub len: usize,
}

impl Header {
    /// The length of the whole file this header announces.
    const fn file_len(&self) -> usize {
        file_len(self.len, self.hidden, self.buckets, self.kings)
    }
}

/// Why a network file cannot be read, or cannot be played by this build.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum NetworkFileError {
    /// Too short for its header, or none of the three magics.
    BadMagic,
    UnknownBase(u32),
    /// A bucketed file announcing fewer than 2 or more than [`MAX_BUCKETS`] buckets.
    BucketCount(u32),
    /// A king-bucketed file announcing fewer than 2 or more than [`MAX_KINGS`] king buckets.
    KingCount(u32),
    /// A king-bucketed file whose map sends `square` to a bucket it does not have.
    KingMap {
        square: usize,
        bucket: u8,
    },
    /// The hidden size is not a multiple of 16 (what the SIMD paths need) up to 4096.
    HiddenSize(u32),
    /// Shorter than its header announces.
    Truncated {
        expected: usize,
        found: usize,
    },
    /// Longer than its header announces.
    TrailingBytes {
        expected: usize,
    },
    /// A good file of another width than the one this build was compiled for.
    OtherHidden {
        found: usize,
        build: usize,
    },
    /// A good file trained on another base than the one this build evaluates with.
    OtherBase {
        found: Base,
        build: Base,
    },
    /// A good file with another number of output buckets than this build's.
    OtherBuckets {
        found: usize,
        build: usize,
    },
    /// A good file with another number of king buckets than this build's.
    OtherKings {
        found: usize,
        build: usize,
    },
}

impl NetworkFileError {
    /// The message of a compile-time failure, which cannot format numbers.
    const fn build_message(self) -> &'static str {
        match self {
            NetworkFileError::BadMagic => "network file: bad magic",
            NetworkFileError::UnknownBase(_) => "network file: unknown base",
            NetworkFileError::BucketCount(_) => "network file: bucket count out of range",
            NetworkFileError::KingCount(_) => "network file: king bucket count out of range",
            NetworkFileError::KingMap { .. } => "network file: the king map names a bucket the file lacks",
            NetworkFileError::HiddenSize(_) => "network file: hidden size must be a multiple of 16 up to 4096",
            NetworkFileError::Truncated { .. } => "network file: shorter than its header announces",
            NetworkFileError::TrailingBytes { .. } => "network file: longer than its header announces",
            NetworkFileError::OtherHidden { .. } => "network file: hidden size differs from the embedded network's",
            NetworkFileError::OtherBase { .. } => "network file: base differs from the embedded network's",
            NetworkFileError::OtherBuckets { .. } => "network file: a different number of output buckets",
            NetworkFileError::OtherKings { .. } => "network file: a different number of king buckets",
        }
    }
}

impl std::fmt::Display for NetworkFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            NetworkFileError::BadMagic => f.write_str("not an ox88 network file (bad magic)"),
            NetworkFileError::UnknownBase(code) => write!(f, "unknown base code {code}"),
            NetworkFileError::BucketCount(n) => write!(f, "{n} output buckets (2 to {MAX_BUCKETS} expected)"),
            NetworkFileError::KingCount(n) => write!(f, "{n} king buckets (2 to {MAX_KINGS} expected)"),
            NetworkFileError::KingMap { square, bucket } => {
                write!(f, "the king map sends square {square} to bucket {bucket}, which the file lacks")
            }
            NetworkFileError::HiddenSize(n) => {
                write!(f, "hidden size {n} is not a positive multiple of 16 up to {MAX_HIDDEN}")
            }
            NetworkFileError::Truncated { expected, found } => {
                write!(f, "truncated: {found} bytes of the {expected} its header announces")
            }
            NetworkFileError::TrailingBytes { expected } => {
                write!(f, "longer than the {expected} bytes its header announces")
            }
            NetworkFileError::OtherHidden { found, build } => {
                write!(f, "hidden size {found}; this build evaluates networks of {build}")
            }
            NetworkFileError::OtherBase { found, build } => {
                write!(f, "trained on the {} base; this build evaluates with the {} base", found.name(), build.name())
            }
            NetworkFileError::OtherBuckets { found, build } => {
                write!(f, "{found} output buckets; this build's networks have {build}")
            }
            NetworkFileError::OtherKings { found, build } => {
                write!(f, "{found} king buckets; this build's networks have {build}")
            }
        }
    }
}

impl std::error::Error for NetworkFileError {}

/// Reads a header; the length is checked apart ([`check_length`]), after the shape, so that
/// a file of another width is told as such rather than as of a wrong length.
pub(super) const fn read_header(b: &[u8]) -> Result<Header, NetworkFileError> {
    if b.len() < 24 {
        return Err(NetworkFileError::BadMagic);
    }
    let mut map = [0u8; 64];
    let mut kings = 1;
    let (base, buckets, len) = if has_magic(b, MAGIC) {
        (0, 1, 16)
    } else if has_magic(b, MAGIC_BASE) {
        (read_i32(b, 16) as u32, 1, 20)
    } else if has_magic(b, MAGIC_BUCKETS) || has_magic(b, MAGIC_KINGS) {
        let buckets = read_i32(b, 20) as u32;
        let least = if has_magic(b, MAGIC_KINGS) { 1 } else { 2 };
        if buckets < least || buckets as usize > MAX_BUCKETS {
            return Err(NetworkFileError::BucketCount(buckets));
        }
        if !has_magic(b, MAGIC_KINGS) {
            (read_i32(b, 16) as u32, buckets as usize, 24)
        } else {
            if b.len() < KINGS_HEADER_LEN {
                return Err(NetworkFileError::Truncated { expected: KINGS_HEADER_LEN, found: b.len() });
            }
            let k = read_i32(b, 24) as u32;
            if k < 2 || k as usize > MAX_KINGS {
                return Err(NetworkFileError::KingCount(k));
            }
            kings = k as usize;
            let mut square = 0;
            while square < 64 {
                map[square] = b[28 + square];
                if map[square] as usize >= kings {
                    return Err(NetworkFileError::KingMap { square, bucket: map[square] });
                }
                square += 1;
            }
            (read_i32(b, 16) as u32, buckets as usize, KINGS_HEADER_LEN)
        }
    } else {
        return Err(NetworkFileError::BadMagic);
    };
    let Some(base) = Base::from_code(base) else {
        return Err(NetworkFileError::UnknownBase(base));
    };
    let hidden = read_i32(b, 8) as u32;
    if hidden == 0 || !hidden.is_multiple_of(16) || hidden as usize > MAX_HIDDEN {
        return Err(NetworkFileError::HiddenSize(hidden));
    }
    Ok(Header { hidden: hidden as usize, scale: read_i32(b, 12), base, buckets, kings, map, len })
}

/// Whether `b` is as long as its header `h` announces.
pub(super) const fn check_length(b: &[u8], h: &Header) -> Result<(), NetworkFileError> {
    let expected = h.file_len();
    if b.len() < expected {
        Err(NetworkFileError::Truncated { expected, found: b.len() })
    } else if b.len() > expected {
        Err(NetworkFileError::TrailingBytes { expected })
    } else {
        Ok(())
    }
}

/// Whether a file of header `h` fits a `Network<B, K>` of this build (its hidden width).
const fn check_shape<const B: usize, const K: usize>(h: &Header) -> Result<(), NetworkFileError> {
    if h.hidden != HIDDEN {
        Err(NetworkFileError::OtherHidden { found: h.hidden, build: HIDDEN })
    } else if h.buckets != B {
        Err(NetworkFileError::OtherBuckets { found: h.buckets, build: B })
    } else if h.kings != K {
        Err(NetworkFileError::OtherKings { found: h.kings, build: K })
    } else {
        Ok(())
    }
}

/// Reads and checks a whole file for a `Network<B, K>`: the header, the shape, the length.
const fn check_file<const B: usize, const K: usize>(b: &[u8]) -> Result<Header, NetworkFileError> {
    let h = match read_header(b) {
        Ok(h) => h,
        Err(e) => return Err(e),
    };
    if let Err(e) = check_shape::<B, K>(&h) {
        return Err(e);
    }
    match check_length(b, &h) {
        Ok(()) => Ok(h),
        Err(e) => Err(e),
    }
}

/// Fills `net` from a file checked by [`check_file`].
const fn read_weights<const B: usize, const K: usize>(b: &[u8], h: &Header, net: &mut Network<B, K>) {
    net.scale = h.scale;
    net.base = h.base;
    net.kings = h.map;
    let mut at = h.len;
    let mut k = 0;
    while k < K {
        at = read_i16s(b, at, &mut net.w1[k]);
        k += 1;
    }
    at = read_i16s(b, at, &mut net.b1);
    let mut k = 0;
    while k < B {
        at = read_i16s(b, at, &mut net.w2[k]);
        k += 1;
    }
    let mut k = 0;
    while k < B {
        net.b2[k] = read_i32(b, at);
        at += 4;
        k += 1;
    }
}

/// The header of the embedded file; a malformed file stops the build here.
pub(super) const fn embedded_header(b: &[u8]) -> Header {
    match read_header(b) {
        Ok(h) => h,
        Err(e) => panic!("{}", e.build_message()),
    }
}

/// Reads a network file of `B` buckets; run at compile time on the embedded file, where a
/// malformed file stops the build.
pub(super) const fn parse<const B: usize, const K: usize>(b: &[u8]) -> Network<B, K> {
    let h = match check_file::<B, K>(b) {
        Ok(h) => h,
        Err(e) => panic!("{}", e.build_message()),
    };
    let mut net = Network {
        w1: [[0; INPUTS * HIDDEN]; K],
        b1: [0; HIDDEN],
        w2: [[0; 2 * HIDDEN]; B],
        b2: [0; B],
        scale: 0,
        base: h.base,
        kings: h.map,
    };
    read_weights(b, &h, &mut net);
    net
}

impl Network {
    /// Reads a network file at run time (`EvalFile`): it must have this build's hidden width,
    /// bucket counts and base, since those are compiled in (its king map may differ). On the
    /// heap: it is as large as the file, too large for a small thread's stack.
    pub fn from_bytes(b: &[u8]) -> Result<Box<Network>, NetworkFileError> {
        let h = check_file::<BUCKETS, KINGS>(b)?;
        if h.base != BASE {
            return Err(NetworkFileError::OtherBase { found: h.base, build: BASE });
        }
        Network::read_boxed(b)
    }

    /// [`Network::from_bytes`] of the file at `path`, read no further than the longest file
    /// a header can announce, so that a wrong path (a device, a huge file) costs nothing.
    pub fn load(path: &std::path::Path) -> Result<Box<Network>, NetworkLoadError> {
        use std::io::Read;
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_FILE_LEN as u64 + 1).read_to_end(&mut bytes))
            .map_err(NetworkLoadError::Io)?;
        Network::from_bytes(&bytes).map_err(NetworkLoadError::File)
    }
}

impl<const B: usize, const K: usize> Network<B, K> {
    /// Reads a file of `B` output and `K` king buckets, of any base, onto the heap.
    pub(super) fn read_boxed(b: &[u8]) -> Result<Box<Network<B, K>>, NetworkFileError> {
        let h = check_file::<B, K>(b)?;
        let mut net = Network::boxed_zero();
        read_weights(b, &h, &mut net);
        Ok(net)
    }
}

/// Why [`Network::load`] failed.
#[derive(Debug)]
pub enum NetworkLoadError {
    Io(std::io::Error),
    File(NetworkFileError),
}

impl std::fmt::Display for NetworkLoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetworkLoadError::Io(e) => write!(f, "cannot be read ({e})"),
            NetworkLoadError::File(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for NetworkLoadError {}

/// A network file of any width and bucket count, as its integers: what the trainer starts
/// from when it refines a network (`--init`).
pub struct Layers {
    pub scale: i32,
    pub base: Base,
    /// The king bucket of each square (all 0 for one king bucket).
    pub kings: [u8; 64],
    /// King bucket by king bucket, the 768 inputs' rows.
    pub w1: Vec<i16>,
    pub b1: Vec<i16>,
    /// Bucket by bucket, the side to move's half first.
    pub w2: Vec<i16>,
    pub b2: Vec<i32>,
}

/// The length of a file whose header is `header_len` bytes: the 16-bit layers, then a 32-bit
/// output bias per bucket.
pub(super) const fn file_len(header_len: usize, hidden: usize, buckets: usize, kings: usize) -> usize {
    header_len + 2 * (INPUTS * hidden * kings + hidden + 2 * hidden * buckets) + 4 * buckets
}

/// Reads what [`file_bytes`] writes.
pub fn read_layers(b: &[u8]) -> Result<Layers, NetworkFileError> {
    let h = read_header(b)?;
    check_length(b, &h)?;
    let mut l = Layers {
        scale: h.scale,
        base: h.base,
        kings: h.map,
        w1: vec![0; INPUTS * h.hidden * h.kings],
        b1: vec![0; h.hidden],
        w2: vec![0; 2 * h.hidden * h.buckets],
        b2: vec![0; h.buckets],
    };
    let mut at = read_i16s(b, h.len, &mut l.w1);
    at = read_i16s(b, at, &mut l.b1);
    at = read_i16s(b, at, &mut l.w2);
    for x in l.b2.iter_mut() {
        *x = read_i32(b, at);
        at += 4;
    }
    Ok(l)
}

/// A network file of any width (`b1.len()`), any number of output buckets (`b2.len()`) and
/// of king buckets (`w1.len()` over a bucket's rows): magic, hidden size (u32), scale (i32),
/// the base (u32, only after `OX88NNB2`, `OX88NNB3` or `OX88NNB4`), the number of output
/// buckets (u32, only after `OX88NNB3` or `OX88NNB4`), the number of king buckets (u32) and
/// the king map (64 bytes; both only after `OX88NNB4`), then `w1` (king bucket by king
/// bucket), `b1`, `w2` (bucket by bucket) as little-endian `i16` and the buckets' `b2` as
/// `i32`. A network of one king bucket keeps the older formats, and of one output bucket
/// too the first two (the first for a full base, the second for the others), so their files
/// stay byte for byte what they were. The trainer writes networks of any shape with it.
pub fn file_bytes(scale: i32, base: Base, kings: &[u8; 64], w1: &[i16], b1: &[i16], w2: &[i16], b2: &[i32]) -> Vec<u8> {
    let (hidden, buckets) = (b1.len(), b2.len());
    let king_buckets = w1.len() / (INPUTS * hidden).max(1);
    assert!(
        w1.len() == INPUTS * hidden * king_buckets && w2.len() == 2 * hidden * buckets,
        "network layers of different widths"
    );
    assert!((1..=MAX_BUCKETS).contains(&buckets), "{buckets} output buckets");
    assert!((1..=MAX_KINGS).contains(&king_buckets), "{king_buckets} king buckets");
    assert!(kings.iter().all(|&k| (k as usize) < king_buckets), "a king map beyond the file's buckets");
    let mut out = Vec::with_capacity(KINGS_HEADER_LEN + 2 * (w1.len() + b1.len() + w2.len()) + 4 * buckets);
    out.extend_from_slice(match (king_buckets, buckets, base) {
        (1, 1, Base::Full) => MAGIC,
        (1, 1, _) => MAGIC_BASE,
        (1, _, _) => MAGIC_BUCKETS,
        _ => MAGIC_KINGS,
    });
    out.extend_from_slice(&(hidden as u32).to_le_bytes());
    out.extend_from_slice(&scale.to_le_bytes());
    if king_buckets > 1 || buckets > 1 || base != Base::Full {
        out.extend_from_slice(&(base as u32).to_le_bytes());
    }
    if king_buckets > 1 || buckets > 1 {
        out.extend_from_slice(&(buckets as u32).to_le_bytes());
    }
    if king_buckets > 1 {
        out.extend_from_slice(&(king_buckets as u32).to_le_bytes());
        out.extend_from_slice(kings);
    }
    for x in w1.iter().chain(b1).chain(w2) {
        out.extend_from_slice(&x.to_le_bytes());
    }
    for x in b2 {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

const fn read_i16(b: &[u8], at: usize) -> i16 {
    i16::from_le_bytes([b[at], b[at + 1]])
}

pub(super) const fn read_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Fills `out` with the little-endian `i16`s of `b` from `at`; returns where they end.
const fn read_i16s(b: &[u8], mut at: usize, out: &mut [i16]) -> usize {
    let mut i = 0;
    while i < out.len() {
        out[i] = read_i16(b, at);
        at += 2;
        i += 1;
    }
    at
}
