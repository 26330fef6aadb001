//! The block contract (DESIGN.md §3).
//!
//! A hardware block is a synchronous circuit with one clock and a synchronous active-high
//! `reset`. Every cycle the environment presents an input bundle; the block answers with an
//! output bundle computed from the state *before* the rising edge and the current inputs
//! (Mealy outputs); then the rising edge updates the state. [`Block::step`] is exactly one such
//! cycle. The golden model, the rust-hdl RTL and the Verilated RTL all honour this contract,
//! so any of them can stand in for another inside the GPU model.
//!
//! # Ports
//! A port bundle's fields are scalars (`bool`, `u8`..`u64`: one port of at most 64 bits),
//! wide scalars (`u128`: one port of at most 128 bits, e.g. a mask over 80 SMs) or fixed
//! arrays of scalars (`[u32; 128]`: one port per element that the parameters ask for, e.g. per
//! SM or per scheduler). [`PortBundle::specs`] lists the *flattened* ports, by one rule used
//! everywhere (the manifest, the Verilog, the Verilated shims, the waveforms):
//! * a scalar field `x` is port `x`;
//! * element `k` of an array field `x` is port `x_k` (`k` from 0; the parameters fix how many);
//! * a port of `w` bits travels as `ceil(w / 64)` 64-bit words, least significant first.
//!
//! The Verilog module emitted for the block has ports of exactly those names and widths plus
//! `clock` and `reset`, and the testbench checks that correspondence against
//! `rtl-out/manifest.json` before it runs anything.

use std::fmt::Debug;

/// Widest port, bits.
pub const MAX_PORT_BITS: u32 = 128;

/// Name and width (bits, 1..=128) of one flattened port or one internal state signal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PortSpec {
    /// Port name, identical to the Verilog port name.
    pub name: String,
    /// Width in bits, 1..=[`MAX_PORT_BITS`].
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
    pub fn mask(&self) -> u128 {
        if self.width >= 128 {
            u128::MAX
        } else {
            (1u128 << self.width) - 1
        }
    }

    /// 64-bit words this port takes (`ceil(width / 64)`).
    pub fn words(&self) -> usize {
        self.width.div_ceil(64).max(1) as usize
    }
}

/// Words taken by `specs` (see the module documentation's flattening rule).
pub fn word_count(specs: &[PortSpec]) -> usize {
    specs.iter().map(PortSpec::words).sum()
}

/// The value of every port of `specs` from its words (`words` as written by
/// [`PortBundle::to_words`]).
pub fn port_values(specs: &[PortSpec], words: &[u64]) -> Vec<u128> {
    let mut i = 0;
    specs
        .iter()
        .map(|s| {
            let mut v = 0u128;
            for k in 0..s.words() {
                v |= (words[i + k] as u128) << (64 * k);
            }
            i += s.words();
            v
        })
        .collect()
}

/// Packs one cycle's flattened ports (`words` as [`PortBundle::to_words`] writes them) into
/// 32-bit chunks, ports end to end from bit 0, each least significant bit first: port `k`
/// takes bits `off_k .. off_k + width_k` of the vector, chunk `j` holds bits `32j .. 32j + 31`
/// (the last one zero-padded). The FPGA self-test's ROM rows and signature and the host
/// bridge's payloads use this layout.
pub fn pack_bits(specs: &[PortSpec], words: &[u64]) -> Vec<u32> {
    let total: u32 = specs.iter().map(|s| s.width).sum();
    let mut chunks = vec![0u32; total.div_ceil(32) as usize];
    let (mut bit, mut w) = (0usize, 0usize);
    for s in specs {
        for i in 0..s.width as usize {
            if words[w + i / 64] >> (i % 64) & 1 == 1 {
                chunks[bit / 32] |= 1 << (bit % 32);
            }
            bit += 1;
        }
        w += s.words();
    }
    chunks
}

