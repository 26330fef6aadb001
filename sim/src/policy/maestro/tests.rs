//! Maestro in the GPU: one kernel runs as alone, a pair runs every instruction with
//! repartitions epoch after epoch, the blocks taken off are the boundary blocks (W2-5) and
//! every epoch starts with each SM within its quotas (M7, M1).

use super::unit::{Fault, MaestroUnit};
use super::*;
use crate::gpu::sites::kernel_sched::{KernelSchedIn, KernelSchedOut};
use crate::gpu::{Gpu, Report, SimOptions};
use std::cell::RefCell;
use std::rc::Rc;

fn gtx480() -> GpuConfig {
    GpuConfig::preset("gtx480").unwrap()
}

/// A kernel's warp instructions and blocks, less what flushed blocks executed again.
fn work(k: &crate::gpu::KernelReport) -> (u64, u64) {
    let c = &k.counters;
    (c.warp_instructions - k.preemptions.reexecuted_warp_instructions, c.blocks)
}

fn run(args: &str, kernels: &[(&str, u64)]) -> Report {
    Gpu::golden(&gtx480(), SimOptions::parse(args).unwrap())
        .unwrap()
        .run(&mut crate::workload::mix::Mix::medium(kernels), &mut |_| {})
        .unwrap()
}

#[test]
fn maestro_brings_the_two_way_allocator_unless_told_otherwise() {
    let plan = |args: &str| SimOptions::parse(args).unwrap().plan;
    assert_eq!(plan("--kernel-sched maestro").sm_alloc.entry().name, "twoway");
    let other = plan("--kernel-sched maestro --sm-alloc first_fit");
    assert_eq!(other.sm_alloc.entry().name, "first_fit");
    assert_eq!(plan("--kernel-sched smk").sm_alloc.entry().name, "occupancy");
}

#[test]
fn one_kernel_runs_as_it_does_alone() {
    let alone = run("", &[("mm", 0)]);
    let maestro = run("--kernel-sched maestro --epoch 2000", &[("mm", 0)]);
    assert_eq!(maestro.counters, alone.counters);
}

/// What the checking wrapper saw.
#[derive(Debug, Default)]
struct Seen {
    /// Preemptions of blocks that were not their end's boundary (or within quota).
    not_boundary: Vec<String>,
    /// Epoch starts with an SM above a quota.
    above_quota: Vec<String>,
    /// Quota changes (one bound to another) on an SM with blocks still leaving.
    mid_preemption: Vec<String>,
    preempted: u64,
    starts: u64,
}

/// Runs the Maestro unit and checks each cycle's preemptions and epoch starts.
struct Checked {
    unit: MaestroUnit,
    seen: Rc<RefCell<Seen>>,
    /// Last cycle's quotas.
    last: Vec<Vec<Option<u32>>>,
}

impl KernelSchedUnit for Checked {
    fn slots(&self) -> usize {
        self.unit.slots()
    }

    fn wants_blocks(&self) -> bool {
        true
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        self.unit.step(inp, out)?;
        let mut seen = self.seen.borrow_mut();
        for (s, (now, last)) in out.quota.iter().zip(&self.last).enumerate() {
            let leaving = inp.sms[s].preempting.iter().any(|&n| n > 0);
            for (k, (q, l)) in now.iter().zip(last).enumerate() {
                if leaving && q.is_some() && l.is_some() && q != l {
                    let at = inp.now;
                    seen.mid_preemption.push(format!("cycle {at}: SM {s} slot {k}: {l:?} -> {q:?}"));
                }
            }
        }
        self.last.clone_from(&out.quota);
        for p in &out.preempt {
            seen.preempted += 1;
            let q = out.quota[p.sm][p.slot].unwrap_or(u32::MAX);
            let blocks = &inp.blocks[p.sm];
            let b = blocks.iter().find(|b| Some(b.tb) == p.block).expect("a resident block");
            let Some(place) = b.place.filter(|p| p.stacked) else {
                continue;
            };
            // Every block of its kernel above it on the SM is leaving too.
            let above_stays = blocks.iter().any(|o| {
                o.slot == p.slot
                    && o.place.is_some_and(|x| x.slot > place.slot)
                    && !o.preempting
                    && !out.preempt.iter().any(|x| x.sm == p.sm && x.block == Some(o.tb))
            });
            if u32::from(place.slot) < q || above_stays {
                let at = inp.now;
                seen.not_boundary.push(format!("cycle {at}: SM {} slot {}", p.sm, place.slot));
            }
        }
        if self.unit.starting() {
            seen.starts += 1;
            for (s, view) in inp.sms.iter().enumerate() {
                for (k, &n) in view.blocks.iter().enumerate() {
                    if out.quota[s][k].is_some_and(|q| n > q) {
                        seen.above_quota.push(format!("cycle {}: SM {s} kernel slot {k}", inp.now));
                    }
                }
            }
        }
        Ok(())
    }
}

