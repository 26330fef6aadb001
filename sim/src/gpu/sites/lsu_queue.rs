//! The LSU-queue site's protocol (one unit per SM): a queue of transaction slots between the
//! load/store unit and the L1D. Every cycle the SM presents the LSU's next transaction, whether
//! the cache would take it now, and which queued transactions it would take (probes without side
//! effects); the unit says where the LSU's transaction goes (the cache, a free slot, or nowhere:
//! the LSU stalls) and which queued transaction to try. The SM keeps each slot's payload and
//! makes exactly the accesses the unit chose (`gpu/sm/lsu_queue.rs`).

use crate::gpu::SimError;

/// What the SM hands the queue for one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueIn {
    /// The LSU has a transaction.
    pub lsu_valid: bool,
    /// Its warp.
    pub lsu_warp: u8,
    /// It is a store or an atomic (ordered as a store).
    pub lsu_store: bool,
    /// The cache would take it now.
    pub lsu_accept: bool,
    /// Bit `i`: the cache would take queued slot `i`'s transaction now (probed when the LSU
    /// has nothing or the queue is full).
    pub q_accept: u64,
}

/// What the queue decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueOut {
    /// The LSU's transaction goes to the cache.
    pub lsu_to_cache: bool,
    /// The LSU's transaction goes into slot `enq_slot`.
    pub enq_valid: bool,
    /// See `enq_valid`.
    pub enq_slot: u8,
    /// Slot `try_slot`'s transaction is tried at the cache.
    pub try_valid: bool,
    /// See `try_valid`.
    pub try_slot: u8,
    /// The tried transaction leaves its slot (the cache takes it).
    pub deq_valid: bool,
}

/// The unit at an SM's LSU-queue site.
pub trait LsuQueueUnit<'a> {
    /// Its slots.
    fn entries(&self) -> usize;
    /// One cycle.
    fn step(&mut self, inp: &QueueIn) -> Result<QueueOut, SimError>;
}
