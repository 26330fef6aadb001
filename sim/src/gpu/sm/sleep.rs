//! Sleeping through quiet cycles: an SM whose next cycles can only count stalls is not
//! stepped until something can change.
//!
//! At the end of its cycle, an SM whose next cycle would issue nothing, fetch, retire, send
//! or receive nothing, and change no state but counters that grow by a fixed amount per cycle
//! ([`Quiet`]) records those amounts and the first cycle at which time alone changes what it
//! would do (a warp's operands or i-buffer ready, an SP/SFU pipeline or the LSU free). The GPU
//! then skips its cycles until that cycle, a reply for it at its crossbar output, or an action
//! on it (a block launched, preempted or killed, the L1D's ways changed); waking adds the
//! skipped cycles' counts at once. Every statistic is the same as when the SM is stepped every
//! cycle: a skipped cycle is one whose step would have done exactly that (the tests run the
//! suite both ways, `SimOptions::sm_sleep`).
//!
//! Only SMs whose units say when they are quiet sleep: sequential or paired issue through
//! warp arbiters that hold when nothing is ready, LRR and GTO, or through LAWS's blocks
//! (`base` and `serial`; [`IssueUnit::can_be_quiet`], [`IssueUnit::quiet`]; with no grant,
//! paired issue offers each scheduler the units free at the start of the cycle, as sequential
//! issue does), without the operand collector, the L1D latency queues in front of the tag
//! lookup, an LSU-queue unit, marks, a unit that orders fetch or tracks PCs, or one that
//! prepares kernels unless nothing it prepares can change a quiet cycle
//! ([`IssueUnit::sleeps_through_prepare`]: LAWS's starvation threshold, which only orders
//! grants and promotions).

use super::issue::Stall;
use super::*;
use crate::mem::data_cache::Fail;

/// A sleep bug planted by a test (the checks must see it).
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SleepFault {
    /// Waking forgets the skipped cycles in the issue priority's rotation.
    NoRotation,
    /// A sleeping SM does not wake for a reply (only when its cycle comes).
    LateReplies,
}

/// What one skipped cycle counts.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Quiet {
    /// Per scheduler, the stall it counts (`None` past the SM's schedulers).
    stalls: [Option<Stall>; MAX_SCHEDULERS],
    /// The SM holds a block: busy and active cycles count.
    busy: bool,
    /// The LSU's oldest instruction retries an access the L1D refuses, for the kernel of
    /// that launch and that cause.
    lsu_fail: Option<(u32, Fail)>,
}

