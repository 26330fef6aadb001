//! How Maestro's victims leave (spec §6 M-R1: "Chimera is used for preemption", L1254): by
//! default each boundary block by the cheapest of switch, drain and flush that meets the
//! latency limit, Chimera's per-block choice from its cost estimates ([`Estimator`], the
//! software selector: the decision is the command processor's); or every block by one fixed
//! technique (`--preempt switch|drain|flush`). The limit defaults to the largest whole-SM
//! switch time of the GPU (M-R1: about 29,000 cycles on the GTX980), so a switch always
//! meets it and the choice is by overhead, drains held to the limit.

use crate::blocks::chimera_tb::cost::DrainOvh;
use crate::blocks::chimera_tb::select::{Limit, Mode, Rules};
use crate::config::GpuConfig;
use crate::gpu::sites::kernel_sched::{KernelSchedIn, KernelSchedOut, Preempt, Technique};
use crate::policy::chimera::{Estimator, Idempotence};
use std::collections::BTreeMap;

/// What `--preempt` (and `--lat-limit`) asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum How {
    /// Chimera's choice per block, within the limit (`None`: M-R1's).
    Chimera(Option<u32>),
    /// Every block by this technique.
    Fixed(Technique),
}

impl How {
    /// Its name in labels (`chimera`, `switch`, ...).
    pub(super) fn name(self) -> &'static str {
        match self {
            How::Chimera(_) => "chimera",
            How::Fixed(t) => t.name(),
        }
    }
}

/// M-R1's limit: cycles to save a whole SM's registers and shared memory at one SM's share of
/// the DRAM bandwidth.
pub(super) fn whole_sm_switch(cfg: &GpuConfig, est: &Estimator) -> u32 {
    est.sw_cyc(u64::from(cfg.sm.registers) * 4 + u64::from(cfg.sm.shared_mem_bytes))
}

/// The preemption of one Maestro unit and what it did.
#[derive(Debug)]
pub(super) struct Preemption {
    /// Chimera's estimator (`None`: a fixed technique).
    est: Option<Estimator>,
    fixed: Technique,
    /// Blocks preempted by each technique (switch, drain, flush) and those no technique
    /// met the limit for (switched).
    by_technique: [u64; 3],
    fallbacks: u64,
}

impl Preemption {
    /// For `slots` kernel slots on `cfg`'s GPU.
    pub(super) fn new(how: How, cfg: &GpuConfig, slots: usize) -> Self {
        let est = match how {
            How::Fixed(_) => None,
            How::Chimera(limit) => {
                let rules = |cycles| Rules {
                    mode: Mode::Chimera,
                    limit: Limit { cycles, margin: 0 },
                    drain: DrainOvh::Literal,
                };
                let mut est = Estimator::new(cfg, slots, rules(0), Idempotence::Block);
                est.rules = rules(limit.unwrap_or_else(|| whole_sm_switch(cfg, &est)));
                Some(est)
            }
        };
        let fixed = match how {
            How::Fixed(t) => t,
            How::Chimera(_) => Technique::Switch,
        };
        Self {
            est,
            fixed,
            by_technique: [0; 3],
            fallbacks: 0,
        }
    }

    /// Once a cycle, before any [`Self::push`]: the estimator's SM-cycles.
    pub(super) fn step(&mut self, inp: &KernelSchedIn) {
        if let Some(est) = &mut self.est {
            est.count_sm_cycles(inp);
        }
    }

    /// Preempts `victims` (block slots of SM `sm`, all of kernel slot `slot`), in that order.
    pub(super) fn push(
        &mut self,
        inp: &KernelSchedIn,
        (sm, slot): (usize, usize),
        victims: &[usize],
        out: &mut KernelSchedOut,
    ) {
        let plan = self.est.as_ref().map(|est| {
            let k = est.stats(inp, slot).derive();
            est.plan(inp, (sm, slot), &k, |b| victims.contains(&b.tb))
        });
        for &tb in victims {
            let (technique, fallback) = match &plan {
                None => (self.fixed, false),
                Some((p, blocks)) => {
                    let i = blocks.iter().position(|b| b.0 == tb).expect("a victim planned");
                    (blocks[i].1, p.choices[i].fallback)
                }
            };
            let t = Technique::ALL.iter().position(|&x| x == technique);
            self.by_technique[t.expect("a technique")] += 1;
            self.fallbacks += u64::from(fallback);
            out.preempt.push(Preempt {
                sm,
                slot,
                technique,
                block: Some(tb),
            });
        }
    }

    /// Its figures, into the kernel scheduler's report.
    pub(super) fn report(&self, r: &mut BTreeMap<String, serde_json::Value>) {
        let [switch, drain, flush] = self.by_technique;
        let limit = self.est.as_ref().map(|e| e.rules.limit.cycles);
        r.insert("lat_limit".into(), limit.into());
        r.insert(
            "blocks_by_technique".into(),
            serde_json::json!({ "switch": switch, "drain": drain, "flush": flush }),
        );
        r.insert("blocks_over_limit".into(), self.fallbacks.into());
    }
}
