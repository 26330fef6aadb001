use super::sites::{BlockFault, GoldenBlocks, Override, Port, SitePort};
use super::*;
use crate::blocks::locality_degree::{self, LawsIn, LawsOut};
use crate::blocks::warp_arbiter::{self as arbiter, ArbiterIn, ArbiterOut};
use crate::config::GpuConfig;
use crate::workload::builtin::{self, Builtin};
use crate::workload::kernel::SingleKernel;
use crate::workload::kernel::{KernelSource, TraceWorkload, WorkloadError, WorkloadSource};
use crate::workload::shared_trace;

pub(super) fn gtx480() -> GpuConfig {
    GpuConfig::preset("gtx480").unwrap()
}

fn run_on(cfg: &GpuConfig, workload: &mut dyn WorkloadSource, opts: SimOptions) -> Report {
    let mut gpu = Gpu::golden(cfg, opts).unwrap();
    gpu.run(workload, &mut |_| {}).unwrap()
}

fn run(workload: &mut dyn WorkloadSource, opts: SimOptions) -> Report {
    run_on(&gtx480(), workload, opts)
}

/// The options of `args` (as `gpusched sim` takes them).
pub(super) fn opts(args: &str) -> SimOptions {
    SimOptions::parse(args).unwrap_or_else(|e| panic!("{args}: {e}"))
}

fn builtin(name: &str, size: &str) -> SingleKernel {
    builtin::workload(name, size).unwrap()
}

#[test]
fn real_traces_complete_with_exact_instruction_counts_under_every_policy() {
    for (name, warp, thread) in [
        ("vectoradd-100-32", 344, 10_516),
        ("matrixmul-32-32", 4_416, 139_264),
    ] {
        let Some(dir) = shared_trace(name) else {
            return;
        };
        for policy in ["lrr", "gto", "two-level"] {
            for tb in [
                "--tb-sched lrr",
                "--tb-sched bcs",
                "--tb-sched locality",
                "--tb-sched locality --warp-sched laws",
            ] {
                let mut w = TraceWorkload::open(&dir).unwrap();
                let (policy, tb) = match tb.contains("laws") {
                    true => ("", tb.to_string()),
                    false => (policy, format!("{tb} --warp-sched {policy}")),
                };
                let r = run(&mut w, opts(&tb));
                let c = &r.counters;
                assert_eq!(
                    (c.warp_instructions, c.thread_instructions, c.blocks),
                    (warp, thread, 1),
                    "{name} under {policy:?}/{tb:?}"
                );
                assert!(!r.truncated && c.cycles > 0);
                // Every global load line misses once in a cold L1D (matrixmul's `LDG.E`) or
                // bypasses it (vectoradd's `LDG.E.CG`); stores go through.
                let bypassed: u64 = r.kernels[0].loads.iter().map(|l| l.bypassed).sum();
                assert!(c.l1d.misses + bypassed > 0 && c.l1d.writes > 0, "{c:?}");
                assert_eq!(bypassed > 0, name.starts_with("vectoradd"), "{name}");
                assert_eq!(
                    c.l2.writes, c.l1d.writes,
                    "every write-through reaches the L2"
                );
                assert_eq!(r.unknown_opcodes, Vec::<String>::new());
            }
        }
    }
}

#[test]
fn every_preset_runs_a_trace_to_completion() {
    let Some(dir) = shared_trace("matrixmul-32-32") else {
        return;
    };
    for preset in crate::config::presets::NAMES {
        let cfg = GpuConfig::preset(preset).unwrap();
        let r = run_on(
            &cfg,
            &mut TraceWorkload::open(&dir).unwrap(),
            SimOptions::default(),
        );
        assert_eq!(r.counters.thread_instructions, 139_264, "{preset}");
        assert_eq!(r.sms.len(), cfg.sm.count as usize);
    }
}

#[test]
fn two_runs_give_identical_reports() {
    let json = |w: &mut dyn WorkloadSource, policy: &str| {
        serde_json::to_string(&run(w, opts(&format!("--warp-sched {policy}")))).unwrap()
    };
    for policy in ["lrr", "gto", "two-level"] {
        let a = json(&mut builtin("stream", "small"), policy);
        let b = json(&mut builtin("stream", "small"), policy);
        assert_eq!(a, b, "{policy:?}");
    }
    if let Some(dir) = shared_trace("matrixmul-32-32") {
        let a = json(&mut TraceWorkload::open(&dir).unwrap(), "gto");
        let b = json(&mut TraceWorkload::open(&dir).unwrap(), "gto");
        assert_eq!(a, b);
    }
}

#[test]
fn builtin_kernels_count_their_instructions_and_misses() {
    for name in ["stream", "compute"] {
        let expect = Builtin::new(name, "small").unwrap().thread_instructions();
        let r = run(&mut builtin(name, "small"), SimOptions::default());
        let c = &r.counters;
        assert_eq!(c.thread_instructions, expect, "{name}");
        assert_eq!(
            c.thread_instructions,
            32 * c.warp_instructions,
            "full warps"
        );
        assert_eq!(c.blocks, 30);
        // Each load of a warp reads one whole new 128 B line: one L1D miss each, one L2 miss
        // each (no line is shared), four 32 B sector reads per L2 miss, each a 64 B burst.
        let loads_per_warp = if name == "stream" { 2 * 2 } else { 1 };
        let warps = 30 * 8;
        assert_eq!(c.l1d.misses, loads_per_warp * warps, "{name}: {:?}", c.l1d);
        assert_eq!(c.l1d.hits, 0);
        // Instruction fetches also reach the L2: its misses are data lines plus code lines.
        let code_misses = c.l1i.misses;
        assert!(c.l2.misses >= c.l1d.misses && c.l2.misses <= c.l1d.misses + code_misses);
        assert_eq!(c.dram.reads, 4 * c.l2.misses);
        assert_eq!(c.dram.read_bytes, 128 * c.l2.misses);
    }
}

