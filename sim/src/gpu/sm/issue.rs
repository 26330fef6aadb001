//! The issue stage of the SM: the scoreboard, each scheduler's scan of its warps (which pass the
//! scoreboard, for which unit), the free units, the warp-issue site (its unit selects per
//! scheduler, sequentially or paired, or for the whole SM at once; [`IssueMode`]), and the
//! execution of an issued instruction (pipelines, shared memory, the LSU's transactions,
//! barriers, exit).

use super::collector::{AtLsu, Path};
use super::*;
use crate::gpu::sites::issue::{SchedIn, SmIn};
use std::ops::Range;

pub(super) const UNIT_NONE: u8 = 1;
/// A streamed block's warp window is trimmed every this many issued instructions.
const TRIM_EVERY: u32 = 16;

pub(super) const UNIT_SP: u8 = 2;

pub(super) const UNIT_SFU: u8 = 4;

pub(super) const UNIT_LSU: u8 = 8;

/// The unit an instruction class needs (`UNIT_NONE`: none: barriers, exits, no-ops). With the
/// operand collector (`collector`), as GPGPU-Sim without DP units: barriers, exits and no-ops
/// need an SP slot, double precision an SFU slot.
pub(super) fn unit_bit(class: OpClass, collector: bool) -> u8 {
    match class {
        OpClass::Dp if collector => UNIT_SFU,
        OpClass::IntAlu | OpClass::IntMul | OpClass::Fp | OpClass::Dp | OpClass::Branch => UNIT_SP,
        OpClass::Sfu => UNIT_SFU,
        c if c.is_memory() => UNIT_LSU,
        _ if collector => UNIT_SP,
        _ => UNIT_NONE,
    }
}

/// The units (a mask over [`unit_bit`]) with a free slot in `counts` (as [`Sm::free_unit_counts`]).
pub(super) fn units_with_slots(counts: &[u32; 4]) -> u8 {
    (0..4).fold(0, |m, u| if counts[u] > 0 { m | 1 << u } else { m })
}

/// Slots of a scheduler's timing wheel ([`ScanState::wheel`]): a warp whose class changes by
/// time alone fewer than this many cycles ahead waits in a slot, a later one in `far`. Decode
/// and ALU latencies of the presets are all shorter (two cache lines of slots).
const WHEEL_SLOTS: u64 = 16;

/// One scheduler's warps as the issue stage sees them, kept between cycles: the masks the other
/// stages keep ([`Sm::sync_masks`]), the class [`Sm::scan`] gave each candidate warp (bit
/// `local` of every mask: warp `s + local * schedulers`), which warps must be classified again,
/// and when the others change class by time alone.
///
/// Laid out for the host cache (every SM touches it every cycle): the masks a scan always reads
/// share the first line, the wheel's bookkeeping the second, and a scan reads one slot line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(super) struct ScanState {
    /// The warp is live.
    pub(super) live: u64,
    /// The warp is at a barrier, has issued its last instruction, or is stopped by a
    /// preemption.
    pub(super) stalled: u64,
    /// The warp has an instruction in its i-buffer.
    pub(super) head: u64,
    /// Warps marked changed by an event since the last scan.
    dirty: u64,
    /// As [`Scan::by_unit`].
    by_unit: [u64; 4],
    /// Candidates whose operands put them on a long stall (the SM's [`LongOpRule`]).
    long_op: u64,
    /// Candidates with a decoded instruction.
    inst: u64,
    /// Warps due `WHEEL_SLOTS` cycles or more after they were classified (their cycle is in
    /// `Sm::change_at`).
    far: u64,
    /// The earliest cycle of a `far` warp (`u64::MAX`: none).
    far_min: u64,
    /// The last cycle whose wheel slot has been emptied.
    swept: u64,
    /// Timing wheel: slot `t % WHEEL_SLOTS` holds the warps whose class changes by time alone
    /// at cycle `t`, fewer than `WHEEL_SLOTS` cycles after they were classified. A warp
    /// classified again before its cycle leaves a stale bit, which costs one more
    /// classification with the same answer.
    wheel: [u64; WHEEL_SLOTS as usize],
}

impl Default for ScanState {
    fn default() -> Self {
        ScanState {
            live: 0,
            stalled: 0,
            head: 0,
            dirty: 0,
            by_unit: [0; 4],
            long_op: 0,
            inst: 0,
            far: 0,
            far_min: u64::MAX,
            swept: 0,
            wheel: [0; WHEEL_SLOTS as usize],
        }
    }
}

impl ScanState {
    /// Marks local warp `local` for the next scan (its registers or masks changed).
    pub(super) fn dirty_warp(&mut self, local: usize) {
        self.dirty |= 1 << local;
    }

    /// The warps a scan classifies: live, not stalled, with an instruction.
    fn candidates(&self) -> u64 {
        self.live & !self.stalled & self.head
    }

    /// The warps due by `now`: empties the wheel slots of the cycles since the last call, and
    /// moves the `far` warps now due (their cycle, of local warp `l`, is `change_at(l)`) out,
    /// those now near into their slot, and drops those classified again without a far cycle.
    #[inline]
    fn due(&mut self, now: u64, change_at: impl Fn(usize) -> u64) -> u64 {
        let mut due = 0;
        if now == self.swept + 1 {
            due = std::mem::take(&mut self.wheel[(now % WHEEL_SLOTS) as usize]);
            self.swept = now;
        } else if now > self.swept {
            if now - self.swept >= WHEEL_SLOTS {
                for slot in &mut self.wheel {
                    due |= std::mem::take(slot);
                }
            } else {
                for t in self.swept + 1..=now {
                    due |= std::mem::take(&mut self.wheel[(t % WHEEL_SLOTS) as usize]);
                }
            }
            self.swept = now;
        }
        if now >= self.far_min {
            let mut m = std::mem::take(&mut self.far);
            self.far_min = u64::MAX;
            while m != 0 {
                let local = m.trailing_zeros() as usize;
                m &= m - 1;
                let at = change_at(local);
                if at <= now {
                    due |= 1 << local;
                } else {
                    self.file(local, now, at);
                }
            }
        }
        due
    }

