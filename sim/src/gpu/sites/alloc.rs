//! The SM-resource-allocation site's protocol (one unit per SM): every cycle, before the
//! dispatcher, the SM reports the resources of the blocks it made resident and released since
//! the last step and what one block of the kernel offered to it takes; the unit says whether
//! one more block fits, and two.
//!
//! A positional allocator (GPU Maestro's 2-way allocator) also says where each of those blocks
//! goes: [`AllocUnit::place`] names the end, slot and bases of the first and second block the
//! SM makes resident in the cycle, the SM keeps a block's [`Place`] while it is resident and
//! reports the slots taken and freed back in [`AllocRequest::placed`] and
//! [`AllocRequest::freed`]. A counting allocator (`sm_alloc`) places nothing and ignores them.

use crate::gpu::SimError;

/// Threads, registers, shared-memory bytes and block slots (`sm_alloc`'s port order).
pub type Resources = [u32; 4];

/// The most block slots an end of a positional allocator has (one bit each in
/// [`AllocRequest::placed`] and [`AllocRequest::freed`]).
pub const MAX_PLACE_SLOTS: u32 = 64;

/// Where a positional allocator put a resident block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Place {
    /// The end of the SM's resources: 0 grows up from address 0, 1 grows down from the top.
    pub end: u8,
    /// The block's slot within its end (below [`MAX_PLACE_SLOTS`]).
    pub slot: u8,
    /// Slots count from the kernel's own end (the 2-way layout): a block at slot `j` has its
    /// kernel's slots `0..j` between it and its end, so the highest is the boundary block and
    /// a quota holds by position. False for slot numbers shared by every kernel on the SM
    /// (first fit).
    pub stacked: bool,
    /// The first allocation unit of its registers (warp-register rows: the register base of
    /// its first warp) and of its shared memory (the shared-memory base register, in the
    /// allocator's units).
    pub base: [u32; 2],
}

/// What the SM tells its allocator in one cycle. The SM keeps it and updates it in place (the
/// unit reads it by reference: no copy per cycle).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocRequest {
    /// What one more block of the offered kernel takes.
    pub need: Resources,
    /// Totals of the blocks made resident since the last step (modulo the port widths).
    pub allocated: Resources,
    /// Totals of the blocks released since the last step (modulo the port widths).
    pub released: Resources,
    /// The offered kernel's launch index in the run (a positional allocator gives each kernel
    /// an end); `None` in a cycle no kernel is offered to the SM.
    pub kernel: Option<u32>,
    /// The most blocks of the offered kernel the SM may hold (the kernel scheduler's quota;
    /// `None`: as many as fit). The SM already refuses a block above it; a positional allocator
    /// also keeps the kernel's blocks below slot `quota` (GPU Maestro's quota by position).
    pub quota: Option<u32>,
    /// Per end, the slots of the blocks made resident since the last step at the places the
    /// unit gave (bit `j`: slot `j`).
    pub placed: [u64; 2],
    /// Per end, the slots of the blocks released since the last step. A block made resident
    /// and released in the same cycle is in both: the unit applies `placed` first.
    pub freed: [u64; 2],
}

/// The unit at an SM's resource-allocation site.
pub trait AllocUnit<'a> {
    /// One cycle: room for one more block, and for two.
    fn step(&mut self, req: &AllocRequest) -> Result<(bool, bool), SimError>;

    /// The last step changed nothing and a step with the same request would answer the same
    /// and change nothing (the SM then answers such a step itself); `false`, the default,
    /// says nothing.
    fn holds(&self) -> bool {
        false
    }

    /// Where the `nth` block (0: the first, 1: the second) the SM makes resident after the last
    /// step goes, if the unit places blocks (`None`, the default, for a counting allocator).
    /// Only asked for a block the last step had room for.
    fn place(&self, nth: usize) -> Option<Place> {
        let _ = nth;
        None
    }

    /// Counters for the run's report (`sim --json`, `sm_alloc_stats`, summed over the SMs;
    /// nothing by default).
    fn report(&self) -> std::collections::BTreeMap<&'static str, u64> {
        Default::default()
    }
}
