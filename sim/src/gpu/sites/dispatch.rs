//! The thread-block dispatch site's protocol (one unit per kernel the GPU runs at once): every
//! cycle the unit sees which SMs can take one or two more blocks of its kernel and which of its
//! blocks finished, and grants `(SM, block id)` pairs; the GPU takes the granted blocks by id
//! from the kernel and launches them at once, in id order.

use crate::gpu::kernel::KernelCtx;
use crate::gpu::SimError;

/// One grant of a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    /// SM.
    pub sm: usize,
    /// Thread-block id (the block's linear index in the grid).
    pub id: u32,
    /// The unit's own slot for the block, handed back with its end (`finished`).
    pub slot: Option<u8>,
}

/// What the GPU hands the unit for one cycle.
#[derive(Clone, Copy, Debug)]
pub struct DispatchIn<'f> {
    /// The kernel started since the last step (its first step).
    pub start: bool,
    /// Thread blocks of the kernel.
    pub total: u32,
    /// Resident blocks per SM the kernel allows (its occupancy, saturated at 255).
    pub max_per_sm: u8,
    /// SMs that can take one more block of the kernel (bit s: SM s).
    pub room: u128,
    /// SMs that can take two more.
    pub room2: u128,
    /// Per SM: the SM's block slots whose blocks of this kernel finished since the last step.
    pub finished: &'f [Vec<usize>],
}

/// The unit at the thread-block dispatch site.
pub trait DispatchUnit<'a> {
    /// `kernel` starts; its blocks are dispatched from the next step on.
    fn start_kernel(&mut self, kernel: &KernelCtx);
    /// One cycle: the grants, appended to `grants` (cleared first).
    fn step(&mut self, inp: &DispatchIn, grants: &mut Vec<Grant>) -> Result<(), SimError>;
    /// Grant `g` was launched into block slot `sm_slot` of its SM.
    fn launched(&mut self, g: &Grant, sm_slot: usize) {
        let _ = (g, sm_slot);
    }
    /// What it reports of its kernel when the kernel leaves its slot (finished, killed or cut
    /// by the run's end): the kernel report's `dispatch` (PAVER: its steals). Nothing by
    /// default.
    fn kernel_report(&mut self) -> std::collections::BTreeMap<String, serde_json::Value> {
        Default::default()
    }
}
