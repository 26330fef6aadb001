//! Loads that bypass the L1D (seed 001; spec `locality_bypass_paws.md` §2.1.6, properties
//! P-BY1 to P-BY4): the L1D is never touched by them (under every mask, mixed ones included), they move 32 B sectors, a mask of all
//! ones or all zeros is bypass-all or cache-all, trace operators and the GPU's default decide
//! as documented, and nothing changes for loads that do not bypass.

use super::caching::Bypass;
use super::stats::LoadCounts;
use super::*;
use crate::config::GpuConfig;
use crate::workload::cache_op::CacheOp;
use crate::workload::kernel::{KernelSource, SingleKernel, TraceWorkload};
use crate::workload::sass::OpClass;
use crate::workload::synth::{self, Addr, Program, Space, SynthDef, SynthKernel, Var};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

fn gtx480() -> GpuConfig {
    GpuConfig::preset("gtx480").unwrap()
}

/// `def` run on `cfg` with `bypass` (GTO), every request in flight audited every 1024 cycles.
fn run_def(cfg: &GpuConfig, def: &SynthDef, bypass: Bypass) -> Report {
    let opts = SimOptions {
        bypass,
        audit_interval: 1024,
        ..SimOptions::parse("--warp-sched gto").unwrap()
    };
    let mut gpu = Gpu::golden(cfg, opts).unwrap();
    gpu.run(&mut synth::workload(def.clone()), &mut |_| {})
        .unwrap()
}

fn suite(name: &str) -> SynthDef {
    synth::build(name, "small").unwrap()
}

/// The loads of the run's only kernel, by PC.
fn loads(r: &Report) -> BTreeMap<u32, LoadCounts> {
    r.kernels[0].loads.iter().map(|l| (l.pc, *l)).collect()
}

/// Per global-load PC of `def`, summed over every warp instruction of every block: the
/// distinct 32 B sectors and the distinct 128 B lines its active lanes touch (counted here
/// from the addresses, independently of the coalescer).
fn distinct_sectors_and_lines(def: &SynthDef) -> BTreeMap<u32, (u64, u64)> {
    let mut k = SynthKernel::new(def.clone());
    let mut out: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    for id in 0..k.info().blocks() {
        let b = k.block(id).unwrap();
        for insts in &b.warps {
            for i in insts.iter().filter(|i| i.class == OpClass::LoadGlobal) {
                let width = u64::from(i.width.max(1));
                let (mut sectors, mut lines) = (HashSet::new(), HashSet::new());
                for a in b.addrs(i).iter() {
                    for byte in [a, a + width - 1] {
                        sectors.insert(byte / 32);
                        lines.insert(byte / 128);
                    }
                }
                let e = out.entry(i.pc).or_default();
                e.0 += sectors.len() as u64;
                e.1 += lines.len() as u64;
            }
        }
    }
    out
}

/// P-BY3's check on a bypass-all report: each load's requests are the distinct 32 B sectors
/// its warp instructions touch, 32 B each, and none of them reached the L1D.
fn check_bypass_traffic(
    expected: &BTreeMap<u32, (u64, u64)>,
    loads: &BTreeMap<u32, LoadCounts>,
) -> Result<(), String> {
    for (pc, &(sectors, _)) in expected {
        let l = loads.get(pc).ok_or(format!("pc {pc:#x}: no counters"))?;
        let seen = (l.bypassed, l.accesses, l.l2_bytes, l.hits + l.misses);
        if seen != (sectors, sectors, 32 * sectors, 0) {
            return Err(format!(
                "pc {pc:#x}: (bypassed, accesses, l2 bytes, L1D lookups) {seen:?}, expected \
                 {sectors} distinct sectors"
            ));
        }
    }
    Ok(())
}

/// P-BY1, P-BY3, P-BY4: under bypass-all, no load looks up, allocates in or fills the L1D
/// (its read accesses are 0; only stores reach it), each load moves exactly the distinct
/// 32 B sectors of its warp instructions, and under cache-all each load's accesses are the
/// distinct 128 B lines (4-byte lanes: one transaction per line).
#[test]
fn bypassed_loads_move_their_sectors_and_never_touch_the_l1d() {
    let def = suite("bypass_mix");
    let expected = distinct_sectors_and_lines(&def);
    assert_eq!(expected.len(), 3, "bypass_mix has three global loads");
    let all = run_def(&gtx480(), &def, Bypass::All);
    let l1d = &all.counters.l1d;
    assert_eq!(
        (l1d.accesses - l1d.writes, l1d.hits, l1d.misses),
        (0, 0, 0),
        "{l1d:?}"
    );
    check_bypass_traffic(&expected, &loads(&all)).unwrap();
    let cached = run_def(&gtx480(), &def, Bypass::None);
    for (pc, l) in loads(&cached) {
        assert_eq!(
            l.accesses, expected[&pc].1,
            "pc {pc:#x}: one access per line"
        );
        assert_eq!(l.bypassed, 0);
        assert_eq!(l.hits + l.hit_reserved + l.misses, l.accesses);
        assert_eq!(l.l2_bytes, 128 * l.misses, "a miss fetches its 128 B line");
    }
    // The cached run's L1D read accesses are exactly its loads' (no other reads here).
    let sum: u64 = loads(&cached).values().map(|l| l.accesses).sum();
    let l1d = &cached.counters.l1d;
    assert_eq!(l1d.accesses - l1d.writes, sum);
}

