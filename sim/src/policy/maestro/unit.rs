//! The Maestro unit: pairs the two oldest kernels, gives every SM its quota of each from its
//! role, preempts the blocks above a quota (the boundary blocks of a positional allocator),
//! offers each SM its kernels in turn, and runs the epochs (thesis §5.4.1, spec §2.2).

use super::epoch::{self, Candidate, Partition, Role};
use super::partition::{alone, Pair};
use super::preempt::Preemption;
use crate::core::twoway::{Caps, Need};
use crate::gpu::sites::kernel_sched::{
    BlockView, KernelSchedIn, KernelSchedOut, KernelSchedUnit,
};
use crate::gpu::SimError;
use std::collections::BTreeMap;

/// Epochs after which dedicated SMs measure again (L1217).
const REFRESH_EPOCHS: u32 = 100;

/// Where an epoch stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Blocks above their quotas are leaving; the epoch timer is held (L1208).
    Settling,
    /// The counters were asked for; the epoch starts when they are read.
    Starting,
    /// Counting since the cycle the start counters were read.
    Running(u64),
    /// The end counters were asked for.
    Ending,
}

/// How the SMs are partitioned between a pair (`--partition`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Partitioning {
    /// Maestro's: measured and repartitioned every epoch.
    Dynamic,
    /// The thesis's SMK baseline: every SM takes the `even` split (what fits in half of every
    /// resource), no epochs.
    Even,
    /// The thesis's Spatial baseline: alternate SMs to each kernel, no epochs.
    Spatial,
}

/// One decision, for the report.
#[derive(Clone, Debug, PartialEq)]
struct Decision {
    cycle: u64,
    choice: Candidate,
    nf: u32,
    /// The even split's `nf` (the thesis's SMK:Even decisions keep it).
    even: u32,
    spatial_pairs: u32,
    scores: Vec<(Candidate, f64)>,
}

/// The pair being partitioned.
struct PairState {
    /// Kernel slots: the trial kernel's, the other's.
    slots: [usize; 2],
    /// Their launches (a new pair when either changes).
    launches: [usize; 2],
    pair: Pair,
    part: Partition,
    /// Per SM: the quota of each kernel (`None`: as many as fit).
    quotas: Vec<[Option<u32>; 2]>,
    phase: Phase,
    /// Per SM, per kernel: instructions at the epoch's start.
    start: Vec<[u64; 2]>,
    /// Each kernel's single-kernel IPC per SM, stored from retired dedicated SMs.
    single: [Option<f64>; 2],
    /// Dedicated IPCs of the last epoch, epochs without a change, epochs since dedicated SMs
    /// were created.
    last_dedicated: [Option<f64>; 2],
    stable: u32,
    since_dedicated: u32,
}

impl PairState {
    fn new(
        slots: [usize; 2],
        launches: [usize; 2],
        pair: Pair,
        (sms, how): (usize, Partitioning),
    ) -> Self {
        // No SM holds a block of each at once: spatial multitasking, no epochs.
        let part = match (pair.n_max(), how) {
            (0, _) | (_, Partitioning::Spatial) => Partition::spatial(sms),
            (_, Partitioning::Even) => Partition::even(sms, pair.even()),
            (_, Partitioning::Dynamic) => Partition::measuring(sms, pair.even()),
        };
        let mut s = Self {
            slots,
            launches,
            pair,
            part,
            quotas: vec![],
            phase: Phase::Settling,
            start: vec![],
            single: [None; 2],
            last_dedicated: [None; 2],
            stable: 0,
            since_dedicated: 0,
        };
        s.set_quotas();
        s
    }

    /// The trial kernel's blocks bounded to `[1, n_max]` (B5).
    fn clamp(&self) -> impl Fn(i64) -> u32 {
        let pair = self.pair;
        move |n: i64| pair.clamp(n.clamp(0, i64::from(u32::MAX)) as u32)
    }

    /// Every SM's quotas from its role.
    fn set_quotas(&mut self) {
        let clamp = self.clamp();
        let quotas = self
            .part
            .roles
            .iter()
            .map(|&role| match role {
                Role::Dedicated(k) | Role::Spatial(k) => {
                    let mut q = [Some(0); 2];
                    q[k] = None;
                    q
                }
                _ => {
                    let t = epoch::trial_blocks(role, self.part.nf, &clamp).expect("an SMK role");
                    [Some(t), Some(self.pair.fill(t))]
                }
            })
            .collect();
        self.quotas = quotas;
    }
}

