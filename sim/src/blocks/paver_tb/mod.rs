//! PAVER's thread-block scheduler (seed 004 §5, Fig. 8-9, Algorithm 2; spec `paver.md` §1.8-
//! §1.11 with the revisions of §6): per SM the `next` and `tail` indices of the group it works
//! through and the `nextTB` register, the global group-queue head, and the task stealer.
//!
//! # The group tables live outside the block (V-R6)
//! The JIT pass's tables ([`crate::analysis::paver::Groups`]: `order[]`, a permutation of the
//! blocks, and `gstart[]`, where each group starts) sit in global memory (L246);
//! [`Groups::table_word`](crate::analysis::paver::Groups::table_word) is the environment's
//! answer to a read. Each SM has a
//! read port: `req_valid[s]` with `req_group[s]` (1: the descriptor of group `req_addr[s]`,
//! answered as `gstart[g + 1] << 16 | gstart[g]`; 0: `order[req_addr[s]]`). The environment
//! answers each read on `rsp_valid[s]`/`rsp_data[s]` one or more cycles later, in order; an SM
//! has one read outstanding at a time. A response is used in the cycle it arrives (a
//! synchronous RAM's read data), so with a latency of one cycle an SM issues a block every
//! cycle. A kernel's `start` forgets outstanding reads: the environment must not deliver their
//! responses.
//!
//! # Cycle semantics (every decision from the state at the start of the cycle, after the
//! cycle's responses; the updates at the edge)
//! 1. Responses: a descriptor sets `next`/`tail`; an order entry sets `nextTB` when `next` is
//!    still below `tail` (a stolen index's entry is dropped).
//! 2. Issue (Fig. 9 step c): SM s with a valid `nextTB` and `room[s]` is granted block
//!    `nextTB`; `next` advances.
//! 3. Assignment (steps a, b, e; V-R5): while the queue holds groups, every exhausted SM
//!    (`next == tail`, no read outstanding, at the start of the cycle: a dropped answer frees
//!    an SM for the next cycle) takes the next group, in round-robin order from
//!    `grant_ptr + 1`; `grant_ptr` becomes the last SM served. Reset and start set it to
//!    `sms - 1`, so from an idle launch group g goes to SM g.
//! 4. The task stealer (Algorithm 2, L265-L291: three adders, one comparator and one divider,
//!    so one SM per cycle), once the queue is empty. Cycles `0..sms` of a round: it reads SM k's
//!    `W = tail - next`, adds it to `sum` and keeps the largest `W` of a busy SM (no `room`;
//!    lowest index on ties) as `max` and `donor`. Cycles `sms..sms + 16`: a serial divider
//!    (one quotient bit per cycle) turns `sum` into `floor(sum / sms)`. Cycle `sms + 16`: it
//!    registers the count. Cycle `sms + 17`: it commits. `S = max - floor(sum / sms)` (the literal count, V-R1; with [`Steal::Clamp`] at
//!    most `max - 1`, spec A2). The steal fires when `S >= 1`, a recipient exists (the first
//!    exhausted SM with `room`, or with no block at all under `recipient_idle`, in round-robin
//!    order from `steal_ptr + 1`, the last recipient; the paper does not say) and the donor is
//!    still busy and still waits for at least `S` blocks (`S + 1` with the clamp): the donor's
//!    `tail` drops by `S`, the recipient takes `[tail - S, tail)`. A donor left with nothing
//!    loses its `nextTB`. Then a new round starts. The mode (off, literal, clamp) and
//!    `recipient_idle` are configuration inputs sampled with `start`.
//! 5. Reads: an SM assigned a group reads its descriptor; an SM with `next < tail`, no valid
//!    `nextTB` and no read outstanding reads `order[next]`.
//! 6. `idle`: at the start of the cycle the queue was empty and every SM exhausted (every
//!    block granted).
//!
//! Widths: block and group indices are 16 bits (at most 65,535 blocks, L251); `W`, `sum`,
//! `max` and `S` are 16 bits, as the paper's stealer registers (L289).
//!
//! Block policy: one (`base`); the stealer's mode is an input, so one module serves MST-TS
//! (off), kway-TS and RB-TS (literal) and the spec's variants.

use crate::block::{clog2, Block, Inspect, PortSpec};
use crate::port_bundle;

/// Most SMs the scheduler serves.
pub const MAX_SMS: usize = 128;