    /// The first cycle from `from` (the cycle after the last scan) at which a warp changes
    /// class by time alone, as far as the wheel and `far` know (a stale wheel bit makes it
    /// earlier, never later; `u64::MAX`: none).
    pub(super) fn next_due(&self, from: u64) -> u64 {
        (from..from + WHEEL_SLOTS)
            .find(|t| self.wheel[(t % WHEEL_SLOTS) as usize] != 0)
            .unwrap_or(u64::MAX)
            .min(self.far_min)
    }

    /// Whether a warp's class changes by time alone at cycle `t`, the cycle after the last
    /// scan (or a stale wheel bit says it may).
    pub(super) fn due_at(&self, t: u64) -> bool {
        self.wheel[(t % WHEEL_SLOTS) as usize] != 0 || self.far_min <= t
    }

    /// Whether an event marked a warp for the next scan.
    pub(super) fn is_dirty(&self) -> bool {
        self.dirty != 0
    }

    /// The scan these masks give: the last scan's answer, and the next one's when no warp
    /// is due or dirty.
    pub(super) fn kept(&self) -> Scan {
        Scan {
            by_unit: self.by_unit,
            long_stall: (self.live & self.stalled) | self.long_op,
            any_inst: self.inst != 0,
        }
    }

    /// Files warp `local`, classified at `now`, under the cycle `at` (> `now`) at which its
    /// class changes by time alone (`u64::MAX` or [`super::warps::IN_PIPELINE`]: only by an
    /// event, not filed).
    fn file(&mut self, local: usize, now: u64, at: u64) {
        if at >= super::warps::IN_PIPELINE {
            return;
        }
        if at - now < WHEEL_SLOTS {
            self.wheel[(at % WHEEL_SLOTS) as usize] |= 1 << local;
        } else {
            self.far |= 1 << local;
            self.far_min = self.far_min.min(at);
        }
    }
}

/// What one scheduler's warps can do this cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Scan {
    /// Per unit (index `unit_bit(..).trailing_zeros()`: none, SP, SFU, LSU): the warps (local
    /// ids) whose next instruction passes the scoreboard and needs that unit.
    pub(super) by_unit: [u64; 4],
    /// Warps at a barrier, exited, or whose next instruction's sources put them on a long
    /// stall under the SM's [`LongOpRule`].
    pub(super) long_stall: u64,
    /// Some warp has a decoded instruction.
    pub(super) any_inst: bool,
}

impl Scan {
    /// The warps whose unit is in `units` (a mask over [`unit_bit`]).
    pub(super) fn ready(&self, units: u8) -> u64 {
        (0..4)
            .filter(|u| units >> u & 1 == 1)
            .fold(0, |m, u| m | self.by_unit[u])
    }

    /// Some warp passes the scoreboard.
    pub(super) fn any_operands(&self) -> bool {
        self.by_unit.iter().any(|&m| m != 0)
    }
}

/// Why a scheduler issued nothing (a preemption aside): what [`StallCounts`] counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stall {
    /// A warp had its operands, but not its unit.
    Structural,
    /// Warps had decoded instructions, every one waiting on the scoreboard.
    Raw,
    /// No warp had a decoded instruction.
    Idle,
}

impl Stall {
    /// The stall of a scheduler some of whose warps pass the scoreboard (`any_operands`) or
    /// have a decoded instruction (`any_inst`).
    pub(super) fn of(any_operands: bool, any_inst: bool) -> Self {
        match (any_operands, any_inst) {
            (true, _) => Stall::Structural,
            (false, true) => Stall::Raw,
            (false, false) => Stall::Idle,
        }
    }

    /// Counts `cycles` cycles of this stall in `stalls`.
    pub(super) fn count(self, stalls: &mut StallCounts, cycles: u64) {
        *match self {
            Stall::Structural => &mut stalls.structural,
            Stall::Raw => &mut stalls.raw,
            Stall::Idle => &mut stalls.idle,
        } += cycles;
    }
}

/// What issuing an instruction does to its destinations' long-op marks
/// ([`super::warps::Reg::long_op_until`]; GPGPU-Sim's `reserveRegisters` / `releaseRegisters`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mark {
    /// A global or local load, or a global atomic: marked for good.
    Set,
    /// A non-memory writer: the mark ends at its writeback (the cycle its result is ready).
    ClearAtWriteback,
    /// A shared-memory instruction: the mark stays as it was.
    Keep,
}

/// Classifies candidate warp `w` (local `local`) at `now` into `st`'s masks under `rule`
/// (units as [`unit_bit`] with `collector`); returns the cycle at which its class changes by
/// time alone (`u64::MAX`, or [`warps::IN_PIPELINE`]: only by an event).
#[allow(clippy::too_many_arguments)]
#[inline]
fn classify(
    warps: &[Warp],
    tbs: &[TbSlot],
    w: usize,
    local: usize,
    now: u64,
    rule: LongOpRule,
    collector: bool,
    st: &mut ScanState,
) -> u64 {
    let warp = &warps[w];
    let Some(inst) = warp.head else {
        return u64::MAX;
    };
    if warp.ibuf_ready_at > now {
        return warp.ibuf_ready_at;
    }
    st.inst |= 1 << local;
    let (until, long) = operands(warp, &tbs[warp.tb], &inst, rule);
    // The long stall ends at `long` (a mark cleared by a writeback, which is also when that
    // register becomes ready, so never after `until`) or by an event (`u64::MAX`).
    let long = if long > now {
        st.long_op |= 1 << local;
        long
    } else {
        u64::MAX
    };
    if until > now {
        return until.min(long);
    }
    st.by_unit[unit_bit(inst.class, collector).trailing_zeros() as usize] |= 1 << local;
    long
}

