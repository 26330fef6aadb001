//! ELF (seed 003 ch. III; `shared/spec/elf.md` §1.5-§1.8): the program-point table, the
//! priority calculator (comparators + priority encoder + distance/score arithmetic), the warp
//! priority table (WPT) and the issue select of the SM's warp schedulers (`schedulers`, 2 in
//! both presets). Golden model; the RTL is `gpusched_hdl::elf`.
//!
//! # Ports and cycle semantics (Mealy outputs, state updated at the rising edge)
//! * **Table write port** (`tw_*`), used at kernel launch only: `tw_clear` invalidates every
//!   slot, then `tw_en` writes slot `tw_slot`. Slots must hold ascending PCs from slot 0 with
//!   the valid ones contiguous (what [`crate::analysis::elf::compile`] produces). A lookup in a
//!   cycle that writes the table is not allowed by the protocol (spec PC-8).
//! * **Launch/exit** (`launch`, `exit`: one bit per warp of the SM): a launched warp becomes
//!   live, gets the next age and `WPT = calc(launch_pc)`; an exiting warp stops being
//!   live.
//! * Per-scheduler ports are arrays with one element per scheduler (`ready_0`, `ready_1`, ...;
//!   `block.rs` gives the flattening rule).
//! * **WPT update** (`upd_*[s]`): the SM reports, in the cycle after a grant of scheduler `s`,
//!   what the granted instruction did: `upd_valid[s]`, `upd_trig[s]` (a program-point load was
//!   issued, or a branch whose direction equals its recalculation bit) and `upd_pc[s]` (the
//!   warp's next PC). The new value, `trig ? calc(upd_pc) : (WPT[w] == 255 ? 255 :
//!   max(WPT[w] - 1, 0))` (spec §1.7 with the sticky sentinel of A-21), is what this cycle's
//!   issue and fetch selects see (the calculator's output bypasses the WPT register) and is
//!   written at the edge: an instruction granted at cycle `t` has its priority effect in the
//!   select of `t + 1` (spec §1.6 [REC]), so a warp that issued its load at `t` hands over at
//!   `t + 1` (L337). With an empty table every entry stays 255 and ELF issues exactly as GTO
//!   (SCH-4). [`Params::wpt_update`] = [`WptUpdate::Registered`] (golden model only) writes
//!   the new value at the edge instead, so the selects see it one cycle later (`t + 2`);
//!   [`WptUpdate::Pipelined`] (RTL: policy `pipelined`) registers the calculator's result first and
//!   writes it at the next edge (`t + 3`); a launched warp has WPT 255 until its launch
//!   lookup's value lands, one edge later.
//! * **Issue select**, per scheduler `s` of `S` (warp `w` belongs to scheduler `w % S`, local
//!   index `w / S`), scheduler by scheduler from `issue_lead` (the SM's paired issue, which
//!   the warp arbiters also use; ELF changes only the priority order, L391, L512): among
//!   `ready[s] & live`, less the warps whose unit (`unit[s]`) has no slot left after the
//!   schedulers before `s` took theirs (`free` at the start of the cycle, one slot per grant
//!   of a warp that needs the unit), the warp with the smallest key
//!   `(WPT[w], w != last_issued[s], age[w])` is granted (`grant_valid[s]`, `grant_warp[s]`),
//!   and becomes `last_issued[s]` (spec §1.8, A-11). `prio[s]` is its WPT value. With an
//!   empty table this is exactly GTO arbiters issuing paired (SCH-4).
//! * **Fetch select** (spec §1.9 [REC], A-10): the eligible warps are `fetch_elig` (their
//!   i-buffer is empty) and those of `fetch_on_grant` that this cycle grants (issuing empties
//!   their i-buffer), so the warp being issued from is refilled without a bubble (L339: fetch
//!   follows the issue priorities). Among the eligible live warps, each scheduler's warp with
//!   the smallest key (the keys of this cycle's select, before its grants) and its rank `r_s`,
//!   the number of live warps of that scheduler with a smaller key; the warp fetched
//!   (`fetch_valid`, `fetch_warp`: global id) is the one with the smallest interleave position
//!   `r_s * S + (s - fetch_lead) mod S`: the first eligible warp of the interleave of the
//!   schedulers' key orders, scheduler `fetch_lead` first (with two schedulers: the leader's
//!   warp unless the other's rank is smaller). When no live warp is eligible, the lowest
//!   eligible warp launching this cycle is fetched (a new block's first fetch is not delayed).
//!
//! `calc` is [`calc`]: the first valid slot with `pc_slot >= pc` (priority encoder over a sorted
//! table); distance `d = (pc_slot - pc) >> inst_shift`; a branch gives `sat(d + score)`, a load
//! `sat(d > score ? d - score : d)` (the thesis's "larger than"; with the `merge_ge` input,
//! `d >= score`, spec A-6), no slot gives 255.

