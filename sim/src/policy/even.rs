//! Spatial multitasking with an even split (`--kernel-sched even`): the SMs are divided into as
//! many contiguous groups as the GPU holds kernels (sizes differing by at most one, the oldest
//! kernel first), each group serving one kernel. When a kernel arrives or leaves the split
//! changes, and the blocks of other kernels on an SM that changed hands leave it by
//! `--preempt` (switched out, drained or flushed); the SM takes its new kernel's blocks once
//! they are gone.

use crate::blocks::DynProvider;
use super::{
    KernelSchedPolicy, OptError, OptValues, PolicyEntry, SiteKind, SitePolicy, KERNEL_SLOTS,
    PREEMPT,
};
use crate::config::GpuConfig;
use crate::gpu::sites::kernel_sched::{
    KernelSchedIn, KernelSchedOut, KernelSchedUnit, Preempt, Technique,
};
use crate::gpu::SimError;
use std::sync::Arc;

/// `even`.
pub const ENTRIES: &[&PolicyEntry] = &[&EVEN];

static EVEN: PolicyEntry = PolicyEntry {
    site: SiteKind::KernelSched,
    name: "even",
    summary: "spatial multitasking: the SMs split evenly between the kernels held, other \
              kernels' blocks preempted off an SM that changes hands",
    blocks: &[],
    options: &[KERNEL_SLOTS, PREEMPT],
    flag: None,
    implies: &[],
    regress: &[],
    parse,
};

fn parse(v: &OptValues) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::KernelSched(Arc::new(Even {
        slots: v.number(&KERNEL_SLOTS, 1..=64)?,
        technique: super::fixed_technique(v)?,
    })))
}

#[derive(Debug)]
struct Even {
    slots: usize,
    technique: Technique,
}

impl KernelSchedPolicy for Even {
    fn entry(&self) -> &'static PolicyEntry {
        &EVEN
    }

    fn slots(&self) -> usize {
        self.slots
    }

    fn label_suffix(&self) -> String {
        format!("+even({})", self.technique.name())
    }

    fn check(&self, _: &GpuConfig, plan: &super::Plan) -> Result<(), SimError> {
        super::check_resume(plan, self.technique)
    }

    fn build<'a>(
        &self,
        _: &GpuConfig,
        _: &mut dyn DynProvider<'a>,
    ) -> Result<Box<dyn KernelSchedUnit + 'a>, SimError> {
        Ok(Box::new(EvenUnit {
            slots: self.slots,
            technique: self.technique,
        }))
    }
}

struct EvenUnit {
    slots: usize,
    technique: Technique,
}

impl KernelSchedUnit for EvenUnit {
    fn slots(&self) -> usize {
        self.slots
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        let held = inp.by_admission();
        if held.is_empty() {
            out.offer.fill(None);
            return Ok(());
        }
        let n = inp.sms.len();
        for sm in 0..n {
            let owner = held[sm * held.len() / n];
            hand_over(sm, owner, inp, out, self.technique);
        }
        Ok(())
    }
}

/// SM `sm` serves slot `owner`'s kernel: the other kernels' blocks not yet leaving it leave by
/// `technique`, and once none is left the SM is offered to `owner` (if it has blocks waiting).
pub fn hand_over(
    sm: usize,
    owner: usize,
    inp: &KernelSchedIn,
    out: &mut KernelSchedOut,
    technique: Technique,
) {
    let view = &inp.sms[sm];
    for (k, (&blocks, &leaving)) in view.blocks.iter().zip(&view.preempting).enumerate() {
        if k != owner && blocks > leaving {
            out.preempt.push(Preempt {
                sm,
                slot: k,
                technique,
                block: None,
            });
        }
    }
    let ready = view.others(owner) == 0;
    out.offer[sm] = (ready && inp.kernels[owner].is_some_and(|v| v.has_waiting())).then_some(owner);
}