#[test]
fn memory_bound_and_compute_bound_kernels_behave_as_such() {
    let cfg = gtx480();
    let stream = run(&mut builtin("stream", "medium"), SimOptions::default());
    let compute = run(&mut builtin("compute", "medium"), SimOptions::default());
    assert!(
        compute.ipc > 2.0 * stream.ipc,
        "compute IPC {} vs stream IPC {}",
        compute.ipc,
        stream.ipc
    );
    // The streaming kernel keeps the DRAM data buses busy most of the time.
    let busy = crate::gpu::stats::dram_bus_busy(&cfg, &stream.counters);
    assert!(
        busy > 0.5 && busy <= 1.0,
        "stream keeps DRAM {busy:.2} busy"
    );
    // Peak issue: 2 schedulers x 15 SMs x 32 threads.
    assert!(
        compute.ipc > 0.5 * 960.0 && compute.ipc <= 960.0,
        "{}",
        compute.ipc
    );
}

/// Two built-in kernels in a row.
struct TwoKernels(Vec<Builtin>);

impl WorkloadSource for TwoKernels {
    fn name(&self) -> &str {
        "two"
    }
    fn next_kernel(&mut self) -> Result<Option<Box<dyn KernelSource>>, WorkloadError> {
        Ok(if self.0.is_empty() {
            None
        } else {
            Some(Box::new(self.0.remove(0)))
        })
    }
}

#[test]
fn kernels_run_in_order_with_their_own_counters() {
    let mut w = TwoKernels(vec![
        Builtin::new("stream", "small").unwrap(),
        Builtin::new("compute", "small").unwrap(),
    ]);
    let r = run(&mut w, SimOptions::default());
    assert_eq!(r.kernels.len(), 2);
    let (a, b) = (&r.kernels[0], &r.kernels[1]);
    assert_eq!(
        b.start_cycle, a.counters.cycles,
        "the second starts when the first ends"
    );
    assert_eq!(a.counters.cycles + b.counters.cycles, r.counters.cycles);
    assert_eq!(
        a.counters.thread_instructions + b.counters.thread_instructions,
        r.counters.thread_instructions
    );
    assert_eq!(
        a.counters.thread_instructions,
        Builtin::new("stream", "small")
            .unwrap()
            .thread_instructions()
    );
    assert_eq!((a.counters.blocks, b.counters.blocks), (30, 30));
}

/// A launch latency (GPGPU-Sim's `-gpgpu_kernel_launch_latency` and `-gpgpu_TB_launch_latency`)
/// delays each kernel's first block by its cycles: each kernel runs that much longer, give or
/// take the few cycles the memory clock domains' phase at its start moves (an even delay
/// keeps the schedulers' leading order), with the same instructions.
#[test]
fn a_launch_latency_delays_each_kernel_by_its_cycles() {
    let two = || {
        TwoKernels(vec![
            Builtin::new("stream", "small").unwrap(),
            Builtin::new("compute", "small").unwrap(),
        ])
    };
    let r0 = run(&mut two(), SimOptions::default());
    let mut cfg = gtx480();
    cfg.launch.kernel_latency = 1000;
    cfg.launch.block_latency = 2;
    let r1 = run_on(&cfg, &mut two(), SimOptions::default());
    let delay: i64 = 1000 + 2 * 30;
    for (k0, k1) in r0.kernels.iter().zip(&r1.kernels) {
        let longer = k1.counters.cycles as i64 - k0.counters.cycles as i64;
        assert!((longer - delay).abs() <= 8, "{longer} cycles longer");
        assert_eq!(
            k1.counters.thread_instructions,
            k0.counters.thread_instructions
        );
    }
    assert_eq!(r1.kernels[1].start_cycle, r1.kernels[0].counters.cycles);
}

/// Volta's L1D path on a kernel that mostly hits (`conv`): with sector coalescing and a
/// sectored L1D every L1D read miss fetches one 32 B sector, and four L1D banks take the four
/// sectors of a coalesced line in one cycle where one bank takes four, so the kernel runs
/// faster with the same L1D accesses. (A streaming kernel need not: its misses then arrive
/// at the MSHRs and DRAM faster than they drain.)
#[test]
fn sectors_and_banks_take_a_coalesced_line_at_once() {
    let mut cfg = gtx480();
    cfg.pipeline.operand_collector.enabled = true;
    cfg.pipeline.sector_coalescing = true;
    cfg.l1d.sector_bytes = 32;
    let conv = || crate::workload::open_named("conv", "small").unwrap();
    let one = run_on(&cfg, &mut *conv(), SimOptions::default());
    let c = &one.counters;
    assert_eq!(c.l1d.sector_read_misses, c.l1d.misses, "one sector a miss");
    assert!(c.l1d.misses > 0);
    cfg.pipeline.l1d_banks = 4;
    let four = run_on(&cfg, &mut *conv(), SimOptions::default());
    assert_eq!(four.counters.l1d.accesses, c.l1d.accesses);
    assert!(
        four.counters.cycles < c.cycles,
        "{} cycles with 4 banks, {} with 1",
        four.counters.cycles,
        c.cycles
    );
}

/// `-gpgpu_inst_fetch_throughput`: with four fetches a cycle the i-buffers of an
/// instruction-bound kernel with many warps refill sooner (GPGPU-Sim runs its decode + fetch
/// loop that many times); the instructions are the same.
#[test]
fn several_fetches_a_cycle_feed_more_warps() {
    let mut cfg = gtx480();
    cfg.pipeline.perfect_inst_cache = true;
    let one = run_on(
        &cfg,
        &mut builtin("compute", "medium"),
        SimOptions::default(),
    );
    cfg.pipeline.fetch_throughput = 4;
    let four = run_on(
        &cfg,
        &mut builtin("compute", "medium"),
        SimOptions::default(),
    );
    let (a, b) = (&one.counters, &four.counters);
    assert_eq!(a.warp_instructions, b.warp_instructions);
    assert!(
        b.cycles < a.cycles,
        "{} cycles with 4 fetches, {} with 1",
        b.cycles,
        a.cycles
    );
}

