//! The `serial` policy: the dispatcher as one engine that performs one operation at a time
//! over its tables in block RAM, `lanes` (`G`) pairs of rectangles a cycle, as the thesis's
//! serial processing (§1.1.5 "done serially") built for a board's clock.
//!
//! # Tables
//! Window entries (`W`, a multiple of `G`) sit in *entry rows* of `G` (entry `c` in row
//! `c / G`, lane `c % G`); running slots (`s * J + j`, `J` a multiple of `G`) in *slot rows*
//! of `G`, so one slot row belongs to one SM. Per entry: its rectangles, id, one score per SM
//! and their sum (`tot`), all in block RAM; a valid and a ready bit in registers. Per running
//! slot: its block's rectangles (block RAM), `occ` and `pend` (finished, its finish still to
//! come) in registers.
//!
//! # Operations
//! When the engine is free (cycle `t`), it starts the first of:
//! 1. **Grant** of the decision the last operation took, if its SM still has `room`: the
//!    grant is output in cycle `t` (the SM's lowest free slot), the entry leaves the window,
//!    the block's rectangles are copied to the slot, and its locality is added to the SM's
//!    score of every ready entry. Without `room` the decision is dropped (the engine idles
//!    that cycle).
//! 2. **Finish** of the lowest pending running slot (SM first): its locality leaves the SM's
//!    score of every ready entry, the slot becomes free.
//! 3. **Decide** for SM `x`: chosen as in `base` (round robin over the SMs with room in the
//!    previous cycle and a free slot, `x` still with room now), when the window is not filling
//!    and some entry is ready: the ready entry with the highest score on `x` if it is above 0,
//!    else the lowest `tot - score[x]`; ties to the lowest block id. Held for the Grant.
//! 4. **Row** of the lowest waiting entry: its score with every SM from the running slots
//!    (every pair computed), after which it is ready.
//!
//! An operation visits only the rows that matter: Grant, Finish and Decide the entry rows
//! holding a ready entry, Row the slot rows holding an occupied slot. It takes `3 + rows`
//! cycles (a cycle reads the broadcast rectangles, one issues each row, two drain the overlap
//! and the update stages; a Decide `4 + rows`: its lanes' keys, two levels of their
//! tournament, then the last level and the merge with its best), the next starting right
//! after. Operations never overlap, so each
//! reads tables its predecessors have finished writing; the golden model applies an operation
//! at its first cycle and keeps the engine busy for the rest.
//!
//! A kernel start empties the window and stops the engine (a held decision is dropped); the
//! running slots stay, as in `base`. Blocks enter the window one per cycle (`fill` is 1), into
//! the lowest free entry.

use super::{first_set, unpack_rect, LaDispatchIn, LaDispatchOut, Params};
use crate::analysis::locality::{pair_locality, TbFootprint};
use crate::block::{clog2, PortSpec};

/// Cycles an operation takes besides its rows: the broadcast read and two drain stages.
pub const OP_OVERHEAD: u32 = 3;
/// A Decide's further cycle: its lanes' tournament takes one more stage.
pub const DECIDE_EXTRA: u32 = 1;

/// One window entry.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    /// The block's id.
    pub id: u32,
    pub fp: TbFootprint,
    /// Its scores count every running block (else it waits for its Row).
    pub ready: bool,
    /// Per SM: pair locality with the blocks running there.
    pub score: Vec<u32>,
    /// The sum of `score`.
    pub tot: u64,
}

/// The operation the engine starts in a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    /// The held decision: entry to SM.
    Grant { entry: usize, sm: usize },
    /// The held decision's SM lost its room: dropped.
    Drop,
    /// The block in (SM, slot) finished.
    Finish(usize, usize),
    /// The decision for an SM.
    Decide(usize),
    /// A waiting entry's scores.
    Row(usize),
}

/// A decision waiting for its Grant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Held {
    pub entry: usize,
    pub sm: usize,
}

/// Bugs a test can plant in the serial engine.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SerialFault {
    /// A Row skips the last slot row.
    ShortRow,
    /// A Finish leaves the scores as they are.
    KeepFinished,
}

