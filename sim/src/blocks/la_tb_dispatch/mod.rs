//! Locality-aware thread-block dispatcher (seed 000 §3.2, Fig. 3.8; spec
//! `locality_bypass_paws.md` §1.1.4-§1.1.5, §1.6 R2): when an SM has room, it receives the
//! candidate block whose access rectangles overlap most with the blocks running on it; when no
//! candidate overlaps at all, the one that overlaps least with the blocks running on the other
//! SMs (so as not to take another SM's reuse away).
//!
//! Not in the registry yet (its RTL is the next step): the GPU runs its golden model at the
//! thread-block dispatch site for `--tb-sched locality`.
//!
//! # Ports and cycle semantics
//! * `start`/`total`/`max_per_sm`: a kernel of `total` blocks starts (at the edge: the window
//!   empties, ids restart at 0). `max_per_sm` is recorded for waveforms; `room` carries the
//!   occupancy.
//! * The block queue: the environment (the block scheduler's in-order processor, which computes
//!   rectangles from the kernel's address code) presents the next `fill_count` blocks of the
//!   queue (at most `fill` per cycle, in id order from block `fed`) on `fill_rect` (block `i`'s
//!   array `k` at `i * arrays + k`); `fill_taken` (Mealy) says how many the block took this
//!   cycle, into the window at the edge. The window holds `window` candidates (`0`: the whole
//!   queue, the thesis's choice, R2); it takes as many as it has free entries at the start of
//!   the cycle, plus the one a grant frees.
//! * `room` (bit s: SM s can take one more block of the kernel), `done_s` (bit j: the block in
//!   SM s's slot j finished this cycle; it stops counting at the edge).
//! * Outputs: at most one grant per cycle: block `grant_id` to SM `grant_sm`, in the SM's
//!   lowest free slot `grant_slot` (the environment reports the block's end on `done` with that
//!   slot). `idle`: every block of the kernel has been granted.
//!
//! # A decision (one per cycle)
//! While the window is filling (it holds fewer than `window` blocks and some are not loaded
//! yet) nothing is granted: the first decisions of a kernel see a full window (the thesis's
//! queue is filled at launch). Then SM `x` = the first SM with room and a free slot, visiting
//! from the SM after the last one served (round robin: the initial fill gives one block per SM
//! per step, A7). For each candidate `c`: `S_x(c)` = the pair locality of `c` with every block
//! running on `x`, `O(c)` = the same with every block running on the other SMs. Granted: the
//! candidate with the highest `S_x` if it is above 0, else the one with the lowest `O`; ties go
//! to the lowest block id (A6). With no locality anywhere, blocks go out in id order (P-TB4).
//!
//! Scores are kept per (candidate, SM) and updated as blocks are granted, finish and enter the
//! window (the spec's incremental form, §1.1.5); a test checks them against recomputation
//! (P-TB5). Locality values: [`crate::analysis::locality::pair_locality`] (at most 19 bits per
//! pair; a score sums at most 32 slots: 24 bits).

pub mod stimulus;
#[cfg(test)]
mod tests;

use crate::analysis::locality::{pair_locality, Rect, TbFootprint, MAX_ARRAYS};
use crate::block::{clog2, Block, Inspect, PortSpec};
use crate::port_bundle;

/// Most SMs (width of `room`, length of `done`).
pub const MAX_SMS: usize = 128;
/// Most block slots per SM (width of each `done_s`).
pub const MAX_SLOTS: usize = 32;
/// Most blocks the queue presents per cycle.
pub const MAX_FILL: usize = 16;
/// Bits of one packed rectangle on `fill_rect`: valid (bit 56), `sx` (24 bits from bit 32),
/// `sy` (16 from 16), `w` (8 from 8), `h` (8 from 0).
pub const RECT_BITS: u32 = 57;

/// Packs a rectangle (or its absence) as `fill_rect` carries it.
pub fn pack_rect(r: Option<Rect>) -> u64 {
    match r {
        None => 0,
        Some(r) => {
            1 << 56
                | (r.sx as u64 & 0xff_ffff) << 32
                | (r.sy as u64 & 0xffff) << 16
                | (r.w as u64) << 8
                | r.h as u64
        }
    }
}