/// GPGPU-Sim's `-gpgpu_max_insn_issue_per_warp 2`: a warp of `stream` issues an
/// independent instruction of another unit (its address arithmetic beside a load) in the
/// same cycle; never with one instruction per warp, and at least as often when two may share
/// a unit. The instructions are the same either way.
#[test]
fn a_warp_issues_two_instructions_a_cycle_when_the_configuration_allows() {
    let mut cfg = gtx480();
    let mut runs = vec![];
    for (per_warp, diff_units) in [(1, true), (2, true), (2, false)] {
        cfg.pipeline.issue_per_warp = per_warp;
        cfg.pipeline.dual_issue_diff_units = diff_units;
        let r = run_on(&cfg, &mut builtin("stream", "small"), SimOptions::default());
        let c = r.counters;
        runs.push((c.warp_instructions, c.stalls.issued, c.stalls.multi_issued));
    }
    let [(one, cycles, none), (two, fewer, paired), (same, _, any)] = runs[..] else {
        unreachable!()
    };
    assert_eq!((one, none), (two, 0));
    assert_eq!(one, same);
    assert!(
        paired > 0 && any >= paired,
        "{paired} paired, {any} with one unit allowed"
    );
    assert_eq!(
        cycles - fewer,
        paired,
        "each pair saves its scheduler an issue cycle"
    );
}

#[test]
fn max_cycles_truncates_the_run() {
    let opts = SimOptions {
        max_cycles: Some(500),
        ..Default::default()
    };
    let r = run(&mut builtin("stream", "small"), opts);
    assert!(r.truncated);
    assert_eq!(r.counters.cycles, 500);
}

/// An arbiter that never grants (a broken block).
struct NeverGrants;

impl Port<ArbiterIn, ArbiterOut> for NeverGrants {
    fn step(&mut self, _: &ArbiterIn) -> Result<ArbiterOut, BlockFault> {
        Ok(ArbiterOut::default())
    }
}

/// An arbiter that grants warp 0 every cycle, ready or not.
struct AlwaysWarp0;

impl Port<ArbiterIn, ArbiterOut> for AlwaysWarp0 {
    fn step(&mut self, _: &ArbiterIn) -> Result<ArbiterOut, BlockFault> {
        Ok(ArbiterOut {
            grant_valid: true,
            ..Default::default()
        })
    }
}

