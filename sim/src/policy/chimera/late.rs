//! Requests that miss the latency limit, as the thesis's periodic-task experiment treats them
//! (spec §6 C-R2): the warp instructions the victim kernel issues on the SMs it still withholds
//! once the limit has passed (not effective throughput: they ran on SMs that belonged to the
//! late kernel), and, with `--kill-late`, the late kernel killed at its deadline plus the limit.

use super::unit::Request;
use crate::gpu::sites::kernel_sched::{BlockView, KernelSchedIn, KernelSchedOut};

/// What is kept of the late requests.
#[derive(Debug)]
pub struct Late {
    limit: u64,
    kill: bool,
    /// Per SM: the victim's blocks there last cycle (block slot, grid id, instructions).
    last: Vec<Vec<(usize, u32, u64)>>,
    /// Launches of kernels whose request missed the limit, and whether each was killed.
    doomed: Vec<(usize, bool)>,
}

impl Late {
    /// For `sms` SMs, a limit of `limit` cycles; kills late kernels if `kill`.
    pub fn new(sms: usize, limit: u32, kill: bool) -> Self {
        Self {
            limit: limit as u64,
            kill,
            last: vec![vec![]; sms],
            doomed: vec![],
        }
    }

    /// Kernels killed so far.
    pub fn killed(&self) -> usize {
        self.doomed.iter().filter(|d| d.1).count()
    }

    /// One cycle: counts what the victims of the open requests issue on the SMs they still
    /// hold past the limit, and kills the late kernels whose time has come.
    pub fn step(&mut self, inp: &KernelSchedIn, requests: &mut [Request], out: &mut KernelSchedOut) {
        for r in requests.iter_mut().filter(|r| r.latency.is_none()) {
            let late = inp.now > r.cycle + self.limit;
            if late && !self.doomed.iter().any(|d| d.0 == r.kernel) {
                self.doomed.push((r.kernel, false));
            }
            let Some(victim) = inp.slot_of(r.victim) else {
                continue;
            };
            for &(sm, _) in r.sms.iter().filter(|(_, at)| at.is_none()) {
                let now: Vec<(usize, u32, u64)> = inp.blocks[sm]
                    .iter()
                    .filter(|b: &&BlockView| b.slot == victim)
                    .map(|b| (b.tb, b.id, b.issued))
                    .collect();
                if late {
                    r.withheld += now
                        .iter()
                        .filter_map(|&(tb, id, issued)| {
                            let before = self.last[sm].iter().find(|l| (l.0, l.1) == (tb, id))?;
                            Some(issued.saturating_sub(before.2))
                        })
                        .sum::<u64>();
                }
                self.last[sm] = now;
            }
        }
        if self.kill {
            for (launch, killed) in self.doomed.iter_mut().filter(|d| !d.1) {
                let Some(k) = inp.slot_of(*launch) else {
                    continue;
                };
                let v = inp.kernels[k].expect("found");
                if v.deadline.is_some_and(|d| inp.now >= v.arrival + d + self.limit) {
                    out.kill.push(k);
                    *killed = true;
                }
            }
        }
    }
}
