//! RTL of the SM resource allocator. Behaviour, ports and cycle timing are specified in
//! `gpusim::blocks::sm_alloc`:
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | rising-edge clock, synchronous reset (active high) |
//! | `need_threads`, `need_regs`, `need_smem` | in | `w_r` | one more block's footprint |
//! | `alloc_threads`, `alloc_regs`, `alloc_smem`, `alloc_blocks` | in | `w_r` | made resident last cycle |
//! | `free_threads`, `free_regs`, `free_smem`, `free_blocks` | in | `w_r` | released last cycle |
//! | `room`, `room2` | out | 1 | one / two more blocks fit |
//!
//! One [`Pool`] per resource (a counter and two compares); `room` and `room2` are the AND of
//! the pools' answers. Logic depth: an add and a subtract of `w_r` bits, an add of `w_r + 2`
//! bits and a compare with a constant.

use crate::consts::constant;
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// One resource of `W` bits (its capacity `cap < 2^W`); `X = W + 2` bits hold the sums.
#[derive(LogicBlock)]
pub struct Pool<const W: usize, const X: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: nothing in use.
    pub reset: Signal<In, Bit>,
    /// One more block's need.
    pub need: Signal<In, Bits<W>>,
    /// Made resident last cycle.
    pub alloc: Signal<In, Bits<W>>,
    /// Released last cycle.
    pub free: Signal<In, Bits<W>>,
    /// `used' + need <= cap`.
    pub fit1: Signal<Out, Bit>,
    /// `used' + 2 need <= cap`.
    pub fit2: Signal<Out, Bit>,
    used: DFF<Bits<W>>,
    /// `used + alloc - free`, modulo `2^W`.
    now: Signal<Local, Bits<W>>,
    /// `now` and `need` zero-extended to `X` bits.
    now_x: Signal<Local, Bits<X>>,
    need_x: Signal<Local, Bits<X>>,
    one_need: Signal<Local, Bits<X>>,
    cap: Constant<Bits<X>>,
    zero_w: Constant<Bits<W>>,
    zero_x: Constant<Bits<X>>,
    bit_x: [Constant<Bits<X>>; W],
}

impl<const W: usize, const X: usize> Pool<W, X> {
    /// A pool of capacity `cap` (`cap < 2^W`, `X = W + 2`).
    pub fn new(cap: u64) -> Self {
        assert!(X == W + 2 && W < 62 && cap < 1 << W);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            need: Default::default(),
            alloc: Default::default(),
            free: Default::default(),
            fit1: Default::default(),
            fit2: Default::default(),
            used: Default::default(),
            now: Default::default(),
            now_x: Default::default(),
            need_x: Default::default(),
            one_need: Default::default(),
            cap: constant(cap),
            zero_w: constant(0),
            zero_x: constant(0),
            bit_x: array_init::array_init(|k| constant(1 << k)),
        }
    }
}

impl<const W: usize, const X: usize> Logic for Pool<W, X> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, used);
        self.now.next = self.used.q.val() + self.alloc.val() - self.free.val();
        self.now_x.next = self.zero_x.val();
        self.need_x.next = self.zero_x.val();
        for k in 0..W {
            if self.now.val().get_bit(k) {
                self.now_x.next = self.now_x.val() | self.bit_x[k].val();
            }
            if self.need.val().get_bit(k) {
                self.need_x.next = self.need_x.val() | self.bit_x[k].val();
            }
        }
        self.one_need.next = self.now_x.val() + self.need_x.val();
        self.fit1.next = self.one_need.val() <= self.cap.val();
        self.fit2.next = (self.one_need.val() + self.need_x.val()) <= self.cap.val();
        self.used.d.next = self.now.val();
        if self.reset.val() {
            self.used.d.next = self.zero_w.val();
        }
    }
}

/// The allocator: threads (`TW` bits, capacity `CT`), registers (`RW`, `CR`), shared memory
/// (`SW`, `CS`), block slots (`BW`, `CB`); each `*X` is its `*W + 2`.
#[derive(LogicBlock)]
#[allow(clippy::type_complexity)]
pub struct SmAlloc<
    const TW: usize,
    const TX: usize,
    const CT: usize,
    const RW: usize,
    const RX: usize,
    const CR: usize,
    const SW: usize,
    const SX: usize,
    const CS: usize,
    const BW: usize,
    const BX: usize,
    const CB: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Threads of one more block.
    pub need_threads: Signal<In, Bits<TW>>,
    /// Registers of one more block.
    pub need_regs: Signal<In, Bits<RW>>,
    /// Shared memory of one more block.
    pub need_smem: Signal<In, Bits<SW>>,
    /// Made resident last cycle: threads.
    pub alloc_threads: Signal<In, Bits<TW>>,
    /// Registers.
    pub alloc_regs: Signal<In, Bits<RW>>,
    /// Shared memory.
    pub alloc_smem: Signal<In, Bits<SW>>,
    /// Blocks.
    pub alloc_blocks: Signal<In, Bits<BW>>,
    /// Released last cycle: threads.
    pub free_threads: Signal<In, Bits<TW>>,
    /// Registers.
    pub free_regs: Signal<In, Bits<RW>>,
    /// Shared memory.
    pub free_smem: Signal<In, Bits<SW>>,
    /// Blocks.
    pub free_blocks: Signal<In, Bits<BW>>,
    /// One more block fits.
    pub room: Signal<Out, Bit>,
    /// Two more blocks fit.
    pub room2: Signal<Out, Bit>,
    threads: Pool<TW, TX>,
    regs: Pool<RW, RX>,
    smem: Pool<SW, SX>,
    blocks: Pool<BW, BX>,
    one_block: Constant<Bits<BW>>,
}

