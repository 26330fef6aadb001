//! First in, first out queue.

use super::OneHotMux;
use crate::consts::constant;
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// A FIFO of `D` words of `W` bits (`D` a power of two, `CB` = log2 `D` + 1 bits of count). Read and write pointers are one-hot rings (a rotate, no adder, no decoder); the
/// front word is read by a [`OneHotMux`]. No read-during-write forwarding: a word pushed into
/// an empty FIFO is at `front` from the next cycle.
///
/// Timing: `front`, `empty`, `full` and `count` are registered state (valid all cycle). At the
/// rising edge a `pop` of a non-empty FIFO removes the front word, and a `push` stores
/// `push_data` when the FIFO is not full or pops in the same cycle; other pushes are dropped
/// (`full` tells the producer). Reset: empty.
#[derive(LogicBlock)]
pub struct Fifo<const W: usize, const D: usize, const CB: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Store `push_data` at the edge.
    pub push: Signal<In, Bit>,
    /// The word pushed.
    pub push_data: Signal<In, Bits<W>>,
    /// Remove the front word at the edge.
    pub pop: Signal<In, Bit>,
    /// The oldest word (0 when empty).
    pub front: Signal<Out, Bits<W>>,
    /// No word stored.
    pub empty: Signal<Out, Bit>,
    /// `D` words stored.
    pub full: Signal<Out, Bit>,
    /// Words stored, 0..=D.
    pub count: Signal<Out, Bits<CB>>,
    mem: [DFF<Bits<W>>; D],
    rd: DFF<Bits<D>>,
    wr: DFF<Bits<D>>,
    used: DFF<Bits<CB>>,
    read: OneHotMux<D, W>,
    pop_ok: Signal<Local, Bit>,
    push_ok: Signal<Local, Bit>,
    zero_w: Constant<Bits<W>>,
    one_cb: Constant<Bits<CB>>,
    zero_cb: Constant<Bits<CB>>,
    depth: Constant<Bits<CB>>,
    first: Constant<Bits<D>>,
    one8: Constant<Bits<8>>,
    wrap: Constant<Bits<8>>,
}

impl<const W: usize, const D: usize, const CB: usize> Default for Fifo<W, D, CB> {
    fn default() -> Self {
        assert!(
            D.is_power_of_two() && (2..=64).contains(&D),
            "D a power of two, 2..=64"
        );
        assert!(1usize << (CB - 1) == D, "CB = log2(D) + 1");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            pop: Default::default(),
            front: Default::default(),
            empty: Default::default(),
            full: Default::default(),
            count: Default::default(),
            mem: array_init::array_init(|_| Default::default()),
            rd: Default::default(),
            wr: Default::default(),
            used: Default::default(),
            read: Default::default(),
            pop_ok: Default::default(),
            push_ok: Default::default(),
            zero_w: constant(0),
            one_cb: constant(1),
            zero_cb: constant(0),
            depth: constant(D as u64),
            first: constant(1),
            one8: constant(1),
            wrap: constant(D as u64 - 1),
        }
    }
}

impl<const W: usize, const D: usize, const CB: usize> Logic for Fifo<W, D, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd, wr, used);
        self.read.sel.next = self.rd.q.val();
        for i in 0..D {
            self.mem[i].clock.next = self.clock.val();
            self.mem[i].d.next = self.mem[i].q.val();
            self.read.data[i].next = self.mem[i].q.val();
        }
        self.empty.next = self.used.q.val() == self.zero_cb.val();
        self.full.next = self.used.q.val() == self.depth.val();
        self.count.next = self.used.q.val();
        self.front.next = self.read.out.val();
        if self.empty.val() {
            self.front.next = self.zero_w.val();
        }
        self.pop_ok.next = self.pop.val() & !self.empty.val();
        self.push_ok.next = self.push.val() & (!self.full.val() | self.pop_ok.val());
        for i in 0..D {
            if self.push_ok.val() & self.wr.q.val().get_bit(i) {
                self.mem[i].d.next = self.push_data.val();
            }
        }
        if self.pop_ok.val() {
            self.rd.d.next =
                (self.rd.q.val() << self.one8.val()) | (self.rd.q.val() >> self.wrap.val());
        }
        if self.push_ok.val() {
            self.wr.d.next =
                (self.wr.q.val() << self.one8.val()) | (self.wr.q.val() >> self.wrap.val());
        }
        if self.push_ok.val() & !self.pop_ok.val() {
            self.used.d.next = self.used.q.val() + self.one_cb.val();
        }
        if self.pop_ok.val() & !self.push_ok.val() {
            self.used.d.next = self.used.q.val() - self.one_cb.val();
        }
        if self.reset.val() {
            self.rd.d.next = self.first.val();
            self.wr.d.next = self.first.val();
            self.used.d.next = self.zero_cb.val();
        }
    }
}

impl<const W: usize, const D: usize, const CB: usize> Clocked for Fifo<W, D, CB> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// Golden FIFO of `depth` words.
#[derive(Clone, Debug)]
pub struct FifoGolden {
    depth: usize,
    q: std::collections::VecDeque<u64>,
}

impl FifoGolden {
    /// Empty.
    pub fn new(depth: usize) -> Self {
        Self {
            depth,
            q: Default::default(),
        }
    }

    /// (front or 0, empty, full, count) before the edge, then one edge with `push`/`pop`.
    pub fn step(&mut self, push: Option<u64>, pop: bool) -> (u64, bool, bool, usize) {
        let out = (
            self.q.front().copied().unwrap_or(0),
            self.q.is_empty(),
            self.q.len() == self.depth,
            self.q.len(),
        );
        let popped = pop && !self.q.is_empty();
        if popped {
            self.q.pop_front();
        }
        if let Some(w) = push {
            if out.2 && !popped {
                return out;
            }
            self.q.push_back(w);
        }
        out
    }
}