pub mod stimulus;

use crate::block::{clog2, low_bits, Block, Inspect, PortSpec};
use crate::port_bundle;

/// Most warp schedulers an ELF block serves (length of the per-scheduler port arrays).
pub const MAX_SCHEDULERS: usize = 4;

/// Unit codes of the `unit` port: an instruction that needs no unit (barrier, exit).
pub const UNIT_NONE: u64 = 0;
/// The SP pipelines (integer, floating point, branches).
pub const UNIT_SP: u64 = 1;
/// The SFU pipelines.
pub const UNIT_SFU: u64 = 2;
/// The load/store unit.
pub const UNIT_LSU: u64 = 3;

/// Largest priority (8-bit): saturation and "no load ahead".
pub const MAX_PRIO: u8 = 255;

/// One program-point table slot (42 bits in hardware: valid, branch, 32-bit PC, 8-bit score).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PpEntry {
    /// The slot holds a program point.
    pub valid: bool,
    /// It is a branch (else a load).
    pub branch: bool,
    /// Its PC (bytes).
    pub pc: u32,
    /// Its score.
    pub score: u8,
}

/// What the calculator found for one lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lookup {
    /// Priority, 0 (load next) ..= 255.
    pub prio: u8,
    /// A valid slot with `pc_slot >= pc` exists.
    pub found: bool,
    /// The lowest such slot (0 when not found).
    pub sel: usize,
}

/// The priority calculator (spec §1.6 [REC]) over a PC-sorted table.
pub fn calc(table: &[PpEntry], pc: u32, inst_shift: u32, merge_ge: bool) -> Lookup {
    let Some(sel) = table.iter().position(|e| e.valid && e.pc >= pc) else {
        return Lookup {
            prio: MAX_PRIO,
            found: false,
            sel: 0,
        };
    };
    let e = table[sel];
    let d = ((e.pc - pc) >> inst_shift) as u64;
    let s = e.score as u64;
    let v = if e.branch {
        d + s
    } else if (merge_ge && d >= s) || (!merge_ge && d > s) {
        d - s
    } else {
        d
    };
    Lookup {
        prio: v.min(MAX_PRIO as u64) as u8,
        found: true,
        sel,
    }
}

/// The inputs that write `table` through the table port, one slot per cycle from slot 0; with
/// `clear` the first of them also invalidates the old table (an empty `table` then takes one
/// clearing cycle). No other port is driven: the caller adds launch, ready, update inputs.
pub fn table_writes(table: &[PpEntry], clear: bool) -> Vec<ElfIn> {
    if table.is_empty() {
        return if clear {
            vec![ElfIn {
                tw_clear: true,
                ..Default::default()
            }]
        } else {
            vec![]
        };
    }
    table
        .iter()
        .enumerate()
        .map(|(i, e)| ElfIn {
            tw_clear: i == 0 && clear,
            tw_en: true,
            tw_slot: i as u8,
            tw_valid: e.valid,
            tw_branch: e.branch,
            tw_pc: e.pc,
            tw_score: e.score,
            ..Default::default()
        })
        .collect()
}

/// Parameter presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// GTX 480: 48 warps, 32 program points.
    Fermi,
    /// Small FPGA prototype: 8 warps, 8 program points.
    Proto,
}

