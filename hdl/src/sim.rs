//! Cycle stepping of a rust-hdl circuit in rust-hdl's own simulator, without its threaded
//! testbench: set inputs, settle, read outputs, clock edge. Used by the RTL-vs-golden tests.

use rust_hdl::core::simulate::simulate;
use rust_hdl::prelude::*;

/// Settle iterations before a circuit is declared oscillating.
const MAX_SETTLE: usize = 1000;

/// A circuit with a `clock` input that can be stepped one cycle at a time.
pub trait Clocked: Block {
    /// The circuit's clock input.
    fn clock_signal(&mut self) -> &mut Signal<In, Clock>;
}

/// Prepares `uut` for stepping (connects it, clock low, settled).
pub fn start<U: Clocked>(uut: &mut U) {
    uut.connect_all();
    uut.clock_signal().next = Clock::from(false);
    assert!(simulate(uut, MAX_SETTLE), "circuit does not settle");
}

/// Settles the combinational logic with the current inputs (call before reading outputs).
pub fn settle<U: Clocked>(uut: &mut U) {
    settle_comb(uut);
}

/// One rising then falling clock edge, settling after each.
pub fn clock_edge<U: Clocked>(uut: &mut U) {
    uut.clock_signal().next = Clock::from(true);
    assert!(
        simulate(uut, MAX_SETTLE),
        "circuit does not settle after the rising edge"
    );
    uut.clock_signal().next = Clock::from(false);
    assert!(
        simulate(uut, MAX_SETTLE),
        "circuit does not settle after the falling edge"
    );
}

/// Connects a combinational circuit (no clock) and settles it.
pub fn start_comb<U: Block>(uut: &mut U) {
    uut.connect_all();
    settle_comb(uut);
}

/// Settles a combinational circuit with its current inputs.
pub fn settle_comb<U: Block>(uut: &mut U) {
    assert!(simulate(uut, MAX_SETTLE), "circuit does not settle");
}

/// `v` as an `N`-bit value (`N` up to 128; bits above `N` dropped), for ports wider than 64
/// bits.
pub fn to_bits<const N: usize>(v: u128) -> Bits<N> {
    let mut b = Bits::<N>::from(0u64);
    for i in 0..N.min(128) {
        b = b.replace_bit(i, v >> i & 1 == 1);
    }
    b
}

/// The value of an `N`-bit signal (`N` up to 128).
pub fn from_bits<const N: usize>(b: Bits<N>) -> u128 {
    (0..N.min(128)).fold(0, |v, i| v | (b.get_bit(i) as u128) << i)
}
