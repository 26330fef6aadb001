//! NewCAR (seed 003 ch. III; `shared/spec/elf.md` §2): the load/store unit's re-execution
//! queue.
//!
//! A request is one cache access of one warp (a coalesced transaction), a load or a store.
//! The block keeps, per slot, `valid`, the warp, load/store and an age; the SM keeps each
//! request's payload beside the slot the block names.
//!
//! # Ports and cycle semantics (Mealy outputs, state updated at the rising edge)
//! The caches' verdicts are inputs of the same cycle: the SM probes (without side effects)
//! whether its cache would take the LSU's request (`lsu_accept`) and each queued request
//! (`q_accept`, one bit per slot), and then performs exactly the access the block chooses, which
//! therefore succeeds.
//! * `lsu_ready = count < entries` (state before the edge): the LSU may present a request.
//! * If the LSU presents one (`lsu_valid`) and the queue is not full, the LSU has priority:
//!   - `must_queue`: the warp has a store in the queue, or the request is a store and the warp
//!     has anything in the queue: the request is enqueued (`enq_valid`, `enq_slot` = lowest
//!     free slot);
//!   - else, if the cache accepts, it goes to the cache (`lsu_to_cache`);
//!   - else it is enqueued.
//! * Otherwise (LSU idle, or queue full), the queue is served: the first *eligible* slot at or
//!   after the rotating pointer is tried (`try_valid`, `try_slot`); the pointer moves past it
//!   whether or not it is accepted; if `q_accept` holds for it, it leaves
//!   (`deq_valid`, `deq_slot`). A slot is eligible when no older entry of its warp is a store,
//!   and, if it is a store, no older entry of its warp exists at all.
//!
//! So per warp, a store reaches the cache after everything older, a load after every older
//! store; loads pass loads; other warps never wait (spec §2.5, NC-2, NC-3).

pub mod stimulus;

use crate::block::{clog2, Block, Inspect, PortSpec};
use crate::port_bundle;

/// Parameter presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// GTX 480: 32 entries, 48 warps.
    Fermi,
    /// Small FPGA prototype: 8 entries, 8 warps.
    Proto,
}

/// Block parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Queue entries (1..=64).
    pub entries: usize,
    /// Warps per SM (1..=64).
    pub warps: usize,
}

impl Params {
    /// A preset's parameters.
    pub fn preset(p: Preset) -> Self {
        match p {
            Preset::Fermi => Self {
                entries: 32,
                warps: 48,
            },
            Preset::Proto => Self {
                entries: 8,
                warps: 8,
            },
        }
    }
}

port_bundle! {
    /// Inputs of one cycle.
    pub struct NewcarIn for Params {
        /// The LSU presents a request.
        pub lsu_valid: bool = |_p| 1,
        /// Its warp.
        pub lsu_warp: u8 = |p| clog2(p.warps),
        /// It is a store (else a load).
        pub lsu_store: bool = |_p| 1,
        /// Its cache would accept it now.
        pub lsu_accept: bool = |_p| 1,
        /// Per slot: the cache would accept that queued request now.
        pub q_accept: u64 = |p| p.entries,
    }
}

