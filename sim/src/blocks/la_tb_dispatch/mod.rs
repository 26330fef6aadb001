//! Locality-aware thread-block dispatcher (seed 000 §3.2, Fig. 3.8; spec
//! `locality_bypass_paws.md` §1.1.4-§1.1.5, §1.6 R2): when an SM has room, it receives the
//! candidate block whose access rectangles overlap most with the blocks running on it; when no
//! candidate overlaps at all, the one that overlaps least with the blocks running on the other
//! SMs (so as not to take another SM's reuse away).
//!
//! # Ports and cycle semantics
//! * `start`/`total`: a kernel of `total` blocks starts (at the edge: the window empties, ids
//!   restart at 0). The kernel's occupancy reaches the block through `room`.
//! * The block queue: the environment (the block scheduler's in-order processor, which computes
//!   rectangles from the kernel's address code) presents the next `fill_count` blocks of the
//!   queue (at most `fill` per cycle, in id order from block `fed`) on `fill_rect` (block `i`'s
//!   array `k` at `i * arrays + k`); `fill_taken` (Mealy) says how many the block took this
//!   cycle, into the window at the edge. The window holds `window` candidates (`0`: the whole
//!   queue, the thesis's choice, R2); it takes as many as it has free entries at the start of
//!   the cycle (a granted candidate's entry is free from the next cycle).
//! * `room` (bit s: SM s can take one more block of the kernel), `done_s` (bit j: the block in
//!   SM s's slot j finished this cycle; its finish event comes later, see below).
//! * Outputs: at most one grant per cycle: block `grant_id` to SM `grant_sm`, in the SM's
//!   lowest free slot `grant_slot` (the environment reports the block's end on `done` with that
//!   slot). `idle`: every block of the kernel has been granted.
//!
//! # A decision
//! While the window is filling (it holds fewer than `window` blocks and some are not loaded
//! yet) nothing is granted: the first decisions of a kernel see a full window (the thesis's
//! queue is filled at launch). Then SM `x` = the first SM with room and a free slot, visiting
//! from the SM after the last one served (round robin: the initial fill gives one block per SM
//! per step, A7). The choice is made a cycle ahead: *room* is the `room` of the previous cycle
//! (the slots and the last SM served are those of this cycle), so the hardware keeps the
//! chosen SM in a register and the SM search is off the decision's path; `x` must still have
//! `room` this cycle, else nothing is granted. In the GPU `room` falls only by a grant and no
//! decision follows a grant within two cycles, so the check never refuses there; an SM that
//! gains room waits a cycle for it (`repro locality` moves by a few tenths of a point).
//!
//! For each ready candidate `c`: `S_x(c)` = the pair locality of `c` with every
//! block running on `x`, `O(c)` = the same with every block running on the other SMs. Granted:
//! the candidate with the highest `S_x` if it is above 0, else the one with the lowest `O`;
//! ties go to the lowest block id (A6). With no locality anywhere, blocks go out in id order
//! (P-TB4).
//!
//! # The score schedule (the hardware's, §1.1.5 "done serially")
//! Scores are kept per (candidate, SM) and updated by one *event* per cycle, each a footprint
//! broadcast to one locality unit per window entry (so an update costs the window's units,
//! not a unit per (candidate, running block) pair), in a three-stage pipeline: the event is
//! chosen in cycle `t`, the per-array overlaps are registered at the edge of `t + 1`, the sums
//! land at the edge of `t + 2`. In priority order:
//! 1. **Finish**: a block reported on `done` waits (its slot stays taken) until its finish
//!    event, lowest (SM, slot) first: its locality leaves the scores.
//! 2. **Grant**: the decision above, taken only when no finish waits and no grant or finish
//!    was the event of the last two cycles (their sums have landed): the ready scores are
//!    exact at every decision (P-TB5), and grants come at most every third cycle.
//! 3. **Visit**: a candidate enters the window *waiting* (scores 0); a *sweep* visits every
//!    block running at its start, one per cycle, lowest (SM, slot) first, adding each to the
//!    *sweeping* candidates' scores (a block finishing before its visit is skipped, one
//!    granted during the sweep is added by its grant event).
//! 4. **Boundary** (a cycle with nothing else, the previous cycle's event not a visit):
//!    sweeping candidates become *ready* (the last visit's sums land at the same edge),
//!    waiting ones start the next sweep together.
//!
//! So a candidate loaded at the edge of cycle `t` is ready from cycle `t + 3 + r` at the
//! earliest (`t + 4 + r` with `r > 0` blocks running), and only ready candidates are granted;
//! a test checks every kept score against recomputation each cycle (P-TB5). Locality values: [`crate::analysis::locality::pair_locality`]
//! (at most 19 bits per pair; a score sums at most 32 slots: 24 bits).

