//! Large working buffers, backed by transparent huge pages where the kernel offers them.
//!
//! Shuffling a million array items touches tens of megabytes of newly allocated memory, much of
//! it in random order. With 4 KB pages every first touch is a page fault (several microseconds
//! under virtualization) and most random accesses miss the TLB; with 2 MB pages both nearly
//! disappear. Linux backs memory with huge pages when it is advised `MADV_HUGEPAGE` and
//! transparent huge pages are in `madvise` mode (a common default); in `always` mode the advice
//! changes nothing, in `never` mode it is ignored. Advice never changes what memory holds.

use std::alloc::{self, Layout};
use std::cell::Cell;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use crate::error::{Error, ErrorKind};

/// The huge page size of x86-64 and of most arm64 kernels.
pub const HUGE_PAGE: usize = 2 << 20;

/// Below this size a buffer cannot hold a whole aligned huge page reliably: not worth advising.
const WORTH_ADVISING: usize = 2 * HUGE_PAGE;

/// Advises the kernel to back the whole huge pages inside `start..start + len` with huge pages
/// when they are first touched. A hint only: it reads and writes nothing, and a failure (no
/// transparent huge pages, an old kernel) is ignored.
pub fn advise_huge_pages(start: *mut u8, len: usize) {
    if len < WORTH_ADVISING {
        return;
    }
    let first = (start as usize).next_multiple_of(HUGE_PAGE);
    let end = (start as usize).saturating_add(len) / HUGE_PAGE * HUGE_PAGE;
    if end > first {
        #[cfg(target_os = "linux")]
        // SAFETY: madvise with MADV_HUGEPAGE only sets a flag on mapped pages the caller owns;
        // it does not access or change their contents.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

thread_local! {
    /// The working memory a call may hold at once, and what it holds now, in bytes.
    static BUDGET: Cell<(usize, usize)> = const { Cell::new((usize::MAX, 0)) };
}

/// Starts a call with `limit` bytes of working memory: every large buffer the core allocates
/// for it is counted against that, and one that would pass it is refused (TooLarge) before
/// anything is allocated. The SQL layer sets it from `dealcards.max_working_memory`; without a
/// call to this there is no limit.
pub fn set_working_memory_limit(limit: usize) {
    BUDGET.set((limit, 0));
}

/// `bytes` of working memory held while this lives, counted against the call's limit.
#[derive(Debug)]
pub struct Claim {
    bytes: usize,
}

impl Claim {
    /// Counts `bytes` for `what`, or refuses them if the call would then hold more than its
    /// limit.
    pub fn new(bytes: usize, what: &str) -> Result<Claim, Error> {
        let (limit, held) = BUDGET.get();
        match held.checked_add(bytes).filter(|&total| total <= limit) {
            Some(total) => {
                BUDGET.set((limit, total));
                Ok(Claim { bytes })
            }
            None => Err(Error::new(
                ErrorKind::TooLarge,
                format!(
                    "{what} needs {} of working memory, more than the {} a call may use \
                     (dealcards.max_working_memory)",
                    megabytes(bytes),
                    megabytes(limit.saturating_sub(held))
                ),
            )),
        }
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        let (limit, held) = BUDGET.get();
        BUDGET.set((limit, held.saturating_sub(self.bytes)));
    }
}

fn megabytes(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / (1 << 20) as f64)
}

/// A fixed-length buffer of plain values, aligned to [`HUGE_PAGE`] and advised for huge pages
/// when it is large enough for that to matter.
pub struct Scratch<T: Copy> {
    ptr: NonNull<T>,
    len: usize,
    /// None for a buffer of zero bytes, which owns no allocation.
    layout: Option<Layout>,
    /// Its bytes, counted against the call's working memory.
    _claim: Option<Claim>,
}

// SAFETY: Scratch owns its values like a Vec of Copy values does.
unsafe impl<T: Copy + Send> Send for Scratch<T> {}
// SAFETY: shared access only hands out shared references to the values.
unsafe impl<T: Copy + Sync> Sync for Scratch<T> {}

impl<T: Copy> Scratch<T> {
    /// `len` values, value i being `f(i)`, computed in index order.
    pub fn from_fn(len: usize, mut f: impl FnMut(usize) -> T) -> Result<Self, Error> {
        let scratch = Self::uninit(len)?;
        for i in 0..len {
            // SAFETY: i < len, inside the allocation; writing does not read the old value.
            unsafe { scratch.ptr.as_ptr().add(i).write(f(i)) };
        }
        Ok(scratch)
    }

    /// `len` values computed by `f` in index order, or None as soon as `f` gives None.
    pub fn try_from_fn(
        len: usize,
        mut f: impl FnMut(usize) -> Option<T>,
    ) -> Result<Option<Self>, Error> {
        let mut scratch = Self::uninit(len)?;
        for i in 0..len {
            match f(i) {
                // SAFETY: as in `from_fn`.
                Some(value) => unsafe { scratch.ptr.as_ptr().add(i).write(value) },
                None => {
                    // Only the first i values were written: the buffer must not be read.
                    scratch.len = 0;
                    return Ok(None);
                }
            }
        }
        Ok(Some(scratch))
    }

    /// A copy of `values`.
    pub fn from_slice(values: &[T]) -> Result<Self, Error> {
        Self::from_fn(values.len(), |i| values[i])
    }

    /// Room for `len` values, none written yet: every constructor writes them all.
    fn uninit(len: usize) -> Result<Self, Error> {
        let too_large = || {
            Error::new(
                ErrorKind::TooLarge,
                format!(
                    "not enough memory for a working buffer of {len} values of {} bytes",
                    size_of::<T>()
                ),
            )
        };
        let bytes = len.checked_mul(size_of::<T>()).ok_or_else(too_large)?;
        if bytes == 0 {
            return Ok(Scratch {
                ptr: NonNull::dangling(),
                len,
                layout: None,
                _claim: None,
            });
        }
        let claim = Claim::new(bytes, "a working buffer")?;
        let align = if bytes >= WORTH_ADVISING {
            HUGE_PAGE
        } else {
            align_of::<T>()
        };
        let layout =
            Layout::from_size_align(bytes, align.max(align_of::<T>())).map_err(|_| too_large())?;
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc::alloc(layout) };
        let ptr = NonNull::new(raw as *mut T).ok_or_else(too_large)?;
        advise_huge_pages(raw, bytes);
        Ok(Scratch {
            ptr,
            len,
            layout: Some(layout),
            _claim: Some(claim),
        })
    }
}