/// P-BY1 and P-BY3 under a mixed mask (the reused table cached, the streaming and the
/// scattered load bypassed): the L1D sees exactly the cached load's accesses, one per line,
/// each a hit or a miss fetching its 128 B line; the bypassed loads move their distinct 32 B
/// sectors and never look the L1D up.
#[test]
fn a_mixed_mask_caches_only_its_loads() {
    let def = suite("bypass_mix");
    let expected = distinct_sectors_and_lines(&def);
    let table = *expected.keys().last().expect("three loads");
    let mask = BTreeMap::from([(def.name.clone(), BTreeSet::from([table]))]);
    let r = run_def(&gtx480(), &def, Bypass::Cached(Arc::new(mask)));
    let by_pc = loads(&r);
    let bypassed: BTreeMap<u32, (u64, u64)> = expected
        .iter()
        .filter(|(&pc, _)| pc != table)
        .map(|(&pc, &v)| (pc, v))
        .collect();
    check_bypass_traffic(&bypassed, &by_pc).unwrap();
    let t = &by_pc[&table];
    assert_eq!((t.accesses, t.bypassed), (expected[&table].1, 0), "{t:?}");
    assert_eq!(t.hits + t.hit_reserved + t.misses, t.accesses, "{t:?}");
    assert_eq!(t.l2_bytes, 128 * t.misses, "{t:?}");
    assert!(t.hits > 0, "the reused table hits: {t:?}");
    let l1d = &r.counters.l1d;
    assert_eq!(l1d.accesses - l1d.writes, t.accesses, "{l1d:?}");
    assert_eq!(l1d.hits + l1d.misses, t.hits + t.misses, "{l1d:?}");
}

/// The traffic check fails on a run whose bypassed loads were coalesced as cached ones
/// (128 B segments instead of 32 B sectors): the planted fault P-BY3 must catch.
#[test]
fn the_traffic_check_catches_bypassed_loads_coalesced_in_lines() {
    let def = suite("bypass_mix");
    let expected = distinct_sectors_and_lines(&def);
    let cached = run_def(&gtx480(), &def, Bypass::None);
    // What a bypass path with line segments would count: one request per line, 32 B each.
    let planted: BTreeMap<u32, LoadCounts> = loads(&cached)
        .into_iter()
        .map(|(pc, l)| {
            let l = LoadCounts {
                bypassed: l.accesses,
                hits: 0,
                hit_reserved: 0,
                misses: 0,
                l2_bytes: 32 * l.accesses,
                ..l
            };
            (pc, l)
        })
        .collect();
    let err = check_bypass_traffic(&expected, &planted).unwrap_err();
    assert!(err.contains("distinct sectors"), "{err}");
}

/// P-BY4: a selection that caches no load of the kernel is bypass-all, one that caches every
/// load is cache-all, cycle for cycle and counter for counter; and on a kernel whose loads
/// carry no operator, cache-all is the run as written (nothing changes while nothing
/// bypasses).
#[test]
fn a_mask_of_all_ones_or_all_zeros_is_bypass_all_or_cache_all() {
    let def = suite("bypass_mix");
    let pcs: BTreeSet<u32> = distinct_sectors_and_lines(&def).into_keys().collect();
    let select = |cached: BTreeSet<u32>| {
        Bypass::Cached(Arc::new(BTreeMap::from([(def.name.clone(), cached)])))
    };
    let same = |a: &Report, b: &Report| {
        assert_eq!(a.counters, b.counters);
        assert_eq!(a.kernels[0].loads, b.kernels[0].loads);
    };
    let cfg = gtx480();
    same(
        &run_def(&cfg, &def, select(BTreeSet::new())),
        &run_def(&cfg, &def, Bypass::All),
    );
    let none = run_def(&cfg, &def, Bypass::None);
    same(&run_def(&cfg, &def, select(pcs)), &none);
    same(&run_def(&cfg, &def, Bypass::AsWritten), &none);
}

/// A kernel of three global loads of consecutive words: the default one, `.ca` and `.cg`.
fn three_operators() -> SynthDef {
    let mut p = Program::new();
    let word = |base: u64| Addr {
        base,
        elem: 4,
        index: synth::Expr::v(1, Var::Gx),
    };
    p.alu(OpClass::IntAlu, &[3], &[0]);
    p.load(Space::Global, 10, 3, word(0x1000_0000));
    p.load_with(Space::Global, 11, 3, word(0x2000_0000), CacheOp::Ca);
    p.load_with(Space::Global, 12, 3, word(0x3000_0000), CacheOp::Cg);
    p.alu(OpClass::Fp, &[13], &[10, 11, 12]);
    p.exit();
    SynthDef {
        name: "three_operators".into(),
        grid: crate::workload::Dim3 { x: 4, y: 1, z: 1 },
        block: crate::workload::Dim3 { x: 64, y: 1, z: 1 },
        regs_per_thread: 16,
        shmem_bytes: 0,
        program: p,
        arrays: vec![],
    }
}

