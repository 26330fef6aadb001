//! The kernel-scheduler unit of `--kernel-sched chimera` and its baselines: the SM-to-kernel
//! table, the partition targets, the preemption requests through the `chimera_tb` selector,
//! and what each request cost.
//!
//! # One cycle
//! 1. per kernel slot, the SM-cycles with a block of it resident accumulate (its IPC on one SM
//!    is its instructions over them);
//! 2. an SM leaves its kernel once that kernel has nothing left to dispatch and no block on
//!    it (or has left its slot);
//! 3. every kernel with work gets a target ([`super::partition::targets`], oldest first);
//! 4. a kernel below its target (highest priority first, then oldest) takes SMs that serve no
//!    kernel and hold no block, then SMs of a kernel above its target that hold none of that
//!    kernel's blocks, then SMs the selector picks among that kernel's SMs that have nothing
//!    being preempted: their blocks of it leave, each by its chosen technique (a request,
//!    reported with its handover latency);
//! 5. an SM is offered to its kernel once no other kernel's block is on it.

use super::partition::{targets, Demand, Need};
use crate::blocks::chimera_tb::cost::{sat, KernelStats, TbCounters};
use crate::blocks::chimera_tb::select::{plan_sm, select, Limit, Mode, SmPlan};
use crate::config::GpuConfig;
use crate::gpu::sites::kernel_sched::{
    BlockView, KernelSchedIn, KernelSchedOut, KernelSchedUnit, Preempt, Technique,
};
use serde::Serialize;
use std::collections::BTreeMap;

/// When a block may be flushed (§6 C-R4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Idempotence {
    /// It has issued no instruction that ends its idempotence (relaxed, per block).
    Block,
    /// No block on its SM has (the per-SM marker store of L900).
    Sm,
    /// Its kernel has no such instruction (strict).
    Kernel,
}

/// Widest `SW_CYC_TB` (24 bits, spec §1.2).
const SW_CYC_MAX: u64 = (1 << 24) - 1;

/// A preemption request: kernel `kernel` took SMs from `victim`.
#[derive(Clone, Debug, Serialize)]
pub struct Request {
    /// The kernel that took the SMs (launch index) and the one that gave them.
    pub kernel: usize,
    /// See `kernel`.
    pub victim: usize,
    /// The cycle it was made.
    pub cycle: u64,
    /// The SMs, each with the cycle it was handed over (`None` until it is).
    pub sms: Vec<(usize, Option<u64>)>,
    /// The selector's estimate of its latency (the largest chosen SM latency), cycles.
    pub estimate: u32,
    /// The selector had to take SMs whose estimate misses the limit.
    pub predicted_violation: bool,
    /// Blocks preempted by each technique (switch, drain, flush).
    pub techniques: [u32; 3],
    /// Measured latency: the last handover less `cycle` (once every SM is handed over).
    pub latency: Option<u64>,
}

/// The unit.
pub struct ChimeraUnit {
    slots: usize,
    mode: Mode,
    limit: Limit,
    idempotence: Idempotence,
    need: Need,
    /// One SM's share of the DRAM bandwidth, bytes per core cycle, Q16.16.
    bw_q: u64,
    /// Per SM: the slot and launch of the kernel it serves.
    owner: Vec<Option<(usize, usize)>>,
    /// Per slot: the launch it counts for, and its SM-cycles with a block resident.
    sm_cycles: Vec<(usize, u64)>,
    requests: Vec<Request>,
}

impl ChimeraUnit {
    /// The unit for `cfg`.
    pub fn new(
        cfg: &GpuConfig,
        slots: usize,
        mode: Mode,
        limit: Limit,
        idempotence: Idempotence,
        need: Need,
    ) -> Self {
        let n = cfg.sm.count as usize;
        let per_sm = cfg.dram.peak_gbps * 1e3 / cfg.sm.core_clock_mhz / n as f64;
        Self {
            slots,
            mode,
            limit,
            idempotence,
            need,
            bw_q: ((per_sm * 65536.0) as u64).max(1),
            owner: vec![None; n],
            sm_cycles: vec![(usize::MAX, 0); slots],
            requests: vec![],
        }
    }

    /// Cycles to save one block of `context_bytes` at one SM's bandwidth share.
    fn sw_cyc_tb(&self, context_bytes: u64) -> u32 {
        ((context_bytes << 16).div_ceil(self.bw_q)).min(SW_CYC_MAX) as u32
    }

    /// Step 1 of the cycle.
    fn count_sm_cycles(&mut self, inp: &KernelSchedIn) {
        for (k, acc) in self.sm_cycles.iter_mut().enumerate() {
            match inp.kernels[k] {
                Some(v) if v.launch != acc.0 => *acc = (v.launch, 0),
                _ => {}
            }
        }
        for view in inp.sms {
            for (k, &b) in view.blocks.iter().enumerate() {
                if b > 0 {
                    self.sm_cycles[k].1 += 1;
                }
            }
        }
    }