/// Bugs a test plants to show its checks fail.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fault {
    /// Take the lowest blocks above a quota off first, not the boundary block.
    LowestVictims,
    /// Start an epoch without waiting for the quotas to be met.
    NoSettling,
}

/// GPU Maestro's kernel scheduler.
pub(super) struct MaestroUnit {
    #[cfg(test)]
    pub(super) fault: Option<Fault>,
    slots: usize,
    preempt: Preemption,
    partitioning: Partitioning,
    epoch: u64,
    caps: Caps,
    pair: Option<PairState>,
    decisions: Vec<Decision>,
    /// Per SM: victims chosen this cycle (reused).
    victims: Vec<usize>,
}

impl MaestroUnit {
    pub(super) fn new(
        slots: usize,
        preempt: Preemption,
        (partitioning, epoch): (Partitioning, u64),
        caps: Caps,
    ) -> Self {
        Self {
            #[cfg(test)]
            fault: None,
            slots,
            preempt,
            partitioning,
            epoch,
            caps,
            pair: None,
            decisions: vec![],
            victims: vec![],
        }
    }

    /// The pair of the two oldest kernels (a new one when it changed); `None` with fewer.
    fn track_pair(&mut self, inp: &KernelSchedIn, held: &[usize]) {
        let [a, b, ..] = held[..] else {
            self.pair = None;
            return;
        };
        let view = |s: usize| inp.kernels[s].expect("a held slot");
        let launches = [view(a).launch, view(b).launch];
        if self.pair.as_ref().is_some_and(|p| {
            let mut l = p.launches;
            l.sort_unstable();
            l == launches
        }) {
            return;
        }
        let need = |s: usize| Need::of_resources(view(s).need);
        // The trial kernel: fewer of its blocks fit an SM alone; a tie, the older (L1213).
        let (t, o) = match alone(self.caps, need(b)) < alone(self.caps, need(a)) {
            true => (b, a),
            false => (a, b),
        };
        let pair = Pair {
            caps: self.caps,
            trial: need(t),
            other: need(o),
        };
        let launches = [view(t).launch, view(o).launch];
        let sms = (inp.sms.len(), self.partitioning);
        self.pair = Some(PairState::new([t, o], launches, pair, sms));
    }
}

/// Whether the kernel's blocks on the SM sit at stacked places (the 2-way allocator's).
fn stacked(blocks: &[BlockView], slot: usize) -> bool {
    blocks
        .iter()
        .find(|b| b.slot == slot)
        .and_then(|b| b.place)
        .is_some_and(|p| p.stacked)
}

/// Whether the SM's blocks of kernel `k` (slot `slot`) are within `quota`: by position under
/// the 2-way allocator (no block at a slot at or above it: M-R2), else by count.
fn within(blocks: &[BlockView], slot: usize, count: u32, quota: Option<u32>) -> bool {
    let Some(q) = quota else { return true };
    match stacked(blocks, slot) {
        true => blocks
            .iter()
            .filter(|b| b.slot == slot)
            .all(|b| b.place.is_some_and(|p| u32::from(p.slot) < q)),
        false => count <= q,
    }
}

/// The blocks of slot `slot` on an SM to take off for `quota`: at stacked places, those at a
/// slot at or above it, highest first (the boundary block: W2-5); else those beyond the count,
/// highest block slot first. Blocks already leaving are not chosen again.
fn victims(blocks: &[BlockView], slot: usize, count: u32, leaving: u32, quota: u32, out: &mut Vec<usize>) {
    out.clear();
    let mut mine: Vec<&BlockView> = blocks
        .iter()
        .filter(|b| b.slot == slot && !b.preempting)
        .collect();
    if stacked(blocks, slot) {
        mine.retain(|b| b.place.is_some_and(|p| u32::from(p.slot) >= quota));
        mine.sort_by_key(|b| std::cmp::Reverse(b.place.map(|p| p.slot)));
        out.extend(mine.iter().map(|b| b.tb));
    } else {
        let excess = (count - leaving).saturating_sub(quota) as usize;
        mine.sort_by_key(|b| std::cmp::Reverse(b.tb));
        out.extend(mine.iter().take(excess).map(|b| b.tb));
    }
}

