//! Strided lanes: an `N`-bit word seen as `S` interleaved lanes of `L` bits (bit `l * S + s`
//! of the word is bit `l` of lane `s`), the layout of per-warp vectors indexed by global warp
//! id when warp `w` belongs to scheduler `w % S`. [`Deal`] splits the word into its lanes,
//! [`Gather`] interleaves lanes back into a word.
//!
//! In hardware both are wiring (constant shifts and masks). In a Verilated model they are a
//! handful of word operations per lane instead of one read-modify-write per bit: each lane is
//! compacted in log2 `L` steps, each step halving the number of runs of bits
//! (`x = (x | x >> (S - 1) * 2^k) & mask_k`), the same bit-permutation network as the
//! classic "compress every other bit" trick, with the stride as a parameter.

use crate::consts::constant;
use rust_hdl::prelude::*;

/// Steps of the compaction network: enough for lanes of up to 32 bits (extra steps are
/// no-ops: the lane is already contiguous and their masks drop whatever the shift moves).
const STEPS: usize = 5;

/// The mask after compaction step `k` (`k = 0`: before the first step): in each block of
/// `s * 2^k` bit positions, the low `2^k` are kept.
fn step_mask(n: usize, s: usize, k: usize) -> u64 {
    (0..n)
        .filter(|j| j % (s << k) < (1 << k))
        .fold(0, |m, j| m | 1 << j)
}

/// The shift of compaction step `k`: `(s - 1) * 2^k`.
fn step_shift(s: usize, k: usize) -> u64 {
    ((s - 1) << k) as u64
}

/// Split an `N`-bit word into `S` lanes of `L` bits (`N = S * L`, `S >= 2`, `L <= 32`,
/// `N <= 64`): lane `s` bit `l` is word bit `l * S + s`. Combinational, no logic in hardware.
#[derive(LogicBlock)]
pub struct Deal<const N: usize, const L: usize, const S: usize> {
    /// The interleaved word.
    pub word: Signal<In, Bits<N>>,
    /// Its lanes.
    pub lanes: [Signal<Out, Bits<L>>; S],
    /// The lane being compacted (reused per lane).
    x: Signal<Local, Bits<N>>,
    lane_shift: [Constant<Bits<8>>; S],
    shift: [Constant<Bits<8>>; STEPS],
    /// `mask[k]`: the bits kept after step `k` (`mask[0]`: the lane's bits, before step 0).
    mask: [Constant<Bits<N>>; 6],
}

impl<const N: usize, const L: usize, const S: usize> Default for Deal<N, L, S> {
    fn default() -> Self {
        assert!(
            S >= 2 && N == S * L && L <= 32 && N <= 64,
            "N = S * L, S >= 2"
        );
        Self {
            word: Default::default(),
            lanes: array_init::array_init(|_| Default::default()),
            x: Default::default(),
            lane_shift: array_init::array_init(|s| constant(s as u64)),
            shift: array_init::array_init(|k| constant(step_shift(S, k))),
            mask: array_init::array_init(|k| constant(step_mask(N, S, k))),
        }
    }
}

impl<const N: usize, const L: usize, const S: usize> Logic for Deal<N, L, S> {
    #[hdl_gen]
    fn update(&mut self) {
        for s in 0..S {
            self.x.next = (self.word.val() >> self.lane_shift[s].val()) & self.mask[0].val();
            for k in 0..STEPS {
                self.x.next =
                    (self.x.val() | (self.x.val() >> self.shift[k].val())) & self.mask[k + 1].val();
            }
            self.lanes[s].next = self.x.val().get_bits::<L>(0);
        }
    }
}

/// Interleave `S` lanes of `L` bits into an `N`-bit word (`N = S * L`, `S >= 2`, `L <= 32`,
/// `N <= 64`): word bit `l * S + s` is lane `s` bit `l`. The inverse of [`Deal`];
/// combinational, no logic in hardware.
#[derive(LogicBlock)]
pub struct Gather<const N: usize, const L: usize, const S: usize> {
    /// The lanes.
    pub lanes: [Signal<In, Bits<L>>; S],
    /// The interleaved word.
    pub word: Signal<Out, Bits<N>>,
    /// The lane being spread, alone and widened (reused per lane; rust-hdl's `bit_cast` cannot
    /// read a loop-indexed signal).
    lane: Signal<Local, Bits<L>>,
    x: Signal<Local, Bits<N>>,
    lane_shift: [Constant<Bits<8>>; S],
    /// `shift[j]`, `mask[j]`: undo compaction step `STEPS - 1 - j` (its shift, and the bits
    /// kept before it).
    shift: [Constant<Bits<8>>; STEPS],
    mask: [Constant<Bits<N>>; STEPS],
    zero: Constant<Bits<N>>,
}

