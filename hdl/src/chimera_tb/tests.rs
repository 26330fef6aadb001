//! rust-hdl simulation of `chimera_tb` against the golden model (both presets, random
//! stimulus), the preset aliases against the golden presets, and a planted golden bug that the
//! comparison catches.

use super::*;
use crate::sim::{clock_edge, settle, start};
use gpusim::block::Stimulus as _;
use gpusim::block::{Block as GoldenBlock, BlockKind};
use gpusim::blocks::chimera_tb::block::{pass_cycles, ChimeraIn, ChimeraOut, Golden};
use gpusim::blocks::chimera_tb::Kind;

fn drive<const T: usize, const TB: usize, const NB: usize, const P: usize>(
    u: &mut ChimeraTb<T, TB, NB, P>,
    reset: bool,
    i: &ChimeraIn,
) {
    u.reset.next = reset;
    u.launch.next = i.launch;
    u.launch_slot.next = (i.launch_slot as u64).to_bits();
    u.launch_issued.next = (i.launch_issued as u64).to_bits();
    u.launch_cycles.next = (i.launch_cycles as u64).to_bits();
    u.launch_ni.next = i.launch_ni;
    for p in 0..P {
        u.issue_valid[p].next = i.issue_valid[p];
        u.issue_slot[p].next = (i.issue_slot[p] as u64).to_bits();
        u.issue_overwrite[p].next = i.issue_overwrite[p];
    }
    u.leave.next = i.leave;
    u.leave_slot.next = (i.leave_slot as u64).to_bits();
    u.start.next = i.start;
    u.victims.next = (i.victims as u64).to_bits();
    u.avg_i.next = (i.avg_i as u64).to_bits();
    u.cpi_q.next = (i.cpi_q as u64).to_bits();
    u.ipc_q.next = (i.ipc_q as u64).to_bits();
    u.sw_cyc.next = (i.sw_cyc as u64).to_bits();
    u.lat_limit.next = (i.lat_limit as u64).to_bits();
    u.margin.next = (i.margin as u64).to_bits();
    u.mode.next = (i.mode as u64).to_bits();
    u.scope.next = (i.scope as u64).to_bits();
    u.idempotent.next = i.idempotent;
    u.dr_min.next = i.dr_min;
}

fn outputs<const T: usize, const TB: usize, const NB: usize, const P: usize>(
    u: &ChimeraTb<T, TB, NB, P>,
) -> ChimeraOut {
    let mut tech = [0u8; 16];
    for (k, t) in tech.iter_mut().enumerate().take(T) {
        *t = u.tech[k].val().to_u64() as u8;
    }
    ChimeraOut {
        busy: u.busy.val(),
        done: u.done.val(),
        ok: u.ok.val(),
        sm_ovh: u.sm_ovh.val().to_u64() as u32,
        sm_lat: u.sm_lat.val().to_u64() as u32,
        fallback: u.fallback.val().to_u64() as u32,
        tech,
        leave_issued: u.leave_issued.val().to_u64() as u32,
        leave_cycles: u.leave_cycles.val().to_u64() as u32,
    }
}

/// Passes completed in `cycles` random cycles, or the first mismatch (cycle, golden, rtl).
fn compare<const T: usize, const TB: usize, const NB: usize, const P: usize>(
    preset: &str,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(ChimeraOut) -> ChimeraOut,
) -> Result<usize, (usize, ChimeraOut, ChimeraOut)> {
    let params = Kind::params("base", preset);
    assert_eq!((params.slots as usize, params.issue as usize), (T, P));
    let mut u = ChimeraTb::<T, TB, NB, P>::default();
    start(&mut u);
    drive(&mut u, true, &ChimeraIn::default());
    settle(&mut u);
    clock_edge(&mut u);
    let mut golden = Golden::new(params);
    let mut stim = Kind::stimulus(&params, seed);
    let (mut prev, mut passes) = (None, 0);
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        drive(&mut u, false, &i);
        settle(&mut u);
        let rtl = outputs(&u);
        let want = corrupt(golden.step(&i));
        if rtl != want {
            return Err((c, want, rtl));
        }
        passes += want.done as usize;
        clock_edge(&mut u);
        prev = Some(want);
    }
    Ok(passes)
}

#[test]
fn rtl_matches_golden_for_both_presets() {
    let proto = compare::<4, 2, 3, 1>("proto", 1, 20_000, |o| o).unwrap();
    assert!(proto >= 20_000 / pass_cycles(4) as usize / 3, "{proto} passes");
    let fermi = compare::<8, 3, 4, 2>("fermi", 2, 10_000, |o| o).unwrap();
    assert!(fermi >= 10_000 / pass_cycles(8) as usize / 3, "{fermi} passes");
}

#[test]
fn a_planted_golden_bug_is_caught() {
    // Pretend the golden model reports one instruction less of the overhead: the comparison
    // must fail on the first plan with any overhead.
    let r = compare::<4, 2, 3, 1>("proto", 3, 6_000, |mut o| {
        if o.done && o.sm_ovh > 0 && o.sm_ovh < u32::MAX {
            o.sm_ovh -= 1;
        }
        o
    });
    assert!(r.is_err_and(|(_, g, r)| r.sm_ovh == g.sm_ovh + 1), "{r:?}");
}

#[test]
fn both_presets_emit_verilog() {
    for preset in Kind::PRESETS {
        let v = <Rtl as crate::RtlKind>::verilog("base", preset, "chimera_tb_test").unwrap();
        assert!(v.contains("module chimera_tb_test"), "{preset}");
    }
}

