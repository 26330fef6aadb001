//! Time slicing (`--kernel-sched timeslice`): the kernels the GPU holds take turns owning every
//! SM, in the order they were admitted, for `--quantum` cycles each, counted from the cycle
//! the last of the previous owner's blocks left (so each gets its quantum however long the
//! handover); when a quantum ends and another kernel waits, the owner's blocks leave every SM
//! by `--preempt` and the next kernel takes each SM once they are gone (the time-slicing
//! Accel-Sim lacks, accel-sim #292).

use crate::blocks::DynProvider;
use super::even::hand_over;
use super::{
    KernelSchedPolicy, OptError, OptSpec, OptValues, PolicyEntry, SiteKind, SitePolicy,
    KERNEL_SLOTS, PREEMPT,
};
use crate::config::GpuConfig;
use crate::gpu::sites::kernel_sched::{KernelSchedIn, KernelSchedOut, KernelSchedUnit, Technique};
use crate::gpu::SimError;
use std::sync::Arc;

const QUANTUM: OptSpec = OptSpec::value(
    "quantum",
    "CYCLES",
    "100000",
    "Cycles a kernel owns the GPU before the next one takes it (>= 1)",
);

/// `timeslice`.
pub const ENTRIES: &[&PolicyEntry] = &[&TIMESLICE];

static TIMESLICE: PolicyEntry = PolicyEntry {
    site: SiteKind::KernelSched,
    name: "timeslice",
    summary: "time slicing: the kernels held take turns owning every SM for a quantum, the \
              owner's blocks preempted at its end",
    blocks: &[],
    options: &[KERNEL_SLOTS, PREEMPT, QUANTUM],
    flag: None,
    implies: &[],
    regress: &[],
    parse,
};

fn parse(v: &OptValues) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::KernelSched(Arc::new(Timeslice {
        slots: v.number(&KERNEL_SLOTS, 1..=64)?,
        technique: super::fixed_technique(v)?,
        quantum: v.number(&QUANTUM, 1..=u64::MAX)?,
    })))
}

#[derive(Debug)]
struct Timeslice {
    slots: usize,
    technique: Technique,
    quantum: u64,
}

impl KernelSchedPolicy for Timeslice {
    fn entry(&self) -> &'static PolicyEntry {
        &TIMESLICE
    }

    fn slots(&self) -> usize {
        self.slots
    }

    fn label_suffix(&self) -> String {
        format!("+timeslice({},{})", self.quantum, self.technique.name())
    }

    fn check(&self, _: &GpuConfig, plan: &super::Plan) -> Result<(), SimError> {
        super::check_resume(plan, self.technique)
    }

    fn build<'a>(
        &self,
        _: &GpuConfig,
        _: &mut dyn DynProvider<'a>,
    ) -> Result<Box<dyn KernelSchedUnit + 'a>, SimError> {
        Ok(Box::new(TimesliceUnit {
            slots: self.slots,
            technique: self.technique,
            quantum: self.quantum,
            owner: None,
            since: None,
        }))
    }
}

/// The owner (its slot and launch index) and the cycle its quantum started (`None` while
/// other kernels' blocks still leave the SMs).
struct TimesliceUnit {
    slots: usize,
    technique: Technique,
    quantum: u64,
    owner: Option<(usize, usize)>,
    since: Option<u64>,
}

impl KernelSchedUnit for TimesliceUnit {
    fn slots(&self) -> usize {
        self.slots
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        let held = inp.by_admission();
        if held.is_empty() {
            self.owner = None;
            out.offer.fill(None);
            return Ok(());
        }
        let pos = self.owner.and_then(|(k, launch)| {
            held.iter()
                .position(|&h| h == k && inp.kernels[k].is_some_and(|v| v.launch == launch))
        });
        let expired = |since: Option<u64>| since.is_some_and(|s| inp.now - s >= self.quantum);
        let next = match pos {
            // The owner left: the first kernel held.
            None => Some(0),
            Some(p) if held.len() > 1 && expired(self.since) => Some((p + 1) % held.len()),
            Some(_) => None,
        };
        if let Some(i) = next {
            let k = held[i];
            self.owner = Some((k, inp.kernels[k].expect("held").launch));
            self.since = None;
        }
        let (owner, _) = self.owner.expect("set above");
        if self.since.is_none() && inp.sms.iter().all(|v| v.others(owner) == 0) {
            self.since = Some(inp.now);
        }
        for sm in 0..inp.sms.len() {
            hand_over(sm, owner, inp, out, self.technique);
        }
        Ok(())
    }
}