/// The task stealer's mode (the `steal_mode` input: 0, 1, 2; 3 reads as off).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Steal {
    /// No stealing (MST-TS, L285; `--no-steal`).
    Off,
    /// Algorithm 2 as printed: `S = max - avg` (V-R1).
    Literal,
    /// `S = min(max - avg, max - 1)`: the donor keeps its head block (spec A2).
    Clamp,
}

/// Serial divider cycles (16-bit quotient); one more cycle registers the stolen count, so a
/// round of the stealer takes `sms + DIV_CYCLES + 2` cycles.
pub const DIV_CYCLES: usize = 16;

/// Parameter presets: the SMs of the paper's GPUs (Table 1) and a small prototype.
pub const PRESETS: &[(&str, usize)] =
    &[("fermi", 15), ("titanx", 28), ("titanv", 80), ("proto", 4)];

impl Steal {
    /// Names (`off`, `literal`, `clamp`).
    pub const NAMES: &'static [&'static str] = &["off", "literal", "clamp"];

    /// The mode of input value `v`.
    pub fn from_port(v: u8) -> Self {
        match v {
            1 => Self::Literal,
            2 => Self::Clamp,
            _ => Self::Off,
        }
    }

    /// Parses a name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .position(|n| *n == s)
            .map(|i| Self::from_port(i as u8))
    }
}

/// Scheduler parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// SMs, 1..=[`MAX_SMS`].
    pub sms: usize,
}

impl Params {
    /// The parameters for `sms` SMs.
    pub fn new(sms: usize) -> Self {
        assert!((1..=MAX_SMS).contains(&sms), "1..={MAX_SMS} SMs");
        Self { sms }
    }

    /// Mask of the `sms` low bits.
    pub fn sm_mask(&self) -> u128 {
        if self.sms >= 128 {
            u128::MAX
        } else {
            (1u128 << self.sms) - 1
        }
    }
}

port_bundle! {
    /// Scheduler inputs for one cycle.
    pub struct PaverIn for Params {
        /// A kernel starts (sampled with `groups`, `steal_mode`, `recipient_idle`); effective
        /// at the edge.
        pub start: bool = |_p| 1,
        /// Groups in its queue (`G`).
        pub groups: u16 = |_p| 16,
        /// The stealer's mode for the kernel: 0 off, 1 literal, 2 clamp ([`Steal`]).
        pub steal_mode: u8 = |_p| 2,
        /// A recipient must hold no block at all (V-R2's `recipient_idle`); else room for one
        /// more is enough.
        pub recipient_idle: bool = |_p| 1,
        /// SMs that can take one more block of the kernel (bit s: SM s).
        pub room: u128 = |p| p.sms,
        /// SMs holding no block of the kernel.
        pub empty: u128 = |p| p.sms,
        /// SMs whose outstanding read is answered this cycle.
        pub rsp_valid: u128 = |p| p.sms,
        /// Per SM: the answer (an order entry in bits 0-15; a descriptor: start in 0-15, end in
        /// 16-31).
        pub rsp_data: [u32; MAX_SMS] = |p| (p.sms, 32),
    }
}

port_bundle! {
    /// Scheduler outputs for one cycle.
    pub struct PaverOut for Params {
        /// SMs granted block `id_s` this cycle.
        pub grant: u128 = |p| p.sms,
        /// Per SM: the block granted (0 without a grant).
        pub id: [u16; MAX_SMS] = |p| (p.sms, 16),
        /// SMs reading the tables this cycle.
        pub req_valid: u128 = |p| p.sms,
        /// SMs whose read is a group descriptor (else an order entry).
        pub req_group: u128 = |p| p.sms,
        /// Per SM: the group or the order index read (0 without a read).
        pub req_addr: [u16; MAX_SMS] = |p| (p.sms, 16),
        /// SMs assigned a group this cycle.
        pub assigned: u128 = |p| p.sms,
        /// A steal committed this cycle.
        pub steal: bool = |_p| 1,
        /// Its donor SM.
        pub steal_donor: u8 = |_p| 8,
        /// Its recipient SM.
        pub steal_to: u8 = |_p| 8,
        /// Blocks it moved (`S`).
        pub steal_count: u16 = |_p| 16,
        /// Every block of the kernel has been granted (or no kernel runs).
        pub idle: bool = |_p| 1,
    }
}

impl PaverOut {
    /// The grants of this cycle as `(sm, block id)`, SM by SM.
    pub fn grants(&self, sms: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        (0..sms)
            .filter(move |&s| self.grant >> s & 1 == 1)
            .map(move |s| (s, self.id[s] as u32))
    }

