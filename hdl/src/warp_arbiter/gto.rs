//! Greedy then oldest: the last granted warp if eligible, else the oldest eligible warp.

use crate::consts::{below_table, constant, index_table, onehot_table};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// GTO arbiter for `N` warps with `B`-bit warp ids.
///
/// State: `live` (N), `last` (B) and `last_valid` (1) for the greedy warp, and an N x N age
/// matrix: `older[i]` has bit `j` set when warp `j` is older than warp `i` (N*N flip-flops;
/// reset: index order). On a launch mask `L`, each launched warp `i` becomes younger than every
/// warp outside `L` and than the launched warps of lower index; the other rows drop `L`.
/// The oldest eligible warp is the eligible `i` with `older[i] & eligible == 0`.
#[derive(LogicBlock)]
pub struct ArbiterGto<const N: usize, const B: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Warps that could issue this cycle.
    pub ready: Signal<In, Bits<N>>,
    /// Warps launched this cycle.
    pub launch: Signal<In, Bits<N>>,
    /// Warps exiting this cycle.
    pub exit: Signal<In, Bits<N>>,
    /// Warps waiting on a long-latency operation (never granted).
    pub long_stall: Signal<In, Bits<N>>,
    /// A warp is granted this cycle.
    pub grant_valid: Signal<Out, Bit>,
    /// The granted warp (0 if none).
    pub grant_warp: Signal<Out, Bits<B>>,
    /// Live warps (GTO chooses among all of them).
    pub active: Signal<Out, Bits<N>>,
    live: DFF<Bits<N>>,
    last: DFF<Bits<B>>,
    last_valid: DFF<Bit>,
    older: [DFF<Bits<N>>; N],
    eligible: Signal<Local, Bits<N>>,
    greedy_hit: Signal<Local, Bit>,
    oldest: Signal<Local, Bits<N>>,
    sel: Signal<Local, Bits<B>>,
    zero: Constant<Bits<N>>,
    zero_id: Constant<Bits<B>>,
    ids: [Constant<Bits<B>>; N],
    onehots: [Constant<Bits<N>>; N],
    below: [Constant<Bits<N>>; N],
}

impl<const N: usize, const B: usize> Default for ArbiterGto<N, B> {
    fn default() -> Self {
        assert!(N <= 64 && (1usize << B) >= N, "B must be clog2(N), N <= 64");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ready: Default::default(),
            launch: Default::default(),
            exit: Default::default(),
            long_stall: Default::default(),
            grant_valid: Default::default(),
            grant_warp: Default::default(),
            active: Default::default(),
            live: Default::default(),
            last: Default::default(),
            last_valid: Default::default(),
            older: array_init::array_init(|_| Default::default()),
            eligible: Default::default(),
            greedy_hit: Default::default(),
            oldest: Default::default(),
            sel: Default::default(),
            zero: constant(0),
            zero_id: constant(0),
            ids: index_table(),
            onehots: onehot_table(),
            below: below_table(),
        }
    }
}

impl<const N: usize, const B: usize> Logic for ArbiterGto<N, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live, last, last_valid);
        for i in 0..N {
            self.older[i].clock.next = self.clock.val();
            self.older[i].d.next = self.older[i].q.val();
        }
        self.eligible.next = self.ready.val() & self.live.q.val() & !self.long_stall.val();
        self.greedy_hit.next = false;
        self.oldest.next = self.zero.val();
        for i in 0..N {
            if self.last.q.val() == self.ids[i].val() {
                self.greedy_hit.next = self.eligible.val().get_bit(i) & self.last_valid.q.val();
            }
            if self.eligible.val().get_bit(i) & !(self.older[i].q.val() & self.eligible.val()).any()
            {
                self.oldest.next = self.oldest.val() | self.onehots[i].val();
            }
        }
        self.sel.next = self.zero_id.val();
        if self.greedy_hit.val() {
            self.sel.next = self.last.q.val();
        } else {
            for i in 0..N {
                if self.oldest.val().get_bit(i) {
                    self.sel.next = self.ids[i].val();
                }
            }
        }
        self.grant_valid.next = self.eligible.val().any();
        self.grant_warp.next = self.sel.val();
        if self.eligible.val().any() {
            self.last.d.next = self.sel.val();
            self.last_valid.d.next = true;
        }
        for i in 0..N {
            if self.launch.val().get_bit(i) {
                self.older[i].d.next =
                    !self.launch.val() | (self.launch.val() & self.below[i].val());
            } else {
                self.older[i].d.next = self.older[i].q.val() & !self.launch.val();
            }
        }
        self.active.next = self.live.q.val();
        self.live.d.next = (self.live.q.val() & !self.exit.val()) | self.launch.val();
        if self.reset.val() {
            self.live.d.next = self.zero.val();
            self.last.d.next = self.zero_id.val();
            self.last_valid.d.next = false;
            for i in 0..N {
                self.older[i].d.next = self.below[i].val();
            }
        }
    }
}

impl<const N: usize, const B: usize> Clocked for ArbiterGto<N, B> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