/// When a grant's WPT update (the `upd_*` ports) reaches the issue and fetch selects.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WptUpdate {
    /// In the cycle the update port reports it: the calculator's output bypasses the WPT
    /// register, so an instruction granted at `t` has its priority effect in the select of
    /// `t + 1` (spec §1.6 [REC]). The RTL (`elf_base_*`) does this.
    #[default]
    Bypass,
    /// One cycle later: the new value is written at the edge and the selects read it from
    /// the register, so the table lookup is off the select path (what a pipelined RTL would
    /// do); a grant at `t` has its effect in the select of `t + 2`, and `prio` reports the
    /// stored value. Golden model only: no RTL module yet.
    Registered,
    /// Two cycles later: the calculator's result is registered at the edge of the cycle the
    /// update port reports it and written into the WPT at the next edge, so neither the table
    /// lookup nor the comparison of its result with the other warps' values shares a cycle
    /// with the selects (a grant at `t` has its effect in the select of `t + 3`; a decrement
    /// reads the warp's latest value, the one in flight included). A warp launched at `t`
    /// becomes live with its age at that edge, as with the other timings, but with WPT 255
    /// (below every other priority); the launch lookup's value lands at the edge of `t + 1`,
    /// after that cycle's update. `prio` reports the stored value. Golden model only: no RTL
    /// module yet.
    Pipelined,
}

impl WptUpdate {
    /// Names, as `gpusched sim --elf-wpt` takes them.
    pub const NAMES: [&'static str; 3] = ["bypass", "registered", "pipelined"];

    /// Parses a name of [`Self::NAMES`].
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "bypass" => Some(Self::Bypass),
            "registered" => Some(Self::Registered),
            "pipelined" => Some(Self::Pipelined),
            _ => None,
        }
    }

    /// The name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Bypass => "bypass",
            Self::Registered => "registered",
            Self::Pipelined => "pipelined",
        }
    }
}

/// Block parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Warps per SM (2..=64, a multiple of `schedulers`).
    pub warps: usize,
    /// Warp schedulers (1..=[`MAX_SCHEDULERS`]); warp `w` belongs to scheduler `w % schedulers`.
    pub schedulers: usize,
    /// Program-point slots (1..=64).
    pub slots: usize,
    /// PC bits per instruction step (3: 8-byte instructions).
    pub inst_shift: u32,
    /// When the update ports' new WPT values reach the selects.
    pub wpt_update: WptUpdate,
}

impl Params {
    /// A preset's parameters.
    pub fn preset(p: Preset) -> Self {
        let (warps, slots) = match p {
            Preset::Fermi => (48, 32),
            Preset::Proto => (8, 8),
        };
        Self {
            warps,
            schedulers: 2,
            slots,
            inst_shift: 3,
            wpt_update: WptUpdate::Bypass,
        }
    }

    /// Warps per scheduler.
    pub fn per_sched(&self) -> usize {
        self.warps / self.schedulers
    }
}

port_bundle! {
    /// Inputs of one cycle. Masks over all warps are `warps` bits; per-scheduler masks and
    /// warp ids are local (`w / schedulers`).
    pub struct ElfIn for Params {
        /// Invalidate every table slot (kernel launch), before `tw_en`'s write.
        pub tw_clear: bool = |_p| 1,
        /// Write table slot `tw_slot`.
        pub tw_en: bool = |_p| 1,
        /// Slot written.
        pub tw_slot: u8 = |p| clog2(p.slots),
        /// Written valid bit.
        pub tw_valid: bool = |_p| 1,
        /// Written branch bit.
        pub tw_branch: bool = |_p| 1,
        /// Written PC.
        pub tw_pc: u32 = |_p| 32,
        /// Written score.
        pub tw_score: u8 = |_p| 8,
        /// The calculator's merged-load boundary (spec A-6): subtract a load's score when
        /// `d >= score` (1) or, as the thesis states it, `d > score` (0). Configuration: the
        /// SM holds it for the whole kernel, like the table.
        pub merge_ge: bool = |_p| 1,
        /// Warps launched this cycle (all at `launch_pc`).
        pub launch: u64 = |p| p.warps,
        /// Start PC of the launched warps.
        pub launch_pc: u32 = |_p| 32,
        /// Warps that exit this cycle.
        pub exit: u64 = |p| p.warps,
        /// Per scheduler: its issuable warps (local ids), with every unit free at the start of
        /// the cycle counted.
        pub ready: [u64; MAX_SCHEDULERS] = |p| (p.schedulers, p.per_sched()),
        /// Per scheduler: the unit each warp's next instruction needs, 2 bits per local warp
        /// (bits `2l..2l+1`): [`UNIT_NONE`], [`UNIT_SP`], [`UNIT_SFU`], [`UNIT_LSU`].
        pub unit: [u64; MAX_SCHEDULERS] = |p| (p.schedulers, 2 * p.per_sched()),
        /// Free slots of the SP, SFU and LSU units at the start of the cycle (the SM saturates
        /// them at `schedulers`).
        pub free: [u8; 3] = |p| (3, clog2(p.schedulers + 1)),
        /// The scheduler that issues first this cycle.
        pub issue_lead: u8 = |p| clog2(p.schedulers),
        /// Per scheduler: its previous grant reports back (update that warp's WPT entry).
        pub upd_valid: [bool; MAX_SCHEDULERS] = |p| (p.schedulers, 1),
        /// Per scheduler: recalculate (else decrement).
        pub upd_trig: [bool; MAX_SCHEDULERS] = |p| (p.schedulers, 1),
        /// Per scheduler: the warp's next PC.
        pub upd_pc: [u32; MAX_SCHEDULERS] = |p| (p.schedulers, 32),
        /// Warps that want an instruction fetch (bit `w`: global warp `w`).
        pub fetch_elig: u64 = |p| p.warps,
        /// Warps that want one once granted this cycle (the granted instruction is the last one
        /// in their i-buffer and more are to be fetched).
        pub fetch_on_grant: u64 = |p| p.warps,
        /// The scheduler whose order leads the fetch interleave this cycle.
        pub fetch_lead: u8 = |p| clog2(p.schedulers),
    }
}