/// The serial engine's golden model.
#[derive(Clone, Debug)]
pub struct Serial {
    p: Params,
    total: u32,
    fed: u32,
    granted: u32,
    /// The last SM served.
    last: usize,
    /// `room` of the previous cycle.
    room_prev: u128,
    pub(super) entries: Vec<Option<Entry>>,
    /// Per SM, per slot: the running block's rectangles (until its Finish).
    pub(super) running: Vec<Vec<Option<TbFootprint>>>,
    pending: Vec<Vec<bool>>,
    /// Cycles the engine stays busy after this one.
    busy: u32,
    pub(super) held: Option<Held>,
    /// The operation started in the last cycle (tests, state).
    pub(super) last_op: Option<Op>,
    #[cfg(test)]
    pub(crate) fault: Option<SerialFault>,
}

impl Serial {
    /// An engine in its reset state (`p.lanes` divides `p.window` and `p.slots`).
    pub fn new(p: Params) -> Self {
        assert!(p.lanes > 0 && p.window > 0, "a serial engine has lanes and a window");
        assert!(
            p.window.is_multiple_of(p.lanes) && p.slots.is_multiple_of(p.lanes),
            "lanes divide the window and the slots per SM"
        );
        assert_eq!(p.fill, 1, "a serial engine takes one block a cycle");
        let mut s = Self {
            p,
            total: 0,
            fed: 0,
            granted: 0,
            last: 0,
            room_prev: 0,
            entries: vec![],
            running: vec![],
            pending: vec![],
            busy: 0,
            held: None,
            last_op: None,
            #[cfg(test)]
            fault: None,
        };
        s.reset();
        s
    }

    /// The reset state.
    pub fn reset(&mut self) {
        let p = self.p;
        self.total = 0;
        self.fed = 0;
        self.granted = 0;
        self.last = p.sms - 1;
        self.room_prev = 0;
        self.entries = vec![None; p.window];
        self.running = vec![vec![None; p.slots]; p.sms];
        self.pending = vec![vec![false; p.slots]; p.sms];
        self.busy = 0;
        self.held = None;
        self.last_op = None;
    }

    fn ready(&self, c: usize) -> bool {
        self.entries[c].as_ref().is_some_and(|e| e.ready)
    }

    /// Entry rows holding a ready entry.
    fn ready_rows(&self) -> u32 {
        let g = self.p.lanes;
        (0..self.p.window / g)
            .filter(|r| (r * g..(r + 1) * g).any(|c| self.ready(c)))
            .count() as u32
    }

    /// Slot rows holding an occupied slot.
    fn occupied_rows(&self) -> u32 {
        let g = self.p.lanes;
        let slots: Vec<bool> = self.running.iter().flatten().map(Option::is_some).collect();
        slots.chunks(g).filter(|row| row.contains(&true)).count() as u32
    }

    /// Whether the window is still filling (no decision).
    fn filling(&self) -> bool {
        self.fed < self.total && self.entries.iter().any(Option::is_none)
    }

    /// The SM of a decision: round robin from the last SM served over the SMs with room in
    /// the previous cycle and a free slot; it must have room now.
    fn pick_sm(&self, room: u128) -> Option<usize> {
        let n = self.p.sms;
        (1..=n)
            .map(|i| (self.last + i) % n)
            .find(|&s| self.room_prev >> s & 1 == 1 && self.running[s].iter().any(Option::is_none))
            .filter(|&s| room >> s & 1 == 1)
    }

    /// The ready entry granted to SM `x`.
    fn choose(&self, x: usize) -> Option<usize> {
        let ready = || {
            self.entries
                .iter()
                .enumerate()
                .filter_map(|(c, e)| e.as_ref().filter(|e| e.ready).map(|e| (c, e)))
        };
        let best = ready()
            .filter(|(_, e)| e.score[x] > 0)
            .max_by_key(|(_, e)| (e.score[x], std::cmp::Reverse(e.id)));
        best.or_else(|| ready().min_by_key(|(_, e)| (e.tot - e.score[x] as u64, e.id)))
            .map(|(c, _)| c)
    }

