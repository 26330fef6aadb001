//! What one SM's `chimera_tb` block is told each cycle: its SM status table follows the SM's
//! resident blocks through launch, issue and leave events derived from the kernel scheduler's
//! block views (the SM's own signals, one cycle later).
//!
//! The block has one launch port, one leave port and `P` issue ports a cycle. A cycle with more
//! events than ports defers the rest: a deferred launch is sent later with the block's counts of
//! that later cycle, a deferred issue is sent on a later cycle's free port, so the table is equal
//! to the views again as soon as the ports catch up (on `gtx480` an SM starts and ends at most
//! one block a cycle and issues at most `P` = 2 warp instructions: nothing is deferred).

use crate::blocks::chimera_tb::block::ChimeraIn;
use crate::blocks::chimera_tb::cost::sat;
use crate::gpu::sites::kernel_sched::BlockView;

/// What the block was told of one of its slots (its state after the last edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Told {
    /// The block's kernel slot and grid id.
    kernel: usize,
    id: u32,
    /// Its counters and NI bit, as the block holds them.
    issued: u32,
    cycles: u32,
    ni: bool,
}

impl Told {
    /// Whether `v` is this block one cycle on.
    fn same(&self, v: &BlockView) -> bool {
        (v.slot, v.id) == (self.kernel, self.id) && sat(v.cycles) == self.cycles.saturating_add(1)
    }
}

/// The event source of one SM's block.
#[derive(Clone, Debug)]
pub struct Feed {
    told: Vec<Option<Told>>,
    ports: usize,
}

impl Feed {
    /// A feed for a block of `slots` block slots and `ports` issue ports, all slots empty.
    pub fn new(slots: usize, ports: usize) -> Self {
        Self {
            told: vec![None; slots],
            ports,
        }
    }

    /// Fills the event fields of `inp` (launch, issue, leave; the rest untouched) from the
    /// SM's resident blocks `views` (block-slot order), and records what the block will hold
    /// after this cycle's edge.
    pub fn events(&mut self, views: &[BlockView], inp: &mut ChimeraIn) {
        let t = self.told.len();
        let mut at: Vec<Option<&BlockView>> = vec![None; t];
        for v in views.iter().filter(|v| v.tb < t) {
            at[v.tb] = Some(v);
        }
        let same: Vec<bool> = (0..t)
            .map(|k| matches!((self.told[k], at[k]), (Some(o), Some(v)) if o.same(v)))
            .collect();
        let launch = (0..t).find(|&k| at[k].is_some() && !same[k]);
        let leave = (0..t).find(|&k| self.told[k].is_some() && at[k].is_none());
        // The edge, in the block's order: every valid slot counts a cycle (a slot whose new
        // block waits for the launch port included), issues count, the leave, the launch.
        for o in self.told.iter_mut().flatten() {
            o.cycles = o.cycles.saturating_add(1);
        }
        inp.issue_valid = [false; 4];
        let mut port = 0;
        for k in (0..t).filter(|&k| same[k]) {
            let (o, v) = (self.told[k].as_mut().expect("same"), at[k].expect("same"));
            let owed = sat(v.issued).saturating_sub(o.issued);
            for _ in 0..owed.min((self.ports - port) as u32) {
                inp.issue_valid[port] = true;
                inp.issue_slot[port] = k as u8;
                inp.issue_overwrite[port] = v.non_idempotent && !o.ni;
                o.ni |= v.non_idempotent;
                o.issued = o.issued.saturating_add(1);
                port += 1;
            }
        }
        inp.leave = leave.is_some();
        inp.leave_slot = leave.unwrap_or(0) as u8;
        if let Some(k) = leave {
            self.told[k] = None;
        }
        inp.launch = launch.is_some();
        inp.launch_slot = launch.unwrap_or(0) as u8;
        if let Some(k) = launch {
            let v = at[k].expect("a launch has its view");
            let o = Told {
                kernel: v.slot,
                id: v.id,
                issued: sat(v.issued),
                cycles: sat(v.cycles),
                ni: v.non_idempotent,
            };
            (inp.launch_issued, inp.launch_cycles, inp.launch_ni) = (o.issued, o.cycles, o.ni);
            self.told[k] = Some(o);
        }
    }

    /// The counters the block holds for slot `k` (issued, cycles), if it holds a block there.
    #[cfg(test)]
    pub fn counters(&self, k: usize) -> Option<(u32, u32)> {
        self.told.get(k).copied().flatten().map(|o| (o.issued, o.cycles))
    }
}
