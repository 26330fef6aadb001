//! Verilator lockstep of the warp arbiter (DESIGN.md §6 level 4), and proof that the lockstep
//! check fails, at the right cycle and with readable waveforms, when a bug is planted.

use gpusched_tb::cosim::{self, CosimOptions};
use gpusched_tb::lockstep::LockstepConfig;
use gpusched_tb::rtl::{available_modules, RtlBlock};
use gpusched_tb::TbError;
use gpusim::block::Stimulus as _;
mod common;

use common::{parse_vcd, stuck_grant_bit0, value_at, verilator_built, Faulty};
use gpusim::block::{Block, Inspect, PortSpec};
use gpusim::blocks::warp_arbiter::stimulus::Stimulus;
use gpusim::blocks::warp_arbiter::{ArbiterIn, ArbiterOut, Golden, Params, Policy, Preset};

fn opts(cycles: u64, seed: u64, lockstep: LockstepConfig) -> CosimOptions {
    CosimOptions {
        cycles,
        seed,
        lockstep,
    }
}

#[test]
fn every_verilated_arbiter_matches_its_golden_model() {
    if !verilator_built() {
        return;
    }
    for policy in Policy::ALL {
        for preset in Preset::ALL {
            let p = Params::preset(policy, preset);
            let module = format!("warp_arbiter_{}_{}", policy.name(), preset.name());
            let cfg = LockstepConfig {
                window: 0,
                ..Default::default()
            };
            let r = cosim::lockstep::<gpusim::blocks::warp_arbiter::Kind, _>(
                Golden::new(p),
                &p,
                &module,
                &opts(1_000_000, 11, cfg),
                &mut |_| {},
            )
            .unwrap();
            assert_eq!(
                r.cycles,
                1_000_000,
                "{module}: {:?}",
                r.mismatch.map(|m| m.to_string())
            );
            assert_eq!(r.mismatches, 0);
        }
    }
}

#[test]
fn planted_bug_stops_the_lockstep_at_the_right_cycle_with_both_waveforms() {
    if !verilator_built() {
        return;
    }
    // Windows of several sizes, including one reaching back past reset (truncated there),
    // and a bug late in a long run: the waveforms come from the last snapshot, not from reset.
    for (from, window) in [(3000, 50), (40_000, 200), (10, 1000), (1_500_000, 64)] {
        planted_bug_case(from, window);
    }
}