    /// The operation the engine starts this cycle, if free.
    fn next_op(&self, room: u128) -> Option<Op> {
        if self.busy > 0 {
            return None;
        }
        if let Some(h) = self.held {
            return Some(if room >> h.sm & 1 == 1 {
                Op::Grant {
                    entry: h.entry,
                    sm: h.sm,
                }
            } else {
                Op::Drop
            });
        }
        if let Some((s, j)) = first_set(&self.pending) {
            return Some(Op::Finish(s, j));
        }
        let any_ready = (0..self.p.window).any(|c| self.ready(c));
        if !self.filling() && any_ready {
            if let Some(x) = self.pick_sm(room) {
                return Some(Op::Decide(x));
            }
        }
        let waiting = self.entries.iter().position(|e| e.as_ref().is_some_and(|e| !e.ready));
        waiting.map(Op::Row)
    }

    /// Adds (`add`) or subtracts `fp`'s locality to SM `s`'s score of every ready entry.
    fn update_ready(&mut self, fp: &TbFootprint, s: usize, add: bool) {
        for e in self.entries.iter_mut().flatten().filter(|e| e.ready) {
            let l = pair_locality(&e.fp, fp);
            if add {
                e.score[s] += l;
                e.tot += l as u64;
            } else {
                e.score[s] -= l;
                e.tot -= l as u64;
            }
        }
    }

    /// Computes entry `c`'s scores from the running slots.
    fn row(&mut self, c: usize) {
        let p = self.p;
        #[cfg(test)]
        let skip_last = self.fault == Some(SerialFault::ShortRow);
        #[cfg(not(test))]
        let skip_last = false;
        let mut score = vec![0u32; p.sms];
        for (s, slots) in self.running.iter().enumerate() {
            for (j, r) in slots.iter().enumerate() {
                let last_row = s == p.sms - 1 && j >= p.slots - p.lanes;
                if let (Some(r), false) = (r, skip_last && last_row) {
                    score[s] += pair_locality(&self.entries[c].as_ref().expect("a waiting entry").fp, r);
                }
            }
        }
        let e = self.entries[c].as_mut().expect("a waiting entry");
        e.tot = score.iter().map(|&v| v as u64).sum();
        e.score = score;
        e.ready = true;
    }

    /// Starts `op` (at the edge); returns the cycles it takes.
    fn apply(&mut self, op: Op) -> u32 {
        match op {
            Op::Grant { entry, sm } => {
                self.held = None;
                let e = self.entries[entry].take().expect("a held entry");
                let slot = self.running[sm]
                    .iter()
                    .position(Option::is_none)
                    .expect("a free slot");
                self.running[sm][slot] = Some(e.fp);
                self.granted += 1;
                self.last = sm;
                self.update_ready(&e.fp, sm, true);
                OP_OVERHEAD + self.ready_rows()
            }
            Op::Drop => {
                self.held = None;
                1
            }
            Op::Finish(s, j) => {
                self.pending[s][j] = false;
                let r = self.running[s][j].take().expect("a finish of a running block");
                #[cfg(test)]
                let keep = self.fault == Some(SerialFault::KeepFinished);
                #[cfg(not(test))]
                let keep = false;
                if !keep {
                    self.update_ready(&r, s, false);
                }
                OP_OVERHEAD + self.ready_rows()
            }
            Op::Decide(x) => {
                self.held = self.choose(x).map(|entry| Held { entry, sm: x });
                OP_OVERHEAD + DECIDE_EXTRA + self.ready_rows()
            }
            Op::Row(c) => {
                self.row(c);
                OP_OVERHEAD + self.occupied_rows()
            }
        }
    }

