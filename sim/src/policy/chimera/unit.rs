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
//! 5. every SM's `chimera_tb` block steps: its status table takes the SM's launch, issue and
//!    leave events ([`super::feed`]); a pass finished in all the SMs of a request's selection
//!    completes it (step 4's choice);
//! 6. an SM is offered to its kernel once no other kernel's block is on it and no selection
//!    runs on it.
//!
//! # Selectors
//! With `--selector block` (the default) the plans are the blocks': step 4 starts a pass in the
//! `chimera_tb` of every candidate SM (which takes no new block meanwhile) and the request is
//! made from their plans when the passes end, `pass_cycles(T) + 1` cycles later (364 on
//! `gtx480`); one selection runs at a time. With `--selector software` step 4 computes the same
//! plans from the block views at once ([`plan_sm`], the thesis's OS software): no pass delay.

use super::partition::{targets, Demand, Need};
use super::late::Late;
use super::estimator::{Estimator, Offer};
use super::tables::{Ask, Tables};
use crate::blocks::chimera_tb::cost::DrainOvh;
use crate::blocks::chimera_tb::select::{select, Limit, Mode, Rules, SmPlan};
use crate::config::GpuConfig;
use crate::gpu::sites::kernel_sched::{
    KernelSchedIn, KernelSchedOut, KernelSchedUnit, Preempt, Technique,
};
use crate::gpu::SimError;
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

/// Where the SMs' plans come from (module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selector {
    /// The SMs' `chimera_tb` blocks, a pass after the request.
    Block,
    /// The same functions of the block views, at once.
    Software,
}

/// A selection running in the blocks of `sms`: slot `needy` takes up to `want` of them from
/// slot `victim` (each with the launch it held then).
#[derive(Clone, Debug)]
struct Pending {
    needy: (usize, usize),
    victim: (usize, usize),
    want: usize,
    sms: Vec<usize>,
    /// The cycle the passes started (the request's cycle).
    cycle: u64,
}

/// A preemption request: kernel `kernel` took SMs from `victim`.
#[derive(Clone, Debug, Serialize)]
pub struct Request {
    /// The kernel that took the SMs (launch index) and the one that gave them.
    pub kernel: usize,
    /// See `kernel`.
    pub victim: usize,
    /// The cycle it was made.
    pub cycle: u64,
    /// The SMs, each with the cycle it was handed over (`None` until it is); none when the
    /// SMs were no longer needed by the time the blocks' passes ended (the latency is then
    /// the passes').
    pub sms: Vec<(usize, Option<u64>)>,
    /// The selector's estimate of its latency (the largest chosen SM latency), cycles.
    pub estimate: u32,
    /// The selector had to take SMs whose estimate misses the limit.
    pub predicted_violation: bool,
    /// Blocks preempted by each technique (switch, drain, flush).
    pub techniques: [u32; 3],
    /// Measured latency: the last handover less `cycle` (once every SM is handed over).
    pub latency: Option<u64>,
    /// Warp instructions the victim issued on the SMs past the limit, before handing each
    /// over ([`super::late`]).
    pub withheld: u64,
}

/// The unit.
pub struct ChimeraUnit<'a> {
    slots: usize,
    selector: Selector,
    /// The kernels' statistics and the selector's rules.
    est: Estimator,
    /// Scope of flushing, as the blocks take it.
    idempotence: Idempotence,
    need: Need,
    /// Per SM: the slot and launch of the kernel it serves.
    owner: Vec<Option<(usize, usize)>>,
    requests: Vec<Request>,
    /// Per slot: its target this cycle.
    target: Vec<usize>,
    /// Every SM's `chimera_tb` (absent under the software selector when the SM is too large
    /// for the block).
    tables: Option<Tables<'a>>,
    pending: Option<Pending>,
    late: Late,
}