port_bundle! {
    /// Outputs of one cycle.
    pub struct ElfOut for Params {
        /// Per scheduler: it grants a warp.
        pub grant_valid: [bool; MAX_SCHEDULERS] = |p| (p.schedulers, 1),
        /// Per scheduler: the granted warp (local id).
        pub grant_warp: [u8; MAX_SCHEDULERS] = |p| (p.schedulers, clog2(p.per_sched())),
        /// Per scheduler: the granted warp's WPT value.
        pub prio: [u8; MAX_SCHEDULERS] = |p| (p.schedulers, 8),
        /// A fetch-eligible live warp exists: fetch for `fetch_warp`.
        pub fetch_valid: bool = |_p| 1,
        /// The warp to fetch for (global id).
        pub fetch_warp: u8 = |p| clog2(p.warps),
    }
}

/// Golden model of the ELF block.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    table: Vec<PpEntry>,
    wpt: Vec<u8>,
    live: u64,
    /// Launch sequence number per warp (smaller is older).
    age: Vec<u64>,
    next_age: u64,
    /// Last granted warp (global id) per scheduler.
    last: [Option<usize>; MAX_SCHEDULERS],
    /// The warp granted in the previous cycle per scheduler (the target of `upd_*[s]`).
    pending: [Option<usize>; MAX_SCHEDULERS],
    /// Per scheduler: the global-id mask of its warps (`w % schedulers == s`).
    sched_masks: [u64; MAX_SCHEDULERS],
    /// [`WptUpdate::Pipelined`]: per scheduler, the warp and new WPT value computed at the
    /// last edge, written at the next one.
    upd_inflight: [Option<(usize, u8)>; MAX_SCHEDULERS],
    /// [`WptUpdate::Pipelined`]: the warps launched in the last cycle and their WPT value
    /// (the launch lookup's), written at the next edge.
    launch_inflight: (u64, u8),
    /// Calculator invocations (spec WPT-6).
    pub calcs: u64,
}

impl Golden {
    /// A block in its reset state.
    pub fn new(params: Params) -> Self {
        let sch = params.schedulers;
        assert!((1..=MAX_SCHEDULERS).contains(&sch), "1..={MAX_SCHEDULERS} schedulers");
        assert!(params.warps.is_multiple_of(sch) && (sch..=64).contains(&params.warps));
        assert!(params.per_sched() <= 32, "at most 32 warps per scheduler");
        assert!((1..=64).contains(&params.slots));
        let mut sched_masks = [0u64; MAX_SCHEDULERS];
        for w in 0..params.warps {
            sched_masks[w % sch] |= 1 << w;
        }
        let mut g = Self {
            params,
            table: vec![PpEntry::default(); params.slots],
            wpt: vec![MAX_PRIO; params.warps],
            live: 0,
            age: vec![0; params.warps],
            next_age: 0,
            last: [None; MAX_SCHEDULERS],
            pending: [None; MAX_SCHEDULERS],
            sched_masks,
            upd_inflight: [None; MAX_SCHEDULERS],
            launch_inflight: (0, MAX_PRIO),
            calcs: 0,
        };
        g.reset();
        g
    }

