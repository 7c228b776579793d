//! Hints about the memory of the hash tables: to the kernel, how to back a large one (the
//! perft table); to the processor, what to load before it is needed.

/// Asks Linux to back the (still untouched) memory of a large table with 2 MB pages: probes
/// land all over the table, and with 4 KB pages nearly every one would also miss the TLB.
/// Only advice: where it is refused, or on other systems, the table works the same.
pub(crate) fn advise_huge_pages(start: usize, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let aligned = (start + PAGE - 1) & !(PAGE - 1);
        if bytes >= 4 << 20 && aligned < start + bytes {
            // SAFETY: the range lies inside the vector's own allocation, and MADV_HUGEPAGE
            // changes no contents, only how the kernel backs the pages.
            unsafe {
                libc::madvise(aligned as *mut libc::c_void, start + bytes - aligned, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, bytes);
}

/// Starts loading the cache line of `item`, for a read a little later: a hint, which
/// changes no result.
#[inline(always)]
pub(crate) fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and cannot fault, whatever the
    // address (the intrinsic is `unsafe` only because it takes a raw pointer); this one is of
    // a live reference anyway.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(item as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}
