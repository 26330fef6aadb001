//! RTL of GPU Maestro's 2-way allocator. Behaviour, ports and cycle timing are specified in
//! `gpusim::blocks::twoway_alloc`:
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | rising-edge clock, synchronous reset (active high) |
//! | `offer`, `kernel` | in | 1, 16 | a kernel is offered, its id |
//! | `need_threads`, `need_rows`, `need_units` | in | 16 | one block's threads, register rows, shared-memory units |
//! | `quota` | in | 16 | its blocks take slots `< quota` only |
//! | `placed_lo`, `placed_hi`, `freed_lo`, `freed_hi` | in | `T` | slots placed / released last cycle, per end |
//! | `room`, `room2`, `high` | out | 1 | one / two more blocks fit; the kernel's end is the high one |
//! | `slot0`, `slot1` | out | 16 | their slots |
//! | `base0_rows`, `base0_units`, `base1_rows`, `base1_units` | out | 32 | their bases |
//!
//! Per end: an owner register (valid, 16-bit id), the need latched when the end was taken (three
//! 16-bit registers) and an [`EndBitmap`]: the `T`-bit slot bitmap with the cycle's reports
//! applied, its blocks (a popcount), its high-water mark (a downward prefix OR, `log2 T` OR
//! levels, whose lowest clear bit is the mark: a one-hot to index) and its two lowest clear slots
//! (two find-first-set units; a clear slot under the prefix OR is a hole). The offered kernel's
//! end is chosen by two 16-bit compares and the empty flags; the first grant is the end's lowest
//! clear slot (its lowest hole, else its mark) and the second the next one. Regions, use and
//! bases come from fourteen 16 x 16 multipliers (DSP slices on an FPGA: mark x size and live
//! blocks x size per end and resource, live blocks x threads per end, slot x size per grant and
//! resource), each sum compared once with a constant capacity; one and two blocks' sizes and
//! the high end's first base are computed beside the counts, off the longest path.
//!
//! Every sub-block input is driven from a register, a port or another sub-block's output, never
//! from a value this module's logic computes: rust-hdl emits one `always` process per module,
//! Verilator splits it only where statements share no computed value, and a process that both
//! feeds a sub-block and reads it back is a combinational loop to it (`UNOPTFLAT`), even when
//! the bits themselves do not loop.

use crate::consts::constant;
use crate::sim::Clocked;
use rust_hdl::prelude::*;

mod end_bitmap;
pub use end_bitmap::{EndBitmap, Reported};

