//! SplitMix64 (Steele, Lea and Flood, 2014): a seeded stream and its finaliser, for choices
//! that must look random yet replay exactly from a seed (the strength limit's pick, the
//! perft table's salts, the data generator's random plies). Not for Zobrist keys, which are
//! fixed at compile time by their own generator.

/// The stream's increment: 2^64 over the golden ratio, odd, so the state visits every value.
pub const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's finaliser: every bit of the input spread over the output.
#[inline]
pub const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A SplitMix64 stream: the state steps by [`GOLDEN_GAMMA`] and each output is its [`mix`].
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN_GAMMA);
        mix(self.0)
    }

    /// A number below `n` (which must not be 0); the modulo's bias is below `n / 2^64`.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// The stream of item `index` under `seed`: each index its own stream, so that items
    /// (games, openings) can be made in any order, on any thread.
    pub const fn for_index(seed: u64, index: u64) -> SplitMix64 {
        SplitMix64(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first five outputs for seed 1234567, as Rosetta Code's "Pseudo-random
    /// numbers/Splitmix64" task publishes them.
    #[test]
    fn the_stream_gives_the_published_outputs() {
        let mut s = SplitMix64::new(1234567);
        let want = [
            6457827717110365317u64,
            3203168211198807973,
            9817491932198370423,
            4593380528125082431,
            16408922859458223821,
        ];
        for w in want {
            assert_eq!(s.next_u64(), w);
        }
    }
}
