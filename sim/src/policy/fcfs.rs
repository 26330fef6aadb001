//! GPGPU-Sim's kernel scheduling without `-gpgpu_concurrent_kernel_sm` (`--kernel-sched fcfs`):
//! the GPU holds up to `--kernel-slots` kernels; an SM serves one kernel at a time and takes
//! the next only once its kernel has no block left to dispatch and the SM is empty, so the next
//! kernel takes SMs as the previous one drains (`simt_core_cluster::issue_block2core`). The
//! kernel an SM takes is [`select_kernel`]'s.

use crate::blocks::DynProvider;
use super::{
    KernelSchedPolicy, OptError, OptValues, PolicyEntry, SiteKind, SitePolicy, KERNEL_SLOTS,
};
use crate::config::GpuConfig;
use crate::gpu::sites::kernel_sched::{KernelSchedIn, KernelSchedOut, KernelSchedUnit};
use crate::gpu::SimError;
use std::sync::Arc;

/// `fcfs`.
pub const ENTRIES: &[&PolicyEntry] = &[&FCFS];

static FCFS: PolicyEntry = PolicyEntry {
    site: SiteKind::KernelSched,
    name: "fcfs",
    summary: "GPGPU-Sim's: an SM takes the next kernel once its own has no block left and it \
              is empty (kernels of different streams overlap across SMs)",
    blocks: &[],
    options: &[KERNEL_SLOTS],
    flag: None,
    implies: &[],
    regress: &[],
    parse,
};

fn parse(v: &OptValues) -> Result<SitePolicy, OptError> {
    Ok(SitePolicy::KernelSched(Arc::new(Fcfs {
        slots: v.number(&KERNEL_SLOTS, 1..=64)?,
    })))
}

#[derive(Debug)]
struct Fcfs {
    slots: usize,
}

impl KernelSchedPolicy for Fcfs {
    fn entry(&self) -> &'static PolicyEntry {
        &FCFS
    }

    fn slots(&self) -> usize {
        self.slots
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        _: &mut dyn DynProvider<'a>,
    ) -> Result<Box<dyn KernelSchedUnit + 'a>, SimError> {
        Ok(Box::new(FcfsUnit {
            slots: self.slots,
            cur: vec![None; cfg.sm.count as usize],
            last: 0,
        }))
    }
}

/// GPGPU-Sim's `gpgpu_sim::select_kernel`: the kernel that last received a block while it has
/// blocks left (`last`), else the first slot after it whose kernel has, which becomes `last`.
pub fn select_kernel(inp: &KernelSchedIn, last: &mut usize) -> Option<usize> {
    let waiting = |k: usize| inp.kernels[k].is_some_and(|v| v.has_waiting());
    if waiting(*last) {
        return Some(*last);
    }
    let n = inp.kernels.len();
    let k = (1..=n).map(|i| (*last + i) % n).find(|&k| waiting(k))?;
    *last = k;
    Some(k)
}

/// Each SM's kernel (its slot and launch index) and `select_kernel`'s memory.
struct FcfsUnit {
    slots: usize,
    cur: Vec<Option<(usize, usize)>>,
    last: usize,
}

impl KernelSchedUnit for FcfsUnit {
    fn slots(&self) -> usize {
        self.slots
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        // `select_kernel` answers every SM of a cycle alike (after the first call `last` holds
        // its answer): asked once, when an SM first needs it.
        let mut selected = None;
        for (sm, cur) in self.cur.iter_mut().enumerate() {
            // The SM's kernel, if it is still in its slot.
            let mine = cur.filter(|&(k, launch)| {
                inp.kernels[k].is_some_and(|v| v.launch == launch)
            });
            let more = mine.is_some_and(|(k, _)| inp.kernels[k].is_some_and(|v| v.has_waiting()));
            if !more && inp.sms[sm].is_empty() {
                let last = &mut self.last;
                *cur = *selected.get_or_insert_with(|| {
                    select_kernel(inp, last).map(|k| (k, inp.kernels[k].expect("selected").launch))
                });
            } else {
                *cur = mine;
            }
            out.offer[sm] = cur
                .map(|(k, _)| k)
                .filter(|&k| inp.kernels[k].is_some_and(|v| v.has_waiting()));
        }
        Ok(())
    }
}