/// Scoreboard: the first cycle at which every operand and destination of `inst`, an
/// instruction of `warp` (in block slot `tb`), is ready (`u64::MAX` while one waits on a load),
/// and the cycle until which a *source* puts the warp on a long stall under `rule` (at most
/// `now`: none; `u64::MAX`: until an event). Only sources count, as GPGPU-Sim's two-level
/// scheduler tests `in[]` with `islongop` (`shader.cc`, `order_warps`); a destination still
/// waiting on a load (a write after a load's write) is an ordinary scoreboard stall.
fn operands(warp: &Warp, tb: &TbSlot, inst: &WarpInst, rule: LongOpRule) -> (u64, u64) {
    let (mut until, mut long) = (0, 0);
    for (i, &r) in tb.insts.operands(warp.index, inst).iter().enumerate() {
        if r != RZ {
            let reg = warp.reg(r);
            until = until.max(reg.ready);
            if i >= inst.ndst as usize {
                long = long.max(match rule {
                    LongOpRule::Mark(_) => reg.long_op_until,
                    LongOpRule::InFlight if reg.ready == u64::MAX => u64::MAX,
                    LongOpRule::InFlight => 0,
                });
            }
        }
    }
    (until, long)
}

/// The mark an instruction of `class` gives its destinations under `rule`: `gpgpu_sim`, the
/// one GPGPU-Sim gives, unless the rule's [`Marked`] set differs on `class` (then
/// [`Mark::Set`] if the set has it, else the mark left as it was).
pub(super) fn mark_for(rule: LongOpRule, class: OpClass, gpgpu_sim: Mark) -> Mark {
    match rule {
        LongOpRule::Mark(m) if m.marks(class) => Mark::Set,
        LongOpRule::Mark(_) if gpgpu_sim == Mark::Set => Mark::Keep,
        _ => gpgpu_sim,
    }
}

/// Writes registers `regs` of `warp`: readable from cycle `at`, long-op marks as `mark` says.
pub(super) fn set_regs(warp: &mut Warp, regs: &[u16], at: u64, mark: Mark) {
    for &r in regs {
        if r != RZ {
            let reg = warp.reg_mut(r);
            reg.ready = at;
            match mark {
                Mark::Set => reg.long_op_until = u64::MAX,
                Mark::ClearAtWriteback => reg.long_op_until = reg.long_op_until.min(at),
                Mark::Keep => {}
            }
        }
    }
}