/// Unpacks a `fill_rect` word.
pub fn unpack_rect(v: u64) -> Option<Rect> {
    (v >> 56 & 1 == 1).then_some(Rect {
        sx: (v >> 32 & 0xff_ffff) as u32,
        sy: (v >> 16 & 0xffff) as u32,
        w: (v >> 8) as u8,
        h: v as u8,
    })
}

/// Parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// SMs, 1..=[`MAX_SMS`].
    pub sms: usize,
    /// Block slots per SM (the most resident blocks), 1..=[`MAX_SLOTS`].
    pub slots: usize,
    /// Candidate window, blocks; 0 = the whole queue (thesis, R2).
    pub window: usize,
    /// Arrays per rectangle set, 1..=[`MAX_ARRAYS`].
    pub arrays: usize,
    /// Blocks the queue can present per cycle, 1..=[`MAX_FILL`].
    pub fill: usize,
}

impl Params {
    /// Mask of the `sms` low bits.
    pub fn sm_mask(&self) -> u128 {
        if self.sms >= 128 {
            u128::MAX
        } else {
            (1u128 << self.sms) - 1
        }
    }
}

/// Presets: (name, SMs, slots, window, arrays). `fermi`: the thesis's GPU (15 SMs, 8 blocks per
/// SM, Table 4.1) with the spec's RTL window of 32; `proto`: small.
pub const PRESETS: &[(&str, Params)] = &[
    (
        "fermi",
        Params {
            sms: 15,
            slots: 8,
            window: 32,
            arrays: MAX_ARRAYS,
            fill: 1,
        },
    ),
    (
        "proto",
        Params {
            sms: 4,
            slots: 4,
            window: 8,
            arrays: 2,
            fill: 2,
        },
    ),
];

port_bundle! {
    /// Dispatcher inputs for one cycle.
    pub struct LaDispatchIn for Params {
        /// A kernel starts (with `total` and `max_per_sm`).
        pub start: bool = |_p| 1,
        /// Thread blocks of the starting kernel.
        pub total: u32 = |_p| 32,
        /// Resident blocks per SM the kernel allows.
        pub max_per_sm: u8 = |_p| 8,
        /// SMs that can take one more block (bit s: SM s).
        pub room: u128 = |p| p.sms,
        /// Blocks of the queue presented on `fill_rect` (the next ones in id order), 0..=`fill`.
        pub fill_count: u8 = |p| clog2(p.fill + 1),
        /// Their rectangles: block `i`'s array `k` at `i * arrays + k` ([`pack_rect`]).
        pub fill_rect: [u64; MAX_ARRAYS * MAX_FILL] = |p| (p.arrays * p.fill, RECT_BITS),
        /// Per SM: the slots whose blocks finished this cycle.
        pub done: [u32; MAX_SMS] = |p| (p.sms, p.slots),
    }
}

port_bundle! {
    /// Dispatcher outputs for one cycle.
    pub struct LaDispatchOut for Params {
        /// Blocks of `fill_rect` that enter the window at the edge (the first ones).
        pub fill_taken: u8 = |p| clog2(p.fill + 1),
        /// A block is granted.
        pub grant: bool = |_p| 1,
        /// To this SM.
        pub grant_sm: u8 = |p| clog2(p.sms),
        /// This block.
        pub grant_id: u32 = |_p| 32,
        /// Into this slot of the SM.
        pub grant_slot: u8 = |p| clog2(p.slots),
        /// Every block of the kernel has been granted (or no kernel runs).
        pub idle: bool = |_p| 1,
    }
}

/// One candidate in the window.
#[derive(Clone, Debug)]
struct Candidate {
    id: u32,
    fp: TbFootprint,
    /// Per SM: pair locality with the blocks running there.
    score: Vec<u32>,
}

/// Golden model.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    total: u32,
    max_per_sm: u8,
    /// Blocks taken into the window so far (the next one's id).
    fed: u32,
    /// Blocks granted so far.
    granted: u32,
    /// The last SM served.
    last: usize,
    /// Candidates in id order.
    window: Vec<Candidate>,
    /// Per SM, per slot: the running block's footprint.
    running: Vec<Vec<Option<TbFootprint>>>,
    /// A planted bug (tests show the checks catch it).
    #[cfg(test)]
    pub(crate) fault: Option<Fault>,
}