fn checked(
    alloc: &str,
    epoch: u64,
    kernels: &[(&str, u64)],
    fault: Option<Fault>,
) -> (Report, Seen) {
    let cfg = gtx480();
    let opts = SimOptions {
        audit_interval: 499,
        ..SimOptions::parse(&format!("--kernel-sched maestro --sm-alloc {alloc}")).unwrap()
    };
    let mut gpu = Gpu::golden(&cfg, opts).unwrap();
    let preempt = Preemption::new(How::Chimera(None), &cfg, 16);
    let mut unit = MaestroUnit::new(16, preempt, (Partitioning::Dynamic, epoch), caps_of(&cfg));
    unit.fault = fault;
    let seen = Rc::new(RefCell::new(Seen::default()));
    gpu.set_kernel_sched(Box::new(Checked {
        unit,
        seen: seen.clone(),
        last: vec![],
    }));
    let r = gpu.run(&mut crate::workload::mix::Mix::medium(kernels), &mut |_| {}).unwrap();
    drop(gpu);
    let seen = Rc::try_unwrap(seen).unwrap().into_inner();
    (r, seen)
}

#[test]
fn a_pair_repartitions_every_epoch_and_preempts_only_boundary_blocks() {
    let pair = [("mm", 0), ("chimera_bs", 500)];
    let smk = run("--kernel-sched smk", &pair);
    for alloc in ["twoway", "occupancy", "first_fit"] {
        let (r, seen) = checked(alloc, 4000, &pair, None);
        for (k, o) in r.kernels.iter().zip(&smk.kernels) {
            assert_eq!(work(k), work(o), "{alloc}");
        }
        assert_eq!(seen.not_boundary, Vec::<String>::new(), "{alloc}");
        assert_eq!(seen.above_quota, Vec::<String>::new(), "{alloc}");
        assert_eq!(seen.mid_preemption, Vec::<String>::new(), "{alloc}");
        assert!(seen.starts >= 4, "{alloc}: {} epochs started", seen.starts);
        assert!(seen.preempted > 0, "{alloc}: quotas took blocks off");
    }
}

#[test]
fn decisions_are_an_epoch_apart_and_runs_repeat_bit_for_bit() {
    let pair = [("mm", 0), ("chimera_bs", 500)];
    let args = "--kernel-sched maestro --epoch 4000";
    let r = run(args, &pair);
    let decisions = r.kernel_sched_stats["decisions"].as_array().unwrap().clone();
    assert!(decisions.len() >= 3, "{decisions:?}");
    let cycles: Vec<u64> = decisions.iter().map(|d| d["cycle"].as_u64().unwrap()).collect();
    assert!(cycles.windows(2).all(|w| w[1] - w[0] >= 4000), "{cycles:?}");
    let again = run(args, &pair);
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
}

#[test]
fn planted_bugs_are_caught() {
    let pair = [("mm", 0), ("chimera_bs", 500)];
    let (_, seen) = checked("twoway", 4000, &pair, Some(Fault::LowestVictims));
    assert!(!seen.not_boundary.is_empty(), "blocks below the boundary taken off");
    let (_, seen) = checked("twoway", 4000, &pair, Some(Fault::NoSettling));
    assert!(!seen.above_quota.is_empty(), "an epoch started above a quota");
    // Bad input of the issue: a quota change while a victim is mid-preemption. Maestro holds
    // the epoch until every victim has left, so it never asks for one; without the wait it
    // does, and the check sees it.
    let (_, seen) = checked("twoway", 300, &pair, Some(Fault::NoSettling));
    assert!(!seen.mid_preemption.is_empty(), "a quota changed under a leaving block");
}

