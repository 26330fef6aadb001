//! A serial restoring divider that divides its own register in place.

use crate::consts::constant;
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// A `W`-bit register that a restoring divider turns into its quotient, one bit a cycle: the
/// hardware of a divider by a small unsigned number (PAVER's task stealer divides its sum of
/// waiting blocks by the number of SMs with one, seed 004 L289).
///
/// Timing: at the edge with `clear`, the register and the remainder clear; else with `load`,
/// the register takes `load_value` and the remainder clears (`clear`, then `load`, win over
/// `step`). At each edge with `step` and no `load`, the register's top bit
/// moves into the `R`-bit remainder and one quotient bit moves into the register's bottom:
/// `W` steps after a load of `x`, `value` is `floor(x / divisor)` and `remainder` is `x mod
/// divisor`. Between them `value` holds the quotient's high bits over the dividend's low ones.
/// With neither, both hold. `divisor` must be at least 1 and at most `2^(R-1)` (the shifted
/// remainder, below twice the divisor, then fits `R` bits); it must not change during a
/// division. Logic: one `R`-bit subtractor and comparator, two multiplexers; no reset (load
/// to start).
#[derive(LogicBlock)]
pub struct SerialDivider<const W: usize, const R: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Clear the register and the remainder at the edge.
    pub clear: Signal<In, Bit>,
    /// Write `load_value` into the register at the edge.
    pub load: Signal<In, Bit>,
    /// What a load writes.
    pub load_value: Signal<In, Bits<W>>,
    /// One division step at the edge.
    pub step: Signal<In, Bit>,
    /// The divisor, a constant (set it before the circuit is connected: [`Self::dividing_by`]).
    pub divisor: Constant<Bits<R>>,
    /// The register: the dividend, the quotient after `W` steps.
    pub value: Signal<Out, Bits<W>>,
    /// The partial remainder.
    pub remainder: Signal<Out, Bits<R>>,
    word: DFF<Bits<W>>,
    rem: DFF<Bits<R>>,
    /// The remainder shifted left with the register's top bit brought in.
    shifted: Signal<Local, Bits<R>>,
    top: Constant<Bits<8>>,
    one_w: Constant<Bits<W>>,
    one_r: Constant<Bits<R>>,
    zero_r: Constant<Bits<R>>,
    zero_w: Constant<Bits<W>>,
    sh1: Constant<Bits<8>>,
}

impl<const W: usize, const R: usize> Default for SerialDivider<W, R> {
    fn default() -> Self {
        assert!(
            (1..=64).contains(&W) && (1..=64).contains(&R),
            "1 <= W, R <= 64"
        );
        Self {
            clock: Default::default(),
            clear: Default::default(),
            load: Default::default(),
            load_value: Default::default(),
            step: Default::default(),
            divisor: constant(1),
            value: Default::default(),
            remainder: Default::default(),
            word: Default::default(),
            rem: Default::default(),
            shifted: Default::default(),
            top: constant(W as u64 - 1),
            one_w: constant(1),
            one_r: constant(1),
            zero_r: constant(0),
            zero_w: constant(0),
            sh1: constant(1),
        }
    }
}

impl<const W: usize, const R: usize> SerialDivider<W, R> {
    /// A divider by `d` (`1 <= d <= 2^(R-1)`).
    pub fn dividing_by(d: u64) -> Self {
        assert!(d >= 1 && d <= 1 << (R - 1), "a divisor of 1 to 2^(R-1)");
        Self {
            divisor: constant(d),
            ..Default::default()
        }
    }
}

impl<const W: usize, const R: usize> Logic for SerialDivider<W, R> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, word, rem);
        self.shifted.next = self.rem.q.val() << self.sh1.val();
        if (self.word.q.val() >> self.top.val()).any() {
            self.shifted.next = (self.rem.q.val() << self.sh1.val()) | self.one_r.val();
        }
        if self.step.val() {
            self.word.d.next = self.word.q.val() << self.sh1.val();
            self.rem.d.next = self.shifted.val();
            if self.shifted.val() >= self.divisor.val() {
                self.word.d.next = (self.word.q.val() << self.sh1.val()) | self.one_w.val();
                self.rem.d.next = self.shifted.val() - self.divisor.val();
            }
        }
        if self.load.val() {
            self.word.d.next = self.load_value.val();
            self.rem.d.next = self.zero_r.val();
        }
        if self.clear.val() {
            self.word.d.next = self.zero_w.val();
            self.rem.d.next = self.zero_r.val();
        }
        self.value.next = self.word.q.val();
        self.remainder.next = self.rem.q.val();
    }
}

impl<const W: usize, const R: usize> Clocked for SerialDivider<W, R> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// Golden divider: the register and the remainder after `steps` steps (at most `w`) from a
/// load of `x` (`w`-bit), divided by `d`.
pub fn serial_div_golden(x: u64, d: u64, w: usize, steps: usize) -> (u64, u64) {
    let mask = if w >= 64 { u64::MAX } else { (1 << w) - 1 };
    let (mut reg, mut rem) = (x & mask, 0u64);
    for _ in 0..steps {
        let shifted = rem << 1 | reg >> (w - 1) & 1;
        reg = reg << 1 & mask;
        rem = shifted;
        if shifted >= d {
            reg |= 1;
            rem = shifted - d;
        }
    }
    (reg, rem)
}