/// Bugs a test can plant.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Ties go to the highest block id.
    HighestIdOnTies,
    /// A finished block's locality stays in the scores.
    KeepFinished,
}

impl Golden {
    /// A dispatcher in its reset state.
    pub fn new(params: Params) -> Self {
        assert!((1..=MAX_SMS).contains(&params.sms), "1..={MAX_SMS} SMs");
        assert!(
            (1..=MAX_SLOTS).contains(&params.slots),
            "1..={MAX_SLOTS} slots"
        );
        assert!(
            (1..=MAX_ARRAYS).contains(&params.arrays),
            "1..={MAX_ARRAYS} arrays"
        );
        assert!(
            (1..=MAX_FILL).contains(&params.fill),
            "1..={MAX_FILL} blocks filled per cycle"
        );
        let mut g = Self {
            params,
            total: 0,
            max_per_sm: 0,
            fed: 0,
            granted: 0,
            last: 0,
            window: vec![],
            running: vec![],
            #[cfg(test)]
            fault: None,
        };
        g.reset();
        g
    }

    fn capacity(&self) -> usize {
        if self.params.window == 0 {
            usize::MAX
        } else {
            self.params.window
        }
    }

    /// Whether the window is still filling (no decision this cycle).
    fn filling(&self) -> bool {
        self.fed < self.total && self.window.len() < self.capacity()
    }

    /// The SM served this cycle and its lowest free slot.
    fn pick_sm(&self, room: u128) -> Option<(usize, usize)> {
        let n = self.params.sms;
        (1..=n).map(|i| (self.last + i) % n).find_map(|s| {
            let slot = self.running[s].iter().position(Option::is_none)?;
            (room >> s & 1 == 1).then_some((s, slot))
        })
    }

    /// The candidate granted to SM `x` (index in the window).
    fn choose(&self, x: usize) -> Option<usize> {
        let best = self
            .window
            .iter()
            .enumerate()
            .max_by_key(|(_, c)| (c.score[x], std::cmp::Reverse(self.tie_key(c.id))))?;
        if best.1.score[x] > 0 {
            return Some(best.0);
        }
        let others = |c: &Candidate| -> u64 {
            (0..self.params.sms)
                .filter(|&s| s != x)
                .map(|s| c.score[s] as u64)
                .sum()
        };
        self.window
            .iter()
            .enumerate()
            .min_by_key(|(_, c)| (others(c), self.tie_key(c.id)))
            .map(|(i, _)| i)
    }

    /// The tie-break key of block `id` (the lowest id wins).
    fn tie_key(&self, id: u32) -> i64 {
        #[cfg(test)]
        if self.fault == Some(Fault::HighestIdOnTies) {
            return -(id as i64);
        }
        id as i64
    }

    /// Pair locality of `fp` with every block running on each SM.
    fn scores_of(&self, fp: &TbFootprint) -> Vec<u32> {
        self.running
            .iter()
            .map(|slots| slots.iter().flatten().map(|r| pair_locality(fp, r)).sum())
            .collect()
    }

    /// Checks every kept score against recomputation (tests, P-TB5).
    #[cfg(test)]
    pub(crate) fn scores_consistent(&self) -> bool {
        self.window.iter().all(|c| c.score == self.scores_of(&c.fp))
    }

    /// Candidates in the window (ids), for tests.
    #[cfg(test)]
    pub(crate) fn window_ids(&self) -> Vec<u32> {
        self.window.iter().map(|c| c.id).collect()
    }
}

impl Block for Golden {
    type In = LaDispatchIn;
    type Out = LaDispatchOut;

    fn reset(&mut self) {
        self.total = 0;
        self.max_per_sm = 0;
        self.fed = 0;
        self.granted = 0;
        self.last = self.params.sms - 1;
        self.window.clear();
        self.running = vec![vec![None; self.params.slots]; self.params.sms];
    }