#[test]
fn a_pair_no_sm_can_hold_together_runs_spatially() {
    // 10,240 registers: one block of mm (6,144) or of chimera_bs (6,144) per SM, never both.
    let mut cfg = gtx480();
    cfg.sm.registers = 10_240;
    let pair = [("mm", 0), ("chimera_bs", 500)];
    let go = |args: &str| {
        Gpu::golden(&cfg, SimOptions::parse(args).unwrap())
            .unwrap()
            .run(&mut crate::workload::mix::Mix::medium(&pair), &mut |_| {})
            .unwrap()
    };
    let smk = go("--kernel-sched smk");
    let r = go("--kernel-sched maestro --epoch 2000");
    for (k, o) in r.kernels.iter().zip(&smk.kernels) {
        assert_eq!(work(k), work(o));
    }
    assert_eq!(r.kernel_sched_stats["epochs"], 0, "no epochs");
    assert!(r.kernels[1].start_cycle < r.kernels[0].end_cycle, "side by side");
}

#[test]
fn epochs_shorter_than_a_switch_wait_for_the_partition() {
    // Epochs of 300 cycles: a repartition's switches take thousands; the timer waits for them
    // (M1), so every epoch still starts within the quotas.
    let pair = [("mm", 0), ("chimera_bs", 500)];
    let smk = run("--kernel-sched smk", &pair);
    let (r, seen) = checked("twoway", 300, &pair, None);
    for (k, o) in r.kernels.iter().zip(&smk.kernels) {
        assert_eq!(work(k), work(o));
    }
    assert!(seen.starts >= 4, "{} epochs", seen.starts);
    assert_eq!(seen.not_boundary, Vec::<String>::new());
    assert_eq!(seen.above_quota, Vec::<String>::new());
    assert_eq!(seen.mid_preemption, Vec::<String>::new(), "quotas wait for the victims");
}

/// Blocks a report's kernels had taken off, by technique (switch, drain, flush).
fn taken_off(r: &Report) -> [u64; 3] {
    let mut n = [0; 3];
    for k in &r.kernels {
        let p = &k.preemptions;
        for (n, t) in n.iter_mut().zip([&p.switch, &p.drain, &p.flush]) {
            *n += t.blocks;
        }
    }
    n
}

#[test]
fn chimera_chooses_per_block_within_a_whole_sm_switch_by_default() {
    // M-R1 on the thesis's GPU: 256 KiB of registers and 96 KiB of shared memory at one SM's
    // share of 224 GB/s at 1,126 MHz (12.43 B per cycle): about 29,000 cycles.
    let gtx980 = GpuConfig::preset("gtx980").unwrap();
    let est = |cfg: &GpuConfig| {
        let rules = crate::blocks::chimera_tb::select::Rules {
            mode: crate::blocks::chimera_tb::select::Mode::Chimera,
            limit: crate::blocks::chimera_tb::select::Limit { cycles: 0, margin: 0 },
            drain: Default::default(),
        };
        crate::policy::chimera::Estimator::new(cfg, 2, rules, crate::policy::chimera::Idempotence::Block)
    };
    let limit = preempt::whole_sm_switch(&gtx980, &est(&gtx980));
    assert!((28_000..=30_000).contains(&limit), "{limit}");
    let pair = [("mm", 0), ("chimera_bs", 500)];
    let r = run("--kernel-sched maestro --epoch 4000", &pair);
    assert_eq!(r.policy, run("--kernel-sched maestro --epoch 4000 --preempt chimera", &pair).policy);
    assert!(r.policy.contains("+maestro(chimera)"), "{}", r.policy);
    let ks = &r.kernel_sched_stats;
    let want = preempt::whole_sm_switch(&gtx480(), &est(&gtx480()));
    assert_eq!(ks["lat_limit"], want);
    let chosen = ["switch", "drain", "flush"].map(|t| ks["blocks_by_technique"][t].as_u64().unwrap());
    let taken = taken_off(&r);
    // A block asked to switch may end before its save starts (counted as drained).
    assert_eq!(chosen.iter().sum::<u64>(), taken.iter().sum::<u64>());
    assert!(chosen[2] > 0, "mm's blocks are flushable early: {chosen:?}");
    assert_eq!(ks["blocks_over_limit"], 0);
}