    /// The parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The WPT entry of warp `w`.
    pub fn wpt(&self, w: usize) -> u8 {
        self.wpt[w]
    }

    /// The table.
    pub fn table(&self) -> &[PpEntry] {
        &self.table
    }

    fn lookup(&mut self, pc: u32, merge_ge: bool) -> u8 {
        self.calcs += 1;
        calc(&self.table, pc, self.params.inst_shift, merge_ge).prio
    }

    /// Warp `w`'s issue key in its scheduler `w % schedulers` (smaller wins, spec §1.8).
    fn key(&self, w: usize) -> (u8, bool, u64, usize) {
        let s = w % self.params.schedulers;
        (self.wpt[w], self.last[s] != Some(w), self.age[w], w)
    }

    /// Global-id mask of scheduler `s`'s warps.
    fn sched_mask(&self, s: usize) -> u64 {
        self.sched_masks[s]
    }

    /// The live warp of scheduler `s` among `warps` (global mask) with the smallest key.
    fn best(&self, s: usize, warps: u64) -> Option<usize> {
        let mut m = warps & self.live & self.sched_mask(s);
        let mut best: Option<((u8, bool, u64, usize), usize)> = None;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let k = self.key(w);
            if best.is_none_or(|(b, _)| k < b) {
                best = Some((k, w));
            }
        }
        best.map(|(_, w)| w)
    }

    /// Last cycle's grants report back (`upd_*`): their new WPT values (written into the WPT
    /// before this cycle's selects with [`WptUpdate::Bypass`], at the edge with
    /// [`WptUpdate::Registered`], at the next edge with [`WptUpdate::Pipelined`]). They read
    /// the table as it is during the cycle.
    fn apply_updates(&mut self, inp: &ElfIn) {
        for s in 0..self.params.schedulers {
            self.upd_inflight[s] = None;
            if let (true, Some(w)) = (inp.upd_valid[s], self.pending[s]) {
                let new = if inp.upd_trig[s] {
                    self.lookup(inp.upd_pc[s], inp.merge_ge)
                } else if self.wpt[w] == MAX_PRIO {
                    MAX_PRIO
                } else {
                    self.wpt[w].saturating_sub(1)
                };
                match self.params.wpt_update {
                    WptUpdate::Pipelined => self.upd_inflight[s] = Some((w, new)),
                    _ => self.wpt[w] = new,
                }
            }
        }
    }

    /// [`WptUpdate::Pipelined`], at the edge: the updates and launch lookup computed at the
    /// last edge land (updates first, then the launched warps' value).
    fn land_inflight(&mut self) {
        for s in 0..self.params.schedulers {
            if let Some((w, v)) = self.upd_inflight[s] {
                self.wpt[w] = v;
            }
        }
        let (mut launched, value) = self.launch_inflight;
        while launched != 0 {
            let w = launched.trailing_zeros() as usize;
            launched &= launched - 1;
            self.wpt[w] = value;
        }
    }

    /// The WPT value of the warps `launched` this cycle: one lookup of `launch_pc`, counted
    /// in [`Self::calcs`] once per warp (255 when none is launched).
    fn launch_lookup(&mut self, launched: u64, inp: &ElfIn) -> u8 {
        if launched == 0 {
            return MAX_PRIO;
        }
        self.calcs += launched.count_ones() as u64 - 1;
        self.lookup(inp.launch_pc, inp.merge_ge)
    }

    /// Warps `launched` take WPT value `value` and the next ages (lowest id oldest).
    fn launch_warps(&mut self, launched: u64, value: u8) {
        let mut l = launched;
        while l != 0 {
            let w = l.trailing_zeros() as usize;
            l &= l - 1;
            self.wpt[w] = value;
            self.age[w] = self.next_age;
            self.next_age += 1;
        }
    }

    fn select(&self, s: usize, ready: u64) -> Option<usize> {
        let sch = self.params.schedulers;
        let mut global = 0u64;
        for local in 0..self.params.per_sched() {
            global |= (ready >> local & 1) << (sch * local + s);
        }
        self.best(s, global)
    }

    /// Fetch select (spec §1.9 [REC], rank form): each scheduler's best fetch-eligible warp
    /// and its rank `r` (live warps of that scheduler with a smaller key); the warp with the
    /// smallest interleave position `r * S + (s - lead) mod S` wins. Equal to the first
    /// eligible warp of the interleave `lead[0], (lead+1)[0], ..., lead[1], ...` of the
    /// schedulers' key orders (F-1).
    fn fetch_select(&self, elig: u64, lead: usize) -> Option<usize> {
        let sch = self.params.schedulers;
        let pick = |s: usize| {
            self.best(s, elig).map(|b| {
                let kb = self.key(b);
                let mut m = self.live & self.sched_mask(s);
                let mut rank = 0;
                while m != 0 {
                    let w = m.trailing_zeros() as usize;
                    m &= m - 1;
                    rank += (self.key(w) < kb) as usize;
                }
                (rank, b)
            })
        };
        (0..sch)
            .filter_map(|k| {
                let s = (lead + k) % sch;
                pick(s).map(|(rank, w)| (rank * sch + k, w))
            })
            .min()
            .map(|(_, w)| w)
    }
}