    /// The reads of this cycle as `(sm, is a descriptor, address)`.
    pub fn reads(&self, sms: usize) -> impl Iterator<Item = (usize, bool, u16)> + '_ {
        (0..sms)
            .filter(move |&s| self.req_valid >> s & 1 == 1)
            .map(move |s| (s, self.req_group >> s & 1 == 1, self.req_addr[s]))
    }
}

/// One SM's registers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SmRegs {
    /// Index into `order` of the next block to issue.
    pub next: u16,
    /// One past the last index of the SM's range.
    pub tail: u16,
    /// The next block (`order[next]`) when `ntb_valid`.
    pub ntb: u16,
    /// `ntb` holds `order[next]`.
    pub ntb_valid: bool,
    /// A read is outstanding.
    pub pend: bool,
    /// The outstanding read is a group descriptor (the SM is being assigned a group).
    pub pend_group: bool,
}

impl SmRegs {
    /// Blocks waiting (`tail - next`, 16 bits), the held `ntb` included.
    pub fn waiting(&self) -> u16 {
        self.tail.wrapping_sub(self.next)
    }

    /// Exhausted with no read outstanding: can take a group or stolen blocks.
    fn free(&self) -> bool {
        self.next == self.tail && !self.pend
    }
}

/// A fault planted in the golden model (tests show the checks catch it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The stealer takes one block too many from the donor's tail.
    StealOneMore,
    /// Assignment skips the round-robin pointer (always from SM 0).
    AssignFromZero,
    /// The stealer keeps the last of the busy SMs with the largest `W` as donor (spec P14:
    /// the first).
    DonorLastOnTies,
    /// A round whose count is one block steals nothing (spec P19).
    NoStealOfOne,
    /// A descriptor answered once the queue is empty gives its range one block longer (spec
    /// P18: `W` grows).
    DescriptorOneLonger,
}

/// The `n` SMs in round-robin order from `ptr + 1`.
fn rr_from(n: usize, ptr: usize) -> impl Iterator<Item = usize> {
    (ptr + 1..=ptr + n).map(move |i| i % n)
}

/// Golden model of the scheduler.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    sm: Vec<SmRegs>,
    /// Groups handed out.
    gq_head: u16,
    /// Groups of the running kernel.
    groups: u16,
    /// The last SM that received a group.
    grant_ptr: usize,
    /// The last SM that received stolen blocks.
    steal_ptr: usize,
    /// The running kernel's stealer mode.
    steal: Steal,
    /// Its recipients must be idle.
    recipient_idle: bool,
    /// The stealer's cycle in its round: `0..sms` it reads SM `scan`, then it divides, then it
    /// registers the count, at `sms + DIV_CYCLES + 1` it commits.
    scan: usize,
    /// Its running sum of `W`.
    sum: u16,
    /// The largest `W` of a busy SM so far.
    max: u16,
    /// That SM.
    donor: usize,
    /// A planted fault.
    pub fault: Option<Fault>,
}

impl Golden {
    /// A scheduler in its reset state (no kernel).
    pub fn new(params: Params) -> Self {
        let mut g = Self {
            params,
            sm: vec![SmRegs::default(); params.sms],
            gq_head: 0,
            groups: 0,
            grant_ptr: 0,
            steal_ptr: 0,
            steal: Steal::Off,
            recipient_idle: false,
            scan: 0,
            sum: 0,
            max: 0,
            donor: 0,
            fault: None,
        };
        g.reset();
        g
    }

    /// SM `s`'s registers.
    pub fn sm(&self, s: usize) -> SmRegs {
        self.sm[s]
    }

    /// Groups handed out so far.
    pub fn gq_head(&self) -> u16 {
        self.gq_head
    }

    /// Step 1: the cycle's responses.
    fn take_responses(&mut self, inp: &PaverIn) {
        for (s, r) in self.sm.iter_mut().enumerate() {
            if inp.rsp_valid >> s & 1 == 0 || !r.pend {
                continue;
            }
            let data = inp.rsp_data[s];
            if r.pend_group {
                r.next = data as u16;
                r.tail = (data >> 16) as u16;
                if self.fault == Some(Fault::DescriptorOneLonger) && self.gq_head >= self.groups {
                    r.tail = r.tail.wrapping_add(1);
                }
            } else if r.next != r.tail {
                r.ntb = data as u16;
                r.ntb_valid = true;
            }
            r.pend = false;
            r.pend_group = false;
        }
    }

