//! The Verilated warp arbiter inside the GPU model (DESIGN.md §6 level 5): in lockstep with the
//! golden arbiter in every scheduler of every SM, on both real traces and on a memory-bound
//! and a compute-bound kernel, under all three policies; alone (`--rtl`) with identical
//! statistics; and a planted bug caught at the predicted cycle with waveforms.

mod common;

use common::{parse_vcd, stuck_grant_bit0, value_at, verilator_built, Faulty};
use gpusched_tb::gpu::{self as tbgpu, ArbiterMode, GpuRunError, MakeFactory};
use gpusched_tb::lockstep::{Lockstep, LockstepConfig};
use gpusim::block::Block;
use gpusim::blocks::warp_arbiter::{ArbiterIn, ArbiterOut, Golden, Params, Policy};
use gpusim::config::GpuConfig;
use gpusim::gpu::arbiter::{ArbiterFactory, ArbiterPort, ArbiterSite, BlockFault};
use gpusim::gpu::{Report, SimError, SimOptions};
use gpusim::workload::builtin;
use gpusim::workload::kernel::{TraceWorkload, WorkloadSource};
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

fn trace_dir(name: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/traces")
        .join(name);
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("SKIP: {} not found (shared traces)", p.display());
        None
    }
}

/// The workloads of the lockstep regression: both real traces (when present), the
/// memory-bound `stream` and the compute-bound `compute` kernels.
type Opener = Box<dyn Fn() -> Box<dyn WorkloadSource>>;

fn workloads() -> Vec<(String, Opener)> {
    let mut v: Vec<(String, Opener)> = vec![];
    for t in ["vectoradd-100-32", "matrixmul-32-32"] {
        if let Some(dir) = trace_dir(t) {
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
    policy: Policy,
    mode: ArbiterMode,
    cfg: &LockstepConfig,
) -> Result<Report, GpuRunError> {
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions {
        warp_sched: policy,
        ..Default::default()
    };
    tbgpu::run(&gpu, &opts, &mut || Ok(open()), mode, cfg, &mut |_| {})
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
    };
    for (name, open) in workloads() {
        for policy in Policy::ALL {
            let golden = run(&open, policy, ArbiterMode::Golden, &cfg).unwrap();
            let lockstep = run(&open, policy, ArbiterMode::Lockstep, &cfg)
                .unwrap_or_else(|e| panic!("{name} {policy:?}: {e}"));
            let rtl = run(&open, policy, ArbiterMode::Rtl, &cfg).unwrap();
            let json = |r: &Report| serde_json::to_string(r).unwrap();
            assert_eq!(
                json(&lockstep),
                json(&golden),
                "{name} {policy:?}: lockstep"
            );
            assert_eq!(json(&rtl), json(&golden), "{name} {policy:?}: RTL alone");
            eprintln!(
                "{name} {policy:?}: {} cycles x 30 arbiters in lockstep, 0 mismatches",
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

impl ArbiterPort for Probe {
    fn step(&mut self, inp: &ArbiterIn) -> Result<ArbiterOut, BlockFault> {
        let o = Block::step(&mut self.inner, inp);
        self.log.borrow_mut().push(o);
        Ok(o)
    }
}

#[test]
fn a_planted_bug_in_one_scheduler_stops_the_gpu_at_the_predicted_cycle_with_waveforms() {
    if !verilator_built() {
        return;
    }
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions::default(); // GTO
    let victim = ArbiterSite {
        sm: 3,
        scheduler: 1,
    };
    let from = 300;
    // Where the fault must show: the first grant of an odd warp at or after `from` by the
    // correct golden arbiter of that site.
    let log = Rc::new(RefCell::new(vec![]));
    {
        let log = log.clone();
        let mut f =
            move |site: ArbiterSite, p: &Params| -> Result<Box<dyn ArbiterPort>, BlockFault> {
                Ok(if site == victim {
                    Box::new(Probe {
                        inner: Golden::new(*p),
                        log: log.clone(),
                    })
                } else {
                    Box::new(Golden::new(*p))
                })
            };
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
    };
    let make = |replay: Option<(String, u64)>| -> Box<ArbiterFactory<'_>> {
        let cfg = &cfg;
        Box::new(
            move |site: ArbiterSite, p: &Params| -> Result<Box<dyn ArbiterPort>, BlockFault> {
                let module = tbgpu::module_for(p)?;
                let name = site.to_string();
                if site != victim {
                    return Ok(Box::new(Golden::new(*p)));
                }
                let buggy = stuck_grant_bit0(Golden::new(*p), from);
                let pair = match &replay {
                    Some((s, c)) if *s == name => {
                        Lockstep::replay(&name, buggy, &module, p, cfg, *c)?
                    }
                    _ => Lockstep::new(&name, buggy, &module, p, cfg)?,
                };
                Ok(Box::new(PairPort(pair)))
            },
        )
    };
    let make: &MakeFactory<'_> = &make;
    let err = tbgpu::run_with(
        &gpu,
        &opts,
        &mut || -> Result<Box<dyn WorkloadSource>, SimError> {
            Ok(Box::new(builtin::workload("compute", "small").unwrap()))
        },
        make,
        true,
        &mut |_| {},
    )
    .unwrap_err();
    let GpuRunError::Mismatch(m) = err else {
        panic!("expected a mismatch, got {err}")
    };
    assert_eq!(m.name, "sm3_sched1");
    assert_eq!(m.cycle, expected_cycle);
    assert_eq!(m.port, "grant_warp");
    assert_eq!(
        m.got,
        m.expected | 1,
        "RTL grants the odd warp, the faulty golden drops bit 0"
    );
    let gpath = m.golden_vcd.clone().expect("golden waveform");
    let rpath = m.rtl_vcd.clone().expect("rtl waveform");
    assert_eq!(gpath, dir.path().join("sm3_sched1.golden.vcd"));
    assert_eq!(rpath, dir.path().join("sm3_sched1.rtl.vcd"));
    let t = 2 * expected_cycle;
    for (path, want) in [(&gpath, m.expected), (&rpath, m.got)] {
        let (values, times) = parse_vcd(path);
        assert_eq!(*times.iter().min().unwrap(), 2 * (expected_cycle + 1 - 40));
        assert_eq!(*times.iter().max().unwrap(), t + 1);
        assert_eq!(
            value_at(&values, "grant_warp", t),
            want,
            "{}",
            path.display()
        );
    }
}

/// A lockstep pair of the faulty golden model and the RTL as an arbiter port.
struct PairPort(Lockstep<Faulty<Golden>>);

impl ArbiterPort for PairPort {
    fn step(&mut self, inp: &ArbiterIn) -> Result<ArbiterOut, BlockFault> {
        self.0.step(inp).map_err(|e| Box::new(e) as BlockFault)
    }
}

#[test]
fn configurations_without_a_matching_rtl_module_are_refused() {
    let p = Params::new(Policy::Gto, 16, 4).unwrap();
    let e = tbgpu::module_for(&p).unwrap_err().to_string();
    assert!(
        e.contains("no warp_arbiter RTL for 16 warps per scheduler")
            && e.contains("fermi (24 warps"),
        "{e}"
    );
    assert_eq!(
        tbgpu::module_for(&Params::new(Policy::TwoLevel, 24, 6).unwrap()).unwrap(),
        "warp_arbiter_two_level_fermi"
    );
}