/// The inverse of [`pack_bits`]: the port words of `specs` from a packed vector (bits past
/// the ports' total width are ignored; missing chunks read as zero).
pub fn unpack_bits(specs: &[PortSpec], chunks: &[u32]) -> Vec<u64> {
    let mut words = vec![0u64; word_count(specs)];
    let (mut bit, mut w) = (0usize, 0usize);
    for s in specs {
        for i in 0..s.width as usize {
            if chunks
                .get(bit / 32)
                .is_some_and(|c| c >> (bit % 32) & 1 == 1)
            {
                words[w + i / 64] |= 1 << (i % 64);
            }
            bit += 1;
        }
        w += s.words();
    }
    words
}

/// How many ports a field is and how wide each one is (from the width expression of
/// [`port_bundle!`](crate::port_bundle): an integer for a scalar, `(count, width)` for an array).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Elements (1 for a scalar).
    pub count: usize,
    /// Bits per element.
    pub width: u32,
}

/// A width expression of [`port_bundle!`](crate::port_bundle) as a [`Shape`].
pub trait IntoShape {
    /// The shape.
    fn shape(self) -> Shape;
}

macro_rules! scalar_shape {
    ($($t:ty),*) => {$(
        impl IntoShape for $t {
            fn shape(self) -> Shape {
                Shape { count: 1, width: self as u32 }
            }
        }
        impl IntoShape for (usize, $t) {
            fn shape(self) -> Shape {
                Shape { count: self.0, width: self.1 as u32 }
            }
        }
    )*};
}
scalar_shape!(i32, u32, usize);

/// A bundle of ports (a block's inputs or its outputs), convertible to and from 64-bit words
/// in the order of [`PortBundle::specs`] (module documentation: the flattening rule).
pub trait PortBundle: Clone + Default + PartialEq + Debug + Send + 'static {
    /// The block parameters that fix the port widths and array lengths.
    type Params;
    /// Flattened ports in declaration order, with widths for `params`.
    fn specs(params: &Self::Params) -> Vec<PortSpec>;
    /// Writes the words of every flattened port into `dst[..word_count(specs)]`.
    fn to_words(&self, params: &Self::Params, dst: &mut [u64]);
    /// Reads the bundle back from `src` (array elements beyond the parameters' count are 0).
    fn from_words(params: &Self::Params, src: &[u64]) -> Self;
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
    /// `Some(out)` only if a [`Block::step`] with `inp` now would return `out` and leave the
    /// state as it is (an idle cycle the GPU model may skip); `None` says nothing. The default
    /// never answers; [`holds_is_exact`] checks an answer against a step.
    fn holds(&self, inp: &Self::In) -> Option<Self::Out> {
        let _ = inp;
        None
    }
}

/// Whether `block`'s [`Block::holds`] is exact for `inp`: `Ok(true)` if it answered and a step
/// gives that output and leaves the state unchanged, `Ok(false)` if it did not answer, an
/// error naming the difference otherwise. `block` is not changed.
pub fn holds_is_exact<B>(block: &B, inp: &B::In) -> Result<bool, String>
where
    B: Block + Inspect + Clone,
{
    let Some(held) = block.holds(inp) else {
        return Ok(false);
    };
    let (mut before, mut after) = (Vec::new(), Vec::new());
    block.state_values(&mut before);
    let mut stepped = block.clone();
    let out = stepped.step(inp);
    stepped.state_values(&mut after);
    if out != held {
        return Err(format!(
            "holds answered {held:?}, a step gives {out:?} (input {inp:?})"
        ));
    }
    if before != after {
        return Err(format!(
            "holds answered for {inp:?}, but a step changes the state {before:?} -> {after:?}"
        ));
    }
    Ok(true)
}

/// Read access to a golden model's internal state, for waveforms (`<block>.golden.vcd`).
pub trait Inspect {
    /// Names and widths of the state signals, in a fixed order.
    fn state_specs(&self) -> Vec<PortSpec>;
    /// Current values of the state signals, one per spec, in the same order.
    fn state_values(&self, out: &mut Vec<u64>);
}

