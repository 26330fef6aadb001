//! The SM-resource-allocation site's protocol (one unit per SM): every cycle, before the
//! dispatcher, the SM reports the resources of the blocks it made resident and released since
//! the last step and what one block of the kernel offered to it takes; the unit says whether
//! one more block fits, and two.

use crate::gpu::SimError;

/// Threads, registers, shared-memory bytes and block slots (`sm_alloc`'s port order).
pub type Resources = [u32; 4];

/// The unit at an SM's resource-allocation site.
pub trait AllocUnit<'a> {
    /// One cycle: `need` of one more block, `allocated` and `released` since the last step
    /// (each counted modulo the port widths). Room for one block, and for two.
    fn step(
        &mut self,
        need: Resources,
        allocated: Resources,
        released: Resources,
    ) -> Result<(bool, bool), SimError>;
}
