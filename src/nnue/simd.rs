//! The network's two hot loops, with an AVX2 path chosen at run time and a portable path.
//!
//! Every path computes the same integers: accumulator updates wrap in 16 bits, the output
//! sums exact 32-bit products, and integer addition does not depend on the order it is done
//! in. So `bench` gives one node count on every machine, whichever path runs.

use super::{HIDDEN, QA};

/// `dst = src + add - sub0 (- sub1)`, lane by lane, wrapping.
#[inline]
pub fn update(dst: &mut [i16; HIDDEN], src: &[i16; HIDDEN], add: &[i16], sub0: &[i16], sub1: Option<&[i16]>) {
    assert!(add.len() == HIDDEN && sub0.len() == HIDDEN && sub1.is_none_or(|s| s.len() == HIDDEN));
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked above) and every slice holds HIDDEN elements.
        unsafe { avx2::update(dst, src, add, sub0, sub1) };
        return;
    }
    portable::update(dst, src, add, sub0, sub1);
}

/// `acc += sum(adds) - sum(subs)`, lane by lane, wrapping: a king bucket's kept accumulator
/// brought up to date by every square that changed, each lane loaded and stored once.
#[inline]
pub fn apply(acc: &mut [i16; HIDDEN], adds: &[&[i16]], subs: &[&[i16]]) {
    assert!(adds.iter().chain(subs).all(|r| r.len() == HIDDEN));
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked above) and every row holds HIDDEN elements.
        unsafe { avx2::apply(acc, adds, subs) };
        return;
    }
    portable::apply(acc, adds, subs);
}

/// `sum(c * c * w)` with `c` the accumulator clipped to `0..=QA`. `c * w` fits an `i16`
/// (|w| <= 127 after the trainer's clip), so the 16-bit product times `c`, summed in pairs
/// into 32 bits, is one multiply-add instruction.
#[inline]
pub fn activated_dot(acc: &[i16; HIDDEN], w: &[i16]) -> i32 {
    assert!(w.len() == HIDDEN);
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked above) and both slices hold HIDDEN elements.
        return unsafe { avx2::activated_dot(acc, w) };
    }
    #[cfg(target_arch = "x86_64")]
    return sse2::activated_dot(acc, w);
    #[cfg(not(target_arch = "x86_64"))]
    portable::activated_dot(acc, w)
}

/// SSE2 is part of the x86-64 baseline: the output layer's path on x86-64 CPUs without AVX2.
#[cfg(target_arch = "x86_64")]
pub mod sse2 {
    use super::{HIDDEN, QA};
    use std::arch::x86_64::*;

    #[inline]
    pub fn activated_dot(acc: &[i16; HIDDEN], w: &[i16]) -> i32 {
        assert!(w.len() == HIDDEN);
        // SAFETY: SSE2 is part of the x86-64 baseline; loads are unaligned and stay inside
        // the two slices of HIDDEN (a multiple of 8) elements each.
        unsafe {
            let (zero, top) = (_mm_setzero_si128(), _mm_set1_epi16(QA as i16));
            let mut sum = _mm_setzero_si128();
            for i in (0..HIDDEN).step_by(8) {
                let a = _mm_loadu_si128(acc.as_ptr().add(i) as *const __m128i);
                let c = _mm_min_epi16(_mm_max_epi16(a, zero), top);
                let wv = _mm_loadu_si128(w.as_ptr().add(i) as *const __m128i);
                sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_mullo_epi16(c, wv), c));
            }
            let hi = _mm_shuffle_epi32(sum, 0b01_00_11_10);
            let s2 = _mm_add_epi32(sum, hi);
            let s1 = _mm_add_epi32(s2, _mm_shuffle_epi32(s2, 0b10_11_00_01));
            _mm_cvtsi128_si32(s1)
        }
    }
}

pub mod portable {
    use super::super::activated;
    use super::HIDDEN;

    #[inline]
    pub fn update(dst: &mut [i16; HIDDEN], src: &[i16; HIDDEN], add: &[i16], sub0: &[i16], sub1: Option<&[i16]>) {
        match sub1 {
            Some(sub1) => {
                for j in 0..HIDDEN {
                    dst[j] = src[j].wrapping_add(add[j]).wrapping_sub(sub0[j]).wrapping_sub(sub1[j]);
                }
            }
            None => {
                for j in 0..HIDDEN {
                    dst[j] = src[j].wrapping_add(add[j]).wrapping_sub(sub0[j]);
                }
            }
        }
    }

    #[inline]
    pub fn apply(acc: &mut [i16; HIDDEN], adds: &[&[i16]], subs: &[&[i16]]) {
        for row in adds {
            for (a, w) in acc.iter_mut().zip(row.iter()) {
                *a = a.wrapping_add(*w);
            }
        }
        for row in subs {
            for (a, w) in acc.iter_mut().zip(row.iter()) {
                *a = a.wrapping_sub(*w);
            }
        }
    }

    /// x86-64 uses the SSE2 or AVX2 path; this one is the other targets' and the tests' oracle.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    #[inline]
    pub fn activated_dot(acc: &[i16; HIDDEN], w: &[i16]) -> i32 {
        acc.iter().zip(w).fold(0i32, |sum, (&a, &w)| sum.wrapping_add(activated(a, w)))
    }
}

#[cfg(target_arch = "x86_64")]
pub mod avx2 {
    use super::{HIDDEN, QA};
    use std::arch::x86_64::*;