pub mod serial;
pub mod stimulus;
#[cfg(test)]
mod tests;
mod window;

use crate::analysis::locality::{Rect, TbFootprint, MAX_ARRAYS};
#[cfg(test)]
use crate::analysis::locality::pair_locality;
use crate::block::{clog2, Block, Inspect, PortSpec};
use crate::port_bundle;
use window::{Phase, Window};

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
    /// 0: `base` (every window entry updated in one cycle); else the `serial` engine's
    /// lanes, the rectangle pairs it compares a cycle (divides `window` and `slots`).
    pub lanes: usize,
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
            lanes: 0,
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
            lanes: 0,
        },
    ),
];

/// The `serial` policy's lanes per preset (its `fill` is 1).
pub const SERIAL_LANES: &[(&str, usize)] = &[("fermi", 8), ("proto", 2)];

port_bundle! {
    /// Dispatcher inputs for one cycle.
    pub struct LaDispatchIn for Params {
        /// A kernel starts (with `total`).
        pub start: bool = |_p| 1,
        /// Thread blocks of the starting kernel.
        pub total: u32 = |_p| 32,
        /// Resident blocks per SM the kernel allows.
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

/// The score update a cycle starts (its broadcast footprint reaches the candidates' locality
/// units the next cycle).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    /// The block in (SM, slot) finished: its locality leaves the scores.
    Finish(usize, usize),
    /// The granted block now runs on (SM, slot): its locality joins the scores.
    Grant(usize, usize),
    /// The sweep visits the block in (SM, slot).
    Visit(usize, usize),
    /// Sweeping candidates become ready, waiting ones (if any) start a sweep of the running
    /// blocks (no update of its own).
    Boundary,
}

/// Golden model.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    total: u32,
    /// Blocks taken into the window so far (the next one's id).
    fed: u32,
    /// Blocks granted so far.
    granted: u32,
    /// The last SM served.
    last: usize,
    /// `room` of the previous cycle (the round robin's input, a register in the hardware).
    room_prev: u128,
    /// The candidates.
    window: Window,
    /// Per SM, per slot: the running block's footprint (until its finish is processed).
    running: Vec<Vec<Option<TbFootprint>>>,
    /// Per SM, per slot: the block finished; its finish event is still to come.
    pending: Vec<Vec<bool>>,
    /// Per SM, per slot: the current sweep still has to visit it.
    visit: Vec<Vec<bool>>,
    /// The events of the last two cycles, newest first: their sums are still in the
    /// pipeline (applied here at once: only their timing matters).
    in_flight: [Option<Event>; 2],
    /// The `serial` policy's engine, which then does all the work.
    serial: Option<Box<serial::Serial>>,
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
    /// A decision does not wait for the last grant's update.
    DecideInFlight,
}