    /// Step 2 of the cycle.
    fn release(&mut self, inp: &KernelSchedIn) {
        for (sm, o) in self.owner.iter_mut().enumerate() {
            let Some((k, launch)) = *o else { continue };
            let gone = inp.kernels[k].is_none_or(|v| v.launch != launch);
            let spent = inp.kernels[k].is_some_and(|v| !v.has_waiting());
            if gone || (spent && inp.sms[sm].blocks[k] == 0) {
                *o = None;
            }
        }
    }

    /// What the selector knows of slot `k`'s kernel.
    fn stats(&self, inp: &KernelSchedIn, k: usize) -> KernelStats {
        let v = inp.kernels[k].expect("a held kernel");
        let resident: u64 = inp
            .blocks
            .iter()
            .flatten()
            .filter(|b| b.slot == k)
            .map(|b| b.issued)
            .sum();
        KernelStats {
            done_tbs: v.done,
            done_instr: v.done_issued,
            done_cycles: v.done_cycles,
            instrs: v.done_issued + resident,
            sm_cycles: self.sm_cycles[k].1,
            sw_cyc_tb: self.sw_cyc_tb(v.context_bytes),
        }
    }

    /// Slot `victim`'s blocks on SM `sm` as the selector reads them.
    fn counters(&self, inp: &KernelSchedIn, sm: usize, victim: usize) -> Vec<(BlockView, TbCounters)> {
        let on = &inp.blocks[sm];
        let sm_clean = on.iter().all(|b| !b.non_idempotent);
        let kernel_clean = inp.kernels[victim].is_some_and(|v| v.idempotent);
        on.iter()
            .filter(|b| b.slot == victim)
            .map(|&b| {
                let flushable = match self.idempotence {
                    Idempotence::Block => !b.non_idempotent,
                    Idempotence::Sm => sm_clean,
                    Idempotence::Kernel => kernel_clean,
                };
                (
                    b,
                    TbCounters {
                        issued: sat(b.issued),
                        flushable,
                    },
                )
            })
            .collect()
    }

    /// Step 4 for slot `needy`, short of `want` SMs: what it takes from slot `victim`, which
    /// has `surplus` SMs over its target. Returns the SMs taken.
    fn take_from(
        &mut self,
        inp: &KernelSchedIn,
        out: &mut KernelSchedOut,
        (needy, victim): (usize, usize),
        want: usize,
    ) -> usize {
        let launch = |k: usize| inp.kernels[k].expect("held").launch;
        let mut taken = 0;
        // SMs of the victim without a block of it: no preemption needed.
        for sm in 0..self.owner.len() {
            if taken < want
                && self.owner[sm].is_some_and(|(k, _)| k == victim)
                && inp.sms[sm].blocks[victim] == 0
            {
                self.owner[sm] = Some((needy, launch(needy)));
                taken += 1;
            }
        }
        if taken == want {
            return taken;
        }
        let candidates: Vec<usize> = (0..self.owner.len())
            .filter(|&sm| {
                self.owner[sm].is_some_and(|(k, _)| k == victim)
                    && inp.sms[sm].preempting[victim] == 0
            })
            .collect();
        if candidates.is_empty() {
            return taken;
        }
        let k = self.stats(inp, victim).derive();
        let blocks: Vec<Vec<(BlockView, TbCounters)>> = candidates
            .iter()
            .map(|&sm| self.counters(inp, sm, victim))
            .collect();
        let plans: Vec<SmPlan> = candidates
            .iter()
            .zip(&blocks)
            .map(|(&sm, b)| {
                let tbs: Vec<TbCounters> = b.iter().map(|x| x.1).collect();
                plan_sm(sm, &k, &tbs, self.mode, self.limit)
            })
            .collect();
        let sel = select(&plans, want - taken);
        let mut req = Request {
            kernel: launch(needy),
            victim: launch(victim),
            cycle: inp.now,
            sms: vec![],
            estimate: 0,
            predicted_violation: sel.predicted_violation,
            techniques: [0; 3],
            latency: None,
        };
        for &i in &sel.plans {
            let (plan, b) = (&plans[i], &blocks[i]);
            self.owner[plan.sm] = Some((needy, launch(needy)));
            req.sms.push((plan.sm, None));
            req.estimate = req.estimate.max(plan.lat);
            for (c, (view, _)) in plan.choices.iter().zip(b) {
                req.techniques[Technique::ALL
                    .iter()
                    .position(|&t| t == c.technique)
                    .expect("a technique")] += 1;
                out.preempt.push(Preempt {
                    sm: plan.sm,
                    slot: victim,
                    technique: c.technique,
                    block: Some(view.tb),
                });
            }
        }
        taken += sel.plans.len();
        self.requests.push(req);
        taken
    }