impl<
        const TW: usize,
        const TX: usize,
        const CT: usize,
        const RW: usize,
        const RX: usize,
        const CR: usize,
        const SW: usize,
        const SX: usize,
        const CS: usize,
        const BW: usize,
        const BX: usize,
        const CB: usize,
    > Default for SmAlloc<TW, TX, CT, RW, RX, CR, SW, SX, CS, BW, BX, CB>
{
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            need_threads: Default::default(),
            need_regs: Default::default(),
            need_smem: Default::default(),
            alloc_threads: Default::default(),
            alloc_regs: Default::default(),
            alloc_smem: Default::default(),
            alloc_blocks: Default::default(),
            free_threads: Default::default(),
            free_regs: Default::default(),
            free_smem: Default::default(),
            free_blocks: Default::default(),
            room: Default::default(),
            room2: Default::default(),
            threads: Pool::new(CT as u64),
            regs: Pool::new(CR as u64),
            smem: Pool::new(CS as u64),
            blocks: Pool::new(CB as u64),
            one_block: constant(1),
        }
    }
}

impl<
        const TW: usize,
        const TX: usize,
        const CT: usize,
        const RW: usize,
        const RX: usize,
        const CR: usize,
        const SW: usize,
        const SX: usize,
        const CS: usize,
        const BW: usize,
        const BX: usize,
        const CB: usize,
    > Logic for SmAlloc<TW, TX, CT, RW, RX, CR, SW, SX, CS, BW, BX, CB>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.threads.clock.next = self.clock.val();
        self.regs.clock.next = self.clock.val();
        self.smem.clock.next = self.clock.val();
        self.blocks.clock.next = self.clock.val();
        self.threads.reset.next = self.reset.val();
        self.regs.reset.next = self.reset.val();
        self.smem.reset.next = self.reset.val();
        self.blocks.reset.next = self.reset.val();
        self.threads.need.next = self.need_threads.val();
        self.regs.need.next = self.need_regs.val();
        self.smem.need.next = self.need_smem.val();
        self.blocks.need.next = self.one_block.val();
        self.threads.alloc.next = self.alloc_threads.val();
        self.regs.alloc.next = self.alloc_regs.val();
        self.smem.alloc.next = self.alloc_smem.val();
        self.blocks.alloc.next = self.alloc_blocks.val();
        self.threads.free.next = self.free_threads.val();
        self.regs.free.next = self.free_regs.val();
        self.smem.free.next = self.free_smem.val();
        self.blocks.free.next = self.free_blocks.val();
        self.room.next = self.threads.fit1.val()
            & self.regs.fit1.val()
            & self.smem.fit1.val()
            & self.blocks.fit1.val();
        self.room2.next = self.threads.fit2.val()
            & self.regs.fit2.val()
            & self.smem.fit2.val()
            & self.blocks.fit2.val();
    }
}

impl<
        const TW: usize,
        const TX: usize,
        const CT: usize,
        const RW: usize,
        const RX: usize,
        const CR: usize,
        const SW: usize,
        const SX: usize,
        const CS: usize,
        const BW: usize,
        const BX: usize,
        const CB: usize,
    > Clocked for SmAlloc<TW, TX, CT, RW, RX, CR, SW, SX, CS, BW, BX, CB>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// The GTX 480's SM (`fermi`): 1536 threads, 32768 registers, 48 kB, 8 blocks.
pub type BaseFermi = SmAlloc<11, 13, 1536, 16, 18, 32768, 16, 18, 49152, 4, 6, 8>;
/// The Titan V's SM (`titanv`): 2048 threads, 65536 registers, 96 kB, 32 blocks.
pub type BaseTitanv = SmAlloc<12, 14, 2048, 17, 19, 65536, 17, 19, 98304, 6, 8, 32>;
/// A small SM (`proto`): 512 threads, 8192 registers, 16 kB, 4 blocks.
pub type BaseProto = SmAlloc<10, 12, 512, 14, 16, 8192, 15, 17, 16384, 3, 5, 4>;

/// The allocator's RTL per policy and preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "sm_alloc";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        use crate::verilog_of;
        match (policy, preset) {
            ("base", "fermi") => verilog_of::<BaseFermi>(module),
            ("base", "titanv") => verilog_of::<BaseTitanv>(module),
            ("base", "proto") => verilog_of::<BaseProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}

#[cfg(test)]
mod tests;