/// The lowest (SM, slot), SM first, whose flag is set.
fn first_set(flags: &[Vec<bool>]) -> Option<(usize, usize)> {
    flags
        .iter()
        .enumerate()
        .find_map(|(s, slots)| slots.iter().position(|&f| f).map(|j| (s, j)))
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
            fed: 0,
            granted: 0,
            last: 0,
            room_prev: 0,
            window: Window::default(),
            running: vec![],
            pending: vec![],
            visit: vec![],
            in_flight: [None; 2],
            serial: (params.lanes > 0).then(|| Box::new(serial::Serial::new(params))),
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

    /// Whether a decision may be taken this cycle: the window is full (or holds the rest of
    /// the queue), no finish waits, and no grant or finish update is in flight (the last two
    /// cycles' events), so the ready candidates' scores are exact.
    fn may_decide(&self, finish: Option<(usize, usize)>) -> bool {
        #[cfg(test)]
        let in_flight_blocks = self.fault != Some(Fault::DecideInFlight);
        #[cfg(not(test))]
        let in_flight_blocks = true;
        !self.filling()
            && finish.is_none()
            && !(in_flight_blocks
                && self
                    .in_flight
                    .iter()
                    .any(|e| matches!(e, Some(Event::Finish(..) | Event::Grant(..)))))
    }

    /// The SM served this cycle and its lowest free slot.
    fn pick_sm(&self, room: u128) -> Option<(usize, usize)> {
        let n = self.params.sms;
        (1..=n).map(|i| (self.last + i) % n).find_map(|s| {
            let slot = self.running[s].iter().position(Option::is_none)?;
            (room >> s & 1 == 1).then_some((s, slot))
        })
    }

    /// The ready candidate granted to SM `x` (its block id).
    fn choose(&self, x: usize) -> Option<u32> {
        #[cfg(test)]
        let ties_high = self.fault == Some(Fault::HighestIdOnTies);
        #[cfg(not(test))]
        let ties_high = false;
        self.window.choose(x, ties_high)
    }

    /// This cycle's event, in priority order: a waiting finish (lowest SM and slot first), a
    /// grant, the sweep's next visit, a sweep boundary. `finish`: the lowest waiting finish;
    /// `grant`: the decision, when one may be taken.
    fn event(
        &self,
        finish: Option<(usize, usize)>,
        grant: Option<(usize, usize, u32)>,
    ) -> Option<Event> {
        if let Some((s, j)) = finish {
            return Some(Event::Finish(s, j));
        }
        if let Some((x, slot, _)) = grant {
            return Some(Event::Grant(x, slot));
        }
        if let Some((s, j)) = first_set(&self.visit) {
            return Some(Event::Visit(s, j));
        }
        let unswept = self.window.unswept();
        let visited_last = matches!(self.in_flight[0], Some(Event::Visit(..)));
        (unswept && !visited_last).then_some(Event::Boundary)
    }

    /// Applies `event` to the scores and the running table (`granted`: the granted
    /// candidate's id, for a grant).
    fn apply(&mut self, event: Event, granted: Option<u32>) {
        match event {
            Event::Finish(s, j) => {
                self.pending[s][j] = false;
                let r = self.running[s][j]
                    .take()
                    .expect("a finish of a running block");
                let visited = !std::mem::replace(&mut self.visit[s][j], false);
                #[cfg(test)]
                if self.fault == Some(Fault::KeepFinished) {
                    return;
                }
                self.window.update(&r, s, false, |phase| {
                    phase == Phase::Ready || (phase == Phase::Sweeping && visited)
                });
            }
            Event::Grant(x, slot) => {
                let c = self.window.remove(granted.expect("a grant's candidate"));
                self.window
                    .update(&c.fp, x, true, |phase| phase != Phase::Waiting);
                self.running[x][slot] = Some(c.fp);
                self.granted += 1;
                self.last = x;
            }
            Event::Visit(s, j) => {
                self.visit[s][j] = false;
                let r = self.running[s][j].expect("a visit of a running block");
                self.window
                    .update(&r, s, true, |phase| phase == Phase::Sweeping);
            }
            Event::Boundary => {
                let sweep = self.window.count(Phase::Waiting) > 0;
                self.window.boundary();
                for (v, r) in self.visit.iter_mut().zip(&self.running) {
                    for (v, r) in v.iter_mut().zip(r) {
                        *v = sweep && r.is_some();
                    }
                }
            }
        }
    }

    /// Pair locality of `fp` with every block running on each SM, counting only the slots
    /// `count` accepts.
    #[cfg(test)]
    fn scores_of(&self, fp: &TbFootprint, count: impl Fn(usize, usize) -> bool) -> Vec<u32> {
        (0..self.params.sms)
            .map(|s| {
                (0..self.params.slots)
                    .filter(|&j| count(s, j))
                    .filter_map(|j| self.running[s][j].as_ref())
                    .map(|r| pair_locality(fp, r))
                    .sum()
            })
            .collect()
    }

    /// Checks every kept score against recomputation (tests, P-TB5): a ready candidate's
    /// scores count every running block, a sweeping one's the visited ones, a waiting one's
    /// none.
    #[cfg(test)]
    pub(crate) fn scores_consistent(&self) -> bool {
        self.window.iter().all(|(_, phase, c)| {
            let want = match phase {
                Phase::Ready => self.scores_of(&c.fp, |_, _| true),
                Phase::Sweeping => self.scores_of(&c.fp, |s, j| !self.visit[s][j]),
                Phase::Waiting => vec![0; self.params.sms],
            };
            c.score == want
        })
    }

    /// Ready candidates (ids), for tests.
    #[cfg(test)]
    pub(crate) fn ready_ids(&self) -> Vec<u32> {
        self.window
            .iter()
            .filter(|&(_, phase, _)| phase == Phase::Ready)
            .map(|(id, _, _)| id)
            .collect()
    }
}