impl Block for Golden {
    type In = ElfIn;
    type Out = ElfOut;

    fn reset(&mut self) {
        self.table.fill(PpEntry::default());
        self.wpt.fill(MAX_PRIO);
        self.live = 0;
        self.age.fill(0);
        self.next_age = 0;
        self.last = [None; MAX_SCHEDULERS];
        self.pending = [None; MAX_SCHEDULERS];
        self.upd_inflight = [None; MAX_SCHEDULERS];
        self.launch_inflight = (0, MAX_PRIO);
        self.calcs = 0;
    }

    fn step(&mut self, inp: &ElfIn) -> ElfOut {
        let sch = self.params.schedulers;
        let wmask = low_bits(self.params.warps);
        if self.params.wpt_update == WptUpdate::Bypass {
            self.apply_updates(inp);
        }
        // Issue, scheduler by scheduler from `issue_lead`: each sees the unit slots the
        // schedulers before it took (the SM's paired issue).
        let mut grants = [None; MAX_SCHEDULERS];
        let mut granted = 0u64;
        let mut avail = inp.free.map(|f| (f as usize).min(sch));
        for k in 0..sch {
            let s = (inp.issue_lead as usize + k) % sch;
            let unit = |l: usize| inp.unit[s] >> (2 * l) & 3;
            let mut ready = inp.ready[s];
            for l in 0..self.params.per_sched() {
                let u = unit(l);
                if u != UNIT_NONE && avail[u as usize - 1] == 0 {
                    ready &= !(1 << l);
                }
            }
            grants[s] = self.select(s, ready);
            if let Some(w) = grants[s] {
                granted |= 1 << w;
                let u = unit(w / sch);
                if u != UNIT_NONE {
                    avail[u as usize - 1] -= 1;
                }
            }
        }
        // The lead is taken modulo the schedulers (a port of clog2(S) bits may exceed S - 1).
        let elig = (inp.fetch_elig | (inp.fetch_on_grant & granted)) & wmask;
        let fetch = self.fetch_select(elig, inp.fetch_lead as usize % sch).or_else(|| {
            // No live warp wants a fetch: a warp launching now, the lowest first.
            let fresh = elig & inp.launch & !self.live;
            (fresh != 0).then(|| fresh.trailing_zeros() as usize)
        });
        let mut out = ElfOut {
            fetch_valid: fetch.is_some(),
            fetch_warp: fetch.unwrap_or(0) as u8,
            ..Default::default()
        };
        for (s, g) in grants.iter().enumerate().take(sch) {
            out.grant_valid[s] = g.is_some();
            out.grant_warp[s] = g.map_or(0, |w| (w / sch) as u8);
            out.prio[s] = g.map_or(0, |w| self.wpt[w]);
        }
        // Edge: registered updates, launches (reading the table as it is during the cycle),
        // grants, table writes; pipelined: last cycle's updates and launches land first, then
        // this cycle's are computed (a decrement sees the landed value).
        match self.params.wpt_update {
            WptUpdate::Bypass => {}
            WptUpdate::Registered => self.apply_updates(inp),
            WptUpdate::Pipelined => {
                self.land_inflight();
                self.apply_updates(inp);
            }
        }
        let launched = inp.launch & wmask;
        let mut value = self.launch_lookup(launched, inp);
        if self.params.wpt_update == WptUpdate::Pipelined {
            // The lookup's value lands at the next edge; 255 until then.
            self.launch_inflight = (launched, value);
            value = MAX_PRIO;
        }
        self.launch_warps(launched, value);
        self.live = (self.live & !(inp.exit & wmask)) | launched;
        for (s, g) in grants.into_iter().enumerate().take(sch) {
            if g.is_some() {
                self.last[s] = g;
            }
            self.pending[s] = g;
        }
        if inp.tw_clear {
            self.table.fill(PpEntry::default());
        }
        if inp.tw_en && (inp.tw_slot as usize) < self.params.slots {
            self.table[inp.tw_slot as usize] = PpEntry {
                valid: inp.tw_valid,
                branch: inp.tw_branch,
                pc: inp.tw_pc,
                score: inp.tw_score,
            };
        }
        out
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        let mut v = vec![PortSpec::new("live", self.params.warps as u32)];
        for w in 0..self.params.warps {
            v.push(PortSpec::new(format!("wpt_{w}"), 8));
        }
        v
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        out.clear();
        out.push(self.live);
        out.extend(self.wpt.iter().map(|&x| x as u64));
    }
}