    const LANES: usize = 16;

    /// # Safety
    /// The CPU has AVX2, and `add`, `sub0`, `sub1` hold at least `HIDDEN` elements.
    #[target_feature(enable = "avx2")]
    pub unsafe fn update(
        dst: &mut [i16; HIDDEN],
        src: &[i16; HIDDEN],
        add: &[i16],
        sub0: &[i16],
        sub1: Option<&[i16]>,
    ) {
        let (d, s, a, s0) = (dst.as_mut_ptr(), src.as_ptr(), add.as_ptr(), sub0.as_ptr());
        for i in (0..HIDDEN).step_by(LANES) {
            let mut v = _mm256_loadu_si256(s.add(i) as *const __m256i);
            v = _mm256_add_epi16(v, _mm256_loadu_si256(a.add(i) as *const __m256i));
            v = _mm256_sub_epi16(v, _mm256_loadu_si256(s0.add(i) as *const __m256i));
            if let Some(s1) = sub1 {
                v = _mm256_sub_epi16(v, _mm256_loadu_si256(s1.as_ptr().add(i) as *const __m256i));
            }
            _mm256_storeu_si256(d.add(i) as *mut __m256i, v);
        }
    }

    /// # Safety
    /// The CPU has AVX2, and every row holds at least `HIDDEN` elements.
    #[target_feature(enable = "avx2")]
    pub unsafe fn apply(acc: &mut [i16; HIDDEN], adds: &[&[i16]], subs: &[&[i16]]) {
        let d = acc.as_mut_ptr();
        for i in (0..HIDDEN).step_by(LANES) {
            let mut v = _mm256_loadu_si256(d.add(i) as *const __m256i);
            for row in adds {
                v = _mm256_add_epi16(v, _mm256_loadu_si256(row.as_ptr().add(i) as *const __m256i));
            }
            for row in subs {
                v = _mm256_sub_epi16(v, _mm256_loadu_si256(row.as_ptr().add(i) as *const __m256i));
            }
            _mm256_storeu_si256(d.add(i) as *mut __m256i, v);
        }
    }

    /// # Safety
    /// The CPU has AVX2, and `w` holds at least `HIDDEN` elements.
    #[target_feature(enable = "avx2")]
    pub unsafe fn activated_dot(acc: &[i16; HIDDEN], w: &[i16]) -> i32 {
        let (zero, top) = (_mm256_setzero_si256(), _mm256_set1_epi16(QA as i16));
        let mut sum = _mm256_setzero_si256();
        for i in (0..HIDDEN).step_by(LANES) {
            let a = _mm256_loadu_si256(acc.as_ptr().add(i) as *const __m256i);
            let c = _mm256_min_epi16(_mm256_max_epi16(a, zero), top);
            let wv = _mm256_loadu_si256(w.as_ptr().add(i) as *const __m256i);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_mullo_epi16(c, wv), c));
        }
        let half = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
        let s2 = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0b01_00_11_10));
        let s1 = _mm_add_epi32(s2, _mm_shuffle_epi32(s2, 0b10_11_00_01));
        _mm_cvtsi128_si32(s1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The paths agree on random rows, including values that wrap and that clip.
    #[test]
    fn every_path_gives_the_same_integers() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for round in 0..2000 {
            let mut rows = [[0i16; HIDDEN]; 4];
            for row in rows.iter_mut() {
                for x in row.iter_mut() {
                    *x = if round % 2 == 0 { rng.gen() } else { rng.gen_range(-300..600) };
                }
            }
            let w: Vec<i16> = (0..HIDDEN).map(|_| rng.gen_range(-127..=127)).collect();
            for sub1 in [None, Some(&rows[3][..])] {
                let mut a = [0i16; HIDDEN];
                portable::update(&mut a, &rows[0], &rows[1], &rows[2], sub1);
                let mut b = [0i16; HIDDEN];
                update(&mut b, &rows[0], &rows[1], &rows[2], sub1);
                assert_eq!(a, b);
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    let mut c = [0i16; HIDDEN];
                    // SAFETY: AVX2 checked; the rows hold HIDDEN elements.
                    unsafe { avx2::update(&mut c, &rows[0], &rows[1], &rows[2], sub1) };
                    assert_eq!(a, c);
                }
            }
            let (adds, subs): (Vec<&[i16]>, Vec<&[i16]>) = match round % 3 {
                0 => (vec![&rows[1][..], &rows[2][..]], vec![&rows[3][..]]),
                1 => (vec![], vec![&rows[1][..], &rows[3][..]]),
                _ => (vec![&rows[2][..]], vec![]),
            };
            let mut a = rows[0];
            portable::apply(&mut a, &adds, &subs);
            let mut b = rows[0];
            apply(&mut b, &adds, &subs);
            assert_eq!(a, b);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                let mut c = rows[0];
                // SAFETY: AVX2 checked; the rows hold HIDDEN elements.
                unsafe { avx2::apply(&mut c, &adds, &subs) };
                assert_eq!(a, c);
            }
            let expected = portable::activated_dot(&rows[0], &w);
            assert_eq!(activated_dot(&rows[0], &w), expected);
            #[cfg(target_arch = "x86_64")]
            assert_eq!(sse2::activated_dot(&rows[0], &w), expected);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 checked; `w` holds HIDDEN elements.
                assert_eq!(unsafe { avx2::activated_dot(&rows[0], &w) }, expected);
            }
        }
    }
}