impl Block for Golden {
    type In = LaDispatchIn;
    type Out = LaDispatchOut;

    fn reset(&mut self) {
        let (sms, slots) = (self.params.sms, self.params.slots);
        self.total = 0;
        self.fed = 0;
        self.granted = 0;
        self.last = sms - 1;
        self.room_prev = 0;
        self.window.clear();
        self.running = vec![vec![None; slots]; sms];
        self.pending = vec![vec![false; slots]; sms];
        self.visit = vec![vec![false; slots]; sms];
        self.in_flight = [None; 2];
        if let Some(s) = &mut self.serial {
            s.reset();
        }
    }

    fn step(&mut self, inp: &LaDispatchIn) -> LaDispatchOut {
        if let Some(s) = &mut self.serial {
            return s.step(inp);
        }
        let p = self.params;
        let mut out = LaDispatchOut::default();
        // The decision and the event, from the state before the edge.
        let finish = first_set(&self.pending);
        let pick = if self.may_decide(finish) {
            self.pick_sm(self.room_prev)
                .filter(|&(x, _)| inp.room >> x & 1 == 1)
                .and_then(|(x, slot)| Some((x, slot, self.choose(x)?)))
        } else {
            None
        };
        let event = self.event(finish, pick);
        let pick = pick.filter(|_| matches!(event, Some(Event::Grant(..))));
        if let Some((x, slot, i)) = pick {
            out.grant = true;
            out.grant_sm = x as u8;
            out.grant_id = i;
            out.grant_slot = slot as u8;
        }
        let free = self.capacity().saturating_sub(self.window.len());
        let queued = (self.total - self.fed) as usize;
        out.fill_taken = (inp.fill_count as usize).min(p.fill).min(free).min(queued) as u8;
        out.idle = self.granted >= self.total;
        // Edge: the event, then the finished blocks wait for theirs, the fed blocks enter.
        if let Some(e) = event {
            self.apply(e, pick.map(|(_, _, i)| i));
        }
        self.in_flight = [event.filter(|e| *e != Event::Boundary), self.in_flight[0]];
        for s in 0..p.sms {
            for j in 0..p.slots {
                if inp.done[s] >> j & 1 == 1 && self.running[s][j].is_some() {
                    self.pending[s][j] = true;
                }
            }
        }
        for i in 0..out.fill_taken as usize {
            let mut fp = TbFootprint::default();
            for k in 0..p.arrays {
                fp.rects[k] = unpack_rect(inp.fill_rect[i * p.arrays + k]);
            }
            self.window.push(self.fed, fp, p.sms);
            self.fed += 1;
        }
        if inp.start {
            self.total = inp.total;
            self.fed = 0;
            self.granted = 0;
            self.last = p.sms - 1;
            self.window.clear();
            for v in &mut self.visit {
                v.fill(false);
            }
        }
        self.room_prev = inp.room & p.sm_mask();
        out
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        if let Some(s) = &self.serial {
            return s.state_specs();
        }
        vec![
            PortSpec::new("total", 32),
            PortSpec::new("fed", 32),
            PortSpec::new("granted", 32),
            PortSpec::new("last", clog2(self.params.sms)),
            PortSpec::new("window_len", 32),
            PortSpec::new("ready", 32),
            PortSpec::new("sweeping", 32),
            PortSpec::new("pending", 12),
            PortSpec::new("visit", 12),
            PortSpec::new("in_flight", 2),
        ]
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        if let Some(s) = &self.serial {
            return s.state_values(out);
        }
        out.clear();
        out.extend([
            self.total as u64,
            self.fed as u64,
            self.granted as u64,
            self.last as u64,
            self.window.len() as u64,
        ]);
        let count = |ph: Phase| self.window.count(ph) as u64;
        let flags = |f: &[Vec<bool>]| f.iter().flatten().filter(|&&b| b).count() as u64;
        out.extend([
            count(Phase::Ready),
            count(Phase::Sweeping),
            flags(&self.pending),
            flags(&self.visit),
            match self.in_flight[0] {
                None | Some(Event::Boundary) => 0,
                Some(Event::Finish(..)) => 1,
                Some(Event::Grant(..)) => 2,
                Some(Event::Visit(..)) => 3,
            },
        ]);
    }
}