#[test]
fn the_watchdog_reports_what_every_stuck_warp_waits_on() {
    let cfg = gtx480();
    let opts = SimOptions {
        watchdog: 2_000,
        ..Default::default()
    };
    let mut f = Override::<_, arbiter::Kind, _>::new(GoldenBlocks, |_, _| {
        Ok(Box::new(NeverGrants) as SitePort<'_, arbiter::Kind>)
    });
    let mut gpu = Gpu::new(&cfg, opts, &mut f).unwrap();
    let e = gpu
        .run(&mut builtin("compute", "small"), &mut |_| {})
        .unwrap_err();
    let SimError::Deadlock {
        cycle,
        idle,
        warps,
        note,
    } = &e
    else {
        panic!("{e}")
    };
    assert_eq!((*cycle, *idle), (2_001, 2_001));
    assert_eq!(
        note, "",
        "2,000 cycles is longer than any wait gtx480 allows"
    );
    // 30 blocks of 8 warps, two blocks on each of the 15 SMs, all stuck before issuing.
    assert_eq!(warps.len(), 240, "{e}");
    assert!(
        warps[0].starts_with("sm 0 warp 0 (block (0,0,0), warp 0 of it): pc 0x0000"),
        "{}",
        warps[0]
    );
    assert!(
        warps[0].ends_with("waits on nothing: ready, but the warp arbiter does not grant it"),
        "{}",
        warps[0]
    );
    assert!(e
        .to_string()
        .contains("deadlock: no instruction issued for 2001 cycles"));
}

#[test]
fn a_long_legal_latency_is_no_deadlock_and_a_short_watchdog_says_so() {
    // DRAM at its longest legal latency: every load waits about 100,000 cycles.
    let mut cfg = gtx480();
    cfg.dram.latency = 100_000;
    let (wait, what) = cfg.longest_wait();
    assert!(
        wait > 100_000 && what.contains("dram.latency 100000"),
        "{what}"
    );
    // The default watchdog grows with it: the run completes.
    let mut gpu = Gpu::golden(&cfg, SimOptions::default()).unwrap();
    let r = gpu
        .run(&mut builtin("stream", "small"), &mut |_| {})
        .unwrap();
    assert!(r.counters.cycles > 100_000);
    // A watchdog shorter than the wait fires, and says it cannot tell.
    let opts = SimOptions {
        watchdog: 50_000,
        ..Default::default()
    };
    let e = Gpu::golden(&cfg, opts)
        .unwrap()
        .run(&mut builtin("stream", "small"), &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(
            "but the watchdog (50000 cycles) is not longer than a wait this configuration allows"
        ) && e.contains("dram.latency 100000"),
        "{e}"
    );
}

#[test]
fn a_grant_of_a_warp_that_is_not_ready_is_a_protocol_error() {
    let cfg = gtx480();
    let mut f = Override::<_, arbiter::Kind, _>::new(GoldenBlocks, |_, _| {
        Ok(Box::new(AlwaysWarp0) as SitePort<'_, arbiter::Kind>)
    });
    let mut gpu = Gpu::new(&cfg, SimOptions::default(), &mut f).unwrap();
    let e = gpu
        .run(&mut builtin("compute", "small"), &mut |_| {})
        .unwrap_err();
    assert!(
        matches!(&e, SimError::Protocol(m) if m.starts_with("sm0_sched0: the arbiter granted warp 0, which is not ready")),
        "{e}"
    );
}

#[test]
fn blocks_that_do_not_fit_and_bad_arbiter_shapes_are_errors() {
    let mut cfg = gtx480();
    cfg.sm.two_level_max_active = 20;
    let e = Gpu::golden(&cfg, opts("--warp-sched two-level"))
        .err()
        .unwrap();
    assert!(e.to_string().contains("max_active"), "{e}");
    let mut cfg = gtx480();
    cfg.sm.registers = 1024; // 256 threads x 16 registers do not fit
    let mut gpu = Gpu::golden(&cfg, SimOptions::default()).unwrap();
    let e = gpu
        .run(&mut builtin("stream", "small"), &mut |_| {})
        .unwrap_err();
    assert!(matches!(e, SimError::DoesNotFit { .. }), "{e}");
}

/// Sub-cores need a slot of every register set per scheduler; ELF's issue unit decides for
/// the whole SM, which sub-cores split by scheduler: errors, not runs on wrong slots.
#[test]
fn an_sm_wide_issue_unit_and_too_few_slots_refuse_sub_cores() {
    let mut cfg = gtx480();
    let oc = &mut cfg.pipeline.operand_collector;
    oc.enabled = true;
    oc.sub_cores = true;
    // GTX 480's SFU and MEM register sets have one slot: none for the second scheduler.
    let e = Gpu::golden(&cfg, SimOptions::default()).err().unwrap();
    assert!(e.to_string().contains("has none for some"), "{e}");
    let oc = &mut cfg.pipeline.operand_collector;
    let two = crate::config::PerPath {
        sp: 2,
        sfu: 2,
        mem: 2,
    };
    (oc.issue_widths, oc.dispatch_widths, oc.units) = (two, two, two);
    let mut gpu = Gpu::golden(&cfg, opts("--warp-sched elf")).unwrap();
    let e = gpu
        .run(&mut builtin("stream", "small"), &mut |_| {})
        .unwrap_err();
    assert!(
        matches!(&e, SimError::Config(m) if m.contains("sub-cores")),
        "{e}"
    );
}

/// A kernel whose static code is unknown: ELF gets an empty program-point table.
struct NoCode(Box<dyn KernelSource>);

impl KernelSource for NoCode {
    fn info(&self) -> &crate::workload::kernel::KernelInfo {
        self.0.info()
    }
    fn block(
        &mut self,
        id: u64,
    ) -> Result<crate::workload::kernel::BlockInsts, crate::workload::kernel::WorkloadError> {
        self.0.block(id)
    }
}

/// A workload whose kernels hide their static code.
struct HideCode(Box<dyn WorkloadSource>);

impl WorkloadSource for HideCode {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn next_kernel(
        &mut self,
    ) -> Result<Option<Box<dyn KernelSource>>, crate::workload::kernel::WorkloadError> {
        Ok(self
            .0
            .next_kernel()?
            .map(|k| Box::new(NoCode(k)) as Box<dyn KernelSource>))
    }
}

/// The report as JSON without the fields that name the policy.
fn counters_json(r: &Report) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    for k in ["warp_sched", "policy", "issue", "fetch"] {
        v[k] = serde_json::Value::Null;
    }
    for k in v["kernels"].as_array_mut().unwrap() {
        k.as_object_mut().unwrap().remove("elf_points");
    }
    v
}

/// Opens a fresh copy of a workload.
pub(super) type Opener = Box<dyn Fn() -> Box<dyn WorkloadSource>>;

pub(super) fn suite_and_traces(size: &str) -> Vec<(String, Opener)> {
    let mut v: Vec<(String, Opener)> = vec![];
    for name in ["stream", "compute", "lbm", "bfs", "mm", "loop_early", "km"] {
        let size = size.to_string();
        v.push((
            name.into(),
            Box::new(move || crate::workload::open_named(name, &size).unwrap()),
        ));
    }
    for t in ["vectoradd-100-32", "matrixmul-32-32"] {
        if let Some(dir) = shared_trace(t) {
            v.push((
                t.into(),
                Box::new(move || Box::new(TraceWorkload::open(&dir).unwrap())),
            ));
        }
    }
    v
}

/// A golden block stepped every cycle (its [`crate::block::Block::holds`] hidden).
struct Stepped<B>(B);

impl<B: crate::block::Block> Port<B::In, B::Out> for Stepped<B> {
    fn step(&mut self, inp: &B::In) -> Result<B::Out, BlockFault> {
        Ok(self.0.step(inp))
    }
}

/// A planted fault: golden block `B`, but its `holds` answers what the function makes of the
/// input (a claim that a step would change nothing, whether or not it would).
struct WrongHolds<B: crate::block::Block>(B, fn(&B::In) -> Option<B::Out>);

impl<B: crate::block::Block> Port<B::In, B::Out> for WrongHolds<B> {
    fn step(&mut self, inp: &B::In) -> Result<B::Out, BlockFault> {
        Ok(self.0.step(inp))
    }
    fn holds(&self, inp: &B::In) -> Option<B::Out> {
        (self.1)(inp)
    }
}

/// The planted arbiter: every cycle without a launch or an exit would grant nothing.
fn arbiter_holds_when_quiet(inp: &ArbiterIn) -> Option<ArbiterOut> {
    (inp.launch | inp.exit == 0).then(ArbiterOut::default)
}

/// `opts`'s run of `w` with every arbiter from `arbiter` and every allocator stepped each
/// cycle, as JSON (`Err`: the run's error).
fn run_stepped(
    w: &mut dyn WorkloadSource,
    opts: SimOptions,
    arbiter: fn(arbiter::Golden) -> SitePort<'static, arbiter::Kind>,
) -> Result<serde_json::Value, String> {
    use crate::blocks::sm_alloc;
    let arbiters = Override::<_, arbiter::Kind, _>::new(GoldenBlocks, move |_, p| {
        Ok(arbiter(arbiter::Golden::new(*p)))
    });
    let mut f = Override::<_, sm_alloc::Kind, _>::new(arbiters, |_, p| {
        Ok(Box::new(Stepped(sm_alloc::Golden::new(*p))) as SitePort<'_, sm_alloc::Kind>)
    });
    run_provided(w, opts, &mut f)
}

/// `opts`'s run of `w` on gtx480 with the blocks of `blocks`, as JSON (`Err`: the run's error).
fn run_provided<'a, P: super::sites::Provider<'a>>(
    w: &mut dyn WorkloadSource,
    opts: SimOptions,
    blocks: &mut P,
) -> Result<serde_json::Value, String> {
    let mut gpu = Gpu::new(&gtx480(), opts, blocks).map_err(|e| e.to_string())?;
    let r = gpu.run(w, &mut |_| {}).map_err(|e| e.to_string())?;
    Ok(serde_json::to_value(&r).unwrap())
}

/// The planted LAWS block: every cycle without a launch or an exit would grant nothing.
fn laws_holds_when_quiet(inp: &LawsIn) -> Option<LawsOut> {
    (inp.launch | inp.launch2 | inp.exit == 0).then(LawsOut::default)
}

/// A run of a workload under a policy's arguments, its blocks stepped every cycle (`false`) or
/// with a planted wrong `holds` (`true`), as JSON (`Err`: the run's error).
type RunWith = dyn Fn(&mut dyn WorkloadSource, &str, bool) -> Result<serde_json::Value, String>;

/// Every suite kernel and trace under each of `policies`: the run that skips held steps gives
/// the report of `with(w, args, false)` (every block stepped every cycle) field for field, and
/// `with(w, args, true)` (a planted wrong `holds`) changes at least 3 runs in 4.
fn assert_skipping_held_steps_is_exact(policies: &[&str], with: &RunWith) {
    assert_held_steps_exact_on(suite_and_traces("small"), policies, with);
}

/// [`assert_skipping_held_steps_is_exact`] on `workloads`.
fn assert_held_steps_exact_on(workloads: Vec<(String, Opener)>, policies: &[&str], with: &RunWith) {
    let (mut caught, mut runs) = (0, 0);
    for (name, open) in workloads {
        for &args in policies {
            runs += 1;
            let skipping = serde_json::to_value(run(&mut *open(), opts(args))).unwrap();
            let every = with(&mut *open(), args, false).unwrap();
            assert_eq!(skipping, every, "{name} {args}");
            // The comparison sees a wrong answer: a run, or an error, that differs.
            let wrong = with(&mut *open(), args, true);
            caught += (wrong.as_ref() != Ok(&every)) as usize;
        }
    }
    assert!(
        caught * 4 >= runs * 3,
        "the planted fault changed {caught} of {runs} runs"
    );
}

/// LAWS's blocks skipped when they hold (and the SMs' sleep that allows) give the reports of
/// every block stepped every cycle, field for field; a planted wrong answer changes them.
#[test]
fn skipping_held_laws_steps_changes_no_statistic() {
    let policies = [
        "--warp-sched laws",
        "--warp-sched laws --la-rows serial",
        "--warp-sched laws --tb-sched locality --paired-issue",
    ];
    let with = |w: &mut dyn WorkloadSource, args: &str, planted: bool| {
        let mut f = Override::<_, locality_degree::Kind, _>::new(GoldenBlocks, move |_, p| {
            let g = locality_degree::Golden::new(*p);
            Ok(if planted {
                Box::new(WrongHolds(g, laws_holds_when_quiet))
                    as SitePort<'static, locality_degree::Kind>
            } else {
                Box::new(Stepped(g))
            })
        });
        run_provided(w, opts(args), &mut f)
    };
    assert_skipping_held_steps_is_exact(&policies, &with);
}

/// The GPU model skips the steps of blocks that hold ([`super::sites::Slot`]); the same runs
/// with every block stepped every cycle give the same report, field for field.
#[test]
fn skipping_held_steps_changes_no_statistic() {
    let policies = [
        "--warp-sched gto",
        "--warp-sched lrr",
        "--warp-sched two_level",
        "--warp-sched two_level_gto",
        "--warp-sched gto --paired-issue",
        "--warp-sched two_level --paired-issue",
    ];
    let stepped = |g| Box::new(Stepped(g)) as SitePort<'static, arbiter::Kind>;
    let planted =
        |g| Box::new(WrongHolds(g, arbiter_holds_when_quiet)) as SitePort<'static, arbiter::Kind>;
    let with = move |w: &mut dyn WorkloadSource, args: &str, wrong: bool| {
        run_stepped(w, opts(args), if wrong { planted } else { stepped })
    };
    assert_skipping_held_steps_is_exact(&policies, &with);
}

/// The SMs answer a held allocator's repeated requests themselves (`AllocUnit::holds`): the
/// runs give the reports of every allocator stepped every cycle, field for field; an allocator
/// that claims room for two blocks in every cycle without a block made resident or released
/// changes them. Medium kernels: their blocks fill the SMs (a small kernel's 30 or 36 blocks
/// never do, so no answer of a quiet cycle can matter there).
#[test]
fn answering_held_allocator_steps_changes_no_statistic() {
    use crate::blocks::sm_alloc::{self, AllocIn, AllocOut};
    fn room_when_quiet(inp: &AllocIn) -> Option<AllocOut> {
        let quiet = (inp.by_resource().iter()).all(|&(_, alloc, free)| alloc == 0 && free == 0);
        quiet.then_some(AllocOut {
            room: true,
            room2: true,
        })
    }
    let policies = ["--warp-sched gto", "--warp-sched lrr --tb-sched bcs"];
    let with = |w: &mut dyn WorkloadSource, args: &str, planted: bool| {
        let mut f = Override::<_, sm_alloc::Kind, _>::new(GoldenBlocks, move |_, p| {
            let g = sm_alloc::Golden::new(*p);
            Ok(if planted {
                Box::new(WrongHolds(g, room_when_quiet)) as SitePort<'static, sm_alloc::Kind>
            } else {
                Box::new(Stepped(g))
            })
        });
        run_provided(w, opts(args), &mut f)
    };
    let workloads = ["mm", "km", "stream"].map(|name| {
        let open = move || crate::workload::open_named(name, "medium").unwrap();
        (name.to_string(), Box::new(open) as Opener)
    });
    assert_held_steps_exact_on(workloads.into(), &policies, &with);
}

#[test]
fn elf_with_an_empty_table_runs_exactly_as_gto_with_paired_issue() {
    // SCH-4 inside the GPU: every WPT entry stays 255, so ELF's select is GTO's; with
    // round-robin fetch the whole run (every counter, every cycle count) must be identical.
    let elf = opts("--warp-sched elf --rr-fetch");
    let gto = opts("--warp-sched gto --paired-issue");
    let mut differ_with_tables = 0;
    for (name, open) in suite_and_traces("small") {
        let a = run(&mut HideCode(open()), elf.clone());
        let b = run(&mut *open(), gto.clone());
        assert_eq!(counters_json(&a), counters_json(&b), "{name}");
        assert!(a
            .kernels
            .iter()
            .all(|k| k.prepared["elf_points"] == serde_json::json!([0, 0])));
        // With the compiled table the same run differs (the check can fail).
        let c = run(&mut *open(), elf.clone());
        differ_with_tables += (c.counters.cycles != b.counters.cycles) as u32;
    }
    assert!(differ_with_tables >= 4, "{differ_with_tables}");
}

/// `r` completed and ran the instructions, blocks and stores of `base` (`what` names the run).
fn assert_same_work(r: &Report, base: &Report, what: &str) {
    let (c, b) = (&r.counters, &base.counters);
    assert!(!r.truncated, "{what}");
    assert_eq!(
        (c.warp_instructions, c.thread_instructions, c.blocks),
        (b.warp_instructions, b.thread_instructions, b.blocks),
        "{what}"
    );
    assert_eq!(
        (c.l1d.writes, c.l2.writes),
        (b.l1d.writes, b.l2.writes),
        "{what}: every store reaches the L1D and the L2 once"
    );
}

#[test]
fn elf_newcar_and_iprefetch_complete_every_suite_kernel_with_exact_counts() {
    let configs = [
        opts("--warp-sched elf++"),
        opts("--warp-sched elf++ --elf-wpt registered"),
        opts("--warp-sched elf++ --elf-wpt pipelined"),
        opts("--newcar"),
        opts("--newcar --bypass all"),
        opts("--warp-sched elf"),
    ];
    let (mut queued, mut prefetched) = (0, 0);
    let mut causes = crate::mem::data_cache::FailCauses::default();
    for name in crate::workload::names() {
        let open = || crate::workload::open_named(name, "small").unwrap();
        let base = run(&mut *open(), SimOptions::default());
        for opts in &configs {
            let r = run(&mut *open(), opts.clone());
            assert_same_work(&r, &base, &format!("{name} under {}", opts.label()));
            queued += r.counters.lsu_queue_enqueued;
            prefetched += r.counters.l1i.prefetches;
            causes.add(&r.counters.l1d.fail_causes);
        }
    }
    assert!(queued > 1000 && prefetched > 100, "{queued} {prefetched}");
    let c = causes;
    assert!(
        c.miss_queue_full > 0 && c.mshr_full > 0 && c.all_ways_reserved > 0,
        "the suite meets the L1D's main refusal causes: {c:?}"
    );
}

#[test]
fn every_issue_site_runs_through_the_operand_collector_with_exact_counts() {
    // GPGPU-Sim's operand collector in place of the fixed operand delay: every warp
    // scheduler, ELF++ and NewCAR complete the suite's kernels with the instructions and
    // stores of the analytic pipeline, and every request in flight stays accounted for.
    let mut oc = gtx480();
    oc.pipeline.operand_collector.enabled = true;
    let configs = [
        SimOptions::default(),
        opts("--warp-sched lrr"),
        opts("--warp-sched two-level"),
        opts("--warp-sched laws --tb-sched locality"),
        opts("--warp-sched elf++"),
        opts("--newcar"),
    ];
    for name in ["mm", "spmv", "bfs", "hs", "lud", "compute"] {
        let open = || crate::workload::open_named(name, "small").unwrap();
        let base = run(&mut *open(), SimOptions::default());
        for opts in &configs {
            let opts = SimOptions {
                audit_interval: 256,
                ..opts.clone()
            };
            let r = run_on(&oc, &mut *open(), opts.clone());
            assert_same_work(&r, &base, &format!("{name} under {}", opts.label()));
            let c = &r.counters;
            assert_ne!(
                c.cycles, base.counters.cycles,
                "{name}: the collector times it"
            );
        }
    }
}

#[test]
fn the_prefetch_threshold_gates_next_line_prefetches() {
    // PF-2: threshold 0 never prefetches; a huge threshold prefetches on every demand access
    // whose next line is absent; 16 lies in between, and prefetching cuts L1I demand misses.
    let open = || builtin("compute", "small");
    let with = |t: u32| {
        run(
            &mut open(),
            SimOptions {
                iprefetch: t,
                ..Default::default()
            },
        )
    };
    let (off, sixteen, all) = (with(0), with(16), with(1000));
    assert_eq!(off.counters.l1i.prefetches, 0);
    assert!(sixteen.counters.l1i.prefetches > 0);
    assert!(all.counters.l1i.prefetches >= sixteen.counters.l1i.prefetches);
    assert!(sixteen.counters.l1i.misses < off.counters.l1i.misses);
    assert_eq!(
        off.counters.cycles,
        run(&mut open(), SimOptions::default()).counters.cycles
    );
}

#[test]
fn elf_serves_any_scheduler_count_up_to_its_port_arrays() {
    // Four schedulers of 12 warps: ELF with an empty table is paired GTO (SCH-4), and with its
    // tables it runs every suite kernel to completion.
    let mut cfg = gtx480();
    cfg.sm.schedulers = 4;
    let elf = opts("--warp-sched elf --rr-fetch");
    let gto = opts("--warp-sched gto --paired-issue");
    for (name, open) in suite_and_traces("small") {
        let a = run_on(&cfg, &mut HideCode(open()), elf.clone());
        let b = run_on(&cfg, &mut *open(), gto.clone());
        assert_eq!(counters_json(&a), counters_json(&b), "{name}");
        let c = run_on(&cfg, &mut *open(), opts("--warp-sched elf++"));
        assert_eq!(
            c.counters.thread_instructions, b.counters.thread_instructions,
            "{name}"
        );
    }
    // More schedulers than the block's port arrays hold: refused, saying why.
    cfg.sm.schedulers = 8;
    let e = Gpu::golden(&cfg, elf).err().unwrap();
    assert!(
        e.to_string().contains("ELF needs 1 to 4 warp schedulers"),
        "{e}"
    );
    // Fermi's 48 warps on one scheduler: more than a scheduler's 32-bit masks hold (a panic
    // in the block before).
    cfg.sm.schedulers = 1;
    let e = Gpu::golden(&cfg, opts("--warp-sched elf")).err().unwrap();
    assert!(
        e.to_string().contains("at most 32 per scheduler")
            && e.to_string().contains("1 (schedulers) and 48 (max_warps)"),
        "{e}"
    );
}

#[test]
fn registered_and_pipelined_wpt_updates_change_elfs_timing_and_label() {
    // `--elf-wpt registered|pipelined`: the same work (counts checked over the whole suite
    // above), another schedule on kernels with program points (priorities change at every
    // load).
    for (timing, label) in [
        ("registered", "elf++(wpt=registered)"),
        ("pipelined", "elf++(wpt=pipelined)"),
    ] {
        let timed = opts(&format!("--warp-sched elf++ --elf-wpt {timing}"));
        assert_eq!(timed.label(), label);
        let mut differ = 0;
        for name in ["lud_perimeter", "htw", "heartwall", "bfs"] {
            let open = || crate::workload::open_named(name, "small").unwrap();
            let a = run(&mut *open(), opts("--warp-sched elf++"));
            let b = run(&mut *open(), timed.clone());
            assert_eq!(a.counters.warp_instructions, b.counters.warp_instructions);
            differ += (a.counters.cycles != b.counters.cycles) as usize;
        }
        assert!(differ >= 2, "{label}: {differ}");
    }
}

#[test]
fn elf_plus_plus_runs_are_deterministic() {
    let a = run(&mut builtin("stream", "small"), opts("--warp-sched elf++"));
    let b = run(&mut builtin("stream", "small"), opts("--warp-sched elf++"));
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
}

/// One kernel of `blocks` blocks of `threads` threads, each running `n` independent integer
/// instructions then exiting.
fn straight_line(n: usize, blocks: u32, threads: u32) -> SingleKernel {
    use crate::workload::synth::interp::SynthKernel;
    use crate::workload::synth::ir::{Program, SynthDef};
    let mut p = Program::new();
    for i in 0..n {
        p.alu(
            crate::workload::sass::OpClass::IntAlu,
            &[(i % 200) as u16],
            &[],
        );
    }
    p.exit();
    SingleKernel::new(Box::new(SynthKernel::new(SynthDef {
        name: "straight_line".into(),
        grid: Dim3 {
            x: blocks,
            y: 1,
            z: 1,
        },
        block: Dim3 {
            x: threads,
            y: 1,
            z: 1,
        },
        regs_per_thread: 16,
        shmem_bytes: 0,
        program: p,
        arrays: vec![],
    })))
}

#[test]
fn elf_fetch_keeps_a_lone_warp_fed_as_gto_does() {
    // Issue 18 item 1: ELF chooses the fetch among the warps its grants empty, so a warp issuing
    // straight-line code is refilled in the cycle it issues, as round-robin fetch does.
    let mut cycles = vec![];
    for (warps, blocks) in [(1, 1), (2, 1), (1, 2)] {
        let opts = |elf: bool, elf_fetch: bool| {
            opts(match (elf, elf_fetch) {
                (false, _) => "--perfect-l1i",
                (true, false) => "--perfect-l1i --warp-sched elf --rr-fetch",
                (true, true) => "--perfect-l1i --warp-sched elf",
            })
        };
        let run = |o: SimOptions| run(&mut straight_line(400, blocks, 32 * warps), o);
        let gto = run(opts(false, true));
        let rr = run(opts(true, false));
        let elf = run(opts(true, true));
        let c = |r: &Report| r.counters.cycles;
        assert_eq!(
            (c(&elf), c(&rr)),
            (c(&gto), c(&gto)),
            "{warps} warps x {blocks} blocks"
        );
        cycles.push(c(&gto));
    }
    // GPGPU-Sim's front end: a fetch at t fills the i-buffer (2 instructions) at t+1, decode
    // makes them issuable at t+2, the refill is fetched in the cycle the second one issues:
    // a lone warp issues 2 instructions every 3 cycles.
    assert!(
        cycles[0] < 400 * 3 / 2 + 20,
        "one warp issues about two instructions every three cycles: {cycles:?}"
    );
}

#[test]
fn loads_and_stores_anywhere_in_the_64_bit_address_space_complete() {
    // Bit 63 set: the DRAM request id once shifted it out, and the load never completed.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    let header =
        "-kernel name = high\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n\
        -shmem = 0\n-nregs = 8\n-binary version = 61\n-cuda stream id = 0\n\
        -accelsim tracer version = 4\n-enable lineinfo = 0\n\n";
    let body = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 4\n\
        0000 ffffffff 1 R2 LDG.E 1 R4 4 1 0x8000000000000000 4\n\
        0010 ffffffff 0 STG.E 2 R4 R2 4 1 0xfffffffffffff000 4\n\
        0020 ffffffff 1 R3 IADD 1 R2 0\n\
        0030 ffffffff 0 EXIT 0 0\n#END_TB\n";
    std::fs::write(
        dir.path().join("kernel-1.traceg"),
        format!("{header}{body}"),
    )
    .unwrap();
    let r = run(
        &mut TraceWorkload::open(dir.path()).unwrap(),
        SimOptions::default(),
    );
    assert_eq!(r.counters.warp_instructions, 4);
    assert!(
        r.counters.cycles > 100,
        "the load went to DRAM: {}",
        r.counters.cycles
    );
}

/// The lost-request audit holds on healthy runs: every suite kernel (atomics, barriers,
/// shared memory, stores) under GTO and under ELF++ (NewCAR queue, I-prefetch), audited
/// every 7 cycles, completes exactly as without the audit.
#[test]
fn the_lost_request_audit_holds_on_every_healthy_run() {
    for name in crate::workload::names() {
        for base in [SimOptions::default(), opts("--warp-sched elf++")] {
            let plain = run(
                &mut *crate::workload::open_named(name, "small").unwrap(),
                base.clone(),
            );
            let audited = SimOptions {
                audit_interval: 7,
                ..base.clone()
            };
            let mut gpu = Gpu::golden(&gtx480(), audited).unwrap();
            let r = gpu
                .run(
                    &mut *crate::workload::open_named(name, "small").unwrap(),
                    &mut |_| {},
                )
                .unwrap_or_else(|e| panic!("{name} {}: {e}", base.label()));
            assert_eq!(r.counters, plain.counters, "{name} {}", base.label());
        }
    }
}

/// Runs `stream` (small) with a planted memory-system bug and returns the error.
fn run_with_fault(fault: memory::Fault) -> SimError {
    let opts = SimOptions {
        watchdog: 2_000,
        ..Default::default()
    };
    let cfg = gtx480();
    let mut gpu = Gpu::golden(&cfg, opts).unwrap();
    gpu.mem.fault = Some(fault);
    gpu.run(&mut builtin("stream", "small"), &mut |_| {})
        .unwrap_err()
}

#[test]
fn a_reply_lost_in_the_crossbar_is_a_model_error_not_a_warp_deadlock() {
    let e = run_with_fault(memory::Fault::DropReply(100));
    let SimError::Lost { lost, .. } = &e else {
        panic!("expected a model error, got: {e}")
    };
    // The memory system's count and the SM's wait both see it.
    assert!(
        lost.iter()
            .any(|l| l.contains("sent and not answered, but the memory system holds")),
        "{e}"
    );
    assert!(
        lost.iter()
            .any(|l| l.contains("waits for a fill that is nowhere in flight")),
        "{e}"
    );
    assert!(e.to_string().starts_with("model error at cycle "), "{e}");
}

#[test]
fn a_fill_lost_in_dram_is_a_model_error_not_a_warp_deadlock() {
    let e = run_with_fault(memory::Fault::IgnoreDramReads);
    let SimError::Lost { lost, .. } = &e else {
        panic!("expected a model error, got: {e}")
    };
    assert!(
        lost.iter().any(|l| l.starts_with("L2 slice ")
            && l.contains("waits for a fill that cannot arrive")
            && l.contains("burst(s) outstanding; 0 of its bursts in DRAM channel")),
        "{e}"
    );
}

/// Reading a trace ahead on a second thread changes nothing: every statistic equals the run
/// that reads each block when it is asked for, whether blocks are asked for in file order
/// (round robin), out of it (locality-aware dispatch, a window of 4 blocks), from a trace whose
/// blocks are written in reverse order, or streamed; and a malformed block stops both runs with
/// the same error.
#[test]
fn reading_ahead_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut dirs = vec![];
    for name in ["locality_row", "lud", "hs"] {
        let d = dir.path().join(name);
        let mut w = crate::workload::open_named(name, "small").unwrap();
        crate::workload::export::export(&mut *w, &d, &mut |_| {}).unwrap();
        dirs.push(d);
    }
    // The blocks of `hs` written last to first.
    let rev = dir.path().join("hs_reversed");
    std::fs::create_dir(&rev).unwrap();
    std::fs::copy(dirs[2].join("kernelslist.g"), rev.join("kernelslist.g")).unwrap();
    let text = std::fs::read_to_string(dirs[2].join("kernel-1.traceg")).unwrap();
    let mut parts: Vec<&str> = text.split("#BEGIN_TB").collect();
    let header = parts.remove(0);
    parts.reverse();
    let body: String = parts.iter().map(|p| format!("#BEGIN_TB{p}")).collect();
    std::fs::write(rev.join("kernel-1.traceg"), format!("{header}{body}")).unwrap();
    dirs.push(rev);
    let locality = opts("--tb-sched locality --la-window 4");
    for d in &dirs {
        for opts in [SimOptions::default(), locality.clone()] {
            for stream in [false, true] {
                let open = |ahead: bool| {
                    let w = TraceWorkload::open(d).unwrap().with_read_ahead(Some(ahead));
                    if stream {
                        w.with_streaming(0, 64)
                    } else {
                        w
                    }
                };
                let on_demand = run(&mut open(false), opts.clone());
                let ahead = run(&mut open(true), opts.clone());
                let what = format!("{} {} streamed={stream}", d.display(), opts.label());
                assert!(on_demand.counters.warp_instructions > 0, "{what}");
                assert_eq!(ahead.counters, on_demand.counters, "{what}");
                assert_eq!(ahead.kernels.len(), on_demand.kernels.len(), "{what}");
            }
        }
    }
    // A malformed instruction in the last block: the same error either way.
    let bad = dir.path().join("bad");
    std::fs::create_dir(&bad).unwrap();
    std::fs::copy(dirs[1].join("kernelslist.g"), bad.join("kernelslist.g")).unwrap();
    let text = std::fs::read_to_string(dirs[1].join("kernel-1.traceg")).unwrap();
    let last = text.rfind("#BEGIN_TB").unwrap();
    let broken = text[last..].replacen(" ffffffff ", " fffffffff ", 1);
    assert_ne!(broken, text[last..]);
    std::fs::write(
        bad.join("kernel-1.traceg"),
        format!("{}{broken}", &text[..last]),
    )
    .unwrap();
    let errors: Vec<String> = [false, true]
        .into_iter()
        .map(|ahead| {
            let mut w = TraceWorkload::open(&bad)
                .unwrap()
                .with_read_ahead(Some(ahead));
            let mut gpu = Gpu::golden(&gtx480(), SimOptions::default()).unwrap();
            gpu.run(&mut w, &mut |_| {}).unwrap_err().to_string()
        })
        .collect();
    assert!(
        errors[0].contains("32-bit hexadecimal active mask"),
        "{}",
        errors[0]
    );
    assert_eq!(errors[0], errors[1]);
}

/// A block run streamed (read again from the trace a warp chunk at a time, the instructions
/// dropped once issued) gives the statistics of the same block decoded whole, bit for bit:
/// the real traces and exported suite kernels (loads, stores, atomics, shared memory,
/// barriers), under GTO and ELF++, every block streamed in chunks of 16 instructions.
#[test]
fn streamed_blocks_run_exactly_as_whole_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut dirs: Vec<std::path::PathBuf> = ["vectoradd-100-32", "matrixmul-32-32"]
        .into_iter()
        .filter_map(shared_trace)
        .collect();
    for name in ["his", "bfs", "lud", "km"] {
        let d = dir.path().join(name);
        let mut w = crate::workload::open_named(name, "small").unwrap();
        crate::workload::export::export(&mut *w, &d, &mut |_| {}).unwrap();
        dirs.push(d);
    }
    for d in &dirs {
        for opts in [SimOptions::default(), opts("--warp-sched elf++")] {
            let whole = run(&mut TraceWorkload::open(d).unwrap(), opts.clone());
            let audited = SimOptions {
                audit_interval: 5,
                ..opts.clone()
            };
            let mut streamed = TraceWorkload::open(d).unwrap().with_streaming(0, 16);
            let s = run(&mut streamed, audited);
            let what = format!("{} {}", d.display(), opts.label());
            assert!(whole.counters.warp_instructions > 0, "{what}");
            assert_eq!(s.counters, whole.counters, "{what}");
            assert_eq!(s.kernels.len(), whole.kernels.len(), "{what}");
        }
    }
}