/// The allocator: `T` slots per end (`SB` = clog2 `T` bits index one, `PB` bits hold `T`),
/// capacities `CT` threads, `CR` register rows, `CU` shared-memory units.
#[derive(LogicBlock)]
pub struct TwoWayAlloc<
    const T: usize,
    const SB: usize,
    const PB: usize,
    const CT: usize,
    const CR: usize,
    const CU: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// A kernel is offered.
    pub offer: Signal<In, Bit>,
    /// Its id.
    pub kernel: Signal<In, Bits<16>>,
    /// One block's threads.
    pub need_threads: Signal<In, Bits<16>>,
    /// Its register rows.
    pub need_rows: Signal<In, Bits<16>>,
    /// Its shared-memory units.
    pub need_units: Signal<In, Bits<16>>,
    /// Slots its blocks may take.
    pub quota: Signal<In, Bits<16>>,
    /// Low-end slots placed last cycle.
    pub placed_lo: Signal<In, Bits<T>>,
    /// High-end slots placed last cycle.
    pub placed_hi: Signal<In, Bits<T>>,
    /// Low-end slots released last cycle.
    pub freed_lo: Signal<In, Bits<T>>,
    /// High-end slots released last cycle.
    pub freed_hi: Signal<In, Bits<T>>,
    /// One more block fits.
    pub room: Signal<Out, Bit>,
    /// Two more fit.
    pub room2: Signal<Out, Bit>,
    /// The offered kernel's end is the high one.
    pub high: Signal<Out, Bit>,
    /// The first block's slot.
    pub slot0: Signal<Out, Bits<16>>,
    /// The second block's slot.
    pub slot1: Signal<Out, Bits<16>>,
    /// The first block's register base.
    pub base0_rows: Signal<Out, Bits<32>>,
    /// Its shared-memory base.
    pub base0_units: Signal<Out, Bits<32>>,
    /// The second block's register base.
    pub base1_rows: Signal<Out, Bits<32>>,
    /// Its shared-memory base.
    pub base1_units: Signal<Out, Bits<32>>,
    /// The offered kernel holds an end.
    pub held: Signal<Out, Bit>,
    /// ... and is refused by fragmentation alone.
    pub fragmented: Signal<Out, Bit>,
    // Per end: owner, latched need, slot bitmap.
    valid_lo: DFF<Bit>,
    valid_hi: DFF<Bit>,
    owner_lo: DFF<Bits<16>>,
    owner_hi: DFF<Bits<16>>,
    thr_lo: DFF<Bits<16>>,
    thr_hi: DFF<Bits<16>>,
    rows_lo: DFF<Bits<16>>,
    rows_hi: DFF<Bits<16>>,
    units_lo: DFF<Bits<16>>,
    units_hi: DFF<Bits<16>>,
    // The ends' bitmaps.
    lo: EndBitmap<T, SB, PB>,
    hi: EndBitmap<T, SB, PB>,
    // The claim.
    fits: Signal<Local, Bit>,
    match_lo: Signal<Local, Bit>,
    match_hi: Signal<Local, Bit>,
    sel: Signal<Local, Bit>,
    sel_hi: Signal<Local, Bit>,
    take_lo: Signal<Local, Bit>,
    take_hi: Signal<Local, Bit>,
    drop_hi: Signal<Local, Bit>,
    latch_lo: Signal<Local, Bit>,
    latch_hi: Signal<Local, Bit>,
    // The offered end's view: its sizes, bitmaps, high-water mark, regions.
    s_thr: Signal<Local, Bits<16>>,
    s_rows: Signal<Local, Bits<16>>,
    s_units: Signal<Local, Bits<16>>,
    s_thr32: Signal<Local, Bits<32>>,
    s_rows32: Signal<Local, Bits<32>>,
    s_units32: Signal<Local, Bits<32>>,
    s_thr2: Signal<Local, Bits<32>>,
    s_rows2: Signal<Local, Bits<32>>,
    s_units2: Signal<Local, Bits<32>>,
    top_rows: Signal<Local, Bits<32>>,
    top_units: Signal<Local, Bits<32>>,
    reg_rows_lo: Signal<Local, Bits<32>>,
    reg_rows_hi: Signal<Local, Bits<32>>,
    reg_units_lo: Signal<Local, Bits<32>>,
    reg_units_hi: Signal<Local, Bits<32>>,
    both_rows: Signal<Local, Bits<32>>,
    both_units: Signal<Local, Bits<32>>,
    threads_used: Signal<Local, Bits<32>>,
    blocks_used: Signal<Local, Bits<16>>,
    used_rows: Signal<Local, Bits<32>>,
    used_units: Signal<Local, Bits<32>>,
    e_live: Signal<Local, Bits<16>>,
    // The grants: the end's two lowest clear slots, holes if below its mark.
    f0: Signal<Local, Bits<16>>,
    f1: Signal<Local, Bits<16>>,
    f0_ok: Signal<Local, Bit>,
    f1_ok: Signal<Local, Bit>,
    hole0: Signal<Local, Bit>,
    hole1: Signal<Local, Bit>,
    grow0: Signal<Local, Bit>,
    grow1: Signal<Local, Bit>,
    scal0: Signal<Local, Bit>,
    scal1: Signal<Local, Bit>,
    ok0: Signal<Local, Bit>,
    ok1: Signal<Local, Bit>,
    p0_rows: Signal<Local, Bits<32>>,
    p0_units: Signal<Local, Bits<32>>,
    p1_rows: Signal<Local, Bits<32>>,
    p1_units: Signal<Local, Bits<32>>,
    // Constants.
    bit32: [Constant<Bits<32>>; 16],
    cap_threads16: Constant<Bits<16>>,
    cap_rows16: Constant<Bits<16>>,
    cap_units16: Constant<Bits<16>>,
    cap_threads: Constant<Bits<32>>,
    cap_rows: Constant<Bits<32>>,
    cap_units: Constant<Bits<32>>,
    slots: Constant<Bits<16>>,
    slots_less1: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
}