/// Constrained-random inputs for a block: the next cycle's inputs from the previous cycle's
/// outputs (`None` on the first cycle). Deterministic for a seed.
pub trait Stimulus<I, O> {
    /// The inputs of the next cycle.
    fn next(&mut self, prev: Option<&O>) -> I;
}

/// A kind of hardware block: everything the tools need to know about it, written once in the
/// block's own module (`sim::blocks::<name>::Kind`). The list of kinds is
/// `gpusched_registry::blocks!`; [`crate::blocks::visit_all`] walks it.
pub trait BlockKind: 'static {
    /// Block name (`warp_arbiter`): the prefix of its Verilog modules, its `--rtl` name.
    const NAME: &'static str;
    /// One-line description.
    const SUMMARY: &'static str;
    /// Policies (one Verilog module each per preset); `["base"]` for a single behaviour.
    const POLICIES: &'static [&'static str];
    /// Parameter presets (one Verilog module each per policy).
    const PRESETS: &'static [&'static str];
    /// Parameters (sizes, policy).
    type Params: Clone + Debug + PartialEq + Send + Sync + 'static;
    /// Input ports.
    type In: PortBundle<Params = Self::Params>;
    /// Output ports.
    type Out: PortBundle<Params = Self::Params>;
    /// The golden model.
    type Golden: Block<In = Self::In, Out = Self::Out> + Inspect + Clone + Send + 'static;
    /// Its constrained-random stimulus.
    type Stim: Stimulus<Self::In, Self::Out> + Send + 'static;
    /// The parameters of `policy` x `preset` (both from the lists above).
    fn params(policy: &str, preset: &str) -> Self::Params;
    /// A golden model in its reset state.
    fn golden(params: &Self::Params) -> Self::Golden;
    /// A stimulus for `params` and `seed`.
    fn stimulus(params: &Self::Params, seed: u64) -> Self::Stim;
    /// Parameters recorded in the manifest (name, value).
    fn manifest_params(params: &Self::Params) -> Vec<(&'static str, u64)>;
    /// Whether the block did something this cycle (a sanity figure of a stimulus run).
    fn busy(out: &Self::Out) -> bool;
    /// Whether the golden model answers [`Block::holds`], so that the GPU model skips the
    /// steps of its repeated idle cycles ([`crate::gpu::sites::Slot`]).
    const HOLDS: bool = false;
    /// With [`BlockKind::HOLDS`]: whether the golden model at `params` can answer
    /// [`Block::holds`] at all (`false` for a variant whose state changes every cycle, such as
    /// a scan pointer's; the GPU model then does not ask it).
    fn may_hold(_params: &Self::Params) -> bool {
        Self::HOLDS
    }
    /// With [`BlockKind::HOLDS`]: whether a step with `inp` reads what one with `last` read
    /// (the GPU model's test for a repeated cycle). The default compares every port; a block
    /// that reads some ports only in some cycles (LAWS's warp vectors, at launches) may
    /// compare those only then.
    fn repeats(last: &Self::In, inp: &Self::In) -> bool {
        last == inp
    }
    /// With [`BlockKind::HOLDS`]: keeps `inp` in `last` for [`BlockKind::repeats`] (the
    /// default copies it all; a block may leave out what `repeats` does not compare).
    fn remember(last: &mut Self::In, inp: &Self::In) {
        last.clone_from(inp);
    }
    /// A short human description of `params`, for errors.
    fn describe(params: &Self::Params) -> String {
        format!("{params:?}")
    }
    /// The most cycles `gpusched regress` runs the lockstep of `policy` x `preset` for (`None`:
    /// as many as asked). A stated stopgap for a Verilated model too slow for the default 10 M
    /// cycles; `regress` prints the cycles it ran.
    fn regress_cycles(_policy: &str, _preset: &str) -> Option<u64> {
        None
    }
    /// The hardware the block's paper describes at `params`, against which `rtl-out/REPORT.md`
    /// sets the synthesized block (`None`: not a paper's block, e.g. GPGPU-Sim's baselines).
    fn paper_budget(_params: &Self::Params) -> Option<PaperBudget> {
        None
    }
}