/// What a [`ChimeraUnit`] is asked to do (the policy's options).
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Kernel slots.
    pub slots: usize,
    /// The selector's mode and limit.
    pub mode: Mode,
    /// See `mode`.
    pub limit: Limit,
    /// When a block may be flushed.
    pub idempotence: Idempotence,
    /// SMs a kernel needs.
    pub need: Need,
    /// Where the plans come from.
    pub selector: Selector,
    /// The per-block drain overhead's formula.
    pub drain: DrainOvh,
    /// Kill a kernel whose request missed the limit at its deadline plus the limit.
    pub kill_late: bool,
}

impl<'a> ChimeraUnit<'a> {
    /// The unit for `cfg` with the SMs' blocks `tables`.
    pub fn new(cfg: &GpuConfig, s: Settings, tables: Option<Tables<'a>>) -> Self {
        let Settings {
            slots,
            mode,
            limit,
            idempotence,
            need,
            selector,
            drain,
            kill_late,
        } = s;
        let n = cfg.sm.count as usize;
        let rules = Rules { mode, limit, drain };
        Self {
            slots,
            est: Estimator::new(cfg, slots, rules, idempotence),
            idempotence,
            need,
            owner: vec![None; n],
            requests: vec![],
            target: vec![0; slots],
            tables,
            pending: None,
            selector,
            late: Late::new(n, limit.cycles, kill_late),
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

    /// Step 4 for slot `needy`, short of `want` SMs: what it takes from slot `victim`.
    /// Returns the SMs taken now (a selection started in the blocks takes its SMs later).
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
        if taken == want || self.pending.is_some() {
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
        let k = self.est.stats(inp, victim).derive();
        let rules = self.est.rules;
        match (self.selector, self.tables.as_mut()) {
            (Selector::Block, Some(tables)) => {
                let ask = Ask {
                    kernel: k,
                    victim,
                    idempotent: inp.kernels[victim].is_some_and(|v| v.idempotent),
                    rules,
                    scope: self.idempotence as u8,
                };
                for &sm in &candidates {
                    tables.start(sm, &inp.blocks[sm], &ask);
                }
                self.pending = Some(Pending {
                    needy: (needy, launch(needy)),
                    victim: (victim, launch(victim)),
                    want: want - taken,
                    sms: candidates,
                    cycle: inp.now,
                });
            }
            _ => {
                let offers: Vec<Offer> = candidates
                    .iter()
                    .map(|&sm| self.est.plan(inp, (sm, victim), &k, |_| true))
                    .collect();
                taken += self.commit(inp, out, (needy, victim), &offers, want - taken, inp.now);
            }
        }
        taken
    }

    /// Makes the request of slot `needy` taking up to `want` of the SMs `offers` from slot
    /// `victim` (the selector's choice among their plans), made at cycle `cycle`. Returns the
    /// SMs taken.
    fn commit(
        &mut self,
        inp: &KernelSchedIn,
        out: &mut KernelSchedOut,
        (needy, victim): (usize, usize),
        offers: &[Offer],
        want: usize,
        cycle: u64,
    ) -> usize {
        let launch = |k: usize| inp.kernels[k].expect("held").launch;
        let plans: Vec<SmPlan> = offers.iter().map(|o| o.0.clone()).collect();
        let sel = select(&plans, want);
        let mut req = Request {
            kernel: launch(needy),
            victim: launch(victim),
            cycle,
            sms: vec![],
            estimate: 0,
            predicted_violation: sel.predicted_violation,
            techniques: [0; 3],
            latency: None,
            withheld: 0,
        };
        for &i in &sel.plans {
            let (plan, blocks) = &offers[i];
            self.owner[plan.sm] = Some((needy, launch(needy)));
            req.sms.push((plan.sm, None));
            req.estimate = req.estimate.max(plan.lat);
            for &(tb, technique) in blocks {
                let t = Technique::ALL.iter().position(|&t| t == technique);
                req.techniques[t.expect("a technique")] += 1;
                out.preempt.push(Preempt {
                    sm: plan.sm,
                    slot: victim,
                    technique,
                    block: Some(tb),
                });
            }
        }
        self.requests.push(req);
        sel.plans.len()
    }

    /// Step 5's end of a selection running in the blocks: once their passes are done, the
    /// request from their plans, for what the needy kernel still lacks (nothing once the victim
    /// has left its slot; no request once the needy kernel has).
    fn complete(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) {
        let (Some(p), Some(tables)) = (&self.pending, &self.tables) else {
            return;
        };
        if !p.sms.iter().all(|&sm| tables.done(sm)) {
            return;
        }
        let p = self.pending.take().expect("pending");
        let tables = self.tables.as_ref().expect("tables");
        let held = |(k, launch): (usize, usize)| inp.kernels[k].is_some_and(|v| v.launch == launch);
        if !held(p.needy) {
            return;
        }
        let (needy, victim) = (p.needy.0, p.victim.0);
        let count = |k: usize| self.owner.iter().filter(|o| o.is_some_and(|(x, _)| x == k)).count();
        let want = match held(p.victim) {
            true => p
                .want
                .min(self.target[needy].saturating_sub(count(needy)))
                .min(count(victim).saturating_sub(self.target[victim])),
            false => 0,
        };
        let offers: Vec<Offer> = p
            .sms
            .iter()
            .filter(|&&sm| self.owner[sm].is_some_and(|(k, _)| k == victim))
            .map(|&sm| tables.plan(sm, &inp.blocks[sm], victim))
            .collect();
        if want > 0 && !offers.is_empty() {
            self.commit(inp, out, (needy, victim), &offers, want, p.cycle);
        } else {
            // Nothing left to take (blocks ended, SMs fell idle): the request took the passes.
            self.requests.push(Request {
                kernel: p.needy.1,
                victim: p.victim.1,
                cycle: p.cycle,
                sms: vec![],
                estimate: 0,
                predicted_violation: false,
                techniques: [0; 3],
                latency: Some(inp.now - p.cycle),
                withheld: 0,
            });
        }
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
        self.target.clone_from(&target);
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
        for r in self.requests.iter_mut().filter(|r| r.latency.is_none()) {
            let mine = inp.slot_of(r.kernel);
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

impl KernelSchedUnit for ChimeraUnit<'_> {
    fn slots(&self) -> usize {
        self.slots
    }

    fn wants_blocks(&self) -> bool {
        true
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        self.est.count_sm_cycles(inp);
        self.late.step(inp, &mut self.requests, out);
        self.handovers(inp);
        self.release(inp);
        if let Some(t) = self.tables.as_mut() {
            t.feed(inp.blocks);
        }
        self.repartition(inp, out);
        if let Some(t) = self.tables.as_mut() {
            t.step()?;
        }
        self.complete(inp, out);
        let selecting = self.pending.as_ref().map_or(&[][..], |p| &p.sms[..]);
        for (sm, o) in out.offer.iter_mut().enumerate() {
            *o = self.owner[sm].map(|(k, _)| k).filter(|&k| {
                inp.kernels[k].is_some_and(|v| v.has_waiting())
                    && inp.sms[sm].others(k) == 0
                    && !selecting.contains(&sm)
            });
        }
        Ok(())
    }

    fn report(&self) -> BTreeMap<String, serde_json::Value> {
        let done: Vec<&Request> = self.requests.iter().filter(|r| r.latency.is_some()).collect();
        let violated = done
            .iter()
            .filter(|r| r.latency.is_some_and(|l| l > self.est.rules.limit.cycles as u64))
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
        put("lat_limit", self.est.rules.limit.cycles.into());
        put("requests", self.requests.len().into());
        put("kernels_killed", self.late.killed().into());
        put(
            "withheld_warp_instructions",
            self.requests.iter().map(|r| r.withheld).sum::<u64>().into(),
        );
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