impl<const T: usize, const SB: usize, const PB: usize, const CT: usize, const CR: usize, const CU: usize>
    Default for TwoWayAlloc<T, SB, PB, CT, CR, CU>
{
    fn default() -> Self {
        assert!((2..=64).contains(&T) && T <= 1 << SB && T < 1 << PB && PB <= 8);
        assert!(CT < 1 << 16 && CR < 1 << 16 && CU < 1 << 16);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            offer: Default::default(),
            kernel: Default::default(),
            need_threads: Default::default(),
            need_rows: Default::default(),
            need_units: Default::default(),
            quota: Default::default(),
            placed_lo: Default::default(),
            placed_hi: Default::default(),
            freed_lo: Default::default(),
            freed_hi: Default::default(),
            room: Default::default(),
            room2: Default::default(),
            high: Default::default(),
            slot0: Default::default(),
            slot1: Default::default(),
            base0_rows: Default::default(),
            base0_units: Default::default(),
            base1_rows: Default::default(),
            base1_units: Default::default(),
            held: Default::default(),
            fragmented: Default::default(),
            valid_lo: Default::default(),
            valid_hi: Default::default(),
            owner_lo: Default::default(),
            owner_hi: Default::default(),
            thr_lo: Default::default(),
            thr_hi: Default::default(),
            rows_lo: Default::default(),
            rows_hi: Default::default(),
            units_lo: Default::default(),
            units_hi: Default::default(),
            lo: Default::default(),
            hi: Default::default(),
            fits: Default::default(),
            match_lo: Default::default(),
            match_hi: Default::default(),
            sel: Default::default(),
            sel_hi: Default::default(),
            take_lo: Default::default(),
            take_hi: Default::default(),
            drop_hi: Default::default(),
            latch_lo: Default::default(),
            latch_hi: Default::default(),
            s_thr: Default::default(),
            s_rows: Default::default(),
            s_units: Default::default(),
            s_thr32: Default::default(),
            s_rows32: Default::default(),
            s_units32: Default::default(),
            s_thr2: Default::default(),
            s_rows2: Default::default(),
            s_units2: Default::default(),
            top_rows: Default::default(),
            top_units: Default::default(),
            reg_rows_lo: Default::default(),
            reg_rows_hi: Default::default(),
            reg_units_lo: Default::default(),
            reg_units_hi: Default::default(),
            both_rows: Default::default(),
            both_units: Default::default(),
            threads_used: Default::default(),
            blocks_used: Default::default(),
            used_rows: Default::default(),
            used_units: Default::default(),
            e_live: Default::default(),
            f0: Default::default(),
            f1: Default::default(),
            f0_ok: Default::default(),
            f1_ok: Default::default(),
            hole0: Default::default(),
            hole1: Default::default(),
            grow0: Default::default(),
            grow1: Default::default(),
            scal0: Default::default(),
            scal1: Default::default(),
            ok0: Default::default(),
            ok1: Default::default(),
            p0_rows: Default::default(),
            p0_units: Default::default(),
            p1_rows: Default::default(),
            p1_units: Default::default(),
            bit32: array_init::array_init(|k| constant(1 << k)),
            cap_threads16: constant(CT as u64),
            cap_rows16: constant(CR as u64),
            cap_units16: constant(CU as u64),
            cap_threads: constant(CT as u64),
            cap_rows: constant(CR as u64),
            cap_units: constant(CU as u64),
            slots: constant(T as u64),
            slots_less1: constant(T as u64 - 1),
            zero16: constant(0),
            zero32: constant(0),
        }
    }
}

