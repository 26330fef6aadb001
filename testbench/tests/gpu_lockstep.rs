//! Verilated blocks inside the GPU model (DESIGN.md §6 level 5): the warp arbiter in lockstep
//! with the golden arbiter in every scheduler of every SM, and the ELF and NewCAR blocks in
//! lockstep with theirs in every SM under ELF++, on both real traces, a memory-bound and a
//! compute-bound kernel and suite kernels; alone (`--rtl`) with identical statistics; and
//! planted bugs caught (one at the predicted cycle with waveforms).

mod common;

use common::{parse_vcd, stuck_grant_bit0, value_at, verilator_built, Faulty};
use gpusched_tb::batch::RtlThreads;
use gpusched_tb::gpu::{self as tbgpu, BlockMode, GpuRunError, Modes, TbBlocks};
use gpusched_tb::lockstep::{LockstepConfig, Mismatch};
use gpusim::block::Block;
use gpusim::blocks::elf;
use gpusim::blocks::warp_arbiter::{self as wa, ArbiterIn, ArbiterOut, Golden, Params, Policy};
use gpusim::config::GpuConfig;
use gpusim::gpu::sites::{BlockFault, GoldenBlocks, Override, Port, Provider, Site, SitePort};
use gpusim::gpu::{Report, SimError, SimOptions};
use gpusim::workload::builtin;
use gpusim::workload::kernel::{TraceWorkload, WorkloadSource};
use gpusim::workload::mix::Mix;
use std::cell::RefCell;
use std::rc::Rc;

/// The workloads of the lockstep regression: both real traces (when present), the
/// memory-bound `stream` and the compute-bound `compute` kernels.
type Opener = Box<dyn Fn() -> Box<dyn WorkloadSource>>;

fn workloads() -> Vec<(String, Opener)> {
    let mut v: Vec<(String, Opener)> = vec![];
    for t in ["vectoradd-100-32", "matrixmul-32-32"] {
        if let Some(dir) = gpusim::testing::shared_trace(t) {
            v.push((
                t.into(),
                Box::new(move || Box::new(TraceWorkload::open(&dir).unwrap())),
            ));
        }
    }
    for k in ["stream", "compute"] {
        v.push((
            k.into(),
            Box::new(move || Box::new(builtin::workload(k, "medium").unwrap())),
        ));
    }
    v
}

fn run(
    open: &dyn Fn() -> Box<dyn WorkloadSource>,
    opts: &SimOptions,
    mode: BlockMode,
    cfg: &LockstepConfig,
) -> Result<Report, GpuRunError> {
    let gpu = GpuConfig::preset("gtx480").unwrap();
    tbgpu::run(
        &gpu,
        opts,
        &mut || Ok(open()),
        Modes::all(mode),
        cfg,
        &mut |_| {},
    )
}

fn policy(p: Policy) -> SimOptions {
    SimOptions::parse(&format!("--warp-sched {}", p.name())).unwrap()
}

#[test]
fn verilated_arbiters_agree_with_golden_inside_the_gpu_on_every_workload_and_policy() {
    if !verilator_built() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 64,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    for (name, open) in workloads() {
        for p in Policy::ALL {
            let policy = &policy(p);
            let golden = run(&open, policy, BlockMode::Golden, &cfg).unwrap();
            let lockstep = run(&open, policy, BlockMode::Lockstep, &cfg)
                .unwrap_or_else(|e| panic!("{name} {p:?}: {e}"));
            let rtl = run(&open, policy, BlockMode::Rtl, &cfg).unwrap();
            let json = |r: &Report| serde_json::to_string(r).unwrap();
            assert_eq!(json(&lockstep), json(&golden), "{name} {p:?}: lockstep");
            assert_eq!(json(&rtl), json(&golden), "{name} {p:?}: RTL alone");
            eprintln!(
                "{name} {p:?}: {} cycles x 30 arbiters in lockstep, 0 mismatches",
                golden.counters.cycles
            );
        }
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no waveforms"
    );
}

/// Records the outputs of the golden arbiter at one site (to predict where a fault shows).
struct Probe {
    inner: Golden,
    log: Rc<RefCell<Vec<ArbiterOut>>>,
}

impl Port<ArbiterIn, ArbiterOut> for Probe {
    fn step(&mut self, inp: &ArbiterIn) -> Result<ArbiterOut, BlockFault> {
        let o = Block::step(&mut self.inner, inp);
        self.log.borrow_mut().push(o);
        Ok(o)
    }
}

/// Runs the `compute` kernel (small) with the blocks of `make` (one of them faulty) and
/// returns the lockstep mismatch, whose waveforms were written from the pair's snapshot.
fn planted_mismatch<'a, P: Provider<'a>>(
    gpu: &GpuConfig,
    opts: &SimOptions,
    make: &dyn Fn(&RtlThreads) -> P,
) -> Box<Mismatch> {
    let err = tbgpu::run_with(
        gpu,
        opts,
        &mut || -> Result<Box<dyn WorkloadSource>, SimError> {
            Ok(Box::new(builtin::workload("compute", "small").unwrap()))
        },
        (make, 2),
        &mut |_| {},
    )
    .unwrap_err();
    match err {
        GpuRunError::Mismatch(m) => m,
        other => panic!("expected a mismatch, got {other}"),
    }
}

