//! Arg-min: the valid input with the smallest key, the lowest index on ties.

use crate::consts::{constant, index_table};
use rust_hdl::prelude::*;

/// The smallest of the `N` `W`-bit keys whose `valid` bit is set, and its index; on equal keys
/// the lower index wins. Combinational, a comparison tree of log2 `N` levels (in place: level
/// `k` keeps the better of entries `2i` and `2i+1` in entry `i`, for `i < N >> k`), each level
/// one `W`-bit compare and a 2:1 mux. `N` is a power of two up to 64 (give unused inputs
/// `valid` 0); `B` = log2(`N`) (at least 1). For the arg-max, invert the keys.
#[derive(LogicBlock)]
pub struct ArgMin<const N: usize, const B: usize, const W: usize> {
    /// Which inputs take part.
    pub valid: Signal<In, Bits<N>>,
    /// The keys.
    pub key: [Signal<In, Bits<W>>; N],
    /// Some input is valid.
    pub found: Signal<Out, Bit>,
    /// The winner's index (0 when none).
    pub index: Signal<Out, Bits<B>>,
    /// The winner's key (0 when none).
    pub min: Signal<Out, Bits<W>>,
    t_valid: [Signal<Local, Bit>; N],
    t_key: [Signal<Local, Bits<W>>; N],
    t_index: [Signal<Local, Bits<B>>; N],
    /// Per pair, reused: the right entry wins.
    right: Signal<Local, Bit>,
    ids: [Constant<Bits<B>>; N],
    zero_w: Constant<Bits<W>>,
}

impl<const N: usize, const B: usize, const W: usize> Default for ArgMin<N, B, W> {
    fn default() -> Self {
        assert!(
            N.is_power_of_two() && (2..=64).contains(&N),
            "N a power of two, 2..=64"
        );
        assert!(1usize << B == N, "B = log2(N)");
        Self {
            valid: Default::default(),
            key: array_init::array_init(|_| Default::default()),
            found: Default::default(),
            index: Default::default(),
            min: Default::default(),
            t_valid: array_init::array_init(|_| Default::default()),
            t_key: array_init::array_init(|_| Default::default()),
            t_index: array_init::array_init(|_| Default::default()),
            right: Default::default(),
            ids: index_table(),
            zero_w: constant(0),
        }
    }
}

impl<const N: usize, const B: usize, const W: usize> Logic for ArgMin<N, B, W> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..N {
            self.t_valid[i].next = self.valid.val().get_bit(i);
            self.t_key[i].next = self.key[i].val();
            self.t_index[i].next = self.ids[i].val();
        }
        // One block per level (six cover N <= 64): the right entry wins only when it is valid
        // and strictly smaller, or the left one is not valid.
        for i in 0..(N / 2) {
            self.right.next = self.t_valid[2 * i + 1].val()
                & (!self.t_valid[2 * i].val()
                    | (self.t_key[2 * i + 1].val() < self.t_key[2 * i].val()));
            self.t_valid[i].next = self.t_valid[2 * i].val() | self.t_valid[2 * i + 1].val();
            self.t_key[i].next = self.t_key[2 * i].val();
            self.t_index[i].next = self.t_index[2 * i].val();
            if self.right.val() {
                self.t_key[i].next = self.t_key[2 * i + 1].val();
                self.t_index[i].next = self.t_index[2 * i + 1].val();
            }
        }
        for i in 0..(N / 4) {
            self.right.next = self.t_valid[2 * i + 1].val()
                & (!self.t_valid[2 * i].val()
                    | (self.t_key[2 * i + 1].val() < self.t_key[2 * i].val()));
            self.t_valid[i].next = self.t_valid[2 * i].val() | self.t_valid[2 * i + 1].val();
            self.t_key[i].next = self.t_key[2 * i].val();
            self.t_index[i].next = self.t_index[2 * i].val();
            if self.right.val() {
                self.t_key[i].next = self.t_key[2 * i + 1].val();
                self.t_index[i].next = self.t_index[2 * i + 1].val();
            }
        }
        for i in 0..(N / 8) {
            self.right.next = self.t_valid[2 * i + 1].val()
                & (!self.t_valid[2 * i].val()
                    | (self.t_key[2 * i + 1].val() < self.t_key[2 * i].val()));
            self.t_valid[i].next = self.t_valid[2 * i].val() | self.t_valid[2 * i + 1].val();
            self.t_key[i].next = self.t_key[2 * i].val();
            self.t_index[i].next = self.t_index[2 * i].val();
            if self.right.val() {
                self.t_key[i].next = self.t_key[2 * i + 1].val();
                self.t_index[i].next = self.t_index[2 * i + 1].val();
            }
        }
        for i in 0..(N / 16) {
            self.right.next = self.t_valid[2 * i + 1].val()
                & (!self.t_valid[2 * i].val()
                    | (self.t_key[2 * i + 1].val() < self.t_key[2 * i].val()));
            self.t_valid[i].next = self.t_valid[2 * i].val() | self.t_valid[2 * i + 1].val();
            self.t_key[i].next = self.t_key[2 * i].val();
            self.t_index[i].next = self.t_index[2 * i].val();
            if self.right.val() {
                self.t_key[i].next = self.t_key[2 * i + 1].val();
                self.t_index[i].next = self.t_index[2 * i + 1].val();
            }
        }
        for i in 0..(N / 32) {
            self.right.next = self.t_valid[2 * i + 1].val()
                & (!self.t_valid[2 * i].val()
                    | (self.t_key[2 * i + 1].val() < self.t_key[2 * i].val()));
            self.t_valid[i].next = self.t_valid[2 * i].val() | self.t_valid[2 * i + 1].val();
            self.t_key[i].next = self.t_key[2 * i].val();
            self.t_index[i].next = self.t_index[2 * i].val();
            if self.right.val() {
                self.t_key[i].next = self.t_key[2 * i + 1].val();
                self.t_index[i].next = self.t_index[2 * i + 1].val();
            }
        }
        for i in 0..(N / 64) {
            self.right.next = self.t_valid[2 * i + 1].val()
                & (!self.t_valid[2 * i].val()
                    | (self.t_key[2 * i + 1].val() < self.t_key[2 * i].val()));
            self.t_valid[i].next = self.t_valid[2 * i].val() | self.t_valid[2 * i + 1].val();
            self.t_key[i].next = self.t_key[2 * i].val();
            self.t_index[i].next = self.t_index[2 * i].val();
            if self.right.val() {
                self.t_key[i].next = self.t_key[2 * i + 1].val();
                self.t_index[i].next = self.t_index[2 * i + 1].val();
            }
        }
        self.found.next = self.t_valid[0].val();
        self.index.next = self.t_index[0].val();
        self.min.next = self.t_key[0].val();
        if !self.t_valid[0].val() {
            self.min.next = self.zero_w.val();
        }
    }
}

/// Golden: (index, key) of the smallest valid key, the lowest index on ties.
pub fn arg_min_golden(valid: u64, keys: &[u64]) -> Option<(usize, u64)> {
    keys.iter()
        .enumerate()
        .filter(|(i, _)| valid >> i & 1 == 1)
        .min_by_key(|&(i, &k)| (k, i))
        .map(|(i, &k)| (i, k))
}