    fn step(&mut self, inp: &LaDispatchIn) -> LaDispatchOut {
        let p = self.params;
        let mut out = LaDispatchOut::default();
        // The decision, from the state before the edge.
        let pick = if self.filling() || self.window.is_empty() {
            None
        } else {
            self.pick_sm(inp.room & p.sm_mask())
                .and_then(|(x, slot)| Some((x, slot, self.choose(x)?)))
        };
        if let Some((x, slot, i)) = pick {
            out.grant = true;
            out.grant_sm = x as u8;
            out.grant_id = self.window[i].id;
            out.grant_slot = slot as u8;
        }
        let free = self.capacity().saturating_sub(self.window.len()) + pick.is_some() as usize;
        let queued = (self.total - self.fed) as usize;
        out.fill_taken = (inp.fill_count as usize).min(p.fill).min(free).min(queued) as u8;
        out.idle = self.granted >= self.total;
        // Edge: finished blocks leave, the granted one runs, the fed ones enter the window.
        for s in 0..p.sms {
            let done = inp.done[s] as u64 & ((1u64 << p.slots) - 1);
            for j in 0..p.slots {
                if done >> j & 1 == 1 {
                    if let Some(r) = self.running[s][j].take() {
                        #[cfg(test)]
                        if self.fault == Some(Fault::KeepFinished) {
                            continue;
                        }
                        for c in &mut self.window {
                            c.score[s] -= pair_locality(&c.fp, &r);
                        }
                    }
                }
            }
        }
        if let Some((x, slot, i)) = pick {
            let c = self.window.remove(i);
            for o in &mut self.window {
                o.score[x] += pair_locality(&o.fp, &c.fp);
            }
            self.running[x][slot] = Some(c.fp);
            self.granted += 1;
            self.last = x;
        }
        for i in 0..out.fill_taken as usize {
            let mut fp = TbFootprint::default();
            for k in 0..p.arrays {
                fp.rects[k] = unpack_rect(inp.fill_rect[i * p.arrays + k]);
            }
            let score = self.scores_of(&fp);
            self.window.push(Candidate {
                id: self.fed,
                fp,
                score,
            });
            self.fed += 1;
        }
        if inp.start {
            self.total = inp.total;
            self.max_per_sm = inp.max_per_sm;
            self.fed = 0;
            self.granted = 0;
            self.last = p.sms - 1;
            self.window.clear();
        }
        out
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("total", 32),
            PortSpec::new("max_per_sm", 8),
            PortSpec::new("fed", 32),
            PortSpec::new("granted", 32),
            PortSpec::new("last", clog2(self.params.sms)),
            PortSpec::new("window_len", 32),
        ]
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        out.clear();
        out.extend([
            self.total as u64,
            self.max_per_sm as u64,
            self.fed as u64,
            self.granted as u64,
            self.last as u64,
            self.window.len() as u64,
        ]);
    }
}

/// The dispatcher as a block kind.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "la_tb_dispatch";
    const SUMMARY: &'static str = "locality-aware thread-block dispatcher: the candidate whose \
        rectangles overlap most with an SM's blocks (seed 000)";
    const POLICIES: &'static [&'static str] = &["base"];
    const PRESETS: &'static [&'static str] = &["fermi", "proto"];
    type Params = Params;
    type In = LaDispatchIn;
    type Out = LaDispatchOut;
    type Golden = Golden;
    type Stim = stimulus::Stimulus;

    fn params(_policy: &str, preset: &str) -> Params {
        crate::block::preset_of(PRESETS, preset)
    }
    fn golden(params: &Params) -> Golden {
        Golden::new(*params)
    }
    fn stimulus(params: &Params, seed: u64) -> stimulus::Stimulus {
        stimulus::Stimulus::new(*params, seed)
    }
    fn manifest_params(p: &Params) -> Vec<(&'static str, u64)> {
        vec![
            ("sms", p.sms as u64),
            ("slots", p.slots as u64),
            ("window", p.window as u64),
            ("arrays", p.arrays as u64),
            ("fill", p.fill as u64),
        ]
    }
    fn busy(out: &LaDispatchOut) -> bool {
        out.grant
    }
    fn describe(p: &Params) -> String {
        let w = if p.window == 0 {
            "the whole queue".to_string()
        } else {
            format!("a window of {}", p.window)
        };
        format!(
            "{} SMs x {} slots, {w}, {} arrays",
            p.sms, p.slots, p.arrays
        )
    }
}
