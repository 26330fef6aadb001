//! The golden allocator at its ports: a scripted sequence (two ends, bases, holes, quota, a
//! third kernel), and the stimulus reaching every case the RTL must get right.

use super::*;
use crate::block::{BlockKind, Stimulus as _};

fn fermi() -> Params {
    crate::block::preset_of(PRESETS, "fermi")
}

fn offer(kernel: u32, need: [u32; 3], placed: [u64; 2], freed: [u64; 2]) -> TwoWayIn {
    TwoWayIn {
        offer: true,
        kernel,
        need_threads: need[0],
        need_rows: need[1],
        need_units: need[2],
        quota: 0xffff,
        placed_lo: placed[0],
        placed_hi: placed[1],
        freed_lo: freed[0],
        freed_hi: freed[1],
    }
}

#[test]
fn two_kernels_from_opposite_ends_with_holes_refilled() {
    let mut g = Golden::new(fermi());
    let a = [256, 128, 32];
    let o = g.step(&offer(7, a, [0; 2], [0; 2]));
    assert_eq!((o.room, o.room2, o.high, o.slot0, o.slot1), (true, true, false, 0, 1));
    assert_eq!((o.base1_rows, o.base1_units), (128, 32));
    let b = [128, 64, 16];
    let o = g.step(&offer(9, b, [0b11, 0], [0; 2]));
    assert!(o.room && o.high);
    assert_eq!((o.base0_rows, o.base0_units), (1024 - 64, 192 - 16));
    // Kernel 7's slot 0 leaves: its hole is refilled first.
    let o = g.step(&offer(7, a, [0, 1], [1, 0]));
    assert_eq!((o.slot0, o.slot1, o.base0_rows), (0, 2, 0));
    // Quota 1: slot 0 only; quota 0: nothing.
    let o = g.step(&TwoWayIn {
        quota: 1,
        ..offer(7, a, [0; 2], [0; 2])
    });
    assert_eq!((o.room, o.room2), (true, false));
    let o = g.step(&TwoWayIn {
        quota: 0,
        ..offer(7, a, [0; 2], [0; 2])
    });
    assert!(!o.room);
    // A third kernel while both ends hold blocks; nothing offered.
    assert_eq!(g.step(&offer(3, b, [0; 2], [0; 2])), TwoWayOut::default());
    let idle = TwoWayIn {
        offer: false,
        ..offer(7, a, [0; 2], [0; 2])
    };
    assert_eq!(g.step(&idle), TwoWayOut::default());
}

#[test]
fn the_stimulus_reaches_every_case() {
    for preset in Kind::PRESETS {
        let p = Kind::params("base", preset);
        let mut g = Golden::new(p);
        let mut s = Kind::stimulus(&p, 1);
        let (mut prev, mut seen) = (None, [0u32; 7]);
        for _ in 0..50_000 {
            let i = s.next(prev.as_ref());
            let o = g.step(&i);
            seen[0] += u32::from(o.room && !o.high);
            seen[1] += u32::from(o.room && o.high);
            seen[2] += u32::from(o.room2);
            seen[3] += u32::from(i.offer && !o.room);
            seen[4] += u32::from(o.room && o.slot0 > 0);
            seen[5] += u32::from(i.freed_lo | i.freed_hi != 0);
            seen[6] += u32::from(o.fragmented);
            prev = Some(o);
        }
        assert!(seen.iter().all(|&n| n > 100), "{preset}: {seen:?}");
    }
}