/// The hardware a paper describes for one of its blocks, at one set of parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaperBudget {
    /// Storage bits the paper counts at these parameters (`None`: the paper gives no figure).
    pub bits: Option<u64>,
    /// What the paper counts and how its logic is built (serial scan, linear search, SRAM
    /// table), with where it says so.
    pub structure: String,
}

/// Most state bits (flip-flops + the tables' declared bits) per paper bit a block may keep: issue 58's bound
/// ("within 2x of the paper's storage budget").
pub const BUDGET_RATIO_BOUND: f64 = 2.0;

/// The parameters of preset `name` in a block's `(name, params)` preset table (`name` is one of
/// the kind's [`BlockKind::PRESETS`]).
pub fn preset_of<P: Copy>(presets: &[(&str, P)], name: &str) -> P {
    presets
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("`{name}` is not a preset of the block"))
        .1
}

/// Something done once per block kind ([`crate::blocks::visit_all`]).
pub trait KindVisitor {
    /// Called with each kind of the registry, in registry order.
    fn visit<K: BlockKind>(&mut self);
}

/// Declares a port bundle struct and its [`PortBundle`] impl from one list of fields, so a
/// port's name, type and width are written once.
///
/// Field types: `bool`, `u8`, `u16`, `u32`, `u64`, `u128` or a fixed array of the first five.
/// The width expression may use the parameters (`p`): an integer for a scalar (its width), a
/// `(count, width)` pair for an array (elements present and bits per element).
#[macro_export]
macro_rules! port_bundle {
    (
        $(#[$meta:meta])*
        pub struct $name:ident for $params:ty {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty = |$p:ident| $width:expr ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )+
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $( $field: <$ty as $crate::block::PortField>::zero(), )+ }
            }
        }

        impl $crate::block::PortBundle for $name {
            type Params = $params;
            fn specs(params: &Self::Params) -> Vec<$crate::block::PortSpec> {
                let mut v = vec![];
                $({
                    let $p = params;
                    let shape = $crate::block::IntoShape::shape($width);
                    <$ty as $crate::block::PortField>::specs(stringify!($field), shape, &mut v);
                })+
                v
            }
            fn to_words(&self, params: &Self::Params, dst: &mut [u64]) {
                let mut i = 0;
                $({
                    let $p = params;
                    let shape = $crate::block::IntoShape::shape($width);
                    $crate::block::PortField::put(&self.$field, shape, dst, &mut i);
                })+
            }
            fn from_words(params: &Self::Params, src: &[u64]) -> Self {
                let mut i = 0;
                $(
                    let $field = {
                        let $p = params;
                        let shape = $crate::block::IntoShape::shape($width);
                        <$ty as $crate::block::PortField>::get(shape, src, &mut i)
                    };
                )+
                Self { $($field),+ }
            }
        }
    };
}

/// A field type of [`port_bundle!`](crate::port_bundle): how it flattens into ports and words.
pub trait PortField: Copy + PartialEq + Debug {
    /// The all-zero value.
    fn zero() -> Self;
    /// Appends the field's flattened ports (named after `name`) to `out`.
    fn specs(name: &str, shape: Shape, out: &mut Vec<PortSpec>);
    /// Writes the field's words at `dst[*i..]`, advancing `i`.
    fn put(&self, shape: Shape, dst: &mut [u64], i: &mut usize);
    /// Reads the field from `src[*i..]`, advancing `i`.
    fn get(shape: Shape, src: &[u64], i: &mut usize) -> Self;
}

/// A scalar field type of at most 64 bits.
pub trait PortValue: Copy + PartialEq + Debug + Default {
    /// Bits of the type.
    const BITS: u32;
    /// The value as a word (zero-extended).
    fn to_word(self) -> u64;
    /// The value from a word (truncated to the field type).
    fn from_word(w: u64) -> Self;
}

