//! The SM-resource-allocation site's protocol (one unit per SM): every cycle, before the
//! dispatcher, the SM reports the resources of the blocks it made resident and released since
//! the last step and what one block of the kernel offered to it takes; the unit says whether
//! one more block fits, and two.

use crate::gpu::SimError;

/// Threads, registers, shared-memory bytes and block slots (`sm_alloc`'s port order).
pub type Resources = [u32; 4];

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
}

/// The unit at an SM's resource-allocation site.
pub trait AllocUnit<'a> {
    /// One cycle: room for one more block, and for two.
    fn step(&mut self, req: &AllocRequest) -> Result<(bool, bool), SimError>;
}