impl Sm<'_> {
    /// Whether the SM can sleep at all (its units say when they are quiet; module
    /// documentation).
    pub(super) fn can_sleep(&self) -> bool {
        self.mode != IssueMode::SmWide
            && self.issue.can_be_quiet()
            && self.collector.is_none()
            && self.timing.l1d_pipe == 0
            && self.lsu_queue.is_none()
            && self.marks.is_none()
            && !self.orders_fetch
            && !self.tracks_pcs
            && (!self.prepares || self.issue.sleeps_through_prepare())
    }

    /// The SM sleeps through cycle `now` (it is not stepped).
    #[inline]
    pub fn asleep(&self, now: u64) -> bool {
        self.sleep_until > now
    }

    /// At the start of cycle `now`, before the replies are received: a sleeping SM wakes when
    /// its cycle has come or a reply waits for it in `mem`. Returns whether it still sleeps.
    #[inline]
    pub fn sleeps_on(&mut self, now: u64, mem: &MemorySystem) -> bool {
        if self.sleep_until == 0 {
            return false;
        }
        #[cfg(test)]
        let late = self.sleep_fault == Some(SleepFault::LateReplies);
        #[cfg(not(test))]
        let late = false;
        if now < self.sleep_until && (late || !mem.reply_due(self.id)) {
            return true;
        }
        self.wake(now);
        false
    }

    /// Ends a sleep before cycle `now` (no-op when awake): counts the cycles skipped since it
    /// began as [`Quiet`] says.
    pub fn wake(&mut self, now: u64) {
        if self.sleep_until == 0 {
            return;
        }
        self.sleep_until = 0;
        let k = now.saturating_sub(self.slept_from);
        self.slept_cycles += k;
        let q = self.quiet;
        for stall in q.stalls.iter().flatten() {
            stall.count(&mut self.stalls, k);
        }
        #[cfg(test)]
        let rotates = self.sleep_fault != Some(SleepFault::NoRotation);
        #[cfg(not(test))]
        let rotates = true;
        if q.busy {
            self.counts.busy_cycles += k;
            self.active_cycles += if rotates { k } else { 0 };
        }
        if let Some((kernel, why)) = q.lsu_fail {
            self.stalls.lsu_blocked += k;
            self.l1d.set_owner(kernel);
            self.l1d.repeat_fails(why, k);
        }
    }

    /// At the end of cycle `now` (`issued`: a warp issued in it): sleeps from cycle `now + 1`
    /// when that cycle is quiet, until the first cycle time alone changes.
    pub(super) fn try_sleep(&mut self, now: u64, issued: bool) {
        if !self.sleep_allowed || issued {
            return;
        }
        let next = now + 1;
        let Some(lsu_fail) = self.quiet_lsu(next) else {
            return;
        };
        if !self.quiet_stages() {
            return;
        }
        if !self.sends_nothing(next) {
            return;
        }
        let n = self.schedulers;
        let changed =
            |s: usize| self.scan_state[s].is_dirty() || self.launch[s] | self.exit[s] != 0;
        if (0..n).any(changed) {
            return;
        }
        // A warp due in cycle `next` (cheaper to rule out first than the whole wake-up cycle).
        if self.scan_state.iter().any(|st| st.due_at(next)) {
            return;
        }
        let mut stalls = [None; MAX_SCHEDULERS];
        for (s, stall) in stalls.iter_mut().enumerate().take(n) {
            let scan = self.scan_state[s].kept();
            let inp = self.sched_in(s, self.ready_of(&scan, s, next), scan.long_stall);
            if !self.issue.quiet(s, &inp) {
                return;
            }
            *stall = Some(Stall::of(scan.any_operands(), scan.any_inst));
        }
        let until = self.next_change(next);
        debug_assert!(
            until > next,
            "sm{}: wakes in the cycle it would sleep",
            self.id
        );
        self.quiet = Quiet {
            stalls,
            busy: self.resident > 0,
            lsu_fail,
        };
        self.slept_from = next;
        self.sleep_until = until;
    }

    /// Whether the stages other than issue and the LSU do nothing in cycle `next`: no fetch,
    /// fill, retirement, launch, preemption, or block to collect.
    fn quiet_stages(&self) -> bool {
        // An exited warp leaves once its loads and stores are done: only replies do that.
        let none_leaves = self.exiting.iter().all(|&w| {
            let warp = &self.warps[w];
            warp.loads > 0 || warp.stores > 0 || self.lsu.iter().any(|op| op.warp == w)
        });
        none_leaves
            && self.fetchable == 0
            && self.ifill.is_empty()
            && self.preempting == 0
            && self.tbs_launched == 0
            && self.finished.is_empty()
            && self.taken_off.is_empty()
    }

    /// Whether the send stage sends nothing in cycle `next` ([`Sm::send`]): no request
    /// waits, but in the L1D latency queue until later ([`Sm::next_change`]). A request held
    /// back by a full crossbar input keeps the SM awake: the input drains a packet at a time,
    /// so such sleeps would last a cycle or two (measured: `bfs` medium slept 1.2 cycles a
    /// time, and ran slower).
    fn sends_nothing(&self, next: u64) -> bool {
        self.l1i.peek_fetch().is_none()
            && self.l1d.peek_fetch().is_none()
            && self.uncached.is_empty()
            && self.l1d_queue.front().is_none_or(|&(at, _)| at > next)
    }

    /// The LSU in cycle `next`: `None` when it may do something, else what it counts
    /// (`Some(None)`: nothing; `Some(Some(..))`: its oldest instruction's access is refused
    /// again, the L1D unchanged since it was refused).
    fn quiet_lsu(&self, next: u64) -> Option<Option<(u32, Fail)>> {
        let Some(op) = self.lsu.front() else {
            return Some(None);
        };
        if self.lsu_busy_until > next {
            // A shared-memory access holds it (its end is in `next_change`).
            return Some(None);
        }
        match op.failed_at {
            Some((version, why)) if op.next < op.txns.len() && version == self.l1d.version() => {
                Some(Some((self.warps[op.warp].kernel, why)))
            }
            _ => None,
        }
    }

    /// The first cycle from `next` at which time alone changes what the SM would do: a
    /// warp's class in a scheduler's scan, an SP or SFU pipeline or the LSU becoming free,
    /// a request leaving the L1D latency queue.
    fn next_change(&self, next: u64) -> u64 {
        let scans = self.scan_state.iter().map(|st| st.next_due(next));
        let busy = self.sp_busy.iter().chain(&self.sfu_busy);
        let units = busy.chain([&self.lsu_busy_until]).filter(|&&b| b > next);
        let queued = self
            .l1d_queue
            .front()
            .map(|&(at, _)| at)
            .filter(|&at| at > next);
        scans
            .chain(units.copied())
            .chain(queued)
            .min()
            .unwrap_or(u64::MAX)
    }
}
