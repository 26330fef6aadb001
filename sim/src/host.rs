//! Hints to the host CPU: they change how fast the model runs, never what it computes.

/// Asks the host CPU to bring the cache line of `data` closer (x86-64 `prefetcht0`; nothing on
/// other hosts). The model calls it for memory it reads a few simulated cycles later that is
/// otherwise a host cache miss: a warp's next instruction to fetch.
#[inline(always)]
pub(crate) fn prefetch<T>(data: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` reads no memory architecturally and cannot fault (and `data` is a
    // live reference); SSE, which it needs, is part of every x86-64 CPU.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(data as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = data;
}
