//! The memory of the hash tables: how it is allocated ([`ZeroedSlice`]), hints to the kernel
//! about how to back a large one, and to the processor about what to load before it is
//! needed.

/// Asks Linux to back the (still untouched) memory of a large table with 2 MB pages: probes
/// land all over the table, and with 4 KB pages nearly every one would also miss the TLB.
/// Only advice: where it is refused, or on other systems, the table works the same.
fn advise_huge_pages(start: usize, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let aligned = (start + PAGE - 1) & !(PAGE - 1);
        if bytes >= 4 << 20 && aligned < start + bytes {
            // SAFETY: the range lies inside the table's own mapping, and MADV_HUGEPAGE
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

/// Types whose all-zero bytes are a valid value, so that a table of them can start as memory
/// the system hands out already zeroed.
///
/// # Safety
/// Every field, recursively, must accept the all-zero bit pattern (integers and atomics do;
/// references, `NonNull` and most enums do not).
pub(crate) unsafe trait Zeroable {}

/// A fixed-length slice of zeroed `T` for the large hash tables.
///
/// On Linux a table of 4 MB or more is fresh anonymous memory, aligned to 2 MB and advised to
/// 2 MB pages, so that a probe rarely misses the TLB (`bench` ran about 5% faster). The kernel
/// supplies each page, zeroed, at its first touch; the owner decides when that happens (the
/// transposition table touches every page at once, on as many threads as there are
/// processors, so that no search waits for it). Other tables and systems get zeroed heap
/// memory.
pub(crate) struct ZeroedSlice<T: Zeroable> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
    backing: Backing,
    _owns: std::marker::PhantomData<T>,
}

/// What a [`ZeroedSlice`] gives back when dropped.
enum Backing {
    None,
    Heap(std::alloc::Layout),
    #[cfg(target_os = "linux")]
    Mapped {
        base: usize,
        bytes: usize,
    },
}

/// The system refused the memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OutOfMemory;

// SAFETY: the slice owns its elements as a `Box<[T]>` would; sharing or sending it shares or
// sends only them.
unsafe impl<T: Zeroable + Send> Send for ZeroedSlice<T> {}
// SAFETY: as above.
unsafe impl<T: Zeroable + Sync> Sync for ZeroedSlice<T> {}

impl<T: Zeroable> ZeroedSlice<T> {
    /// Below this a table is not worth its own mapping.
    #[cfg(target_os = "linux")]
    const MAP_MIN: usize = 4 << 20;
    #[cfg(target_os = "linux")]
    const HUGE_PAGE: usize = 2 << 20;

    pub(crate) fn empty() -> ZeroedSlice<T> {
        ZeroedSlice {
            ptr: std::ptr::NonNull::dangling(),
            len: 0,
            backing: Backing::None,
            _owns: std::marker::PhantomData,
        }
    }

    /// `len` zeroed elements.
    pub(crate) fn new(len: usize) -> Result<ZeroedSlice<T>, OutOfMemory> {
        let layout = std::alloc::Layout::array::<T>(len).map_err(|_| OutOfMemory)?;
        if layout.size() == 0 {
            return Ok(ZeroedSlice::empty());
        }
        #[cfg(target_os = "linux")]
        if layout.size() >= Self::MAP_MIN {
            return Self::mapped(len, layout.size());
        }
        // SAFETY: the layout's size is not zero.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
        let ptr = std::ptr::NonNull::new(ptr).ok_or(OutOfMemory)?;
        Ok(ZeroedSlice { ptr, len, backing: Backing::Heap(layout), _owns: std::marker::PhantomData })
    }

    #[cfg(target_os = "linux")]
    fn mapped(len: usize, bytes: usize) -> Result<ZeroedSlice<T>, OutOfMemory> {
        // One huge page more than needed, so that the table can start on a 2 MB boundary.
        let total = bytes.checked_add(Self::HUGE_PAGE).ok_or(OutOfMemory)?;
        // SAFETY: a new private anonymous mapping; it aliases nothing.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(OutOfMemory);
        }
        let start = (base as usize + Self::HUGE_PAGE - 1) & !(Self::HUGE_PAGE - 1);
        advise_huge_pages(start, bytes);
        // Anonymous memory reads as zero, a valid `T`; `start` is 2 MB aligned, enough for any `T` here.
        let ptr = std::ptr::NonNull::new(start as *mut T).ok_or(OutOfMemory)?;
        Ok(ZeroedSlice {
            ptr,
            len,
            backing: Backing::Mapped { base: base as usize, bytes: total },
            _owns: std::marker::PhantomData,
        })
    }
}

impl<T: Zeroable> std::ops::Deref for ZeroedSlice<T> {
    type Target = [T];

    #[inline(always)]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points to `len` initialised (zero-valid) elements owned by `self`, or
        // is dangling with `len` 0.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> Drop for ZeroedSlice<T> {
    fn drop(&mut self) {
        if std::mem::needs_drop::<T>() {
            // SAFETY: the elements are valid and dropped once, here.
            unsafe { std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.len)) };
        }
        match self.backing {
            Backing::None => {}
            // SAFETY: allocated by `alloc_zeroed` with this layout.
            Backing::Heap(layout) => unsafe { std::alloc::dealloc(self.ptr.as_ptr() as *mut u8, layout) },
            #[cfg(target_os = "linux")]
            // SAFETY: the whole mapping made by `mapped`, unmapped once.
            Backing::Mapped { base, bytes } => unsafe {
                libc::munmap(base as *mut libc::c_void, bytes);
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    // SAFETY: an atomic integer accepts zero.
    unsafe impl Zeroable for AtomicU64 {}

    #[test]
    fn zeroed_slices_read_zero_and_keep_what_is_written() {
        for len in [0, 1, 1000, (4 << 20) / 8, (5 << 20) / 8 + 3] {
            let s = ZeroedSlice::<AtomicU64>::new(len).unwrap();
            assert_eq!(s.len(), len);
            assert!(s.iter().all(|x| x.load(Ordering::Relaxed) == 0), "len {len}");
            for (i, x) in s.iter().enumerate().step_by(511) {
                x.store(i as u64 + 1, Ordering::Relaxed);
            }
            for (i, x) in s.iter().enumerate() {
                let want = if i % 511 == 0 { i as u64 + 1 } else { 0 };
                assert_eq!(x.load(Ordering::Relaxed), want);
            }
        }
        assert!(ZeroedSlice::<AtomicU64>::new(usize::MAX / 4).is_err());
    }
}
