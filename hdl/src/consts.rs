//! Sized constant tables for `#[hdl_gen]` code, which can only compare signals against
//! `Constant` fields of the right width (an unsized literal would be a 32-bit Verilog integer
//! and a lint WIDTH warning).

use rust_hdl::prelude::*;

/// `[0, 1, ..., N-1]` as `W`-bit constants: compare a signal with `table[i]` inside
/// `for i in 0..N`.
pub fn index_table<const W: usize, const N: usize>() -> [Constant<Bits<W>>; N] {
    array_init::array_init(|i| Constant::new(bits::<W>(i as u64)))
}

/// `[offset, offset+1, ..., offset+N-1]` as `W`-bit constants.
pub fn offset_table<const W: usize, const N: usize>(offset: usize) -> [Constant<Bits<W>>; N] {
    array_init::array_init(|i| Constant::new(bits::<W>((offset + i) as u64)))
}

/// `[1 << 0, ..., 1 << (N-1)]`: the one-hot `N`-bit vector of each index.
pub fn onehot_table<const N: usize>() -> [Constant<Bits<N>>; N] {
    array_init::array_init(|i| Constant::new(Bits::<N>::from(0u64).replace_bit(i, true)))
}

/// `[(1 << i) - 1 for i in 0..N]`: the bits strictly below each index.
pub fn below_table<const N: usize>() -> [Constant<Bits<N>>; N] {
    array_init::array_init(|i| Constant::new(low_bits::<N>(i)))
}

/// Per index `i < N`: the bits strictly above it (`!((2 << i) - 1)` in `N` bits).
pub fn above_table<const N: usize>() -> [Constant<Bits<N>>; N] {
    array_init::array_init(|i| Constant::new(!low_bits::<N>(i + 1)))
}

/// `[(2 << i) - 1 for i in 0..C]` as `W`-bit constants: the bits up to each index, inclusive.
pub fn upto_table<const W: usize, const C: usize>() -> [Constant<Bits<W>>; C] {
    array_init::array_init(|i| Constant::new(low_bits::<W>(i + 1)))
}

/// The `W`-bit vector with bits `0..n` set (`Bits` has no shift wider than 64 bits).
fn low_bits<const W: usize>(n: usize) -> Bits<W> {
    (0..n).fold(Bits::<W>::from(0u64), |b, j| b.replace_bit(j, true))
}

/// `[1 << k for k in 0..B]` as 8-bit shift amounts (for prefix ORs of distance 1, 2, 4, ...).
pub fn shift_table<const B: usize>() -> [Constant<Bits<8>>; B] {
    array_init::array_init(|k| constant(1 << k))
}

/// Per index bit `k < B`: the `N`-bit mask of the positions whose index has bit `k` set.
pub fn index_bit_masks<const N: usize, const B: usize>() -> [Constant<Bits<N>>; B] {
    array_init::array_init(|k| {
        let mut m = Bits::<N>::from(0u64);
        for i in (0..N).filter(|i| (i >> k) & 1 == 1) {
            m = m.replace_bit(i, true);
        }
        Constant::new(m)
    })
}

/// A `W`-bit constant.
pub fn constant<const W: usize>(v: u64) -> Constant<Bits<W>> {
    Constant::new(bits::<W>(v))
}