/// The dispatcher as a block kind.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "la_tb_dispatch";
    const SUMMARY: &'static str = "locality-aware thread-block dispatcher: the candidate whose \
        rectangles overlap most with an SM's blocks (seed 000)";
    const POLICIES: &'static [&'static str] = &["base", "serial"];
    const PRESETS: &'static [&'static str] = &["fermi", "proto"];
    type Params = Params;
    type In = LaDispatchIn;
    type Out = LaDispatchOut;
    type Golden = Golden;
    type Stim = stimulus::Stimulus;

    fn params(policy: &str, preset: &str) -> Params {
        let p = crate::block::preset_of(PRESETS, preset);
        match policy {
            "serial" => Params {
                fill: 1,
                lanes: crate::block::preset_of(SERIAL_LANES, preset),
                ..p
            },
            _ => p,
        }
    }
    fn golden(params: &Params) -> Golden {
        Golden::new(*params)
    }
    fn stimulus(params: &Params, seed: u64) -> stimulus::Stimulus {
        stimulus::Stimulus::new(*params, seed)
    }
    fn manifest_params(p: &Params) -> Vec<(&'static str, u64)> {
        [
            ("sms", p.sms as u64),
            ("slots", p.slots as u64),
            ("window", p.window as u64),
            ("arrays", p.arrays as u64),
            ("fill", p.fill as u64),
        ]
        .into_iter()
        // `base` has no lanes (and its Verilog keeps the header it had before `serial`).
        .chain((p.lanes > 0).then_some(("lanes", p.lanes as u64)))
        .collect()
    }
    fn paper_budget(p: &Params) -> Option<crate::block::PaperBudget> {
        let entries = (p.window + p.sms * p.slots) as u64;
        Some(crate::block::PaperBudget {
            bits: Some(entries * p.arrays as u64 * 3 * 8),
            structure: format!(
                "{entries} block-queue entries (a window of {} and {} running blocks) x {} \
                 arrays x 3 B (start, width, height; 15 B for 5 arrays, seed 000 Table 5.2, \
                 L537), processed serially (§1.1.5)",
                p.window,
                p.sms * p.slots,
                p.arrays
            ),
        })
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
        let engine = if p.lanes > 0 {
            format!(", a serial engine of {} lanes", p.lanes)
        } else {
            String::new()
        };
        format!(
            "{} SMs x {} slots, {w}, {} arrays{engine}",
            p.sms, p.slots, p.arrays
        )
    }
}