impl PortValue for bool {
    const BITS: u32 = 1;
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
            const BITS: u32 = <$t>::BITS;
            fn to_word(self) -> u64 { self as u64 }
            fn from_word(w: u64) -> Self { w as $t }
        }
    )*};
}
port_value_uint!(u8, u16, u32, u64);

fn check_width(name: &str, width: u32, bits: u32) {
    assert!(
        (1..=bits).contains(&width),
        "port `{name}`: width {width} does not fit its field type (1..={bits} bits)"
    );
}

impl<T: PortValue> PortField for T {
    fn zero() -> Self {
        T::default()
    }
    fn specs(name: &str, shape: Shape, out: &mut Vec<PortSpec>) {
        check_width(name, shape.width, T::BITS);
        out.push(PortSpec::new(name, shape.width));
    }
    fn put(&self, _shape: Shape, dst: &mut [u64], i: &mut usize) {
        dst[*i] = self.to_word();
        *i += 1;
    }
    fn get(_shape: Shape, src: &[u64], i: &mut usize) -> Self {
        *i += 1;
        T::from_word(src[*i - 1])
    }
}

impl PortField for u128 {
    fn zero() -> Self {
        0
    }
    fn specs(name: &str, shape: Shape, out: &mut Vec<PortSpec>) {
        check_width(name, shape.width, MAX_PORT_BITS);
        out.push(PortSpec::new(name, shape.width));
    }
    fn put(&self, shape: Shape, dst: &mut [u64], i: &mut usize) {
        dst[*i] = *self as u64;
        if shape.width > 64 {
            dst[*i + 1] = (*self >> 64) as u64;
        }
        *i += shape.width.div_ceil(64) as usize;
    }
    fn get(shape: Shape, src: &[u64], i: &mut usize) -> Self {
        let mut v = src[*i] as u128;
        if shape.width > 64 {
            v |= (src[*i + 1] as u128) << 64;
        }
        *i += shape.width.div_ceil(64) as usize;
        v
    }
}

impl<const N: usize> PortField for [u128; N] {
    fn zero() -> Self {
        [0; N]
    }
    fn specs(name: &str, shape: Shape, out: &mut Vec<PortSpec>) {
        assert!(
            (1..=N).contains(&shape.count),
            "port array `{name}`: {} elements, the field holds 1..={N}",
            shape.count
        );
        for k in 0..shape.count {
            <u128 as PortField>::specs(&format!("{name}_{k}"), shape, out);
        }
    }
    fn put(&self, shape: Shape, dst: &mut [u64], i: &mut usize) {
        for v in &self[..shape.count] {
            PortField::put(v, shape, dst, i);
        }
    }
    fn get(shape: Shape, src: &[u64], i: &mut usize) -> Self {
        let mut a = [0; N];
        for v in &mut a[..shape.count] {
            *v = <u128 as PortField>::get(shape, src, i);
        }
        a
    }
}

