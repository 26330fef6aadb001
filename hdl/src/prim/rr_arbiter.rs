//! Round-robin arbiter: the first request after the last grant.

use super::FindFirst;
use crate::consts::{constant, shift_table};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// Round robin over `N` requesters (`B` = clog2(`N`) bits of index): the lowest request
/// strictly above the last grant, else the lowest request. Two [`FindFirst`]s (masked and
/// unmasked) run in parallel and a 2:1 mux picks; the mask of the positions above the grant is
/// a prefix OR of its one-hot. Outputs are combinational in `req` (Mealy); when `advance` is
/// set, the grant moves the mask at the rising edge (a grant the consumer did not take leaves
/// it). Reset: no grant yet (the first grant is the lowest request).
#[derive(LogicBlock)]
pub struct RrArbiter<const N: usize, const B: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Requests this cycle.
    pub req: Signal<In, Bits<N>>,
    /// The grant is taken: the next search starts after it.
    pub advance: Signal<In, Bit>,
    /// Some request is granted.
    pub valid: Signal<Out, Bit>,
    /// The granted request alone.
    pub onehot: Signal<Out, Bits<N>>,
    /// Its index (0 when none).
    pub index: Signal<Out, Bits<B>>,
    above: DFF<Bits<N>>,
    masked: FindFirst<N, B>,
    any: FindFirst<N, B>,
    scan: Signal<Local, Bits<N>>,
    shift: [Constant<Bits<8>>; B],
    zero: Constant<Bits<N>>,
}

impl<const N: usize, const B: usize> Default for RrArbiter<N, B> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            req: Default::default(),
            advance: Default::default(),
            valid: Default::default(),
            onehot: Default::default(),
            index: Default::default(),
            above: Default::default(),
            masked: Default::default(),
            any: Default::default(),
            scan: Default::default(),
            shift: shift_table(),
            zero: constant(0),
        }
    }
}

impl<const N: usize, const B: usize> Logic for RrArbiter<N, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, above);
        self.masked.req.next = self.req.val() & self.above.q.val();
        self.any.req.next = self.req.val();
        self.valid.next = self.any.valid.val();
        self.onehot.next = self.any.onehot.val();
        self.index.next = self.any.index.val();
        if self.masked.valid.val() {
            self.onehot.next = self.masked.onehot.val();
            self.index.next = self.masked.index.val();
        }
        // The positions strictly above the grant: a prefix OR of its one-hot, shifted by one.
        self.scan.next = self.onehot.val();
        for k in 0..B {
            self.scan.next = self.scan.val() | (self.scan.val() << self.shift[k].val());
        }
        if self.any.valid.val() & self.advance.val() {
            self.above.d.next = self.scan.val() << self.shift[0].val();
        }
        if self.reset.val() {
            self.above.d.next = self.zero.val();
        }
    }
}

impl<const N: usize, const B: usize> Clocked for RrArbiter<N, B> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// Golden round robin over `n` requesters.
#[derive(Clone, Debug)]
pub struct RrArbiterGolden {
    n: usize,
    last: Option<usize>,
}

impl RrArbiterGolden {
    /// After reset: no grant yet.
    pub fn new(n: usize) -> Self {
        Self { n, last: None }
    }

    /// One cycle: the granted index (the first request after the last grant, wrapping); the
    /// grant becomes the last one when `advance`.
    pub fn step(&mut self, req: u128, advance: bool) -> Option<usize> {
        let start = self.last.map_or(0, |l| l + 1);
        let g = (start..self.n)
            .chain(0..start.min(self.n))
            .find(|&i| req >> i & 1 == 1);
        if g.is_some() && advance {
            self.last = g;
        }
        g
    }
}
