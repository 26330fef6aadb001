//! The block contract (DESIGN.md §3).
//!
//! A hardware block is a synchronous circuit with one clock and a synchronous active-high
//! `reset`. Every cycle the environment presents an input bundle; the block answers with an
//! output bundle computed from the state *before* the rising edge and the current inputs
//! (Mealy outputs); then the rising edge updates the state. [`Block::step`] is exactly one such
//! cycle. The golden model, the rust-hdl RTL and the Verilated RTL all honour this contract,
//! so any of them can stand in for another inside the GPU model.
//!
//! Ports are plain unsigned integers of at most 64 bits (`bool` for 1-bit ports). Their names
//! and widths are listed by [`PortBundle::specs`]; the Verilog module emitted for the block has
//! ports of exactly those names and widths plus `clock` and `reset`, and the testbench checks
//! that correspondence against `rtl-out/manifest.json` before it runs anything.

use std::fmt::Debug;

/// Name and width (bits, 1..=64) of one port or one internal state signal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PortSpec {
    /// Port name, identical to the Verilog port name.
    pub name: String,
    /// Width in bits, 1..=64.
    pub width: u32,
}

impl PortSpec {
    /// A port named `name` of `width` bits.
    pub fn new(name: impl Into<String>, width: u32) -> Self {
        Self {
            name: name.into(),
            width,
        }
    }

    /// Mask of the `width` low bits.
    pub fn mask(&self) -> u64 {
        low_bits(self.width as usize)
    }
}

/// A bundle of ports (a block's inputs or its outputs), convertible to and from one `u64`
/// word per port in the order of [`PortBundle::specs`].
pub trait PortBundle: Clone + Default + PartialEq + Debug {
    /// The block parameters that fix the port widths.
    type Params;
    /// Ports in declaration order, with widths for `params`.
    fn specs(params: &Self::Params) -> Vec<PortSpec>;
    /// Number of ports (length of the word slice used by `to_words`/`from_words`).
    const COUNT: usize;
    /// Writes one word per port into `dst[..COUNT]`.
    fn to_words(&self, dst: &mut [u64]);
    /// Reads one word per port from `src[..COUNT]`.
    fn from_words(src: &[u64]) -> Self;
}

/// One cycle-accurate hardware block (golden model or RTL).
pub trait Block {
    /// Input bundle, presented each cycle.
    type In: PortBundle;
    /// Output bundle, produced each cycle.
    type Out: PortBundle;
    /// Synchronous reset: the state every block has after `reset` was high for one cycle.
    fn reset(&mut self);
    /// One clock cycle: outputs are a function of the state before the edge and `inp`
    /// (Mealy); then the state is updated at the rising edge.
    fn step(&mut self, inp: &Self::In) -> Self::Out;
}

/// Read access to a golden model's internal state, for waveforms (`<block>.golden.vcd`).
pub trait Inspect {
    /// Names and widths of the state signals, in a fixed order.
    fn state_specs(&self) -> Vec<PortSpec>;
    /// Current values of the state signals, one per spec, in the same order.
    fn state_values(&self, out: &mut Vec<u64>);
}

/// Declares a port bundle struct and its [`PortBundle`] impl from one list of fields, so a
/// port's name, type and width are written once.
///
/// Field types must be `bool`, `u8`, `u16`, `u32` or `u64`; the width expression may use
/// the parameters (`p`).
#[macro_export]
macro_rules! port_bundle {
    (
        $(#[$meta:meta])*
        pub struct $name:ident for $params:ty {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ident = |$p:ident| $width:expr ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )+
        }

        impl $crate::block::PortBundle for $name {
            type Params = $params;
            const COUNT: usize = [$(stringify!($field)),+].len();
            fn specs(params: &Self::Params) -> Vec<$crate::block::PortSpec> {
                vec![$({
                    let $p = params;
                    $crate::block::PortSpec::new(stringify!($field), ($width) as u32)
                }),+]
            }
            fn to_words(&self, dst: &mut [u64]) {
                let mut i = 0;
                $( dst[i] = $crate::block::PortValue::to_word(self.$field); i += 1; )+
                let _ = i;
            }
            fn from_words(src: &[u64]) -> Self {
                let mut i = 0;
                $( let $field = <$ty as $crate::block::PortValue>::from_word(src[i]); i += 1; )+
                let _ = i;
                Self { $($field),+ }
            }
        }
    };
}

/// Conversion of a port field to and from its `u64` word.
pub trait PortValue: Copy {
    /// The value as a word (zero-extended).
    fn to_word(self) -> u64;
    /// The value from a word (truncated to the field type).
    fn from_word(w: u64) -> Self;
}

impl PortValue for bool {
    fn to_word(self) -> u64 {
        self as u64
    }
    fn from_word(w: u64) -> Self {
        w & 1 != 0
    }
}

macro_rules! port_value_uint {
    ($($t:ty),*) => {$(
        impl PortValue for $t {
            fn to_word(self) -> u64 { self as u64 }
            fn from_word(w: u64) -> Self { w as $t }
        }
    )*};
}
port_value_uint!(u8, u16, u32, u64);

/// A `u64` with the `n` low bits set (all 64 for `n >= 64`).
pub const fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Number of bits needed to hold the values `0..n` (at least 1).
pub const fn clog2(n: usize) -> u32 {
    let mut bits = 1;
    while (1usize << bits) < n {
        bits += 1;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    port_bundle! {
        /// Test bundle.
        pub struct Demo for u32 {
            /// A flag.
            pub flag: bool = |_p| 1,
            /// A bus.
            pub bus: u16 = |p| *p,
        }
    }

    #[test]
    fn bundle_round_trips_and_lists_specs() {
        let d = Demo {
            flag: true,
            bus: 0x1234,
        };
        let mut w = [0u64; 2];
        d.to_words(&mut w);
        assert_eq!(w, [1, 0x1234]);
        assert_eq!(Demo::from_words(&w), d);
        assert_eq!(Demo::COUNT, 2);
        assert_eq!(
            Demo::specs(&13),
            vec![PortSpec::new("flag", 1), PortSpec::new("bus", 13)]
        );
    }

    #[test]
    fn clog2_values() {
        assert_eq!(clog2(1), 1);
        assert_eq!(clog2(2), 1);
        assert_eq!(clog2(8), 3);
        assert_eq!(clog2(24), 5);
        assert_eq!(clog2(48), 6);
        assert_eq!(
            (low_bits(0), low_bits(8), low_bits(64), low_bits(70)),
            (0, 0xff, u64::MAX, u64::MAX)
        );
    }
}