    /// Step 4: one cycle of the stealer (a scan step or the commit), on the state after the
    /// responses: `self.sm` after this cycle's issue (`issued`, which moved only `next`), so
    /// SM s waited for `waiting() + issued[s]` blocks. `free` is the start-of-cycle mask.
    fn stealer(&mut self, issued: u128, free: u128, room: u128, empty: u128, out: &mut PaverOut) {
        let n = self.params.sms;
        let waited = |g: &Self, s: usize| g.sm[s].waiting().wrapping_add((issued >> s & 1) as u16);
        if self.scan < n {
            let (w, busy) = (waited(self, self.scan), room >> self.scan & 1 == 0);
            self.sum = self.sum.wrapping_add(w);
            let ties_last = self.fault == Some(Fault::DonorLastOnTies) && w == self.max && w > 0;
            if busy && (w > self.max || ties_last) {
                (self.max, self.donor) = (w, self.scan);
            }
            self.scan += 1;
            return;
        }
        if self.scan < n + DIV_CYCLES + 1 {
            self.scan += 1;
            return;
        }
        let avg = self.sum / n as u16;
        let mut s = self.max - avg.min(self.max);
        if self.steal == Steal::Clamp {
            s = s.min(self.max.saturating_sub(1));
        }
        let d = self.donor;
        let keep = (self.steal == Steal::Clamp) as u16;
        let donor_waited = waited(self, d);
        let donor_ok = room >> d & 1 == 0 && donor_waited >= s.saturating_add(keep);
        let can = free & if self.recipient_idle { empty } else { room };
        let recipient = rr_from(n, self.steal_ptr).find(|&r| can >> r & 1 == 1);
        let dropped = self.fault == Some(Fault::NoStealOfOne) && s == 1;
        if let (true, true, Some(r), false) = (s >= 1, donor_ok, recipient, dropped) {
            let s = match self.fault {
                Some(Fault::StealOneMore) => s.saturating_add(1).min(donor_waited),
                _ => s,
            };
            let tail = self.sm[d].tail;
            self.sm[d].tail = tail.wrapping_sub(s);
            if self.sm[d].next == self.sm[d].tail {
                self.sm[d].ntb_valid = false;
            }
            self.sm[r].next = tail.wrapping_sub(s);
            self.sm[r].tail = tail;
            self.steal_ptr = r;
            out.steal = true;
            (out.steal_donor, out.steal_to, out.steal_count) = (d as u8, r as u8, s);
        }
        (self.scan, self.sum, self.max, self.donor) = (0, 0, 0, 0);
    }
}

impl Block for Golden {
    type In = PaverIn;
    type Out = PaverOut;

    fn reset(&mut self) {
        self.sm.iter_mut().for_each(|r| *r = SmRegs::default());
        self.gq_head = 0;
        self.groups = 0;
        self.grant_ptr = self.params.sms - 1;
        self.steal_ptr = self.params.sms - 1;
        self.steal = Steal::Off;
        self.recipient_idle = false;
        (self.scan, self.sum, self.max, self.donor) = (0, 0, 0, 0);
    }