#[test]
fn a_planted_bug_in_one_scheduler_stops_the_gpu_at_the_predicted_cycle_with_waveforms() {
    if !verilator_built() {
        return;
    }
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions::default(); // GTO
    let victim = Site::Scheduler {
        sm: 3,
        scheduler: 1,
    };
    let from = 300;
    // Where the fault must show: the first grant of an odd warp at or after `from` by the
    // correct golden arbiter of that site.
    let log = Rc::new(RefCell::new(vec![]));
    {
        let log = log.clone();
        let mut f = Override::<_, wa::Kind, _>::new(GoldenBlocks, move |site, p: &Params| {
            Ok(if site == victim {
                Box::new(Probe {
                    inner: Golden::new(*p),
                    log: log.clone(),
                }) as SitePort<'_, wa::Kind>
            } else {
                Box::new(Golden::new(*p))
            })
        });
        let mut g = gpusim::gpu::Gpu::new(&gpu, opts.clone(), &mut f).unwrap();
        g.run(
            &mut builtin::workload("compute", "small").unwrap(),
            &mut |_| {},
        )
        .unwrap();
    }
    let expected_cycle = log
        .borrow()
        .iter()
        .enumerate()
        .position(|(c, o)| c as u64 >= from && o.grant_valid && o.grant_warp & 1 == 1)
        .expect("the victim grants an odd warp after `from`") as u64;

    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 40,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    let make = |threads: &RtlThreads| {
        let (cfg, threads) = (&cfg, threads.clone());
        Override::<_, wa::Kind, _>::new(GoldenBlocks, move |site, p: &Params| {
            if site != victim {
                return Ok(Box::new(Golden::new(*p)) as SitePort<'_, wa::Kind>);
            }
            let buggy = stuck_grant_bit0(Golden::new(*p), from);
            tbgpu::instance::<wa::Kind, _>(BlockMode::Lockstep, buggy, p, site, cfg, &threads)
        })
    };
    let m = planted_mismatch(&gpu, &opts, &make);
    assert_eq!(m.name, "sm3_sched1");
    assert_eq!(m.cycle, expected_cycle);
    assert_eq!(m.port, "grant_warp");
    assert_eq!(
        m.got,
        m.expected | 1,
        "RTL grants the odd warp, the faulty golden drops bit 0"
    );
    // Described from the pair's snapshot at cycle 0 (the default interval is longer than
    // the run so far), not by running the GPU again.
    assert_eq!(m.resumed_from, Some(0));
    let gpath = m.golden_vcd.clone().expect("golden waveform");
    let rpath = m.rtl_vcd.clone().expect("rtl waveform");
    assert_eq!(gpath, dir.path().join("sm3_sched1.golden.vcd"));
    assert_eq!(rpath, dir.path().join("sm3_sched1.rtl.vcd"));
    let t = 2 * expected_cycle;
    for (path, want) in [(&gpath, m.expected), (&rpath, m.got)] {
        let (values, times) = parse_vcd(path);
        // From the rising edge of the window's first cycle to the mismatching cycle's `2c`.
        assert_eq!(
            *times.iter().min().unwrap(),
            2 * (expected_cycle + 1 - 40) - 1
        );
        assert_eq!(*times.iter().max().unwrap(), t);
        assert_eq!(
            value_at(&values, "grant_warp", t),
            want,
            "{}",
            path.display()
        );
    }
}

#[test]
fn the_first_mismatch_is_the_same_whatever_the_number_of_rtl_threads() {
    if !verilator_built() {
        return;
    }
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions::default();
    // Three faulty arbiters, on different threads, which diverge at different cycles: each
    // flips bit 23 of `active` (not used by the GPU) from its cycle on.
    let faulty = [(3, 1, 300), (7, 0, 250), (12, 1, 280)];
    let first = |threads: usize| {
        let dir = tempfile::tempdir().unwrap();
        let cfg = LockstepConfig {
            window: 8,
            mismatch_dir: dir.path().to_path_buf(),
            ..Default::default()
        };
        let make = |threads: &RtlThreads| {
            let (cfg, threads) = (&cfg, threads.clone());
            Override::<_, wa::Kind, _>::new(GoldenBlocks, move |site, p: &Params| {
                let from = faulty.iter().find_map(|&(sm, scheduler, from)| {
                    (site == Site::Scheduler { sm, scheduler }).then_some(from)
                });
                let g = Golden::new(*p);
                match from {
                    Some(from) => tbgpu::instance::<wa::Kind, _>(
                        BlockMode::Lockstep,
                        Faulty::new(g, from, |o: &mut ArbiterOut| o.active ^= 1 << 23),
                        p,
                        site,
                        cfg,
                        &threads,
                    ),
                    None => tbgpu::instance::<wa::Kind, _>(
                        BlockMode::Lockstep,
                        g,
                        p,
                        site,
                        cfg,
                        &threads,
                    ),
                }
            })
        };
        let err = tbgpu::run_with(
            &gpu,
            &opts,
            &mut || -> Result<Box<dyn WorkloadSource>, SimError> {
                Ok(Box::new(builtin::workload("compute", "small").unwrap()))
            },
            (&make, threads),
            &mut |_| {},
        )
        .unwrap_err();
        match err {
            GpuRunError::Mismatch(m) => (m.name, m.cycle, m.port, m.expected, m.got),
            other => panic!("expected a mismatch, got {other}"),
        }
    };
    let one = first(1);
    assert_eq!(
        (one.0.as_str(), one.1, one.2.as_str()),
        ("sm7_sched0", 250, "active")
    );
    for threads in [2, 3, 5] {
        assert_eq!(first(threads), one, "{threads} RTL threads");
    }
}

#[test]
fn verilated_elf_and_newcar_agree_with_golden_inside_the_gpu_under_elf_plus_plus() {
    if !verilator_built() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 64,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    let mut all = workloads();
    for k in ["lbm", "bfs", "mm", "locality_col"] {
        all.push((
            k.into(),
            Box::new(move || gpusim::workload::open_named(k, "small").unwrap()),
        ));
    }
    let mut runs: Vec<_> = all
        .into_iter()
        .map(|(name, open)| (name, open, SimOptions::parse("--warp-sched elf++").unwrap()))
        .collect();
    // A merged table (heartwall: 94 program points into 32) under both merge boundaries.
    for merge_ge in [false, true] {
        runs.push((
            format!("heartwall (merge_ge = {merge_ge})"),
            Box::new(|| gpusim::workload::open_named("heartwall", "small").unwrap()),
            SimOptions::parse(&format!(
                "--warp-sched elf++ --elf-merge {}",
                if merge_ge { "ge" } else { "gt" }
            ))
            .unwrap(),
        ));
    }
    let mut queued = 0;
    for (name, open, opts) in runs {
        let golden = run(&open, &opts, BlockMode::Golden, &cfg).unwrap();
        let lockstep = run(&open, &opts, BlockMode::Lockstep, &cfg)
            .unwrap_or_else(|e| panic!("{name} elf++: {e}"));
        let rtl = run(&open, &opts, BlockMode::Rtl, &cfg).unwrap();
        let json = |r: &Report| serde_json::to_string(r).unwrap();
        assert_eq!(json(&lockstep), json(&golden), "{name}: lockstep");
        assert_eq!(json(&rtl), json(&golden), "{name}: RTL alone");
        queued += golden.counters.lsu_queue_enqueued;
        eprintln!(
            "{name} elf++: {} cycles x 15 ELF + 15 NewCAR blocks in lockstep, 0 mismatches",
            golden.counters.cycles
        );
    }
    assert!(queued > 0, "NewCAR queued something");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_planted_bug_in_one_elf_block_stops_the_gpu_with_waveforms() {
    if !verilator_built() {
        return;
    }
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions::parse("--warp-sched elf++").unwrap();
    let victim = Site::Sm {
        sm: 5,
        block: "elf",
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 32,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    // From cycle 200 the faulty golden model fetches for warp 0 whenever it fetches.
    let make = |threads: &RtlThreads| {
        let (cfg, threads) = (&cfg, threads.clone());
        let base = TbBlocks::new(Modes::default(), cfg, &threads);
        Override::<_, elf::Kind, _>::new(base, move |site, p: &elf::Params| {
            if site != victim {
                return Ok(Box::new(elf::Golden::new(*p)) as SitePort<'_, elf::Kind>);
            }
            let buggy = Faulty::new(elf::Golden::new(*p), 200, |o: &mut elf::ElfOut| {
                o.fetch_warp = 0
            });
            tbgpu::instance::<elf::Kind, _>(BlockMode::Lockstep, buggy, p, site, cfg, &threads)
        })
    };
    let m = planted_mismatch(&gpu, &opts, &make);
    assert_eq!(m.name, "sm5_elf");
    assert!(m.cycle >= 200);
    assert_eq!(m.port, "fetch_warp");
    assert_eq!(m.expected, 0);
    assert!(m.golden_vcd.as_ref().is_some_and(|p| p.exists()));
    assert!(m.rtl_vcd.as_ref().is_some_and(|p| p.exists()));
}

#[test]
fn configurations_without_a_matching_rtl_module_are_refused() {
    let p = Params::new(Policy::Gto, 16, 4).unwrap();
    let e = tbgpu::module_for::<wa::Kind>(&p).unwrap_err().to_string();
    assert!(
        e.contains("no warp_arbiter RTL for gto 16 warps per scheduler")
            && e.contains("fermi (gto 24 warps"),
        "{e}"
    );
    assert_eq!(
        tbgpu::module_for::<wa::Kind>(&Params::new(Policy::TwoLevel, 24, 6).unwrap()).unwrap(),
        "warp_arbiter_two_level_fermi"
    );
    // ELF with registered WPT updates is golden only (no RTL module); pipelined has one.
    let p = elf::Params {
        wpt_update: elf::WptUpdate::Registered,
        ..elf::Params::preset(elf::Preset::Fermi)
    };
    let e = tbgpu::module_for::<elf::Kind>(&p).unwrap_err().to_string();
    assert!(
        e.contains(
            "no elf RTL for 48 warps, 2 schedulers, 32 program points, registered WPT updates"
        ) && e.contains("fermi (48 warps, 2 schedulers, 32 program points, pipelined WPT updates)"),
        "{e}"
    );
    let p = elf::Params {
        wpt_update: elf::WptUpdate::Pipelined,
        ..elf::Params::preset(elf::Preset::Fermi)
    };
    assert_eq!(
        tbgpu::module_for::<elf::Kind>(&p).unwrap(),
        "elf_pipelined_fermi"
    );
    assert_eq!(
        tbgpu::module_for::<elf::Kind>(&elf::Params::preset(elf::Preset::Fermi)).unwrap(),
        "elf_base_fermi"
    );
}

#[test]
fn a_planted_bug_in_the_thread_block_dispatcher_stops_the_gpu_with_waveforms() {
    if !verilator_built() {
        return;
    }
    use gpusim::blocks::tb_dispatch::{self as td, DispatchOut};
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions::default();
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 24,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    // From cycle 1 the faulty golden dispatcher gives SM 0's block to no one.
    let make = |threads: &RtlThreads| {
        let (cfg, threads) = (&cfg, threads.clone());
        Override::<_, td::Kind, _>::new(GoldenBlocks, move |site, p: &td::Params| {
            let buggy = Faulty::new(td::Golden::new(*p), 1, |o: &mut DispatchOut| o.grant &= !1);
            tbgpu::instance::<td::Kind, _>(BlockMode::Lockstep, buggy, p, site, cfg, &threads)
        })
    };
    let m = planted_mismatch(&gpu, &opts, &make);
    assert_eq!(
        (m.name.as_str(), m.cycle, m.port.as_str()),
        ("tb_dispatch", 1, "grant")
    );
    assert_eq!(m.got, m.expected | 1);
    for (path, want) in [(&m.golden_vcd, m.expected), (&m.rtl_vcd, m.got)] {
        let path = path.as_ref().expect("waveform written");
        assert_eq!(
            path.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .split('.')
                .next(),
            Some("tb_dispatch")
        );
        let (values, _) = parse_vcd(path);
        assert_eq!(value_at(&values, "grant", 2), want, "{}", path.display());
    }
}

#[test]
fn a_planted_bug_in_one_sm_resource_allocator_stops_the_gpu_with_waveforms() {
    if !verilator_built() {
        return;
    }
    use gpusim::blocks::sm_alloc::{self as sa, AllocOut};
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions::default();
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 24,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    let victim = Site::Sm {
        sm: 3,
        block: "sm_alloc",
    };
    // From cycle 1 SM 3's faulty golden allocator says nothing more fits.
    let make = |threads: &RtlThreads| {
        let (cfg, threads) = (&cfg, threads.clone());
        Override::<_, sa::Kind, _>::new(GoldenBlocks, move |site, p: &sa::Params| {
            if site != victim {
                return Ok(Box::new(sa::Golden::new(*p)) as SitePort<'_, sa::Kind>);
            }
            let buggy = Faulty::new(sa::Golden::new(*p), 1, |o: &mut AllocOut| o.room = false);
            tbgpu::instance::<sa::Kind, _>(BlockMode::Lockstep, buggy, p, site, cfg, &threads)
        })
    };
    let m = planted_mismatch(&gpu, &opts, &make);
    assert_eq!(
        (m.name.as_str(), m.cycle, m.port.as_str()),
        ("sm3_sm_alloc", 1, "room")
    );
    assert_eq!((m.expected, m.got), (0, 1));
    for (path, want) in [(&m.golden_vcd, 0), (&m.rtl_vcd, 1)] {
        let path = path.as_ref().expect("waveform written");
        let (values, _) = parse_vcd(path);
        assert_eq!(value_at(&values, "room", 2), want, "{}", path.display());
    }
}

/// Runs `open` with every block golden, in lockstep and Verilated alone: the same report
/// each time (the golden one is returned).
fn same_in_every_mode(
    name: &str,
    open: &dyn Fn() -> Box<dyn WorkloadSource>,
    opts: &SimOptions,
    cfg: &LockstepConfig,
) -> Report {
    let golden = run(open, opts, BlockMode::Golden, cfg).unwrap();
    let lockstep = run(open, opts, BlockMode::Lockstep, cfg)
        .unwrap_or_else(|e| panic!("{name} {}: {e}", opts.label()));
    let rtl = run(open, opts, BlockMode::Rtl, cfg).unwrap();
    let json = |r: &Report| serde_json::to_string(r).unwrap();
    assert_eq!(json(&lockstep), json(&golden), "{name}: lockstep");
    assert_eq!(json(&rtl), json(&golden), "{name}: RTL alone");
    golden
}

#[test]
fn verilated_laws_schedulers_agree_with_golden_inside_the_gpu() {
    if !verilator_built() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 64,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    // The real traces and kernels with row sharing (seed 000's type I), each a few thousand
    // cycles: the Verilated `fermi` scheduler runs about 0.01 M cycles/s, 30 of them here.
    let mut all: Vec<(String, Opener)> = workloads()
        .into_iter()
        .filter(|(n, _)| n.contains('-'))
        .collect();
    for k in ["hs", "srad"] {
        all.push((
            k.into(),
            Box::new(move || gpusim::workload::open_named(k, "small").unwrap()),
        ));
    }
    let opts = SimOptions::parse("--warp-sched laws").unwrap();
    for (name, open) in all {
        let golden = same_in_every_mode(&name, &open, &opts, &cfg);
        eprintln!(
            "{name} laws: {} cycles x 30 LAWS blocks in lockstep, 0 mismatches",
            golden.counters.cycles
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_planted_bug_in_one_laws_scheduler_stops_the_gpu_with_waveforms() {
    if !verilator_built() {
        return;
    }
    use gpusim::blocks::locality_degree::{self as ld, LawsOut};
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions::parse("--warp-sched laws").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 24,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    let victim = Site::Scheduler {
        sm: 2,
        scheduler: 1,
    };
    // From cycle 200 the victim's faulty golden scheduler reports an empty active group.
    let make = |threads: &RtlThreads| {
        let (cfg, threads) = (&cfg, threads.clone());
        Override::<_, ld::Kind, _>::new(GoldenBlocks, move |site, p: &ld::Params| {
            if site != victim {
                return Ok(Box::new(ld::Golden::new(*p)) as SitePort<'_, ld::Kind>);
            }
            let buggy = Faulty::new(ld::Golden::new(*p), 200, |o: &mut LawsOut| o.active = 0);
            tbgpu::instance::<ld::Kind, _>(BlockMode::Lockstep, buggy, p, site, cfg, &threads)
        })
    };
    let m = planted_mismatch(&gpu, &opts, &make);
    assert_eq!((m.name.as_str(), m.port.as_str()), ("sm2_sched1", "active"));
    assert!(m.cycle >= 200 && m.expected == 0 && m.got != 0, "{m}");
    for (path, want) in [(&m.golden_vcd, m.expected), (&m.rtl_vcd, m.got)] {
        let path = path.as_ref().expect("waveform written");
        let (values, _) = parse_vcd(path);
        assert_eq!(
            value_at(&values, "active", 2 * m.cycle),
            want,
            "{}",
            path.display()
        );
    }
}

/// Locality-aware dispatch with the RTL's window of 32 (the `fermi` module's parameters on
/// `gtx480`).
fn la_tb(laws: bool) -> SimOptions {
    let warp = if laws { " --warp-sched laws" } else { "" };
    SimOptions::parse(&format!("--tb-sched locality --la-window 32{warp}")).unwrap()
}

#[test]
fn verilated_locality_dispatcher_agrees_with_golden_inside_the_gpu() {
    if !verilator_built() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 64,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    // The real traces and kernels with row and column sharing (seed 000's types I and II).
    let mut all: Vec<(String, Opener)> = workloads()
        .into_iter()
        .filter(|(n, _)| n.contains('-'))
        .collect();
    for k in ["hs", "locality_col"] {
        all.push((
            k.into(),
            Box::new(move || gpusim::workload::open_named(k, "small").unwrap()),
        ));
    }
    for (name, open) in all {
        let golden = same_in_every_mode(&name, &open, &la_tb(false), &cfg);
        eprintln!(
            "{name} locality dispatch: {} cycles in lockstep, 0 mismatches",
            golden.counters.cycles
        );
    }
    // The `serial` engine (the `la_tb_dispatch_serial_fermi` module).
    let serial =
        SimOptions::parse("--tb-sched locality --la-window 32 --la-engine serial").unwrap();
    let open = || gpusim::workload::open_named("locality_col", "small").unwrap();
    same_in_every_mode("locality_col serial", &open, &serial, &cfg);
    // Both locality blocks in hardware at once: the dispatcher and 30 LAWS schedulers.
    let (name, open) = &workloads()[0];
    let both = la_tb(true);
    let golden = run(open, &both, BlockMode::Golden, &cfg).unwrap();
    let lockstep = run(open, &both, BlockMode::Lockstep, &cfg).unwrap();
    assert_eq!(
        serde_json::to_string(&lockstep).unwrap(),
        serde_json::to_string(&golden).unwrap(),
        "{name}: LA-TB + LAWS in lockstep"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_planted_bug_in_the_locality_dispatcher_stops_the_gpu_with_waveforms() {
    if !verilator_built() {
        return;
    }
    use gpusim::blocks::la_tb_dispatch::{self as la, LaDispatchOut};
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = la_tb(false);
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 24,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    // From cycle 1 the faulty golden dispatcher takes no block from the queue.
    let make = |threads: &RtlThreads| {
        let (cfg, threads) = (&cfg, threads.clone());
        Override::<_, la::Kind, _>::new(GoldenBlocks, move |site, p: &la::Params| {
            let buggy = Faulty::new(la::Golden::new(*p), 1, |o: &mut LaDispatchOut| {
                o.fill_taken = 0
            });
            tbgpu::instance::<la::Kind, _>(BlockMode::Lockstep, buggy, p, site, cfg, &threads)
        })
    };
    let m = planted_mismatch(&gpu, &opts, &make);
    assert_eq!(
        (m.name.as_str(), m.port.as_str(), m.expected),
        ("la_tb_dispatch", "fill_taken", 0)
    );
    assert!(m.cycle >= 1 && m.got == 1, "{m}");
    for (path, want) in [(&m.golden_vcd, 0), (&m.rtl_vcd, 1)] {
        let path = path.as_ref().expect("waveform written");
        let (values, _) = parse_vcd(path);
        assert_eq!(
            value_at(&values, "fill_taken", 2 * m.cycle),
            want,
            "{}",
            path.display()
        );
    }
}

/// Chimera's mixes: `mixes/two_streams.toml` (`mm` preempted at cycle 3,000 by `chimera_bs`)
/// and `mixes/periodic_task.toml` (`chimera_imgvf`, whose blocks overwrite their input,
/// preempted twice by the periodic task).
fn chimera_mixes() -> Vec<(String, Opener)> {
    let open = |name: &'static str| -> (String, Opener) {
        let path = format!("{}/../mixes/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let opener: Opener =
            Box::new(move || Box::new(Mix::parse(&text, std::path::Path::new(&path)).unwrap()));
        (name.into(), opener)
    };
    vec![open("two_streams"), open("periodic_task")]
}

#[test]
fn verilated_chimera_tb_agrees_with_golden_inside_the_gpu_on_the_chimera_mixes() {
    if !verilator_built() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 64,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    for (name, open) in chimera_mixes() {
        for sched in ["chimera", "switch-only", "drain-only", "flush-only"] {
            let opts = SimOptions::parse(&format!("--kernel-sched {sched}")).unwrap();
            let r = same_in_every_mode(&name, &open, &opts, &cfg);
            let requests = r.kernel_sched_stats["requests"].as_u64().unwrap();
            assert!(
                requests >= 1,
                "{name} {sched}: a request planned by the blocks"
            );
            eprintln!(
                "{name} {sched}: {} cycles x 15 chimera_tb in lockstep, {requests} requests, \
                 0 mismatches",
                r.counters.cycles
            );
        }
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no waveforms"
    );
}

#[test]
fn a_planted_bug_in_one_chimera_tb_stops_the_gpu_at_its_plan_with_waveforms() {
    if !verilator_built() {
        return;
    }
    use gpusim::blocks::chimera_tb::{self as ctb, block::ChimeraOut};
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions::parse("--kernel-sched chimera").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 32,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    let victim = Site::Sm {
        sm: 6,
        block: "chimera_tb",
    };
    // SM 6's faulty golden block reports every plan it publishes as missing the limit. The
    // request of cycle 3,000 starts a pass of 67 + 37 x 8 = 363 cycles: the plan shows at 3,364.
    let make = |threads: &RtlThreads| {
        let (cfg, threads) = (&cfg, threads.clone());
        let base = TbBlocks::new(Modes::default(), cfg, &threads);
        Override::<_, ctb::Kind, _>::new(base, move |site, p: &ctb::block::Params| {
            if site != victim {
                return Ok(Box::new(ctb::block::Golden::new(*p)) as SitePort<'_, ctb::Kind>);
            }
            let buggy = Faulty::new(ctb::block::Golden::new(*p), 0, |o: &mut ChimeraOut| {
                if o.done {
                    o.ok = !o.ok
                }
            });
            tbgpu::instance::<ctb::Kind, _>(BlockMode::Lockstep, buggy, p, site, cfg, &threads)
        })
    };
    let (_, open) = chimera_mixes().remove(0);
    let err =
        tbgpu::run_with(&gpu, &opts, &mut || Ok(open()), (&make, 2), &mut |_| {}).unwrap_err();
    let GpuRunError::Mismatch(m) = err else {
        panic!("expected a mismatch, got {err}")
    };
    assert_eq!(
        (m.name.as_str(), m.cycle, m.port.as_str()),
        ("sm6_chimera_tb", 3364, "ok")
    );
    assert_eq!((m.expected, m.got), (0, 1));
    for (path, want) in [(&m.golden_vcd, 0), (&m.rtl_vcd, 1)] {
        let path = path.as_ref().expect("waveform written");
        let (values, times) = parse_vcd(path);
        let last = *times.last().unwrap();
        assert_eq!(value_at(&values, "ok", last), want, "{}", path.display());
        assert_eq!(value_at(&values, "done", last), 1, "{}", path.display());
    }
}

/// The medium `mm` + `chimera_bs` pair of the README's Maestro table (`chimera_bs` at cycle 500).
fn maestro_pair() -> (String, Opener) {
    let text = "[[kernel]]\nworkload = \"mm\"\nsize = \"medium\"\nstream = 0\n\n\
                [[kernel]]\nworkload = \"chimera_bs\"\nsize = \"medium\"\nstream = 1\n\
                arrival = 500\n";
    let opener: Opener =
        Box::new(move || Box::new(Mix::parse(text, std::path::Path::new("pair.toml")).unwrap()));
    ("mm+chimera_bs".into(), opener)
}

#[test]
fn verilated_twoway_alloc_agrees_with_golden_inside_the_gpu_under_maestro() {
    if !verilator_built() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 64,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    let mut cases: Vec<_> = chimera_mixes()
        .into_iter()
        .zip([
            "--kernel-sched smk --sm-alloc twoway",
            "--kernel-sched maestro",
        ])
        .collect();
    cases.push((
        maestro_pair(),
        "--kernel-sched maestro --epoch 10000 --preempt switch",
    ));
    for ((name, open), args) in cases {
        let opts = SimOptions::parse(args).unwrap();
        let r = same_in_every_mode(&name, &open, &opts, &cfg);
        let stat = |k: &str| r.sm_alloc_stats[k];
        assert!(
            stat("offered_cycles") >= 1,
            "{name} {args}: kernels offered"
        );
        eprintln!(
            "{name} {args}: {} cycles x 15 twoway_alloc in lockstep, {} offered, {} refused, \
             {} fragmented, 0 mismatches",
            r.counters.cycles,
            stat("offered_cycles"),
            stat("refused_cycles"),
            stat("fragmented_cycles")
        );
        if name == "mm+chimera_bs" {
            // The pair refuses blocks, fragmentation among the reasons, and switches blocks
            // out: every output of the allocator is exercised.
            assert!(
                stat("refused_cycles") > 0 && stat("fragmented_cycles") > 0,
                "{name}"
            );
        }
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no waveforms"
    );
}

#[test]
fn a_planted_bug_in_one_twoway_alloc_stops_the_gpu_with_waveforms() {
    if !verilator_built() {
        return;
    }
    use gpusim::blocks::twoway_alloc::{self as tw, TwoWayOut};
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions::parse("--sm-alloc twoway").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 24,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    let victim = Site::Sm {
        sm: 3,
        block: "twoway_alloc",
    };
    // From cycle 1 SM 3's faulty golden allocator gives its second grant the first one's slot.
    let make = |threads: &RtlThreads| {
        let (cfg, threads) = (&cfg, threads.clone());
        Override::<_, tw::Kind, _>::new(GoldenBlocks, move |site, p: &tw::Params| {
            if site != victim {
                return Ok(Box::new(tw::Golden::new(*p)) as SitePort<'_, tw::Kind>);
            }
            let buggy = Faulty::new(tw::Golden::new(*p), 1, |o: &mut TwoWayOut| {
                if o.room2 {
                    o.slot1 = o.slot0
                }
            });
            tbgpu::instance::<tw::Kind, _>(BlockMode::Lockstep, buggy, p, site, cfg, &threads)
        })
    };
    let m = planted_mismatch(&gpu, &opts, &make);
    assert_eq!(
        (m.name.as_str(), m.cycle, m.port.as_str()),
        ("sm3_twoway_alloc", 1, "slot1")
    );
    assert_eq!((m.expected, m.got), (0, 1));
    for (path, want) in [(&m.golden_vcd, 0), (&m.rtl_vcd, 1)] {
        let path = path.as_ref().expect("waveform written");
        let (values, _) = parse_vcd(path);
        assert_eq!(value_at(&values, "slot1", 2), want, "{}", path.display());
    }
}

#[test]
fn verilated_kernel_lrr_agrees_with_golden_inside_the_gpu_under_maestro() {
    if !verilator_built() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 64,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    let (name, open) = maestro_pair();
    for args in [
        "--warp-sched kernel_lrr --kernel-sched maestro --epoch 10000 --preempt drain",
        "--warp-sched kernel_lrr --kernel-sched smk --sm-alloc twoway",
    ] {
        let opts = SimOptions::parse(args).unwrap();
        let r = same_in_every_mode(&name, &open, &opts, &cfg);
        eprintln!(
            "{name} {args}: {} cycles x 30 kernel_lrr (and 15 twoway_alloc) in lockstep, 0 mismatches",
            r.counters.cycles
        );
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no waveforms"
    );
}

#[test]
fn a_planted_bug_in_one_kernel_lrr_stops_the_gpu_with_waveforms() {
    if !verilator_built() {
        return;
    }
    use gpusim::blocks::kernel_lrr::{self as kl, KernelLrrOut};
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions::parse("--warp-sched kernel_lrr").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 24,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    let victim = Site::Scheduler {
        sm: 2,
        scheduler: 1,
    };
    // From cycle 1 the faulty golden block of SM 2's second scheduler reports no tier.
    let make = |threads: &RtlThreads| {
        let (cfg, threads) = (&cfg, threads.clone());
        Override::<_, kl::Kind, _>::new(GoldenBlocks, move |site, p: &kl::Params| {
            if site != victim {
                return Ok(Box::new(kl::Golden::new(*p)) as SitePort<'_, kl::Kind>);
            }
            let buggy = Faulty::new(kl::Golden::new(*p), 1, |o: &mut KernelLrrOut| o.tier = 0);
            tbgpu::instance::<kl::Kind, _>(BlockMode::Lockstep, buggy, p, site, cfg, &threads)
        })
    };
    let m = planted_mismatch(&gpu, &opts, &make);
    assert_eq!(m.name.as_str(), "sm2_sched1");
    assert_eq!((m.port.as_str(), m.expected), ("tier", 0));
    for (path, want) in [(&m.golden_vcd, 0), (&m.rtl_vcd, m.got)] {
        let path = path.as_ref().expect("waveform written");
        let (values, times) = parse_vcd(path);
        let last = *times.last().unwrap();
        assert_eq!(value_at(&values, "tier", last), want, "{}", path.display());
    }
}

/// PAVER's dispatch with recursive bisection and the stealer (`rb-ts`) or without stealing
/// (`mst-ts`): the `fermi` scheduler (15 SMs) on `gtx480`.
fn paver(scheme: &str) -> SimOptions {
    SimOptions::parse(&format!("--tb-sched {scheme}")).unwrap()
}

#[test]
fn verilated_paver_scheduler_agrees_with_golden_inside_the_gpu() {
    if !verilator_built() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 64,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    // The real traces and kernels that mirror Table 2's benchmarks (MM, HS; spmv's irregular
    // sharing), with and without the task stealer; at `small` each fits the GPU in one wave, so
    // `mm` also runs at `medium` (several waves): the stealer moves blocks there.
    let mut all: Vec<(String, Opener)> = workloads()
        .into_iter()
        .filter(|(n, _)| n.contains('-'))
        .collect();
    for (k, size) in [
        ("mm", "small"),
        ("hs", "small"),
        ("spmv", "small"),
        ("mm", "medium"),
    ] {
        all.push((
            format!("{k} {size}"),
            Box::new(move || gpusim::workload::open_named(k, size).unwrap()),
        ));
    }
    let mut steals = [0u64; 2];
    for (name, open) in all {
        for (i, scheme) in ["rb-ts", "mst-ts"].into_iter().enumerate() {
            let golden = same_in_every_mode(&name, &open, &paver(scheme), &cfg);
            let n: u64 = golden
                .kernels
                .iter()
                .map(|k| k.dispatch["steals"].as_u64().unwrap())
                .sum();
            steals[i] += n;
            eprintln!(
                "{name} {scheme}: {} cycles in lockstep, 0 mismatches, {n} steals",
                golden.counters.cycles
            );
        }
    }
    // The stealer ran inside the GPU in lockstep (the reports, steal counts included, are the
    // same in every mode); MST-TS never steals.
    assert!(
        steals[0] > 0 && steals[1] == 0,
        "steals (rb-ts, mst-ts): {steals:?}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_planted_bug_in_the_paver_scheduler_stops_the_gpu_with_waveforms() {
    if !verilator_built() {
        return;
    }
    use gpusim::blocks::paver_tb::{self as pv, PaverOut};
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = paver("rb-ts");
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 24,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    // From cycle 1 the faulty golden scheduler reports no group assignment.
    let make = |threads: &RtlThreads| {
        let (cfg, threads) = (&cfg, threads.clone());
        Override::<_, pv::Kind, _>::new(GoldenBlocks, move |site, p: &pv::Params| {
            let buggy = Faulty::new(pv::Golden::new(*p), 1, |o: &mut PaverOut| o.assigned = 0);
            tbgpu::instance::<pv::Kind, _>(BlockMode::Lockstep, buggy, p, site, cfg, &threads)
        })
    };
    let m = planted_mismatch(&gpu, &opts, &make);
    assert_eq!(
        (m.name.as_str(), m.port.as_str(), m.expected),
        ("paver_tb", "assigned", 0)
    );
    assert!(m.cycle >= 1 && m.got != 0, "{m}");
    for (path, want) in [(&m.golden_vcd, 0), (&m.rtl_vcd, m.got)] {
        let path = path.as_ref().expect("waveform written");
        let (values, _) = parse_vcd(path);
        assert_eq!(
            value_at(&values, "assigned", 2 * m.cycle),
            want,
            "{}",
            path.display()
        );
    }
}