/// As written: `.cg` bypasses and `.ca` is cached whatever the GPU's default; a load without
/// an operator follows `pipeline.gmem_skip_l1d` (GPGPU-Sim's `-gpgpu_gmem_skip_L1D`).
#[test]
fn operators_and_the_gpus_default_decide_as_written() {
    let def = three_operators();
    let pcs = [8, 16, 24];
    for skip in [false, true] {
        let mut cfg = gtx480();
        cfg.pipeline.gmem_skip_l1d = skip;
        let l = loads(&run_def(&cfg, &def, Bypass::AsWritten));
        let bypassed = |pc: u32| l[&pc].bypassed > 0 && l[&pc].misses == 0;
        assert_eq!(
            pcs.map(bypassed),
            [skip, false, true],
            "gmem_skip_l1d {skip}: {l:?}"
        );
    }
}

/// A real trace's `LDG.E.CG` loads bypass the L1D as written, and are cached with
/// `--bypass none` (Accel-Sim's trace reader ignores `.CG`: that is its behaviour).
#[test]
fn a_traces_cg_loads_bypass_unless_cache_all_is_asked() {
    let Some(dir) = crate::workload::shared_trace("vectoradd-100-32") else {
        return;
    };
    let run = |bypass: Bypass| {
        let opts = SimOptions {
            bypass,
            audit_interval: 1024,
            ..SimOptions::default()
        };
        let mut gpu = Gpu::golden(&gtx480(), opts).unwrap();
        let mut w = TraceWorkload::open(&dir).unwrap();
        gpu.run(&mut w, &mut |_| {}).unwrap()
    };
    let written = run(Bypass::AsWritten);
    assert_eq!(written.counters.l1d.misses, 0);
    assert!(written.kernels[0].loads.iter().all(|l| l.bypassed > 0));
    let cached = run(Bypass::None);
    assert!(cached.counters.l1d.misses > 0);
    assert!(cached.kernels[0].loads.iter().all(|l| l.bypassed == 0));
    assert_eq!(
        written.counters.warp_instructions,
        cached.counters.warp_instructions
    );
}

/// A trace whose load carries a modifier the reader does not know runs it with the default
/// operator and says so in the report (never silently another operator).
#[test]
fn an_unknown_modifier_is_reported_and_runs_as_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let def = three_operators();
    let mut w = SingleKernel::new(Box::new(SynthKernel::new(def)));
    crate::workload::export::export(&mut w, dir.path(), &mut |_| {}).unwrap();
    let path = dir.path().join("kernel-1.traceg");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains(" LDG.E.CG "),
        "the exporter writes the operator"
    );
    std::fs::write(&path, text.replace(" LDG.E.CG ", " LDG.E.QQ ")).unwrap();
    let mut tw = TraceWorkload::open(dir.path()).unwrap();
    let mut gpu = Gpu::golden(&gtx480(), SimOptions::default()).unwrap();
    let r = gpu.run(&mut tw, &mut |_| {}).unwrap();
    assert_eq!(r.unknown_modifiers.len(), 1, "{:?}", r.unknown_modifiers);
    assert!(r.unknown_modifiers[0].contains("`LDG.E.QQ`: modifier `QQ`"));
    assert!(r.kernels[0].loads.iter().all(|l| l.bypassed == 0));
}

/// With `gmem_skip_l1d` global stores skip the L1D as well (GPGPU-Sim's `memory_cycle`):
/// none reaches it, each goes to the L2 in 32 B sectors (at least as many L2 writes as the
/// stores that went through the L1D in lines), and every warp still waits for its
/// acknowledgements (each run's audit holds and the run finishes). With the operand collector
/// too, whose L1D latency queue the stores then skip. Every load is cached in both runs.
#[test]
fn stores_skip_the_l1d_with_gmem_skip_l1d() {
    let def = suite("bypass_mix");
    for collector in [false, true] {
        let mut cfg = gtx480();
        cfg.pipeline.operand_collector.enabled = collector;
        let through = run_def(&cfg, &def, Bypass::None);
        cfg.pipeline.gmem_skip_l1d = true;
        let skipped = run_def(&cfg, &def, Bypass::None);
        assert!(through.counters.l1d.writes > 0);
        assert_eq!(skipped.counters.l1d.writes, 0, "{:?}", skipped.counters.l1d);
        assert_eq!(
            skipped.counters.warp_instructions,
            through.counters.warp_instructions
        );
        let (a, b) = (skipped.counters.l2.writes, through.counters.l2.writes);
        assert!(
            a >= b && b > 0,
            "collector {collector}: {a} sector writes, {b} line writes"
        );
    }
}