impl<T: Copy> Drop for Scratch<T> {
    fn drop(&mut self) {
        if let Some(layout) = self.layout {
            // SAFETY: allocated in `uninit` with this very layout.
            unsafe { alloc::dealloc(self.ptr.as_ptr() as *mut u8, layout) };
        }
    }
}

impl<T: Copy> Deref for Scratch<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `len` values, all written by the constructor; a dangling pointer is valid
        // for a buffer of zero bytes.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> DerefMut for Scratch<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy + fmt::Debug> fmt::Debug for Scratch<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy + PartialEq> PartialEq for Scratch<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Copy + Eq> Eq for Scratch<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_it_was_given_at_every_size() {
        for len in [0usize, 1, 7, 1000, (WORTH_ADVISING / 4) + 3] {
            let s = Scratch::from_fn(len, |i| i as u32 * 3).unwrap();
            assert_eq!(s.len(), len);
            assert!(s.iter().enumerate().all(|(i, &v)| v == i as u32 * 3));
            let copy = Scratch::from_slice(&s).unwrap();
            assert_eq!(copy, s);
        }
    }

    #[test]
    fn large_buffers_start_on_a_huge_page_and_can_be_written() {
        let mut s = Scratch::from_fn(WORTH_ADVISING, |_| 0u8).unwrap();
        assert_eq!(s.as_ptr() as usize % HUGE_PAGE, 0);
        s[WORTH_ADVISING - 1] = 9;
        assert_eq!(s.iter().map(|&b| b as usize).sum::<usize>(), 9);
    }

    #[test]
    fn try_from_fn_stops_at_the_first_none() {
        let mut calls = 0;
        let none = Scratch::try_from_fn(10, |i| {
            calls += 1;
            (i < 3).then_some(i)
        });
        assert!(none.unwrap().is_none());
        assert_eq!(calls, 4);
        let all = Scratch::try_from_fn(10, Some).unwrap().unwrap();
        assert_eq!(&all[..], (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn an_impossible_size_is_an_error_not_an_abort() {
        let err = Scratch::<u64>::from_fn(usize::MAX / 4, |_| 0).unwrap_err();
        assert_eq!(err.kind, ErrorKind::TooLarge);
    }

    #[test]
    fn advice_outside_any_whole_huge_page_is_skipped() {
        let mut v = vec![1u8; 100];
        advise_huge_pages(v.as_mut_ptr(), v.len());
        assert!(v.iter().all(|&b| b == 1));
    }

    #[test]
    fn working_memory_is_counted_and_refused_past_the_limit() {
        set_working_memory_limit(1000);
        let first = Scratch::<u64>::from_fn(100, |i| i as u64).unwrap();
        let err = Scratch::<u64>::from_fn(26, |i| i as u64).unwrap_err();
        assert_eq!(err.kind, ErrorKind::TooLarge);
        assert!(
            err.message.contains("dealcards.max_working_memory"),
            "{}",
            err.message
        );
        let fits = Scratch::<u64>::from_fn(25, |i| i as u64).unwrap();
        drop((first, fits));
        // Released on drop: the whole limit is there again.
        let _again = Scratch::<u8>::from_fn(1000, |_| 0).unwrap();
        let claim = Claim::new(1, "one more byte");
        assert!(claim.is_err());
        set_working_memory_limit(usize::MAX);
    }
}