    /// Step 3 and 4 of the cycle.
    fn repartition(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) {
        let held = inp.by_admission();
        let demands: Vec<Demand> = held
            .iter()
            .map(|&k| {
                let v = inp.kernels[k].expect("held");
                Demand {
                    remaining: v.waiting + v.resident,
                    blocks_per_sm: v.blocks_per_sm,
                }
            })
            .collect();
        let n = self.owner.len();
        let mut target = vec![0; self.slots];
        for (&k, t) in held.iter().zip(targets(&demands, n, self.need)) {
            target[k] = t;
        }
        let count = |owner: &[Option<(usize, usize)>], k: usize| {
            owner.iter().filter(|o| o.is_some_and(|(x, _)| x == k)).count()
        };
        let mut needy: Vec<usize> = held
            .iter()
            .copied()
            .filter(|&k| count(&self.owner, k) < target[k])
            .collect();
        needy.sort_by_key(|&k| std::cmp::Reverse(inp.kernels[k].map_or(0, |v| v.priority)));
        for k in needy {
            let launch = inp.kernels[k].expect("held").launch;
            let mut want = target[k] - count(&self.owner, k);
            for sm in 0..n {
                if want > 0 && self.owner[sm].is_none() && inp.sms[sm].is_empty() {
                    self.owner[sm] = Some((k, launch));
                    want -= 1;
                }
            }
            // Victims: lowest priority first, then the youngest.
            let mut victims: Vec<usize> = held
                .iter()
                .rev()
                .copied()
                .filter(|&v| v != k && count(&self.owner, v) > target[v])
                .collect();
            victims.sort_by_key(|&v| inp.kernels[v].map_or(0, |x| x.priority));
            for v in victims {
                if want == 0 {
                    break;
                }
                let surplus = count(&self.owner, v) - target[v];
                want -= self.take_from(inp, out, (k, v), want.min(surplus));
            }
        }
    }

    /// Handovers of the open requests: an SM is handed over once no block of another kernel
    /// than its new one is on it.
    fn handovers(&mut self, inp: &KernelSchedIn) {
        let slot_of = |launch: usize| {
            inp.kernels
                .iter()
                .position(|v| v.is_some_and(|v| v.launch == launch))
        };
        for r in self.requests.iter_mut().filter(|r| r.latency.is_none()) {
            let mine = slot_of(r.kernel);
            for (sm, at) in &mut r.sms {
                let clear = match mine {
                    Some(k) => inp.sms[*sm].others(k) == 0,
                    None => inp.sms[*sm].is_empty(),
                };
                if at.is_none() && clear {
                    *at = Some(inp.now);
                }
            }
            if r.sms.iter().all(|(_, at)| at.is_some()) {
                let last = r.sms.iter().filter_map(|(_, at)| *at).max().unwrap_or(r.cycle);
                r.latency = Some(last - r.cycle);
            }
        }
    }
}

impl KernelSchedUnit for ChimeraUnit {
    fn slots(&self) -> usize {
        self.slots
    }

    fn wants_blocks(&self) -> bool {
        true
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) {
        self.count_sm_cycles(inp);
        self.handovers(inp);
        self.release(inp);
        self.repartition(inp, out);
        for (sm, o) in out.offer.iter_mut().enumerate() {
            *o = self.owner[sm].map(|(k, _)| k).filter(|&k| {
                inp.kernels[k].is_some_and(|v| v.has_waiting()) && inp.sms[sm].others(k) == 0
            });
        }
    }

    fn report(&self) -> BTreeMap<String, serde_json::Value> {
        let done: Vec<&Request> = self.requests.iter().filter(|r| r.latency.is_some()).collect();
        let violated = done
            .iter()
            .filter(|r| r.latency.is_some_and(|l| l > self.limit.cycles as u64))
            .count();
        let mut techniques = [0u64; 3];
        for r in &self.requests {
            for (t, n) in techniques.iter_mut().zip(r.techniques) {
                *t += n as u64;
            }
        }
        let mut m = BTreeMap::new();
        let mut put = |k: &str, v: serde_json::Value| {
            m.insert(k.to_string(), v);
        };
        put("lat_limit", self.limit.cycles.into());
        put("requests", self.requests.len().into());
        put("requests_handed_over", done.len().into());
        put("requests_violated", violated.into());
        put(
            "requests_predicted_violation",
            self.requests.iter().filter(|r| r.predicted_violation).count().into(),
        );
        put(
            "blocks_by_technique",
            serde_json::json!({
                "switch": techniques[0], "drain": techniques[1], "flush": techniques[2]
            }),
        );
        put(
            "request_log",
            serde_json::to_value(&self.requests).expect("serializable"),
        );
        m
    }
}