#[test]
fn a_limit_no_switch_meets_leaves_switches_to_the_blocks_nothing_else_fits() {
    let pair = [("mm", 0), ("chimera_bs", 500)];
    let r = run("--kernel-sched maestro --epoch 4000 --lat-limit 1", &pair);
    let ks = &r.kernel_sched_stats;
    assert!(r.policy.contains("+maestro(chimera,1)"), "{}", r.policy);
    assert_eq!(ks["lat_limit"], 1);
    // Every switch is a fallback: a switch takes thousands of cycles.
    assert_eq!(ks["blocks_by_technique"]["switch"], ks["blocks_over_limit"]);
    let fixed = run("--kernel-sched maestro --epoch 4000 --preempt drain", &pair);
    assert_eq!(taken_off(&fixed)[0] + taken_off(&fixed)[2], 0, "drain only");
    assert!(fixed.kernel_sched_stats["lat_limit"].is_null());
}

#[test]
fn chimera_preemption_is_maestros_and_a_limit_needs_it() {
    let err = |args: &str| SimOptions::parse(args).unwrap_err().to_string();
    let e = err("--kernel-sched even --preempt chimera");
    assert!(e.contains("--preempt") && e.contains("maestro"), "{e}");
    let e = err("--kernel-sched maestro --preempt switch --lat-limit 5");
    assert!(e.contains("--lat-limit needs --preempt chimera"), "{e}");
    let e = err("--kernel-sched maestro --lat-limit 0");
    assert!(e.contains("--lat-limit"), "{e}");
}

#[test]
fn the_fixed_partitions_run_no_epochs_and_every_instruction() {
    let pair = [("mm", 0), ("chimera_bs", 500)];
    let smk = run("--kernel-sched smk", &pair);
    let mut cycles = vec![];
    for how in ["even", "spatial"] {
        let r = run(&format!("--kernel-sched maestro --epoch 2000 --partition {how}"), &pair);
        assert!(r.policy.contains(&format!("partition={how}")), "{}", r.policy);
        assert_eq!(r.kernel_sched_stats["epochs"], 0, "{how}");
        for (k, o) in r.kernels.iter().zip(&smk.kernels) {
            assert_eq!(work(k), work(o), "{how}");
        }
        cycles.push(r.counters.cycles);
    }
    let dynamic = run("--kernel-sched maestro --epoch 2000", &pair);
    assert!(dynamic.kernel_sched_stats["epochs"].as_u64().unwrap() > 0);
    assert_ne!(cycles[0], cycles[1], "the two partitions differ");
}

#[test]
fn kernels_without_registers_or_shared_memory_share_by_threads_and_slots() {
    use crate::core::twoway::Need;
    // Bad input of the issue: a kernel of zero registers and zero shared memory takes no
    // region; the pair is bounded by threads (1,536) and block slots (8) alone.
    let caps = caps_of(&gtx480());
    let none = Need {
        threads: 256,
        units: [0, 0],
    };
    let pair = super::partition::Pair {
        caps,
        trial: none,
        other: none,
    };
    assert_eq!(super::partition::alone(caps, none), 6);
    assert_eq!((pair.even(), pair.fill(3)), (3, 3));
    assert_eq!((pair.n_max(), pair.fill(5)), (5, 1));
    // Against a kernel with registers only: its region alone bounds it.
    let regs = Need {
        threads: 128,
        units: [caps.units[0] / 4, 0],
    };
    let mixed = super::partition::Pair {
        caps,
        trial: regs,
        other: none,
    };
    // Four of it take every register; the other still fits by threads (1,024 left, 4 x 256)
    // and slots (4 left).
    assert_eq!((super::partition::alone(caps, regs), mixed.fill(4)), (4, 4));
}

#[test]
fn a_kernel_without_shared_memory_pairs_with_one_that_has_some() {
    // fdtd3d takes no shared memory: its end holds no shared-memory region, and the pair
    // runs every instruction under Maestro as under SMK.
    let pair = [("fdtd3d", 0), ("lud", 0)];
    let smk = run("--kernel-sched smk", &pair);
    let (r, seen) = checked("twoway", 2000, &pair, None);
    for (k, o) in r.kernels.iter().zip(&smk.kernels) {
        assert_eq!(work(k), work(o));
    }
    assert_eq!(seen.above_quota, Vec::<String>::new());
}
