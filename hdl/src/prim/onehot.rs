//! One-hot to index, and the AND-OR multiplexer selected by a one-hot vector (bit by bit, or a
//! word at a time through a balanced tree).

use crate::consts::{constant, index_bit_masks, onehot_table};
use rust_hdl::prelude::*;

/// The index of the set bit of a one-hot `N`-bit vector, combinational: index bit `k` is the
/// OR (a tree) of the positions whose index has bit `k`. Several bits set give the OR of
/// their indices; none gives 0. `B` = clog2(`N`).
#[derive(LogicBlock)]
pub struct OneHotIndex<const N: usize, const B: usize> {
    /// One-hot input.
    pub onehot: Signal<In, Bits<N>>,
    /// Its index.
    pub index: Signal<Out, Bits<B>>,
    index_bits: [Constant<Bits<N>>; B],
    bit_b: [Constant<Bits<B>>; B],
    zero_b: Constant<Bits<B>>,
}

impl<const N: usize, const B: usize> Default for OneHotIndex<N, B> {
    fn default() -> Self {
        assert!(
            B >= 1 && N >= 1 && N <= 1 << B && N <= 128,
            "B = clog2(N), N <= 128"
        );
        Self {
            onehot: Default::default(),
            index: Default::default(),
            index_bits: index_bit_masks(),
            bit_b: onehot_table(),
            zero_b: constant(0),
        }
    }
}

impl<const N: usize, const B: usize> Logic for OneHotIndex<N, B> {
    #[hdl_gen]
    fn update(&mut self) {
        self.index.next = self.zero_b.val();
        for k in 0..B {
            if (self.onehot.val() & self.index_bits[k].val()).any() {
                self.index.next = self.index.val() | self.bit_b[k].val();
            }
        }
    }
}

/// Golden: the OR of the indices of the set bits of `onehot` (the index when one-hot).
pub fn onehot_index_golden(onehot: u128) -> usize {
    (0..128)
        .filter(|i| onehot >> i & 1 == 1)
        .fold(0, |a, i| a | i)
}

/// `N` words of `W` bits, one chosen by a one-hot select, combinational: output bit `b` is
/// the OR (a tree) of `sel[i] & data[i][b]`. Several select bits give the OR of their words;
/// none gives 0.
#[derive(LogicBlock)]
pub struct OneHotMux<const N: usize, const W: usize> {
    /// One-hot select.
    pub sel: Signal<In, Bits<N>>,
    /// The words.
    pub data: [Signal<In, Bits<W>>; N],
    /// The selected word.
    pub out: Signal<Out, Bits<W>>,
    /// Per output bit, reused: bit `i` is `data[i][b]`.
    column: Signal<Local, Bits<N>>,
    onehot_n: [Constant<Bits<N>>; N],
    bit_w: [Constant<Bits<W>>; W],
    zero_n: Constant<Bits<N>>,
    zero_w: Constant<Bits<W>>,
}

impl<const N: usize, const W: usize> Default for OneHotMux<N, W> {
    fn default() -> Self {
        assert!(N >= 1 && N <= 128 && W >= 1 && W <= 128);
        Self {
            sel: Default::default(),
            data: array_init::array_init(|_| Default::default()),
            out: Default::default(),
            column: Default::default(),
            onehot_n: onehot_table(),
            bit_w: onehot_table(),
            zero_n: constant(0),
            zero_w: constant(0),
        }
    }
}

impl<const N: usize, const W: usize> Logic for OneHotMux<N, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.out.next = self.zero_w.val();
        for b in 0..W {
            self.column.next = self.zero_n.val();
            for i in 0..N {
                if self.data[i].val().get_bit(b) {
                    self.column.next = self.column.val() | self.onehot_n[i].val();
                }
            }
            if (self.column.val() & self.sel.val()).any() {
                self.out.next = self.out.val() | self.bit_w[b].val();
            }
        }
    }
}

/// [`OneHotMux`] a word at a time: the selected words (the others zero) reduced by a balanced
/// OR tree of `log2 NP` levels, `NP` = `N` rounded up to a power of two. Same function, fewer
/// and wider operations: the form for a simulator (Verilator evaluates a word per operation,
/// not a bit) and for wide words. Several select bits give the OR of their words; none gives
/// 0. Combinational.
#[derive(LogicBlock)]
pub struct OneHotMuxTree<const N: usize, const W: usize, const NP: usize> {
    /// One-hot select.
    pub sel: Signal<In, Bits<N>>,
    /// The words.
    pub data: [Signal<In, Bits<W>>; N],
    /// The selected word.
    pub out: Signal<Out, Bits<W>>,
    /// The tree, in place: the leaves at `0..NP`, level `k` at `0..NP >> k`, the root at 0.
    node: [Signal<Local, Bits<W>>; NP],
    zero_w: Constant<Bits<W>>,
}

impl<const N: usize, const W: usize, const NP: usize> Default for OneHotMuxTree<N, W, NP> {
    fn default() -> Self {
        assert!(
            (1..=128).contains(&N) && NP == N.next_power_of_two() && W >= 1,
            "NP = N rounded up to a power of two, N <= 128"
        );
        Self {
            sel: Default::default(),
            data: array_init::array_init(|_| Default::default()),
            out: Default::default(),
            node: array_init::array_init(|_| Default::default()),
            zero_w: constant(0),
        }
    }
}

impl<const N: usize, const W: usize, const NP: usize> Logic for OneHotMuxTree<N, W, NP> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..NP {
            self.node[i].next = self.zero_w.val();
        }
        for i in 0..N {
            if self.sel.val().get_bit(i) {
                self.node[i].next = self.data[i].val();
            }
        }
        // rust-hdl takes constant loop ranges only: one loop per level, up to NP = 128.
        for i in 0..(NP / 2) {
            self.node[i].next = self.node[2 * i].val() | self.node[2 * i + 1].val();
        }
        for i in 0..(NP / 4) {
            self.node[i].next = self.node[2 * i].val() | self.node[2 * i + 1].val();
        }
        for i in 0..(NP / 8) {
            self.node[i].next = self.node[2 * i].val() | self.node[2 * i + 1].val();
        }
        for i in 0..(NP / 16) {
            self.node[i].next = self.node[2 * i].val() | self.node[2 * i + 1].val();
        }
        for i in 0..(NP / 32) {
            self.node[i].next = self.node[2 * i].val() | self.node[2 * i + 1].val();
        }
        for i in 0..(NP / 64) {
            self.node[i].next = self.node[2 * i].val() | self.node[2 * i + 1].val();
        }
        for i in 0..(NP / 128) {
            self.node[i].next = self.node[2 * i].val() | self.node[2 * i + 1].val();
        }
        self.out.next = self.node[0].val();
    }
}

/// Golden: the OR of the words whose select bit is set.
pub fn onehot_mux_golden(sel: u128, data: &[u64]) -> u64 {
    data.iter()
        .enumerate()
        .filter(|(i, _)| sel >> i & 1 == 1)
        .fold(0, |a, (_, d)| a | d)
}