fn planted_bug_case(from: u64, window: usize) {
    let p = Params::preset(Policy::Gto, Preset::Fermi);
    let seed = 5;
    // Where the fault must show: the first grant of an odd warp at or after `from`, found by
    // running the correct golden model alone on the same stimulus.
    let expected_cycle = {
        let mut g = Golden::new(p);
        let mut s = Stimulus::new(p, seed);
        let mut prev = None;
        (0..)
            .find(|&c| {
                let o = g.step(&s.next(prev.as_ref()));
                prev = Some(o);
                c >= from && o.grant_warp & 1 == 1
            })
            .unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let interval = 4096;
    let cfg = LockstepConfig {
        window,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        snapshot_interval: interval,
        ..Default::default()
    };
    let buggy = stuck_grant_bit0(Golden::new(p), from);
    let r = cosim::lockstep::<gpusim::blocks::warp_arbiter::Kind, _>(
        buggy,
        &p,
        "warp_arbiter_gto_fermi",
        &opts(from + 100_000, seed, cfg),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(r.mismatches, 1);
    let m = r.mismatch.expect("the planted bug is caught");
    assert_eq!(m.cycle, expected_cycle);
    // Described from the newest snapshot before the window: at most one interval (4096, or
    // the window when larger) plus the window replayed.
    let resumed = m.resumed_from.expect("resumed from a snapshot");
    let first_traced = (expected_cycle + 1).saturating_sub(window as u64);
    assert!(resumed <= first_traced, "{resumed} {first_traced}");
    assert!(
        expected_cycle + 1 - resumed <= interval.max(window as u64) + window as u64,
        "replayed {} cycles",
        expected_cycle + 1 - resumed
    );
    assert_eq!(resumed % interval.max(window as u64), 0, "a snapshot cycle");
    assert_eq!(r.cycles, expected_cycle, "the run stops at the mismatch");
    assert_eq!(m.port, "grant_warp");
    assert_eq!(
        m.got,
        m.expected | 1,
        "RTL has the odd warp, the faulty golden drops bit 0"
    );
    let report = m.to_string();
    assert!(
        report.contains(&format!("cycle {expected_cycle}")) && report.contains("grant_warp"),
        "{report}"
    );

    // The pair file and the GTKWave save file: the differing port first, golden over RTL,
    // the cursor on the mismatching cycle.
    let pair = m.pair.clone().expect("pair written");
    assert_eq!(pair.gtkw, dir.path().join("warp_arbiter_gto_fermi.gtkw"));
    let save = std::fs::read_to_string(&pair.gtkw).unwrap();
    assert!(
        save.contains(&format!("*-3.000000 {} -1", 2 * expected_cycle)),
        "{save}"
    );
    let lines: Vec<&str> = save.lines().collect();
    let g = lines
        .iter()
        .position(|l| l.starts_with("golden.warp_arbiter_gto_fermi.grant_warp["))
        .expect("golden grant_warp in the save file");
    assert!(
        lines[g + 1].starts_with("rtl.warp_arbiter_gto_fermi.grant_warp["),
        "{save}"
    );
    assert!(
        g < lines.iter().position(|l| *l == "-other outputs").unwrap(),
        "{save}"
    );
    let (_, pair_times) = parse_vcd(&pair.vcd);
    assert_eq!(*pair_times.iter().max().unwrap(), 2 * expected_cycle);
    assert!(report.contains("gtkwave"), "{report}");

    let gpath = m.golden_vcd.expect("golden waveform written");
    let rpath = m.rtl_vcd.expect("rtl waveform written");
    assert_eq!(gpath, dir.path().join("warp_arbiter_gto_fermi.golden.vcd"));
    assert_eq!(rpath, dir.path().join("warp_arbiter_gto_fermi.rtl.vcd"));
    let t_mis = 2 * expected_cycle;
    // The rising edge of the window's first cycle (time 0 for cycle 0).
    let first = (2 * (expected_cycle + 1).saturating_sub(window as u64)).saturating_sub(1);
    for (path, got_there) in [(&gpath, m.expected), (&rpath, m.got)] {
        let (values, times) = parse_vcd(path);
        assert_eq!(
            *times.iter().min().unwrap(),
            first,
            "{}: window start",
            path.display()
        );
        assert_eq!(
            *times.iter().max().unwrap(),
            t_mis,
            "{}: ends at the mismatch",
            path.display()
        );
        assert_eq!(
            value_at(&values, "grant_warp", t_mis),
            got_there,
            "{}",
            path.display()
        );
        assert_eq!(value_at(&values, "grant_valid", t_mis), 1);
        // Inputs agree in both files: the RTL saw what the golden model saw.
        let ready = m.inputs.iter().find(|(n, _)| n == "ready").unwrap().1;
        assert_eq!(
            value_at(&values, "ready", t_mis),
            ready,
            "{}",
            path.display()
        );
    }
    let (gvals, _) = parse_vcd(&gpath);
    assert!(
        gvals.contains_key("last_valid") && gvals.contains_key("live"),
        "golden state traced"
    );
}

#[test]
fn whole_run_waveforms_are_written_with_vcd_dir() {
    if !verilator_built() {
        return;
    }
    let p = Params::preset(Policy::TwoLevel, Preset::Proto);
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 16,
        mismatch_dir: dir.path().join("m"),
        vcd_dir: Some(dir.path().into()),
        ..Default::default()
    };
    let r = cosim::lockstep::<gpusim::blocks::warp_arbiter::Kind, _>(
        Golden::new(p),
        &p,
        "warp_arbiter_two_level_proto",
        &opts(500, 3, cfg),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!((r.cycles, r.mismatches), (500, 0));
    let (g, rt) = r.waveforms.expect("whole-run waveforms");
    for path in [g, rt] {
        let (values, times) = parse_vcd(&path);
        assert_eq!(*times.iter().max().unwrap(), 998, "{}", path.display());
        assert!(values.contains_key("active"), "{}", path.display());
    }
}

#[test]
fn port_contract_is_checked_when_the_rtl_is_instantiated() {
    if !verilator_built() {
        return;
    }
    let proto = Params::preset(Policy::Gto, Preset::Proto);
    let e = RtlBlock::<ArbiterIn, ArbiterOut>::new("warp_arbiter_gto_fermi", &proto)
        .err()
        .unwrap();
    assert!(matches!(e, TbError::PortMismatch { .. }), "{e}");
    assert!(
        e.to_string().contains("ready[24]") && e.to_string().contains("ready[8]"),
        "{e}"
    );
    let e = RtlBlock::<ArbiterIn, ArbiterOut>::new("warp_arbiter_fifo_fermi", &proto)
        .err()
        .unwrap();
    assert!(e.to_string().contains("warp_arbiter_gto_proto"), "{e}");
    let variants: usize = gpusim::blocks::catalog()
        .iter()
        .map(|b| b.variants().len())
        .sum();
    assert_eq!(
        available_modules().len(),
        variants,
        "one Verilated model per variant"
    );
}

#[test]
fn a_saved_rtl_state_restores_the_model_exactly_and_can_be_traced_from_there() {
    if !verilator_built() {
        return;
    }
    let p = Params::preset(Policy::TwoLevel, Preset::Fermi);
    let module = "warp_arbiter_two_level_fermi";
    let mut stim = Stimulus::new(p, 4);
    let mut golden = Golden::new(p);
    let mut prev = None;
    let inputs: Vec<ArbiterIn> = (0..3000)
        .map(|_| {
            let i = stim.next(prev.as_ref());
            prev = Some(golden.step(&i));
            i
        })
        .collect();
    let mut a = RtlBlock::<ArbiterIn, ArbiterOut>::new(module, &p).unwrap();
    for i in &inputs[..1000] {
        a.step(i);
    }
    let snap = a.save();
    assert_eq!((snap.module(), snap.cycle), (module, 1000));
    let later: Vec<ArbiterOut> = inputs[1000..].iter().map(|i| a.step(i)).collect();
    // A fresh model restored from the snapshot, and the same model rewound to it, both
    // continue exactly as the original did.
    let mut b = RtlBlock::<ArbiterIn, ArbiterOut>::new(module, &p).unwrap();
    b.restore(&snap);
    a.restore(&snap);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.vcd");
    b.trace_open(&path).unwrap();
    assert!(b
        .trace_open(&path)
        .unwrap_err()
        .to_string()
        .contains("already open"));
    for (k, i) in inputs[1000..].iter().enumerate() {
        assert_eq!(b.step(i), later[k], "restored model, cycle {}", 1000 + k);
        assert_eq!(a.step(i), later[k], "rewound model, cycle {}", 1000 + k);
    }
    b.trace_close().unwrap();
    let (_, times) = parse_vcd(&path);
    assert_eq!(
        *times.iter().min().unwrap(),
        1999,
        "traced from the restored cycle's rising edge"
    );
    assert_eq!(*times.iter().max().unwrap(), 5998);
    // A VCD on a full disk (/dev/full: every write fails with ENOSPC) is an error at close,
    // naming the file; the run does not hang in Verilator's flush (issue 61).
    #[cfg(target_os = "linux")]
    {
        let full = dir.path().join("full.vcd");
        std::os::unix::fs::symlink("/dev/full", &full).unwrap();
        b.trace_open(&full).unwrap();
        for i in &inputs {
            b.step(i);
        }
        let e = b.trace_close().unwrap_err().to_string();
        assert!(
            e.contains("full.vcd") && e.contains("No space left on device"),
            "{e}"
        );
        b.trace_close().unwrap();
    }
}

/// A golden model that misbehaves from cycle 100, but whose clones (the snapshots a mismatch
/// is described from) do not: the mismatch cannot be reproduced.
struct FlakyOriginal {
    inner: Golden,
    flaky: bool,
    cycle: u64,
}

impl Clone for FlakyOriginal {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            flaky: false,
            cycle: self.cycle,
        }
    }
}