impl<const N: usize, const L: usize, const S: usize> Default for Gather<N, L, S> {
    fn default() -> Self {
        assert!(
            S >= 2 && N == S * L && L <= 32 && N <= 64,
            "N = S * L, S >= 2"
        );
        Self {
            lanes: array_init::array_init(|_| Default::default()),
            word: Default::default(),
            lane: Default::default(),
            x: Default::default(),
            lane_shift: array_init::array_init(|s| constant(s as u64)),
            shift: array_init::array_init(|j| constant(step_shift(S, STEPS - 1 - j))),
            mask: array_init::array_init(|j| constant(step_mask(N, S, STEPS - 1 - j))),
            zero: constant(0),
        }
    }
}

impl<const N: usize, const L: usize, const S: usize> Logic for Gather<N, L, S> {
    #[hdl_gen]
    fn update(&mut self) {
        self.word.next = self.zero.val();
        for s in 0..S {
            self.lane.next = self.lanes[s].val();
            self.x.next = bit_cast::<N, L>(self.lane.val());
            for j in 0..STEPS {
                self.x.next =
                    (self.x.val() | (self.x.val() << self.shift[j].val())) & self.mask[j].val();
            }
            self.word.next = self.word.val() | (self.x.val() << self.lane_shift[s].val());
        }
    }
}

/// Golden: lane `s` of `word` with stride `stride` and `l` bits per lane.
pub fn deal_golden(word: u64, stride: usize, l: usize, s: usize) -> u64 {
    (0..l).fold(0, |m, i| m | (word >> (i * stride + s) & 1) << i)
}

/// Golden: the word interleaving `lanes` (`l` bits each).
pub fn gather_golden(lanes: &[u64], l: usize) -> u64 {
    let stride = lanes.len();
    (0..l * stride).fold(0, |m, j| m | (lanes[j % stride] >> (j / stride) & 1) << j)
}

/// An `N`-bit word of `L` 2-bit codes (code `l` in bits `2l`, `2l + 1`) decoded into one
/// `L`-bit mask per code value (`N = 2 * L`, `L <= 32`): bit `l` of `is<v>` is set when code
/// `l` equals `v`. Combinational: a [`Deal`] into the low and high bits, one gate per bit.
#[derive(LogicBlock)]
pub struct Decode2<const N: usize, const L: usize> {
    /// The codes.
    pub word: Signal<In, Bits<N>>,
    /// Codes equal to 0.
    pub is0: Signal<Out, Bits<L>>,
    /// Codes equal to 1.
    pub is1: Signal<Out, Bits<L>>,
    /// Codes equal to 2.
    pub is2: Signal<Out, Bits<L>>,
    /// Codes equal to 3.
    pub is3: Signal<Out, Bits<L>>,
    bits: Deal<N, L, 2>,
}

impl<const N: usize, const L: usize> Default for Decode2<N, L> {
    fn default() -> Self {
        Self {
            word: Default::default(),
            is0: Default::default(),
            is1: Default::default(),
            is2: Default::default(),
            is3: Default::default(),
            bits: Default::default(),
        }
    }
}

impl<const N: usize, const L: usize> Logic for Decode2<N, L> {
    #[hdl_gen]
    fn update(&mut self) {
        self.bits.word.next = self.word.val();
        // Lane `h` holds the codes' low bits, `h + 1` their high bits (a loop of one: rust-hdl
        // emits loop-variable indices of a sub-block's port array only).
        for h in 0..1 {
            self.is0.next = !self.bits.lanes[h].val() & !self.bits.lanes[h + 1].val();
            self.is1.next = self.bits.lanes[h].val() & !self.bits.lanes[h + 1].val();
            self.is2.next = !self.bits.lanes[h].val() & self.bits.lanes[h + 1].val();
            self.is3.next = self.bits.lanes[h].val() & self.bits.lanes[h + 1].val();
        }
    }
}

/// Golden: the mask of the codes of `word` (`l` 2-bit codes) equal to `v`.
pub fn decode2_golden(word: u64, l: usize, v: u64) -> u64 {
    (0..l).fold(0, |m, i| m | ((word >> (2 * i) & 3 == v) as u64) << i)
}