impl<T: PortValue, const N: usize> PortField for [T; N] {
    fn zero() -> Self {
        [T::default(); N]
    }
    fn specs(name: &str, shape: Shape, out: &mut Vec<PortSpec>) {
        assert!(
            (1..=N).contains(&shape.count),
            "port array `{name}`: {} elements, the field holds 1..={N}",
            shape.count
        );
        for k in 0..shape.count {
            let n = format!("{name}_{k}");
            check_width(&n, shape.width, T::BITS);
            out.push(PortSpec::new(n, shape.width));
        }
    }
    fn put(&self, shape: Shape, dst: &mut [u64], i: &mut usize) {
        for v in &self[..shape.count] {
            dst[*i] = v.to_word();
            *i += 1;
        }
    }
    fn get(shape: Shape, src: &[u64], i: &mut usize) -> Self {
        let mut a = [T::default(); N];
        for v in &mut a[..shape.count] {
            *v = T::from_word(src[*i]);
            *i += 1;
        }
        a
    }
}

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
        pub struct Demo for (u32, usize) {
            /// A flag.
            pub flag: bool = |_p| 1,
            /// A bus.
            pub bus: u16 = |p| p.0,
            /// A wide mask.
            pub wide: u128 = |p| 80 + p.1 as u32,
            /// Per-element values.
            pub per: [u32; 4] = |p| (p.1, 20),
        }
    }

    #[test]
    fn packed_bits_lay_ports_end_to_end_and_unpack_back() {
        let p = (13u32, 3usize);
        let d = Demo {
            flag: true,
            bus: 0x1abc,
            wide: 1u128 << 82 | 5,
            per: [7, 8, 9, 0],
        };
        let specs = Demo::specs(&p);
        let mut words = vec![0; word_count(&specs)];
        d.to_words(&p, &mut words);
        let chunks = pack_bits(&specs, &words);
        // 1 + 13 + 83 + 3 x 20 = 157 bits: 5 chunks.
        assert_eq!(chunks.len(), 5);
        // flag at bit 0, bus at bits 1..14, wide from bit 14 (its bit 82 at bit 96).
        assert_eq!(chunks[0] & 1, 1);
        assert_eq!(chunks[0] >> 1 & 0x1fff, 0x1abc);
        assert_eq!(chunks[0] >> 14 & 0x7, 5);
        assert_eq!(chunks[3] & 1, 1);
        // per[0] = 7 from bit 97.
        assert_eq!(chunks[3] >> 1 & 0xfffff, 7);
        assert_eq!(unpack_bits(&specs, &chunks), words);
        assert_eq!(Demo::from_words(&p, &unpack_bits(&specs, &chunks)), d);
    }

    #[test]
    fn bundle_round_trips_and_lists_flattened_specs() {
        let p = (13u32, 3usize);
        let d = Demo {
            flag: true,
            bus: 0x1234,
            wide: 1u128 << 82 | 5,
            per: [7, 8, 9, 0],
        };
        let specs = Demo::specs(&p);
        let names: Vec<_> = specs.iter().map(|s| (s.name.as_str(), s.width)).collect();
        assert_eq!(
            names,
            [
                ("flag", 1),
                ("bus", 13),
                ("wide", 83),
                ("per_0", 20),
                ("per_1", 20),
                ("per_2", 20)
            ]
        );
        assert_eq!(word_count(&specs), 7);
        let mut w = [0u64; 7];
        d.to_words(&p, &mut w);
        assert_eq!(w, [1, 0x1234, 5, 1 << 18, 7, 8, 9]);
        assert_eq!(Demo::from_words(&p, &w), d);
        assert_eq!(
            port_values(&specs, &w),
            vec![1, 0x1234, 1u128 << 82 | 5, 7, 8, 9]
        );
        // Elements beyond the parameters' count do not travel.
        let mut e = d;
        e.per[3] = 1;
        e.to_words(&p, &mut w);
        assert_eq!(Demo::from_words(&p, &w), d);
    }

    port_bundle! {
        /// Test bundle with an array of wide ports.
        pub struct WideArray for usize {
            /// Per-element wide masks.
            pub masks: [u128; 3] = |p| (*p, 80),
        }
    }

    #[test]
    fn arrays_of_wide_ports_round_trip() {
        let d = WideArray {
            masks: [1u128 << 79 | 3, 7, 0],
        };
        let specs = WideArray::specs(&2);
        let names: Vec<_> = specs.iter().map(|s| (s.name.as_str(), s.width)).collect();
        assert_eq!(names, [("masks_0", 80), ("masks_1", 80)]);
        let mut w = [0u64; 4];
        d.to_words(&2, &mut w);
        assert_eq!(w, [3, 1 << 15, 7, 0]);
        assert_eq!(WideArray::from_words(&2, &w), d);
    }

    #[test]
    #[should_panic(expected = "does not fit its field type")]
    fn a_width_larger_than_the_field_is_refused() {
        Demo::specs(&(17, 1));
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