    /// One cycle (see [`super::Golden::step`]).
    pub fn step(&mut self, inp: &LaDispatchIn) -> LaDispatchOut {
        let p = self.p;
        let mut out = LaDispatchOut {
            idle: self.granted >= self.total,
            ..Default::default()
        };
        let op = self.next_op(inp.room);
        if let Some(Op::Grant { entry, sm }) = op {
            out.grant = true;
            out.grant_sm = sm as u8;
            out.grant_id = self.entries[entry].as_ref().expect("a held entry").id;
            out.grant_slot = self.running[sm]
                .iter()
                .position(Option::is_none)
                .expect("a free slot") as u8;
        }
        let free = self.entries.iter().filter(|e| e.is_none()).count();
        let queued = (self.total - self.fed) as usize;
        out.fill_taken = (inp.fill_count as usize).min(1).min(free).min(queued) as u8;
        // Edge: the operation, the finished blocks wait for theirs, the fed block enters.
        self.last_op = op;
        match op {
            Some(op) => self.busy = self.apply(op) - 1,
            None => self.busy = self.busy.saturating_sub(1),
        }
        for s in 0..p.sms {
            for j in 0..p.slots {
                if inp.done[s] >> j & 1 == 1 && self.running[s][j].is_some() {
                    self.pending[s][j] = true;
                }
            }
        }
        if out.fill_taken > 0 {
            let mut fp = TbFootprint::default();
            for k in 0..p.arrays {
                fp.rects[k] = unpack_rect(inp.fill_rect[k]);
            }
            let c = self.entries.iter().position(Option::is_none).expect("a free entry");
            self.entries[c] = Some(Entry {
                id: self.fed,
                fp,
                ready: false,
                score: vec![0; p.sms],
                tot: 0,
            });
            self.fed += 1;
        }
        if inp.start {
            self.total = inp.total;
            self.fed = 0;
            self.granted = 0;
            self.last = p.sms - 1;
            self.entries.iter_mut().for_each(|e| *e = None);
            self.held = None;
            self.busy = 0;
        }
        self.room_prev = inp.room & p.sm_mask();
        out
    }

    /// Checks every ready entry's kept scores against recomputation (tests, P-TB5).
    #[cfg(test)]
    pub(crate) fn scores_consistent(&self) -> bool {
        self.entries.iter().flatten().filter(|e| e.ready).all(|e| {
            let want: Vec<u32> = self
                .running
                .iter()
                .map(|slots| slots.iter().flatten().map(|r| pair_locality(&e.fp, r)).sum())
                .collect();
            e.score == want && e.tot == want.iter().map(|&v| v as u64).sum::<u64>()
        })
    }

    /// Names and widths of [`Self::state_values`].
    pub(super) fn state_specs(&self) -> Vec<PortSpec> {
        vec![
            PortSpec::new("total", 32),
            PortSpec::new("fed", 32),
            PortSpec::new("granted", 32),
            PortSpec::new("last", clog2(self.p.sms)),
            PortSpec::new("window_len", 8),
            PortSpec::new("ready", 8),
            PortSpec::new("waiting", 8),
            PortSpec::new("pending", 12),
            PortSpec::new("busy", 12),
            PortSpec::new("op", 3),
        ]
    }

    /// State for the waveform: counts, the engine's busy cycles and the operation started
    /// (0 none, 1 Finish, 2 Grant, 3 Row, 4 Decide).
    pub(super) fn state_values(&self, out: &mut Vec<u64>) {
        let count = |ready: Option<bool>| {
            let entries = self.entries.iter().flatten();
            entries.filter(|e| ready.is_none_or(|r| e.ready == r)).count() as u64
        };
        let pending = self.pending.iter().flatten().filter(|&&b| b).count() as u64;
        out.clear();
        out.extend([
            self.total as u64,
            self.fed as u64,
            self.granted as u64,
            self.last as u64,
            count(None),
            count(Some(true)),
            count(Some(false)),
            pending,
            self.busy as u64,
            match self.last_op {
                None | Some(Op::Drop) => 0,
                Some(Op::Finish(..)) => 1,
                Some(Op::Grant { .. }) => 2,
                Some(Op::Row(..)) => 3,
                Some(Op::Decide(..)) => 4,
            },
        ]);
    }
}

#[cfg(test)]
#[path = "serial_tests.rs"]
mod tests;