/// The planted bug: as many victims, the lowest-placed blocks of the kernel instead.
#[cfg(test)]
fn plant_lowest(blocks: &[BlockView], slot: usize, out: &mut Vec<usize>) {
    let mut mine: Vec<&BlockView> = blocks
        .iter()
        .filter(|b| b.slot == slot && !b.preempting && b.place.is_some())
        .collect();
    mine.sort_by_key(|b| b.place.map(|p| p.slot));
    let n = out.len();
    out.clear();
    out.extend(mine.iter().take(n).map(|b| b.tb));
}

impl KernelSchedUnit for MaestroUnit {
    fn slots(&self) -> usize {
        self.slots
    }

    fn wants_blocks(&self) -> bool {
        true
    }

    fn report(&self) -> BTreeMap<String, serde_json::Value> {
        let mut r = BTreeMap::new();
        let count = |c: Candidate| self.decisions.iter().filter(|d| d.choice == c).count();
        r.insert("epochs".into(), self.decisions.len().into());
        for (c, name) in [
            (Candidate::Follow, "follow"),
            (Candidate::Down, "down"),
            (Candidate::Up, "up"),
            (Candidate::Spatial, "spatial"),
        ] {
            r.insert(format!("decisions_{name}"), count(c).into());
        }
        let list: Vec<serde_json::Value> = self
            .decisions
            .iter()
            .map(|d| {
                serde_json::json!({
                    "cycle": d.cycle,
                    "choice": format!("{:?}", d.choice).to_lowercase(),
                    "nf": d.nf,
                    "even_nf": d.even,
                    "spatial_pairs": d.spatial_pairs,
                    "antt": d.scores.iter().map(|(c, a)| {
                        (format!("{c:?}").to_lowercase(), serde_json::json!(a))
                    }).collect::<serde_json::Map<_, _>>(),
                })
            })
            .collect();
        r.insert("decisions".into(), list.into());
        self.preempt.report(&mut r);
        r
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        let held = inp.by_admission();
        self.preempt.step(inp);
        self.track_pair(inp, &held);
        let waiting = |k: usize| inp.kernels[k].is_some_and(|v| v.has_waiting());
        // The partition matters while both kernels have blocks to place: with one kernel (or
        // one with blocks left) every SM takes its blocks, without quotas, and the epoch
        // waits (REC: the thesis does not say how a pair's tail runs).
        let tail = self.pair.as_ref().is_some_and(|p| !p.slots.iter().all(|&k| waiting(k)));
        let Some(p) = self.pair.as_mut().filter(|_| !tail) else {
            if let Some(p) = self.pair.as_mut() {
                p.phase = Phase::Settling;
            }
            let pair: Vec<usize> = held.iter().copied().take(2).filter(|&k| waiting(k)).collect();
            for (s, o) in out.offer.iter_mut().enumerate() {
                out.quota[s].fill(None);
                *o = pair.get((inp.now as usize + s) % pair.len().max(1)).copied();
            }
            return Ok(());
        };
        let mut met = true;
        for s in 0..inp.sms.len() {
            let view = &inp.sms[s];
            let blocks = &inp.blocks[s];
            let mut offer = [false; 2];
            for (k, wants) in offer.iter_mut().enumerate() {
                let (slot, q) = (p.slots[k], p.quotas[s][k]);
                out.quota[s][slot] = q;
                let (count, leaving) = (view.blocks[slot], view.preempting[slot]);
                let ok = within(blocks, slot, count, q);
                met &= ok && leaving == 0;
                if let (false, Some(q)) = (ok, q) {
                    victims(blocks, slot, count, leaving, q, &mut self.victims);
                    #[cfg(test)]
                    if self.fault == Some(Fault::LowestVictims) {
                        plant_lowest(blocks, slot, &mut self.victims);
                    }
                    self.preempt.push(inp, (s, slot), &self.victims, out);
                }
                let room = q.is_none_or(|q| count < q);
                *wants = room && inp.kernels[slot].is_some_and(|v| v.has_waiting());
            }
            let first = ((inp.now + s as u64) % 2) as usize;
            out.offer[s] = [first, 1 - first]
                .into_iter()
                .find(|&k| offer[k])
                .map(|k| p.slots[k]);
        }
        #[cfg(test)]
        let met = met || self.fault == Some(Fault::NoSettling);
        self.advance_epoch(inp, out, met);
        Ok(())
    }
}

