//! rust-hdl simulation of `twoway_alloc` against the golden model (every preset, random
//! stimulus), and a planted golden bug that the comparison catches.

use super::*;
use crate::sim::{clock_edge, settle, start};
use gpusim::block::Stimulus as _;
use gpusim::block::{Block as GoldenBlock, BlockKind};
use gpusim::blocks::twoway_alloc::{Golden, Kind, TwoWayIn, TwoWayOut};

fn drive<const T: usize, const SB: usize, const PB: usize, const CT: usize, const CR: usize, const CU: usize>(
    u: &mut TwoWayAlloc<T, SB, PB, CT, CR, CU>,
    reset: bool,
    i: &TwoWayIn,
) {
    u.reset.next = reset;
    u.offer.next = i.offer;
    u.kernel.next = u64::from(i.kernel).to_bits();
    u.need_threads.next = u64::from(i.need_threads).to_bits();
    u.need_rows.next = u64::from(i.need_rows).to_bits();
    u.need_units.next = u64::from(i.need_units).to_bits();
    u.quota.next = u64::from(i.quota).to_bits();
    u.placed_lo.next = i.placed_lo.to_bits();
    u.placed_hi.next = i.placed_hi.to_bits();
    u.freed_lo.next = i.freed_lo.to_bits();
    u.freed_hi.next = i.freed_hi.to_bits();
}

fn outputs<const T: usize, const SB: usize, const PB: usize, const CT: usize, const CR: usize, const CU: usize>(
    u: &TwoWayAlloc<T, SB, PB, CT, CR, CU>,
) -> TwoWayOut {
    let v = |x: u64| x as u32;
    TwoWayOut {
        room: u.room.val(),
        room2: u.room2.val(),
        high: u.high.val(),
        slot0: v(u.slot0.val().to_u64()),
        slot1: v(u.slot1.val().to_u64()),
        base0_rows: v(u.base0_rows.val().to_u64()),
        base0_units: v(u.base0_units.val().to_u64()),
        base1_rows: v(u.base1_rows.val().to_u64()),
        base1_units: v(u.base1_units.val().to_u64()),
        held: u.held.val(),
        fragmented: u.fragmented.val(),
    }
}

/// Cycles with room in `cycles` random cycles, or the first mismatch (cycle, golden, rtl).
fn compare<const T: usize, const SB: usize, const PB: usize, const CT: usize, const CR: usize, const CU: usize>(
    preset: &str,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(TwoWayOut) -> TwoWayOut,
) -> Result<usize, Box<(usize, TwoWayIn, TwoWayOut, TwoWayOut)>> {
    let params = Kind::params("base", preset);
    let caps = [params.blocks, params.threads, params.rows, params.units].map(|x| x as usize);
    assert_eq!(caps, [T, CT, CR, CU], "the alias is the preset");
    let mut u = TwoWayAlloc::<T, SB, PB, CT, CR, CU>::default();
    start(&mut u);
    drive(&mut u, true, &TwoWayIn::default());
    settle(&mut u);
    clock_edge(&mut u);
    let mut golden = Golden::new(params);
    let mut stim = Kind::stimulus(&params, seed);
    let (mut prev, mut rooms) = (None, 0);
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        drive(&mut u, false, &i);
        settle(&mut u);
        let rtl = outputs(&u);
        let want = corrupt(golden.step(&i));
        if rtl != want {
            return Err(Box::new((c, i, want, rtl)));
        }
        rooms += usize::from(want.room);
        clock_edge(&mut u);
        prev = Some(want);
    }
    Ok(rooms)
}

#[test]
fn rtl_matches_golden_for_every_preset() {
    let n = compare::<4, 2, 3, 512, 256, 64>("proto", 1, 20_000, |o| o).unwrap();
    assert!(n > 2_000, "{n} cycles with room");
    let n = compare::<8, 3, 4, 1536, 1024, 192>("fermi", 2, 20_000, |o| o).unwrap();
    assert!(n > 2_000, "{n} cycles with room");
    let n = compare::<32, 5, 6, 2048, 2048, 384>("gtx980", 3, 10_000, |o| o).unwrap();
    assert!(n > 1_000, "{n} cycles with room");
}

#[test]
fn a_planted_golden_bug_is_caught() {
    // Pretend the golden model gives a high-end block a base one unit lower.
    let r = compare::<8, 3, 4, 1536, 1024, 192>("fermi", 4, 20_000, |mut o| {
        if o.room && o.high && o.base0_units > 0 {
            o.base0_units -= 1;
        }
        o
    });
    assert!(r.is_err_and(|e| e.3.base0_units == e.2.base0_units + 1));
}

#[test]
fn every_preset_emits_verilog() {
    for preset in Kind::PRESETS {
        let v = <Rtl as crate::RtlKind>::verilog("base", preset, "twoway_alloc_test").unwrap();
        assert!(v.contains("module twoway_alloc_test"), "{preset}");
    }
}