    fn step(&mut self, inp: &PaverIn) -> PaverOut {
        let (room, empty) = (
            inp.room & self.params.sm_mask(),
            inp.empty & self.params.sm_mask(),
        );
        // 6. Idle, and who is free, from the state at the start of the cycle.
        let mut out = PaverOut {
            idle: self.gq_head >= self.groups
                && self.sm.iter().all(|r| r.next == r.tail && !r.pend_group),
            ..Default::default()
        };
        let free = self
            .sm
            .iter()
            .enumerate()
            .fold(0u128, |m, (s, r)| m | (r.free() as u128) << s);
        self.take_responses(inp);
        // 2. Issue.
        for (s, r) in self.sm.iter_mut().enumerate() {
            if r.ntb_valid && room >> s & 1 == 1 {
                out.grant |= 1 << s;
                out.id[s] = r.ntb;
                r.next = r.next.wrapping_add(1);
                r.ntb_valid = false;
            }
        }
        // 3. Assignment, or 4. the stealer once the queue is empty.
        if self.gq_head < self.groups {
            let ptr = match self.fault {
                Some(Fault::AssignFromZero) => self.params.sms - 1,
                _ => self.grant_ptr,
            };
            for s in rr_from(self.params.sms, ptr) {
                if self.gq_head == self.groups {
                    break;
                }
                if free >> s & 1 == 0 {
                    continue;
                }
                out.assigned |= 1 << s;
                out.req_valid |= 1 << s;
                out.req_group |= 1 << s;
                out.req_addr[s] = self.gq_head;
                self.sm[s].pend = true;
                self.sm[s].pend_group = true;
                self.gq_head += 1;
                self.grant_ptr = s;
            }
        } else if self.steal != Steal::Off {
            self.stealer(out.grant, free, room, empty, &mut out);
        }
        // 5. Order reads.
        for (s, r) in self.sm.iter_mut().enumerate() {
            if r.next != r.tail && !r.ntb_valid && !r.pend {
                out.req_valid |= 1 << s;
                out.req_addr[s] = r.next;
                r.pend = true;
            }
        }
        if inp.start {
            self.reset();
            self.groups = inp.groups;
            self.steal = Steal::from_port(inp.steal_mode);
            self.recipient_idle = inp.recipient_idle;
        }
        out
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        let mut v = vec![
            PortSpec::new("gq_head", 16),
            PortSpec::new("groups", 16),
            PortSpec::new("grant_ptr", clog2(self.params.sms)),
            PortSpec::new("steal_ptr", clog2(self.params.sms)),
            PortSpec::new("steal_mode", 2),
            PortSpec::new("recipient_idle", 1),
            PortSpec::new("scan", clog2(self.params.sms + DIV_CYCLES + 2)),
            PortSpec::new("sum", 16),
            PortSpec::new("max", 16),
            PortSpec::new("donor", clog2(self.params.sms)),
        ];
        for s in 0..self.params.sms {
            v.push(PortSpec::new(format!("next_{s}"), 16));
            v.push(PortSpec::new(format!("tail_{s}"), 16));
            v.push(PortSpec::new(format!("ntb_{s}"), 16));
            v.push(PortSpec::new(format!("flags_{s}"), 3));
        }
        v
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        out.clear();
        out.extend([
            self.gq_head as u64,
            self.groups as u64,
            self.grant_ptr as u64,
            self.steal_ptr as u64,
            self.steal as u64,
            self.recipient_idle as u64,
            self.scan as u64,
            self.sum as u64,
            self.max as u64,
            self.donor as u64,
        ]);
        for r in &self.sm {
            let flags = r.ntb_valid as u64 | (r.pend as u64) << 1 | (r.pend_group as u64) << 2;
            out.extend([r.next as u64, r.tail as u64, r.ntb as u64, flags]);
        }
    }
}

/// The scheduler as a registry entry.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "paver_tb";
    const SUMMARY: &'static str =
        "PAVER's thread-block scheduler: per-SM next/tail/nextTB over the \
                                   JIT pass's group tables in memory, and the task stealer";
    const POLICIES: &'static [&'static str] = &["base"];
    const PRESETS: &'static [&'static str] = &["fermi", "titanx", "titanv", "proto"];
    type Params = Params;
    type In = PaverIn;
    type Out = PaverOut;
    type Golden = Golden;
    type Stim = stimulus::Stimulus;

    fn params(_policy: &str, preset: &str) -> Params {
        Params::new(crate::block::preset_of(PRESETS, preset))
    }
    fn golden(params: &Params) -> Golden {
        Golden::new(*params)
    }
    fn stimulus(params: &Params, seed: u64) -> stimulus::Stimulus {
        stimulus::Stimulus::new(*params, seed)
    }
    fn manifest_params(p: &Params) -> Vec<(&'static str, u64)> {
        vec![("sms", p.sms as u64), ("div_cycles", DIV_CYCLES as u64)]
    }
    fn paper_budget(p: &Params) -> Option<crate::block::PaperBudget> {
        Some(crate::block::PaperBudget {
            bits: Some(8 * (18 * p.sms as u64 + 6)),
            structure: format!(
                "per SM a 64-bit `next`, a 64-bit `tail` (byte pointers) and a 16-bit `nextTB`, \
                 18 B x {} SMs, and the task stealer's 6 B (seed 004 L253, L289); the group \
                 tables in global memory (L246)",
                p.sms
            ),
        })
    }
    fn busy(out: &PaverOut) -> bool {
        out.grant != 0
    }
    fn describe(p: &Params) -> String {
        format!("{} SMs", p.sms)
    }
}

pub mod stimulus;

#[cfg(test)]
mod tests;
