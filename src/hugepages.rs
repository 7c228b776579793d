//! Advice to the kernel on how to back the large hash tables (the search's transposition
//! table, the perft table).

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