impl Sm<'_> {
    /// The issue stage: every scheduler issues at most one warp through its warp-issue site;
    /// `issued` is set when one did.
    pub(super) fn issue_stage(&mut self, now: u64, issued: &mut bool) -> Result<(), SimError> {
        self.update_marks();
        let r = match self.mode {
            IssueMode::Sequential => self.issue_sequential(now, issued),
            IssueMode::Paired | IssueMode::SmWide => self.issue_paired(now, issued),
        };
        // This cycle's launches have been reported (to whichever block issues).
        self.tbs_launched = 0;
        self.launch2.fill(0);
        r
    }

    /// The scheduler that issues first: it rotates every cycle the SM has a block, as
    /// GPGPU-Sim's `shader_core_ctx::issue` rotates `Issue_Prio` in every active cycle
    /// (sequential and paired issue alike).
    fn lead_scheduler(&self, _now: u64) -> usize {
        (self.active_cycles % self.schedulers as u64) as usize
    }

    /// The schedulers in their issue order at `now`, from [`Sm::lead_scheduler`].
    fn issue_order(&self, now: u64) -> std::iter::Chain<Range<usize>, Range<usize>> {
        let (n, lead) = (self.schedulers, self.lead_scheduler(now));
        (lead..n).chain(0..lead)
    }

    fn issue_sequential(&mut self, now: u64, issued: &mut bool) -> Result<(), SimError> {
        for s in self.issue_order(now) {
            let scan = self.scan(s, now);
            let ready = self.ready_of(&scan, s, now);
            let grant = self.step_arbiter(s, ready, scan.long_stall)?;
            self.take_grant(s, grant, ready, &scan, now, issued)?;
        }
        Ok(())
    }

    /// Scheduler `s`'s ready warps at `now` (sequential issue, and paired issue before any
    /// grant): those of `scan` whose unit has a free slot.
    pub(super) fn ready_of(&self, scan: &Scan, s: usize, now: u64) -> u64 {
        // No warp passes the scoreboard: none is ready whatever the units.
        match scan.any_operands() {
            true => scan.ready(self.free_units(now, s)),
            false => 0,
        }
    }

    /// Which units can take an instruction of scheduler `s` this cycle, as a mask over
    /// [`unit_bit`].
    pub(super) fn free_units(&self, now: u64, s: usize) -> u8 {
        units_with_slots(&self.free_unit_counts(now, s))
    }

    /// Free slots per unit this cycle for scheduler `s` (index as in [`Scan::by_unit`];
    /// "none" is unlimited); `s` matters only with the collector's sub-cores.
    pub(super) fn free_unit_counts(&self, now: u64, s: usize) -> [u32; 4] {
        if let Some(c) = &self.collector {
            use collector::Path;
            return [
                u32::MAX,
                c.free_slots(Path::Sp, s),
                c.free_slots(Path::Sfu, s),
                c.free_slots(Path::Mem, s),
            ];
        }
        [
            u32::MAX,
            self.sp_busy.iter().filter(|&&b| b <= now).count() as u32,
            self.sfu_busy.iter().filter(|&&b| b <= now).count() as u32,
            self.lsu_free(now) as u32,
        ]
    }

    /// Scheduler `s`'s warps this cycle: which pass the scoreboard, for which unit.
    ///
    /// Kept warp by warp ([`ScanState`]): a warp is classified again only when an event marked
    /// it ([`Sm::sync_masks`], a completed load) or when the cycle comes at which it changes
    /// class by time alone (its i-buffer or its operands become ready). In test builds every
    /// answer is compared with a fresh scan of every warp.
    pub(super) fn scan(&mut self, s: usize, now: u64) -> Scan {
        let n = self.schedulers;
        // Disjoint borrows: the state in place (it spans several cache lines), the warps read.
        let Sm {
            scan_state,
            change_at,
            warps,
            tbs,
            long_ops,
            collector,
            ..
        } = self;
        let oc = collector.is_some();
        let st = &mut scan_state[s];
        let cand = st.candidates();
        st.dirty |= st.due(now, |l| change_at[s + l * n]);
        let mut d = st.dirty & cand;
        st.dirty = 0;
        for u in &mut st.by_unit {
            *u &= cand & !d;
        }
        st.long_op &= cand & !d;
        st.inst &= cand & !d;
        while d != 0 {
            let local = d.trailing_zeros() as usize;
            d &= d - 1;
            let w = s + local * n;
            let at = classify(warps, tbs, w, local, now, *long_ops, oc, st);
            change_at[w] = at;
            st.file(local, now, at);
        }
        let scan = st.kept();
        #[cfg(test)]
        assert_eq!(
            self.scan_now(s, now),
            scan,
            "sm{} scheduler {s}: kept scan differs at cycle {now}",
            self.id
        );
        scan
    }

    /// Marks warp `w` for its scheduler's next [`Sm::scan`]: its head, masks or registers
    /// changed (every such change calls this, through [`Sm::sync_masks`] or a load's
    /// completion).
    pub(super) fn mark_for_scan(&mut self, w: usize) {
        self.scan_state[w % self.schedulers].dirty_warp(w / self.schedulers);
    }

    /// Scans every warp of scheduler `s` at `now`: the definition [`Sm::scan`] keeps
    /// incrementally, compared with it in test builds.
    #[cfg(test)]
    fn scan_now(&self, s: usize, now: u64) -> Scan {
        let mut scan = Scan {
            long_stall: self.scan_state[s].live & self.scan_state[s].stalled,
            ..Default::default()
        };
        let mut cand = self.scan_state[s].candidates();
        while cand != 0 {
            let local = cand.trailing_zeros() as usize;
            cand &= cand - 1;
            let w = s + local * self.schedulers;
            let warp = &self.warps[w];
            let Some(inst) = warp.head.filter(|_| warp.ibuf_ready_at <= now) else {
                continue;
            };
            scan.any_inst = true;
            let (until, long) = operands(warp, &self.tbs[warp.tb], &inst, self.long_ops);
            scan.long_stall |= ((long > now) as u64) << local;
            if until > now {
                continue;
            }
            let unit = unit_bit(inst.class, self.collector.is_some());
            scan.by_unit[unit.trailing_zeros() as usize] |= 1 << local;
        }
        scan
    }

    /// Scheduler `s`'s select at the warp-issue site; returns the granted local warp.
    pub(super) fn step_arbiter(
        &mut self,
        s: usize,
        ready: u64,
        long_stall: u64,
    ) -> Result<Option<usize>, SimError> {
        let inp = self.sched_in(s, ready, long_stall);
        self.launch[s] = 0;
        self.exit[s] = 0;
        self.issue.select(s, &inp)
    }

    /// Scheduler `s`'s input at the warp-issue site, given its `ready` and `long_stall` masks
    /// (the launches, exits and marks are the SM's).
    #[inline]
    pub(super) fn sched_in(&self, s: usize, ready: u64, long_stall: u64) -> SchedIn {
        let [kernel, boundary, drain] = self.marks.as_ref().map_or([0; 3], |m| m.per_sched[s]);
        SchedIn {
            ready,
            launch: self.launch[s],
            launch2: self.launch2[s],
            tbs_launched: self.tbs_launched,
            exit: self.exit[s],
            long_stall,
            kernel,
            boundary,
            drain,
            tail: self.marks.as_ref().map_or(0, |m| m.tail),
        }
    }

    /// Issues scheduler `s`'s grant (checked against the `ready` mask it was given) or counts
    /// why it issued nothing. Returns the issued warp (global id).
    pub(super) fn take_grant(
        &mut self,
        s: usize,
        grant: Option<usize>,
        ready: u64,
        scan: &Scan,
        now: u64,
        issued: &mut bool,
    ) -> Result<Option<usize>, SimError> {
        if let Some(local) = grant {
            if local >= self.per_sched || ready >> local & 1 == 0 {
                return Err(SimError::Protocol(format!(
                    "sm{}_sched{s}: the {} granted warp {local}, which is not ready (ready mask {ready:#x}) at cycle {now}",
                    self.id,
                    self.issue.what()
                )));
            }
            let w = s + local * self.schedulers;
            let first = self.head(w, now).map(|i| i.class);
            self.issue(w, now);
            self.stalls.issued += 1;
            *issued = true;
            if self.tracks_pcs {
                self.tell_issued(s, w);
            }
            if let Some(class) = first.filter(|_| self.timing.issue_per_warp > 1) {
                self.issue_more(w, class, now);
            }
            return Ok(Some(w));
        }
        if self.preempting > 0 && self.has_stopped_warp(s) {
            self.stalls.preempted += 1;
        } else {
            Stall::of(scan.any_operands(), scan.any_inst).count(&mut self.stalls, 1);
        }
        Ok(None)
    }

    /// Multiple issue (`pipeline.issue_per_warp`, GPGPU-Sim's `scheduler_unit::cycle` loop):
    /// warp `w`, which has just issued an instruction of `class`, issues its next i-buffer
    /// instructions in the same cycle while each passes the scoreboard, its unit has a slot
    /// and, with `dual_issue_diff_units`, its unit differs from the one issued before it.
    fn issue_more(&mut self, w: usize, class: OpClass, now: u64) {
        let oc = self.collector.is_some();
        let mut last = unit_bit(class, oc);
        for n in 1..self.timing.issue_per_warp {
            let Some(inst) = self.head(w, now) else {
                return;
            };
            let unit = unit_bit(inst.class, oc);
            let warp = &self.warps[w];
            let (until, _) = operands(warp, &self.tbs[warp.tb], &inst, self.long_ops);
            let same = self.timing.diff_units && unit == last;
            let free = self.free_units(now, w % self.schedulers);
            if same || until > now || free & unit == 0 {
                return;
            }
            self.issue(w, now);
            self.stalls.multi_issued += (n == 1) as u64;
            last = unit;
        }
    }

    /// Tells the unit that scheduler `s` issued warp `w`'s instruction and where the warp
    /// continues.
    fn tell_issued(&mut self, s: usize, w: usize) {
        let warp = &self.warps[w];
        let block = &self.tbs[warp.tb].insts;
        let inst = block.inst(warp.index, warp.next_issue - 1);
        let next_pc = block
            .get(warp.index, warp.next_issue)
            .map_or(inst.pc + 8, |i| i.pc);
        self.issue.issued(s, &inst, next_pc);
    }

    /// Whether a live warp of scheduler `s` is stopped by a preemption.
    fn has_stopped_warp(&self, s: usize) -> bool {
        (s..self.warps.len())
            .step_by(self.schedulers)
            .any(|w| self.warps[w].live && self.warps[w].stopped)
    }

    /// Paired issue (module documentation): every scheduler's warps scanned at the start of
    /// the cycle, then the schedulers from the leading one (`cycle % schedulers`) each take a
    /// unit slot only for the warp they grant; an SM-wide unit does the same inside one select.
    pub(super) fn issue_paired(&mut self, now: u64, issued: &mut bool) -> Result<(), SimError> {
        // Per-scheduler arrays on the stack (this runs every cycle of every SM).
        let n = self.schedulers;
        let mut scans = [Scan::default(); MAX_SCHEDULERS];
        for (s, scan) in scans.iter_mut().enumerate().take(n) {
            *scan = self.scan(s, now);
        }
        let lead = self.lead_scheduler(now);
        let counts = self.free_unit_counts(now, lead);
        if self.mode == IssueMode::SmWide {
            if self.collector.as_ref().is_some_and(|c| c.sub_cores()) {
                return Err(SimError::Config(format!(
                    "the {} issues for the whole SM, which sub-cores \
                     (pipeline.operand_collector.sub_cores) split by scheduler: not modelled",
                    self.issue.what()
                )));
            }
            return self.issue_sm_wide(&scans, counts, lead, now, issued);
        }
        let mut avail = counts;
        for s in self.issue_order(now) {
            if self.collector.as_ref().is_some_and(|c| c.sub_cores()) {
                // Each scheduler has its own slots.
                avail = self.free_unit_counts(now, s);
            }
            let ready = scans[s].ready(units_with_slots(&avail));
            let grant = self.step_arbiter(s, ready, scans[s].long_stall)?;
            if let Some(local) = grant.filter(|&l| l < self.per_sched) {
                if let Some(u) = (1..4).find(|&u| scans[s].by_unit[u] >> local & 1 == 1) {
                    avail[u] = avail[u].saturating_sub(1);
                }
            }
            self.take_grant(s, grant, ready, &scans[s], now, issued)?;
        }
        Ok(())
    }

    /// Paired issue through an SM-wide unit: one select with every scheduler's ready mask (the
    /// units free at the start of the cycle counted), the unit each warp needs, the free slots
    /// (saturated at the scheduler count) and the leading scheduler; the unit grants scheduler
    /// by scheduler from the lead, each seeing the slots the ones before it took. The grants
    /// are issued in that order, each reported back with the PC its warp continues at.
    fn issue_sm_wide(
        &mut self,
        scans: &[Scan; MAX_SCHEDULERS],
        counts: [u32; 4],
        lead: usize,
        now: u64,
        issued: &mut bool,
    ) -> Result<(), SimError> {
        let n = self.schedulers;
        let units = units_with_slots(&counts);
        let mut inp = SmIn {
            schedulers: n,
            free: [1, 2, 3].map(|u| counts[u].min(n as u32) as u8),
            issue_lead: lead,
            fetch_lead: lead,
            ..Default::default()
        };
        for (s, scan) in scans.iter().enumerate().take(n) {
            inp.ready[s] = scan.ready(units);
            for (u, &warps) in scan.by_unit.iter().enumerate().skip(1) {
                let mut m = warps;
                while m != 0 {
                    let l = m.trailing_zeros();
                    m &= m - 1;
                    inp.unit[s] |= (u as u64) << (2 * l);
                }
            }
        }
        (inp.launch, inp.exit) = (self.spread(true), self.spread(false));
        if self.orders_fetch {
            inp.fetch_elig = self.fetchable;
            inp.fetch_on_grant = self.fetch_on_grant(&inp.ready[..n]);
        }
        let out = self.issue.select_all(&inp)?;
        if self.orders_fetch {
            self.fetch_choice = Some(out.fetch);
        }
        for k in 0..n {
            let s = (lead + k) % n;
            self.take_grant(s, out.grants[s], inp.ready[s], &scans[s], now, issued)?;
        }
        Ok(())
    }

    /// The per-scheduler launch (`launch`) or exit masks since the last select as one mask
    /// over all warps (local bit `l` of scheduler `s`: warp `n l + s`), cleared.
    fn spread(&mut self, launch: bool) -> u64 {
        let n = self.schedulers;
        let masks = if launch {
            &mut self.launch
        } else {
            &mut self.exit
        };
        let mut g = 0;
        for (s, m) in masks.iter_mut().enumerate() {
            let mut local = std::mem::take(m);
            while local != 0 {
                let l = local.trailing_zeros() as usize;
                local &= local - 1;
                g |= 1 << (n * l + s);
            }
        }
        g
    }

    /// Of the `ready` warps (per scheduler, local ids), those that become fetch-eligible when
    /// they issue now: the head of their i-buffer is its last decoded instruction and more are
    /// to be fetched (what [`Sm::update_fetchable`] says after the issue). Only ready warps can
    /// be granted, so only they are looked at.
    fn fetch_on_grant(&self, ready: &[u64]) -> u64 {
        let n = self.schedulers;
        let mut m = 0u64;
        for (s, &r) in ready.iter().enumerate() {
            let mut local = r;
            while local != 0 {
                let w = s + n * local.trailing_zeros() as usize;
                local &= local - 1;
                let warp = &self.warps[w];
                if warp.live
                    && !warp.imiss
                    && !warp.exit_issued
                    && warp.next_issue + 1 == warp.next_fetch
                    && warp.next_fetch < warp.len
                {
                    m |= 1 << w;
                }
            }
        }
        m
    }

    pub(super) fn take_pipe(busy: &mut [u64], now: u64, initiation: u64) {
        if let Some(b) = busy.iter_mut().find(|b| **b <= now) {
            *b = now + initiation;
        }
    }

    /// Writes `inst`'s destinations (an instruction of warp `w` issued now): readable from
    /// cycle `at` (`u64::MAX`: when its load completes), long-op marks as `mark` says.
    pub(super) fn write_dsts(&mut self, w: usize, inst: &WarpInst, at: u64, mark: Mark) {
        let warp = &mut self.warps[w];
        set_regs(
            warp,
            self.tbs[warp.tb].insts.dsts(warp.index, inst),
            at,
            mark,
        );
    }

    pub(super) fn issue(&mut self, w: usize, now: u64) {
        let inst = self.head(w, now).expect("ready warps have an instruction");
        let (tb, active) = (self.warps[w].tb, inst.active() as u64);
        let warp = &mut self.warps[w];
        warp.issued_here += 1;
        warp.threads += active;
        if !warp.overwrote && matches!(inst.class, OpClass::StoreGlobal | OpClass::AtomicGlobal) {
            let k = self.tbs[tb].kernel.as_ref().expect("a live warp's block");
            warp.overwrote = k.breaks_idempotence(&inst);
        }
        if self.stores.is_some() {
            self.record_store(w, &inst);
        }
        self.warps[w].next_issue += 1;
        self.refresh_head(w, true);
        if self.tbs[tb].insts.streamed() && self.warps[w].next_issue.is_multiple_of(TRIM_EVERY) {
            self.trim_window(w);
        }
        let t = &self.timing;
        self.counts.warp_instructions += 1;
        self.counts.thread_instructions += active;
        let oc = self.collector.is_some();
        match inst.class {
            OpClass::IntAlu | OpClass::Branch | OpClass::IntMul | OpClass::Fp | OpClass::Dp => {
                let (l, ii) = match inst.class {
                    OpClass::IntMul => t.int_mul,
                    OpClass::Fp => t.fp,
                    OpClass::Dp => t.dp,
                    _ => t.int_alu,
                };
                if oc {
                    let path = match inst.class {
                        OpClass::Dp => Path::Sfu,
                        _ => Path::Sp,
                    };
                    self.collect(w, &inst, path, (l, ii), None);
                } else {
                    Self::take_pipe(&mut self.sp_busy, now, ii);
                    self.write_dsts(w, &inst, now + l + t.around, Mark::ClearAtWriteback);
                }
            }
            OpClass::Sfu => {
                let (l, ii) = t.sfu;
                if oc {
                    self.collect(w, &inst, Path::Sfu, (l, ii), None);
                } else {
                    Self::take_pipe(&mut self.sfu_busy, now, ii);
                    self.write_dsts(w, &inst, now + l + t.around, Mark::ClearAtWriteback);
                }
            }
            OpClass::LoadShared | OpClass::StoreShared | OpClass::AtomicShared => {
                let addrs = self.tbs[tb].insts.addrs(self.warps[w].index, &inst);
                let c = conflict_cycles(addrs.iter(), inst.width as u32, t.banks) as u64;
                if oc {
                    self.collect(
                        w,
                        &inst,
                        Path::Mem,
                        (1, 1),
                        Some(AtLsu::Shared { conflict: c }),
                    );
                } else {
                    self.lsu_busy_until = now + c;
                    let ready = now + c + t.shared + t.around;
                    let mark = mark_for(self.long_ops, inst.class, Mark::Keep);
                    self.write_dsts(w, &inst, ready, mark);
                }
            }
            OpClass::LoadConst => {
                if oc {
                    self.collect(w, &inst, Path::Mem, (1, 1), Some(AtLsu::Const));
                } else {
                    self.lsu_busy_until = now + 1;
                    let ready = now + t.l1d_hit + t.around;
                    // GPGPU-Sim: LDC is an ALU op in trace mode; its writeback clears the mark.
                    let mark = mark_for(self.long_ops, inst.class, Mark::ClearAtWriteback);
                    self.write_dsts(w, &inst, ready, mark);
                }
            }
            OpClass::LoadGlobal
            | OpClass::LoadLocal
            | OpClass::StoreGlobal
            | OpClass::StoreLocal
            | OpClass::AtomicGlobal => {
                let kind = match inst.class {
                    OpClass::StoreGlobal if self.stores_skip_l1d => LsuKind::StoreBypass,
                    OpClass::StoreGlobal | OpClass::StoreLocal => LsuKind::Store,
                    OpClass::AtomicGlobal => LsuKind::Atomic,
                    OpClass::LoadGlobal if self.bypasses(tb, &inst) => LsuKind::LoadBypass,
                    _ => LsuKind::Load,
                };
                let sectors = matches!(kind, LsuKind::LoadBypass | LsuKind::StoreBypass)
                    || self.sector_coalescing;
                let (txns, useful) = self.transactions(w, &inst, sectors);
                let first_ready = now + 1 + self.timing.around;
                if inst.class == OpClass::LoadGlobal {
                    self.count_issued_load(w, &inst, useful);
                }
                let token = (!matches!(kind, LsuKind::Store | LsuKind::StoreBypass)).then(|| {
                    self.warps[w].loads += 1;
                    let mark = mark_for(self.long_ops, inst.class, Mark::Set);
                    self.write_dsts(w, &inst, u64::MAX, mark);
                    self.new_pending(PendingLoad {
                        warp: w,
                        tb,
                        inst,
                        index: self.warps[w].next_issue - 1,
                        outstanding: 0,
                        ready_at: first_ready,
                        all_sent: false,
                        context: false,
                    })
                });
                let op = LsuOp {
                    warp: w,
                    token,
                    kind,
                    txns,
                    next: 0,
                    failed_at: None,
                };
                if oc {
                    self.collect(w, &inst, Path::Mem, (1, 1), Some(AtLsu::Access(op)));
                } else {
                    self.lsu.push_back(op);
                }
            }
            OpClass::Barrier | OpClass::Exit | OpClass::MemBarrier | OpClass::Nop if oc => {
                self.collect(w, &inst, Path::Sp, (1, 1), None);
                if inst.class == OpClass::Barrier {
                    self.arrive_at_barrier(w, tb);
                }
            }
            OpClass::Barrier => self.arrive_at_barrier(w, tb),
            // A trace lists an `EXIT` for every group of lanes that leaves; the warp is done
            // when its last instruction issues (below), whatever that instruction is.
            OpClass::Exit | OpClass::MemBarrier | OpClass::Nop => {}
        }
        let warp = &mut self.warps[w];
        if warp.next_issue == warp.len {
            warp.exit_issued = true;
            self.sync_masks(w);
            self.exiting.push(w);
            self.check_barrier(tb);
        }
    }

    /// Records `inst`'s stores or atomics, an instruction of warp `w` (with
    /// [`crate::gpu::SimOptions::record_stores`]).
    fn record_store(&mut self, w: usize, inst: &WarpInst) {
        let atomic = match inst.class {
            OpClass::StoreGlobal => false,
            OpClass::AtomicGlobal => true,
            _ => return,
        };
        let warp = &self.warps[w];
        let slot = &self.tbs[warp.tb];
        let overwrite = slot
            .kernel
            .as_ref()
            .is_some_and(|k| k.breaks_idempotence(inst));
        let addrs = slot.insts.addrs(warp.index, inst);
        let mut m = inst.mask;
        let events: Vec<StoreEvent> = addrs
            .iter()
            .map(|addr| {
                let lane = m.trailing_zeros() as u8;
                m &= m.wrapping_sub(1);
                StoreEvent {
                    kernel: warp.kernel,
                    block: slot.id,
                    warp: warp.index as u16,
                    lane,
                    addr,
                    atomic,
                    overwrite,
                }
            })
            .collect();
        self.stores.as_mut().expect("recording").extend(events);
    }

    /// Warp `w` of block slot `tb` arrives at its block's barrier.
    fn arrive_at_barrier(&mut self, w: usize, tb: usize) {
        self.warps[w].at_barrier = true;
        self.sync_masks(w);
        self.tbs[tb].arrived += 1;
        self.check_barrier(tb);
    }

    /// Lets a streamed block drop warp `w`'s instructions that nothing uses any more: those
    /// before the last one issued (ELF reads it) and before every load of the warp in flight
    /// (their destination registers are read when they complete).
    fn trim_window(&mut self, w: usize) {
        let warp = &self.warps[w];
        let mut keep = warp.next_issue - 1;
        for p in &self.pending {
            if p.warp == w && (!p.all_sent || p.outstanding > 0) {
                keep = keep.min(p.index);
            }
        }
        let (tb, index) = (warp.tb, warp.index);
        self.tbs[tb].insts.trim(index, keep);
    }

    /// Whether the global load `inst` of block slot `tb` bypasses the L1D.
    fn bypasses(&self, tb: usize, inst: &WarpInst) -> bool {
        let kernel = self.tbs[tb].kernel.as_ref().expect("an active block");
        kernel.caching.bypasses(inst.pc, inst.cache)
    }

    /// Counts a global load `inst` of warp `w` issued, asking for `useful` distinct bytes.
    fn count_issued_load(&mut self, w: usize, inst: &WarpInst, useful: u64) {
        let key = (self.warps[w].kernel, inst.pc);
        let c = self.load_counts.entry(key).or_insert(LoadCounts {
            pc: inst.pc,
            ..Default::default()
        });
        c.warp_instructions += 1;
        c.useful_bytes += useful;
    }

    /// The coalesced transactions of `inst`, an instruction of warp `w`, in
    /// 32 B sectors when `sectors` (a load that bypasses the L1D), and the distinct bytes its
    /// lanes access.
    pub(super) fn transactions(
        &self,
        w: usize,
        inst: &WarpInst,
        sectors: bool,
    ) -> (Vec<Transaction>, u64) {
        let warp = &self.warps[w];
        let addrs = self.tbs[warp.tb].insts.addrs(warp.index, inst);
        let mut lanes = Vec::with_capacity(addrs.len());
        let mut m = inst.mask;
        for a in addrs.iter() {
            let lane = m.trailing_zeros();
            m &= m.wrapping_sub(1);
            lanes.push((lane, a));
        }
        let txns = coalesce(lanes, inst.width.max(1) as u32, sectors);
        let useful = txns.iter().map(|t| t.bytes.count_ones() as u64).sum();
        (txns, useful)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::sites::issue::Marked;
    use crate::workload::kernel::BlockInsts;

    fn slot(insts: BlockInsts) -> TbSlot {
        TbSlot {
            active: true,
            insts: RunBlock::Whole(insts),
            warps: 1,
            left: 1,
            ..TbSlot::free()
        }
    }

    use crate::gpu::sm::warps::Reg;

    fn reg(ready: u64, long_op_until: u64) -> Reg {
        Reg {
            ready,
            long_op_until,
        }
    }

    #[test]
    fn a_scoreboard_grown_on_demand_reads_as_the_whole_table() {
        // The whole table, as the scoreboard was before it grew on demand: the same writes,
        // but it never grows.
        let mut whole = Warp::new();
        whole.regs = vec![Reg::default(); REGS];
        let mut warp = Warp::new();
        warp.reset_regs();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for step in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x.is_multiple_of(97) {
                warp.reset_regs();
                whole.reset_regs();
                continue;
            }
            // Mostly low registers, now and then a high one (the table grows).
            let r = if x.is_multiple_of(13) {
                (x >> 8) % 256
            } else {
                (x >> 8) % 40
            } as u16;
            let mark = [Mark::Set, Mark::ClearAtWriteback, Mark::Keep][(x >> 20) as usize % 3];
            let at = step * 3 + (x >> 40) % 50;
            set_regs(&mut warp, &[r], at, mark);
            set_regs(&mut whole, &[r], at, mark);
            if step.is_multiple_of(500) || x.is_multiple_of(31) {
                for (i, w) in whole.regs.iter().enumerate() {
                    assert_eq!(warp.reg(i as u16), *w, "register {i} after step {step}");
                }
            }
        }
        assert_eq!(whole.regs.len(), REGS);
        assert_eq!(warp.regs.len(), REGS, "a high register grew the table");
    }

    #[test]
    fn only_a_source_waiting_on_a_load_is_a_long_stall() {
        let mut b = BlockInsts::default();
        // 0: R1 = R2 + R3 (R1 is written by a load in flight: a write after write)
        b.push(0, 0, !0, OpClass::IntAlu, &[1], &[2, 3], 0, &[]);
        // 1: R4 = R1 + R2 (reads the load's register)
        b.push(0, 8, !0, OpClass::IntAlu, &[4], &[1, 2], 0, &[]);
        // 2: R5 = R2 + R3 (R3 ready at cycle 40)
        b.push(0, 16, !0, OpClass::IntAlu, &[5], &[2, 3], 0, &[]);
        let tb = slot(b);
        let mut warp = Warp::new();
        warp.regs = vec![Reg::default(); 8];
        warp.regs[1] = reg(u64::MAX, u64::MAX);
        warp.regs[3] = reg(40, 0);
        let inst = |i: u32| tb.insts.inst(0, i);
        for rule in [LongOpRule::Mark(Marked::GpgpuSim), LongOpRule::InFlight] {
            assert_eq!(
                operands(&warp, &tb, &inst(0), rule),
                (u64::MAX, 0),
                "{rule:?}"
            );
            assert_eq!(operands(&warp, &tb, &inst(1), rule), (u64::MAX, u64::MAX));
            assert_eq!(operands(&warp, &tb, &inst(2), rule), (40, 0), "{rule:?}");
        }
    }

    #[test]
    fn the_long_op_mark_outlives_the_load_and_ends_at_a_non_memory_writeback() {
        let mut b = BlockInsts::default();
        // 0: R4 = R1 + R2; R1's load has completed (ready) but it keeps the mark.
        b.push(0, 0, !0, OpClass::IntAlu, &[4], &[1, 2], 0, &[]);
        // 1: R4 = R2 + R3; an ALU op wrote R3 (ready at 30), clearing its mark at 30.
        b.push(0, 8, !0, OpClass::IntAlu, &[4], &[2, 3], 0, &[]);
        let tb = slot(b);
        let mut warp = Warp::new();
        warp.regs = vec![Reg::default(); 8];
        warp.regs[1] = reg(10, u64::MAX);
        warp.regs[3] = reg(30, 30);
        let inst = |i: u32| tb.insts.inst(0, i);
        assert_eq!(
            operands(&warp, &tb, &inst(0), LongOpRule::Mark(Marked::GpgpuSim)),
            (10, u64::MAX)
        );
        assert_eq!(
            operands(&warp, &tb, &inst(0), LongOpRule::InFlight),
            (10, 0)
        );
        assert_eq!(
            operands(&warp, &tb, &inst(1), LongOpRule::Mark(Marked::GpgpuSim)),
            (30, 30)
        );
        assert_eq!(
            operands(&warp, &tb, &inst(1), LongOpRule::InFlight),
            (30, 0)
        );
        // At cycle 20 the ready warp of instruction 0 is classified ready *and* on a long
        // stall; instruction 1's warp waits, on a long stall until 30.
        let mut st = ScanState::default();
        warp.head = Some(inst(0));
        let warps = [warp];
        let tbs = [tb];
        let at = classify(
            &warps,
            &tbs,
            0,
            0,
            20,
            LongOpRule::Mark(Marked::GpgpuSim),
            false,
            &mut st,
        );
        assert_eq!((at, st.long_op, st.by_unit[1]), (u64::MAX, 1, 1));
    }
}