impl<const T: usize, const SB: usize, const PB: usize, const CT: usize, const CR: usize, const CU: usize>
    Logic for TwoWayAlloc<T, SB, PB, CT, CR, CU>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, valid_lo, valid_hi, owner_lo, owner_hi, thr_lo, thr_hi, rows_lo,
            rows_hi, units_lo, units_hi
        );
        // The ends: the reports applied, counts, marks, clear slots.
        self.lo.clock.next = self.clock.val();
        self.hi.clock.next = self.clock.val();
        self.lo.reset.next = self.reset.val();
        self.hi.reset.next = self.reset.val();
        self.lo.valid.next = self.valid_lo.q.val();
        self.hi.valid.next = self.valid_hi.q.val();
        self.lo.placed.next = self.placed_lo.val();
        self.hi.placed.next = self.placed_hi.val();
        self.lo.freed.next = self.freed_lo.val();
        self.hi.freed.next = self.freed_hi.val();
        // The claim: the end the kernel holds, else the low end of an SM without blocks (the
        // high end given up too), else an end without blocks; only if a block fits at all.
        self.fits.next = (self.need_threads.val() <= self.cap_threads16.val())
            & (self.need_rows.val() <= self.cap_rows16.val())
            & (self.need_units.val() <= self.cap_units16.val());
        self.match_lo.next =
            self.offer.val() & self.valid_lo.q.val() & (self.owner_lo.q.val() == self.kernel.val());
        self.match_hi.next =
            self.offer.val() & self.valid_hi.q.val() & (self.owner_hi.q.val() == self.kernel.val());
        self.sel.next = false;
        self.sel_hi.next = false;
        self.take_lo.next = false;
        self.take_hi.next = false;
        self.drop_hi.next = false;
        if self.match_lo.val() {
            self.sel.next = true;
        } else if self.match_hi.val() {
            self.sel.next = true;
            self.sel_hi.next = true;
        } else if self.offer.val() & self.fits.val() & self.lo.empty.val() {
            self.sel.next = true;
            self.take_lo.next = true;
            self.drop_hi.next = self.hi.empty.val();
        } else if self.offer.val() & self.fits.val() & self.hi.empty.val() {
            self.sel.next = true;
            self.sel_hi.next = true;
            self.take_hi.next = true;
        }
        self.latch_lo.next = self.take_lo.val() | (self.match_lo.val() & self.lo.empty.val());
        self.latch_hi.next = self.take_hi.val()
            | (!self.match_lo.val() & self.match_hi.val() & self.hi.empty.val());
        // The offered end's sizes (the need when it latches it), bitmaps and mark.
        self.s_thr.next = self.thr_lo.q.val();
        self.s_rows.next = self.rows_lo.q.val();
        self.s_units.next = self.units_lo.q.val();
        self.e_live.next = self.lo.live.val();
        self.f0.next = self.lo.free0.val();
        self.f1.next = self.lo.free1.val();
        self.f0_ok.next = self.lo.free0_valid.val();
        self.f1_ok.next = self.lo.free1_valid.val();
        self.hole0.next = self.lo.hole0.val();
        self.hole1.next = self.lo.hole1.val();
        if self.sel_hi.val() {
            self.s_thr.next = self.thr_hi.q.val();
            self.s_rows.next = self.rows_hi.q.val();
            self.s_units.next = self.units_hi.q.val();
            self.e_live.next = self.hi.live.val();
            self.f0.next = self.hi.free0.val();
            self.f1.next = self.hi.free1.val();
            self.f0_ok.next = self.hi.free0_valid.val();
            self.f1_ok.next = self.hi.free1_valid.val();
            self.hole0.next = self.hi.hole0.val();
            self.hole1.next = self.hi.hole1.val();
        }
        if self.latch_lo.val() | self.latch_hi.val() {
            self.s_thr.next = self.need_threads.val();
            self.s_rows.next = self.need_rows.val();
            self.s_units.next = self.need_units.val();
        }
        self.s_thr32.next = self.zero32.val();
        self.s_rows32.next = self.zero32.val();
        self.s_units32.next = self.zero32.val();
        for k in 0..16 {
            if self.s_thr.val().get_bit(k) {
                self.s_thr32.next = self.s_thr32.val() | self.bit32[k].val();
            }
            if self.s_rows.val().get_bit(k) {
                self.s_rows32.next = self.s_rows32.val() | self.bit32[k].val();
            }
            if self.s_units.val().get_bit(k) {
                self.s_units32.next = self.s_units32.val() | self.bit32[k].val();
            }
        }
        // Two blocks' sizes, and the high end's first base, beside the counts' paths.
        self.s_thr2.next = self.s_thr32.val() + self.s_thr32.val();
        self.s_rows2.next = self.s_rows32.val() + self.s_rows32.val();
        self.s_units2.next = self.s_units32.val() + self.s_units32.val();
        self.top_rows.next = self.cap_rows.val() - self.s_rows32.val();
        self.top_units.next = self.cap_units.val() - self.s_units32.val();
        // Regions (an empty end's is 0 whatever its stored sizes), threads and blocks in use.
        self.reg_rows_lo.next = self.lo.hwm.val() * self.rows_lo.q.val();
        self.reg_rows_hi.next = self.hi.hwm.val() * self.rows_hi.q.val();
        self.reg_units_lo.next = self.lo.hwm.val() * self.units_lo.q.val();
        self.reg_units_hi.next = self.hi.hwm.val() * self.units_hi.q.val();
        self.both_rows.next = self.reg_rows_lo.val() + self.reg_rows_hi.val();
        self.both_units.next = self.reg_units_lo.val() + self.reg_units_hi.val();
        self.threads_used.next = (self.lo.live.val() * self.thr_lo.q.val())
            + (self.hi.live.val() * self.thr_hi.q.val());
        self.blocks_used.next = self.lo.live.val() + self.hi.live.val();
        self.used_rows.next = (self.lo.live.val() * self.rows_lo.q.val())
            + (self.hi.live.val() * self.rows_hi.q.val());
        self.used_units.next = (self.lo.live.val() * self.units_lo.q.val())
            + (self.hi.live.val() * self.units_hi.q.val());
        // Growth at the mark: one more block (grow0), two more (grow1); scalars.
        self.grow0.next = (self.both_rows.val() + self.s_rows32.val() <= self.cap_rows.val())
            & (self.both_units.val() + self.s_units32.val() <= self.cap_units.val());
        self.grow1.next = (self.both_rows.val() + self.s_rows2.val()
            <= self.cap_rows.val())
            & (self.both_units.val() + self.s_units2.val()
                <= self.cap_units.val());
        self.scal0.next = (self.threads_used.val() + self.s_thr32.val() <= self.cap_threads.val())
            & (self.blocks_used.val() < self.slots.val());
        self.scal1.next = (self.threads_used.val() + self.s_thr2.val()
            <= self.cap_threads.val())
            & (self.blocks_used.val() < self.slots_less1.val());
        // The slots: the end's lowest clear slot is its lowest hole, else its mark; the next
        // clear slot likewise. A hole only needs the quota; the mark needs the regions to grow
        // by one block (by two when the first grant is the mark too).
        self.ok0.next = self.f0_ok.val()
            & (self.f0.val() < self.quota.val())
            & (self.hole0.val() | self.grow0.val());
        self.ok1.next = self.f1_ok.val()
            & (self.f1.val() < self.quota.val())
            & (self.hole1.val() | (self.hole0.val() & self.grow0.val()) | self.grow1.val());
        self.room.next = self.sel.val() & self.scal0.val() & self.ok0.val();
        self.room2.next = self.sel.val() & self.scal0.val() & self.ok0.val() & self.scal1.val() & self.ok1.val();
        self.high.next = self.sel.val() & self.sel_hi.val();
        self.held.next = self.sel.val();
        self.fragmented.next = self.sel.val()
            & !(self.scal0.val() & self.ok0.val())
            & self.scal0.val()
            & (self.used_rows.val() + self.s_rows32.val() <= self.cap_rows.val())
            & (self.used_units.val() + self.s_units32.val() <= self.cap_units.val())
            & (self.e_live.val() < self.quota.val());
        // Bases: low end j x size, high end cap - j x size - size.
        self.p0_rows.next = self.f0.val() * self.s_rows.val();
        self.p0_units.next = self.f0.val() * self.s_units.val();
        self.p1_rows.next = self.f1.val() * self.s_rows.val();
        self.p1_units.next = self.f1.val() * self.s_units.val();
        self.slot0.next = self.zero16.val();
        self.slot1.next = self.zero16.val();
        self.base0_rows.next = self.zero32.val();
        self.base0_units.next = self.zero32.val();
        self.base1_rows.next = self.zero32.val();
        self.base1_units.next = self.zero32.val();
        if self.room.val() {
            self.slot0.next = self.f0.val();
            self.base0_rows.next = self.p0_rows.val();
            self.base0_units.next = self.p0_units.val();
            if self.sel_hi.val() {
                self.base0_rows.next = self.top_rows.val() - self.p0_rows.val();
                self.base0_units.next =
                    self.top_units.val() - self.p0_units.val();
            }
        }
        if self.room2.val() {
            self.slot1.next = self.f1.val();
            self.base1_rows.next = self.p1_rows.val();
            self.base1_units.next = self.p1_units.val();
            if self.sel_hi.val() {
                self.base1_rows.next = self.top_rows.val() - self.p1_rows.val();
                self.base1_units.next =
                    self.top_units.val() - self.p1_units.val();
            }
        }
        // Next state.
        if self.latch_lo.val() {
            self.thr_lo.d.next = self.need_threads.val();
            self.rows_lo.d.next = self.need_rows.val();
            self.units_lo.d.next = self.need_units.val();
        }
        if self.take_lo.val() {
            self.valid_lo.d.next = true;
            self.owner_lo.d.next = self.kernel.val();
        }
        if self.latch_hi.val() {
            self.thr_hi.d.next = self.need_threads.val();
            self.rows_hi.d.next = self.need_rows.val();
            self.units_hi.d.next = self.need_units.val();
        }
        if self.take_hi.val() {
            self.valid_hi.d.next = true;
            self.owner_hi.d.next = self.kernel.val();
        }
        if self.drop_hi.val() {
            self.valid_hi.d.next = false;
            self.owner_hi.d.next = self.zero16.val();
            self.thr_hi.d.next = self.zero16.val();
            self.rows_hi.d.next = self.zero16.val();
            self.units_hi.d.next = self.zero16.val();
        }
        if self.reset.val() {
            self.valid_lo.d.next = false;
            self.valid_hi.d.next = false;
            self.owner_lo.d.next = self.zero16.val();
            self.owner_hi.d.next = self.zero16.val();
            self.thr_lo.d.next = self.zero16.val();
            self.thr_hi.d.next = self.zero16.val();
            self.rows_lo.d.next = self.zero16.val();
            self.rows_hi.d.next = self.zero16.val();
            self.units_lo.d.next = self.zero16.val();
            self.units_hi.d.next = self.zero16.val();
        }
    }
}

impl<const T: usize, const SB: usize, const PB: usize, const CT: usize, const CR: usize, const CU: usize>
    Clocked for TwoWayAlloc<T, SB, PB, CT, CR, CU>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// The GTX 480's SM (`fermi`): 8 slots, 1536 threads, 1024 register rows, 192 units.
pub type BaseFermi = TwoWayAlloc<8, 3, 4, 1536, 1024, 192>;
/// The GTX 980's SM (`gtx980`): 32 slots, 2048 threads, 2048 rows, 384 units.
pub type BaseGtx980 = TwoWayAlloc<32, 5, 6, 2048, 2048, 384>;
/// A small SM (`proto`): 4 slots, 512 threads, 256 rows, 64 units.
pub type BaseProto = TwoWayAlloc<4, 2, 3, 512, 256, 64>;

/// The allocator's RTL per policy and preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "twoway_alloc";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        use crate::verilog_of;
        match (policy, preset) {
            ("base", "fermi") => verilog_of::<BaseFermi>(module),
            ("base", "gtx980") => verilog_of::<BaseGtx980>(module),
            ("base", "proto") => verilog_of::<BaseProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}

#[cfg(test)]
mod tests;