impl Block for FlakyOriginal {
    type In = ArbiterIn;
    type Out = ArbiterOut;
    fn reset(&mut self) {
        self.inner.reset();
        self.cycle = 0;
    }
    fn step(&mut self, inp: &ArbiterIn) -> ArbiterOut {
        let mut o = self.inner.step(inp);
        if self.flaky && self.cycle >= 100 {
            o.grant_valid = !o.grant_valid;
        }
        self.cycle += 1;
        o
    }
}

impl Inspect for FlakyOriginal {
    fn state_specs(&self) -> Vec<PortSpec> {
        self.inner.state_specs()
    }
    fn state_values(&self, out: &mut Vec<u64>) {
        self.inner.state_values(out)
    }
}

#[test]
fn a_mismatch_its_snapshot_does_not_reproduce_is_an_error() {
    if !verilator_built() {
        return;
    }
    let p = Params::preset(Policy::Lrr, Preset::Proto);
    let golden = FlakyOriginal {
        inner: Golden::new(p),
        flaky: true,
        cycle: 0,
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 16,
        mismatch_dir: dir.path().into(),
        vcd_dir: None,
        ..Default::default()
    };
    let e = cosim::lockstep::<gpusim::blocks::warp_arbiter::Kind, _>(
        golden,
        &p,
        "warp_arbiter_lrr_proto",
        &opts(1000, 1, cfg),
        &mut |_| {},
    )
    .expect_err("a non-reproducible mismatch must not pass silently");
    assert!(
        matches!(e, TbError::NotReproduced { cycle: 100, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("not deterministic"), "{e}");
}

#[test]
fn newcar_lockstep_passes_and_catches_a_planted_bug() {
    if !verilator_built() {
        return;
    }
    use gpusim::blocks::newcar::{
        self as nc, Golden as Nc, Params as NcParams, Preset as NcPreset,
    };
    for (preset, module) in [
        (NcPreset::Fermi, "newcar_base_fermi"),
        (NcPreset::Proto, "newcar_base_proto"),
    ] {
        let p = NcParams::preset(preset);
        let dir = tempfile::tempdir().unwrap();
        let cfg = LockstepConfig {
            window: 32,
            mismatch_dir: dir.path().to_path_buf(),
            vcd_dir: None,
            ..Default::default()
        };
        let ok = cosim::lockstep::<gpusim::blocks::newcar::Kind, _>(
            Nc::new(p),
            &p,
            module,
            &opts(200_000, 9, cfg.clone()),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!((ok.mismatches, ok.cycles), (0, 200_000), "{module}");
        let buggy = Faulty::new(Nc::new(p), 5_000, |o: &mut nc::NewcarOut| {
            o.deq_valid = false
        });
        let r = cosim::lockstep::<gpusim::blocks::newcar::Kind, _>(
            buggy,
            &p,
            module,
            &opts(200_000, 9, cfg),
            &mut |_| {},
        )
        .unwrap();
        let m = r.mismatch.expect("the planted bug is caught");
        assert!(m.cycle >= 5_000 && m.port == "deq_valid", "{m}");
        assert!(m.golden_vcd.is_some_and(|p| p.exists()));
    }
}

#[test]
fn elf_lockstep_passes_and_catches_a_planted_bug() {
    if !verilator_built() {
        return;
    }
    use gpusim::blocks::elf::{self as el, Golden as El, Params as ElParams, Preset as ElPreset};
    for (preset, module, cycles) in [
        (ElPreset::Fermi, "elf_base_fermi", 30_000),
        (ElPreset::Proto, "elf_base_proto", 200_000),
    ] {
        let p = ElParams::preset(preset);
        let dir = tempfile::tempdir().unwrap();
        let cfg = LockstepConfig {
            window: 32,
            mismatch_dir: dir.path().to_path_buf(),
            vcd_dir: None,
            ..Default::default()
        };
        let ok = cosim::lockstep::<gpusim::blocks::elf::Kind, _>(
            El::new(p),
            &p,
            module,
            &opts(cycles, 4, cfg.clone()),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!((ok.mismatches, ok.cycles), (0, cycles), "{module}");
        // Scheduler 1's priority output off by one from cycle 2000 on.
        let buggy = Faulty::new(El::new(p), 2_000, |o: &mut el::ElfOut| {
            if o.grant_valid[1] {
                o.prio[1] ^= 1;
            }
        });
        let r = cosim::lockstep::<gpusim::blocks::elf::Kind, _>(
            buggy,
            &p,
            module,
            &opts(cycles, 4, cfg),
            &mut |_| {},
        )
        .unwrap();
        let m = r.mismatch.expect("the planted bug is caught");
        assert!(m.cycle >= 2_000 && m.port == "prio_1", "{m}");
        assert!(m.rtl_vcd.is_some_and(|p| p.exists()));
    }
}

#[test]
fn tb_dispatch_lockstep_passes_and_catches_a_planted_bug_on_a_wide_port() {
    if !verilator_built() {
        return;
    }
    use gpusim::block::BlockKind;
    use gpusim::blocks::tb_dispatch::{DispatchOut, Golden as Td, Kind};
    for (policy, preset) in [("lrr", "fermi"), ("bcs", "titanv"), ("bcs", "proto")] {
        let p = Kind::params(policy, preset);
        let module = format!("tb_dispatch_{policy}_{preset}");
        let dir = tempfile::tempdir().unwrap();
        let cfg = LockstepConfig {
            window: 16,
            mismatch_dir: dir.path().to_path_buf(),
            vcd_dir: None,
            ..Default::default()
        };
        let ok = cosim::lockstep::<Kind, _>(
            Td::new(p),
            &p,
            &module,
            &opts(100_000, 3, cfg.clone()),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!((ok.mismatches, ok.cycles), (0, 100_000), "{module}");
        // From cycle 2000 the golden model forgets its grant to the highest SM: the mismatch is
        // on the (up to 80-bit) `grant` port, with its value beyond bit 64 intact.
        let buggy = Faulty::new(Td::new(p), 2_000, |o: &mut DispatchOut| {
            if o.grant != 0 {
                o.grant &= !(1u128 << (127 - o.grant.leading_zeros()));
            }
        });
        let r = cosim::lockstep::<Kind, _>(buggy, &p, &module, &opts(100_000, 3, cfg), &mut |_| {})
            .unwrap();
        let m = r.mismatch.expect("the planted bug is caught");
        assert!(m.cycle >= 2_000 && m.port == "grant", "{m}");
        assert_eq!(
            m.got & !m.expected,
            1u128 << (127 - m.got.leading_zeros()),
            "{m}"
        );
        assert!(m.golden_vcd.is_some_and(|p| p.exists()));
        assert!(m.rtl_vcd.is_some_and(|p| p.exists()));
    }
}

#[test]
fn sm_alloc_lockstep_passes_and_catches_a_planted_bug() {
    if !verilator_built() {
        return;
    }
    use gpusim::block::BlockKind;
    use gpusim::blocks::sm_alloc::{AllocOut, Golden as Alloc, Kind};
    for preset in Kind::PRESETS {
        let p = Kind::params("base", preset);
        let module = format!("sm_alloc_base_{preset}");
        let dir = tempfile::tempdir().unwrap();
        let cfg = LockstepConfig {
            window: 16,
            mismatch_dir: dir.path().to_path_buf(),
            vcd_dir: None,
            ..Default::default()
        };
        let ok = cosim::lockstep::<Kind, _>(
            Alloc::new(p),
            &p,
            &module,
            &opts(200_000, 5, cfg.clone()),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!((ok.mismatches, ok.cycles), (0, 200_000), "{module}");
        // From cycle 3000 the golden model offers room for two whenever it offers room.
        let buggy = Faulty::new(Alloc::new(p), 3_000, |o: &mut AllocOut| o.room2 |= o.room);
        let r = cosim::lockstep::<Kind, _>(buggy, &p, &module, &opts(200_000, 5, cfg), &mut |_| {})
            .unwrap();
        let m = r.mismatch.expect("the planted bug is caught");
        assert!(m.cycle >= 3_000 && m.port == "room2", "{m}");
        assert_eq!((m.expected, m.got), (1, 0), "{m}");
        assert!(m.golden_vcd.is_some_and(|p| p.exists()));
        assert!(m.rtl_vcd.is_some_and(|p| p.exists()));
    }
}

/// On every preset of block `K` (policy `base`): `cycles` of lockstep with no mismatch; then
/// with `fault` applied to the golden model's outputs from cycle `from`, a mismatch on `port`
/// at or after `from`, with both waveforms written.
fn base_lockstep_passes_and_catches<K: gpusim::block::BlockKind>(
    cycles: u64,
    seed: u64,
    from: u64,
    fault: fn(&mut K::Out),
    port: &str,
) {
    for preset in K::PRESETS {
        let p = K::params("base", preset);
        let module = format!("{}_base_{preset}", K::NAME);
        let dir = tempfile::tempdir().unwrap();
        let cfg = LockstepConfig {
            window: 16,
            mismatch_dir: dir.path().to_path_buf(),
            vcd_dir: None,
            ..Default::default()
        };
        let o = opts(cycles, seed, cfg);
        let ok = cosim::lockstep::<K, _>(K::golden(&p), &p, &module, &o, &mut |_| {}).unwrap();
        assert_eq!((ok.mismatches, ok.cycles), (0, cycles), "{module}");
        let buggy = Faulty::new(K::golden(&p), from, fault);
        let r = cosim::lockstep::<K, _>(buggy, &p, &module, &o, &mut |_| {}).unwrap();
        let m = r.mismatch.expect("the planted bug is caught");
        assert!(m.cycle >= from && m.port == port, "{module}: {m}");
        assert!(m.golden_vcd.is_some_and(|p| p.exists()));
        assert!(m.rtl_vcd.is_some_and(|p| p.exists()));
    }
}

#[test]
fn locality_degree_lockstep_passes_and_catches_a_planted_bug() {
    if !verilator_built() {
        return;
    }
    // From cycle 2500 the golden model reports the highest active warp of a group of two or
    // more as pending.
    base_lockstep_passes_and_catches::<gpusim::blocks::locality_degree::Kind>(
        100_000,
        9,
        2_500,
        |o| {
            if o.active.count_ones() >= 2 {
                o.active &= !(1 << (63 - o.active.leading_zeros()));
            }
        },
        "active",
    );
}

#[test]
fn la_tb_dispatch_lockstep_passes_and_catches_a_planted_bug() {
    if !verilator_built() {
        return;
    }
    // From cycle 2500 the golden model sends every grant to a neighbouring SM.
    base_lockstep_passes_and_catches::<gpusim::blocks::la_tb_dispatch::Kind>(
        100_000,
        9,
        2_500,
        |o| {
            if o.grant {
                o.grant_sm ^= 1;
            }
        },
        "grant_sm",
    );
}

#[test]
fn chimera_tb_lockstep_passes_and_catches_a_planted_bug() {
    if !verilator_built() {
        return;
    }
    // From cycle 2500 the golden model reports every plan that is late as meeting the limit.
    base_lockstep_passes_and_catches::<gpusim::blocks::chimera_tb::Kind>(
        300_000,
        9,
        2_500,
        |o| {
            if o.done {
                o.ok = true;
            }
        },
        "ok",
    );
}

#[test]
fn twoway_alloc_lockstep_passes_and_catches_a_planted_bug() {
    if !verilator_built() {
        return;
    }
    // From cycle 3000 the golden model gives every high-end first block the slot above.
    base_lockstep_passes_and_catches::<gpusim::blocks::twoway_alloc::Kind>(
        300_000,
        11,
        3_000,
        |o| {
            if o.room && o.high {
                o.slot0 += 1;
            }
        },
        "slot0",
    );
}

#[test]
fn kernel_lrr_lockstep_passes_and_catches_a_planted_bug() {
    if !verilator_built() {
        return;
    }
    // From cycle 3000 the golden model grants the second kernel's boundary warps as if they
    // were any eligible warp's tier.
    base_lockstep_passes_and_catches::<gpusim::blocks::kernel_lrr::Kind>(
        300_000,
        13,
        3_000,
        |o| {
            if o.tier == 2 {
                o.tier = 3;
            }
        },
        "tier",
    );
}

#[test]
fn paver_tb_lockstep_passes_and_catches_a_planted_bug() {
    if !verilator_built() {
        return;
    }
    // From cycle 2500 the golden model reports every steal as one block larger.
    base_lockstep_passes_and_catches::<gpusim::blocks::paver_tb::Kind>(
        200_000,
        9,
        2_500,
        |o| {
            if o.steal {
                o.steal_count += 1;
            }
        },
        "steal_count",
    );
}