#[cfg(test)]
mod tests;

/// The ELF block as a registry entry.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "elf";
    const SUMMARY: &'static str = "ELF program-point table, priority calculators, warp priority table and issue select (seed 003 ch. III)";
    const POLICIES: &'static [&'static str] = &["base", "pipelined"];
    const PRESETS: &'static [&'static str] = &["fermi", "proto"];
    type Params = Params;
    type In = ElfIn;
    type Out = ElfOut;
    type Golden = Golden;
    type Stim = stimulus::Stimulus;

    fn params(policy: &str, preset: &str) -> Params {
        let p = Params::preset(match preset {
            "fermi" => Preset::Fermi,
            "proto" => Preset::Proto,
            other => unreachable!("not a preset of elf: {other}"),
        });
        match policy {
            // The spec's timing: an update is in the next cycle's select.
            "base" => p,
            // Lookups registered before the WPT write (`WptUpdate::Pipelined`).
            "pipelined" => Params {
                wpt_update: WptUpdate::Pipelined,
                ..p
            },
            other => unreachable!("not a policy of elf: {other}"),
        }
    }
    fn golden(params: &Params) -> Golden {
        Golden::new(*params)
    }
    fn stimulus(params: &Params, seed: u64) -> stimulus::Stimulus {
        stimulus::Stimulus::new(*params, seed)
    }
    fn manifest_params(p: &Params) -> Vec<(&'static str, u64)> {
        let mut v = vec![
            ("warps", p.warps as u64),
            ("schedulers", p.schedulers as u64),
            ("slots", p.slots as u64),
            ("inst_shift", p.inst_shift as u64),
        ];
        // A timing other than the spec's: 1 registered, 2 pipelined (the policy names it too).
        match p.wpt_update {
            WptUpdate::Bypass => {}
            WptUpdate::Registered => v.push(("wpt_update", 1)),
            WptUpdate::Pipelined => v.push(("wpt_update", 2)),
        }
        v
    }
    fn paper_budget(p: &Params) -> Option<crate::block::PaperBudget> {
        Some(crate::block::PaperBudget {
            bits: Some(p.slots as u64 * 42 + p.warps as u64 * 8),
            structure: format!(
                "program-point table {} x 42 bits (valid, branch, 32-bit PC, 8-bit score) and \
                 warp priority table {} x 8 bits per SM (seed 003 Table 3.3, L654; with NewCAR \
                 1.39 kB)",
                p.slots, p.warps
            ),
        })
    }
    fn busy(out: &ElfOut) -> bool {
        out.grant_valid.iter().any(|&g| g)
    }
    fn describe(p: &Params) -> String {
        format!(
            "{} warps, {} schedulers, {} program points{}",
            p.warps,
            p.schedulers,
            p.slots,
            match p.wpt_update {
                WptUpdate::Bypass => "",
                WptUpdate::Registered => ", registered WPT updates",
                WptUpdate::Pipelined => ", pipelined WPT updates",
            }
        )
    }
}