port_bundle! {
    /// Outputs of one cycle.
    pub struct NewcarOut for Params {
        /// The queue has room: the LSU may present a request.
        pub lsu_ready: bool = |_p| 1,
        /// The LSU's request goes to the cache this cycle.
        pub lsu_to_cache: bool = |_p| 1,
        /// The LSU's request enters the queue.
        pub enq_valid: bool = |_p| 1,
        /// Slot it enters.
        pub enq_slot: u8 = |p| clog2(p.entries),
        /// A queued request is tried at the cache.
        pub try_valid: bool = |_p| 1,
        /// Its slot.
        pub try_slot: u8 = |p| clog2(p.entries),
        /// The tried request was accepted and leaves the queue.
        pub deq_valid: bool = |_p| 1,
        /// Its slot (equal to `try_slot`).
        pub deq_slot: u8 = |p| clog2(p.entries),
        /// Entries in the queue (before the edge).
        pub count: u8 = |p| clog2(p.entries + 1),
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Entry {
    valid: bool,
    warp: u8,
    store: bool,
    seq: u64,
}

/// Golden model of NewCAR.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    slots: Vec<Entry>,
    next_seq: u64,
    ptr: usize,
}

impl Golden {
    /// A queue in its reset state.
    pub fn new(params: Params) -> Self {
        assert!((1..=64).contains(&params.entries) && (1..=64).contains(&params.warps));
        let mut g = Self {
            params,
            slots: vec![Entry::default(); params.entries],
            next_seq: 0,
            ptr: 0,
        };
        g.reset();
        g
    }

    /// Entries in the queue.
    pub fn count(&self) -> usize {
        self.slots.iter().filter(|e| e.valid).count()
    }

    fn must_queue(&self, warp: u8, store: bool) -> bool {
        self.slots
            .iter()
            .any(|e| e.valid && e.warp == warp && (e.store || store))
    }

    fn eligible(&self, i: usize) -> bool {
        let e = self.slots[i];
        e.valid
            && !self
                .slots
                .iter()
                .any(|o| o.valid && o.warp == e.warp && o.seq < e.seq && (o.store || e.store))
    }
}

impl Block for Golden {
    type In = NewcarIn;
    type Out = NewcarOut;

    fn reset(&mut self) {
        self.slots.fill(Entry::default());
        self.next_seq = 0;
        self.ptr = 0;
    }

    fn step(&mut self, inp: &NewcarIn) -> NewcarOut {
        let n = self.params.entries;
        let count = self.count();
        let full = count == n;
        let mut out = NewcarOut {
            lsu_ready: !full,
            count: count as u8,
            ..Default::default()
        };
        let warp = inp.lsu_warp;
        if inp.lsu_valid && !full {
            if !self.must_queue(warp, inp.lsu_store) && inp.lsu_accept {
                out.lsu_to_cache = true;
            } else {
                let slot = self.slots.iter().position(|e| !e.valid).expect("not full");
                out.enq_valid = true;
                out.enq_slot = slot as u8;
                self.slots[slot] = Entry {
                    valid: true,
                    warp,
                    store: inp.lsu_store,
                    seq: self.next_seq,
                };
                self.next_seq += 1;
            }
        } else if let Some(i) = (0..n)
            .map(|k| (self.ptr + k) % n)
            .find(|&i| self.eligible(i))
        {
            out.try_valid = true;
            out.try_slot = i as u8;
            self.ptr = (i + 1) % n;
            if inp.q_accept >> i & 1 == 1 {
                out.deq_valid = true;
                out.deq_slot = i as u8;
                self.slots[i].valid = false;
            }
        }
        out
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        let mut v = vec![PortSpec::new("ptr", clog2(self.params.entries))];
        for i in 0..self.params.entries {
            v.push(PortSpec::new(format!("slot{i}_valid"), 1));
            v.push(PortSpec::new(
                format!("slot{i}_warp"),
                clog2(self.params.warps),
            ));
            v.push(PortSpec::new(format!("slot{i}_store"), 1));
        }
        v
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        out.clear();
        out.push(self.ptr as u64);
        for e in &self.slots {
            out.extend([e.valid as u64, e.warp as u64, e.store as u64]);
        }
    }
}

#[cfg(test)]
mod tests;

/// NewCAR as a registry entry.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "newcar";
    const SUMMARY: &'static str =
        "NewCAR re-execution queue of the load/store unit (ELF, seed 003 ch. III)";
    const POLICIES: &'static [&'static str] = &["base"];
    const PRESETS: &'static [&'static str] = &["fermi", "proto"];
    type Params = Params;
    type In = NewcarIn;
    type Out = NewcarOut;
    type Golden = Golden;
    type Stim = stimulus::Stimulus;

    fn params(_policy: &str, preset: &str) -> Params {
        Params::preset(match preset {
            "fermi" => Preset::Fermi,
            "proto" => Preset::Proto,
            other => unreachable!("not a preset of newcar: {other}"),
        })
    }
    fn golden(params: &Params) -> Golden {
        Golden::new(*params)
    }
    fn stimulus(params: &Params, seed: u64) -> stimulus::Stimulus {
        stimulus::Stimulus::new(*params, seed)
    }
    fn manifest_params(p: &Params) -> Vec<(&'static str, u64)> {
        vec![("entries", p.entries as u64), ("warps", p.warps as u64)]
    }
    fn paper_budget(p: &Params) -> Option<crate::block::PaperBudget> {
        Some(crate::block::PaperBudget {
            bits: Some(p.entries as u64 * 301),
            structure: format!(
                "{} queue entries x 301 bits, the request's payload included, as CAR's (seed \
                 003 Table 3.3, L654); ours keeps only control state, the payload stays in the \
                 SM's LSU",
                p.entries
            ),
        })
    }
    fn busy(out: &NewcarOut) -> bool {
        out.lsu_to_cache || out.deq_valid
    }
    fn describe(p: &Params) -> String {
        format!("{} entries, {} warps", p.entries, p.warps)
    }
}