impl MaestroUnit {
    /// Whether the unit has just asked for an epoch's start counters (the partition is met).
    #[cfg(test)]
    pub(super) fn starting(&self) -> bool {
        self.pair.as_ref().is_some_and(|p| p.phase == Phase::Starting)
    }

    /// The epoch timer: held while the partition settles, then `epoch` cycles between two
    /// counter samples, then the decision.
    fn advance_epoch(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut, met: bool) {
        let epoch = self.epoch;
        let fixed = self.partitioning != Partitioning::Dynamic;
        let p = self.pair.as_mut().expect("a pair");
        let read = |p: &PairState| -> Vec<[u64; 2]> {
            inp.issued
                .iter()
                .map(|row| [row[p.slots[0]], row[p.slots[1]]])
                .collect()
        };
        match p.phase {
            _ if fixed || p.pair.n_max() == 0 => {}
            Phase::Settling if met => {
                out.sample = true;
                p.phase = Phase::Starting;
            }
            Phase::Starting => {
                p.start = read(p);
                p.phase = Phase::Running(inp.now);
                if epoch == 1 {
                    out.sample = true;
                    p.phase = Phase::Ending;
                }
            }
            Phase::Running(since) if inp.now - since == epoch - 1 => {
                out.sample = true;
                p.phase = Phase::Ending;
            }
            Phase::Ending => {
                let end = read(p);
                let ipc: epoch::Measured = [0, 1].map(|k| {
                    end.iter()
                        .zip(&p.start)
                        .map(|(e, s)| (e[k] - s[k]) as f64 / epoch as f64)
                        .collect()
                });
                let d = decide(p, &ipc, inp.now);
                self.decisions.push(d);
            }
            _ => {}
        }
    }
}

/// The decision at an epoch's end and the partition that follows.
fn decide(p: &mut PairState, ipc: &epoch::Measured, now: u64) -> Decision {
    let dedicated = epoch::dedicated_ipc(&p.part, ipc);
    let single = [0, 1].map(|k| dedicated[k].or(p.single[k]).filter(|&x| x > 0.0));
    let clamp = p.clamp();
    let nf = p.part.nf;
    let clamped = [clamp(i64::from(nf) - 1) == nf, clamp(i64::from(nf) + 1) == nf];
    let (choice, scores) = match single {
        [Some(a), Some(b)] => {
            let scores = epoch::scores(&p.part, ipc, [a, b], clamped);
            (epoch::best(&scores), scores)
        }
        // A kernel without a single-kernel measure (no block ran on its dedicated SM): keep.
        _ => (Candidate::Follow, vec![]),
    };
    let mut next = epoch::next(&p.part, choice, &clamp);
    let changed = choice != Candidate::Follow || next.spatial_pairs != p.part.spatial_pairs;
    // Steady dedicated SMs retire (B2): two epochs unchanged, each IPC within 1/16.
    if p.part.has_dedicated() {
        let steady = (0..2).all(|k| match (dedicated[k], p.last_dedicated[k]) {
            (Some(d), Some(l)) => (d - l).abs() <= l / 16.0,
            _ => false,
        });
        if !changed && p.stable >= 1 && steady {
            p.single = single;
            for r in &mut next.roles {
                if matches!(r, Role::Dedicated(_)) {
                    *r = Role::Follower;
                }
            }
        }
    }
    p.last_dedicated = dedicated;
    p.stable = if changed { 0 } else { p.stable + 1 };
    p.since_dedicated += 1;
    if !next.has_dedicated() && (changed || p.since_dedicated >= REFRESH_EPOCHS) {
        let followers: Vec<usize> = (0..next.roles.len())
            .filter(|&s| next.roles[s] == Role::Follower)
            .collect();
        if let [a, b, ..] = followers[..] {
            next.roles[a] = Role::Dedicated(0);
            next.roles[b] = Role::Dedicated(1);
            p.since_dedicated = 0;
        }
    }
    let d = Decision {
        cycle: now,
        choice,
        nf: next.nf,
        even: p.pair.even(),
        spatial_pairs: next.spatial_pairs,
        scores,
    };
    p.part = next;
    p.set_quotas();
    p.phase = Phase::Settling;
    d
}
