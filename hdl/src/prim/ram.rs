//! A table in block RAM.

use crate::sim::Clocked;
use rust_hdl::prelude::*;
use rust_hdl::widgets::prelude::RAM;

/// A simple dual-port RAM of `2^A` words of `W` bits on one clock: one read port and one write
/// port, as the FPGAs' block RAMs have them (ECP5 DP16KD, iCE40 SB_RAM40_4K, 7-series RAMB18E1;
/// the emitted Verilog is the `reg [W-1:0] mem[...]` with a registered read that synthesis
/// tools infer as one).
///
/// Timing: `read_data` is the word at `read_address` of the previous cycle (one cycle of read
/// latency: the address is registered inside the RAM). At the rising edge `write_data` is
/// stored at `write_address` when `write_enable`. A read of the address written at the same
/// edge returns the old word (read before write). No reset: a word never written reads as
/// whatever the power-up left (Verilator's `--x-initial unique` randomises it), so a block
/// keeps valid bits of its own in registers.
#[derive(LogicBlock, Default)]
pub struct Ram<const W: usize, const A: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// The word to read, at the edge.
    pub read_address: Signal<In, Bits<A>>,
    /// The word at the last edge's `read_address`.
    pub read_data: Signal<Out, Bits<W>>,
    /// Where to write.
    pub write_address: Signal<In, Bits<A>>,
    /// What to write.
    pub write_data: Signal<In, Bits<W>>,
    /// Write at the edge.
    pub write_enable: Signal<In, Bit>,
    words: RAM<Bits<W>, A>,
}

impl<const W: usize, const A: usize> Logic for Ram<W, A> {
    #[hdl_gen]
    fn update(&mut self) {
        self.words.read_clock.next = self.clock.val();
        self.words.write_clock.next = self.clock.val();
        self.words.read_address.next = self.read_address.val();
        self.words.write_address.next = self.write_address.val();
        self.words.write_data.next = self.write_data.val();
        self.words.write_enable.next = self.write_enable.val();
        self.read_data.next = self.words.read_data.val();
    }
}

impl<const W: usize, const A: usize> Clocked for Ram<W, A> {
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// Golden RAM: `words` words, each `None` until written (its value on a board is unknown).
#[derive(Clone, Debug)]
pub struct RamGolden {
    mem: Vec<Option<u64>>,
    read: Option<u64>,
}

impl RamGolden {
    /// Nothing written.
    pub fn new(words: usize) -> Self {
        Self {
            mem: vec![None; words],
            read: None,
        }
    }

    /// The word the last edge read (`None`: never written).
    pub fn read_data(&self) -> Option<u64> {
        self.read
    }

    /// One rising edge: read `read_address` (the old word when it is also written), then
    /// write `write` (address, word) if any.
    pub fn edge(&mut self, read_address: usize, write: Option<(usize, u64)>) {
        self.read = self.mem[read_address];
        if let Some((a, w)) = write {
            self.mem[a] = Some(w);
        }
    }
}
