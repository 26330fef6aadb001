//! One warp's position in its scheduler's issue order for the next cycle (pipelined ELF,
//! [`super::ElfPipelined`]): how many live warps of its scheduler come before it on the key
//! `(WPT value, not greedy, age)`. The pipelined ELF stores this position per warp instead of
//! WPT relation matrices, so its storage is the paper's tables plus `RB` bits a warp.
//!
//! Combinational; the parent compares the warp's next WPT value with its scheduler's and
//! registers `pos` at the edge. Everything but the greedy warp is known early in the cycle
//! (next cycle's WPT values, live warps and age row), so the two population counts and their
//! sum are ready before the grant, which only selects among them (a block of its own so that
//! a Verilated parent, which writes its inputs late and reads its output, splits around it).

use crate::prim::PopCount;
use crate::consts::constant;
use rust_hdl::prelude::*;

/// The position of one warp among the `L` warps of its scheduler, `RB` bits (`L < 2^RB`).
#[derive(LogicBlock)]
pub struct WarpPosition<const L: usize, const RB: usize> {
    /// The local warps whose WPT value next cycle is below the warp's.
    pub lower: Signal<In, Bits<L>>,
    /// Those whose value is equal to the warp's (itself included).
    pub equal: Signal<In, Bits<L>>,
    /// Its scheduler's live warps next cycle.
    pub live: Signal<In, Bits<L>>,
    /// The warp's age row next cycle: the local warps older than it (never itself).
    pub older: Signal<In, Bits<L>>,
    /// Next cycle's greedy warp (this cycle's grant, else the last one) is the warp itself.
    /// Arrives late in the cycle.
    pub is_greedy: Signal<In, Bit>,
    /// Next cycle's greedy warp is live, has the warp's value and is younger. Arrives late.
    pub after_greedy: Signal<In, Bit>,
    /// The number of live warps before it: those with a lower value; unless it is the greedy
    /// warp, also the older ones with an equal value and a younger greedy one with an equal
    /// value.
    pub pos: Signal<Out, Bits<RB>>,
    below_count: PopCount<L, RB>,
    older_equal_count: PopCount<L, RB>,
    /// The position if the warp is not greedy and no younger equal warp is; and one more.
    not_greedy: Signal<Local, Bits<RB>>,
    one_more: Signal<Local, Bits<RB>>,
    one: Constant<Bits<RB>>,
}

impl<const L: usize, const RB: usize> Default for WarpPosition<L, RB> {
    fn default() -> Self {
        assert!(L < (1usize << RB));
        Self {
            lower: Default::default(),
            equal: Default::default(),
            live: Default::default(),
            older: Default::default(),
            is_greedy: Default::default(),
            after_greedy: Default::default(),
            pos: Default::default(),
            below_count: Default::default(),
            older_equal_count: Default::default(),
            not_greedy: Default::default(),
            one_more: Default::default(),
            one: constant(1),
        }
    }
}

impl<const L: usize, const RB: usize> Logic for WarpPosition<L, RB> {
    #[hdl_gen]
    fn update(&mut self) {
        self.below_count.bits.next = self.lower.val() & self.live.val();
        self.older_equal_count.bits.next = self.equal.val() & self.live.val() & self.older.val();
        self.not_greedy.next = self.below_count.count.val() + self.older_equal_count.count.val();
        self.one_more.next = self.not_greedy.val() + self.one.val();
        // Late: the grant selects.
        self.pos.next = self.not_greedy.val();
        if self.after_greedy.val() {
            self.pos.next = self.one_more.val();
        }
        if self.is_greedy.val() {
            self.pos.next = self.below_count.count.val();
        }
    }
}
