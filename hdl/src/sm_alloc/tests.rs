//! rust-hdl simulation of the allocator against the golden model (every preset, random
//! stimulus), the preset aliases against the golden presets, and a planted golden bug that the
//! comparison catches.

use super::*;
use crate::sim::{clock_edge, settle, start};
use gpusim::block::Stimulus as _;
use gpusim::block::{Block as GoldenBlock, BlockKind, PortBundle};
use gpusim::blocks::sm_alloc::{AllocIn, AllocOut, Golden, Kind};

/// Port access of every preset alias.
trait Ports: Default + Clocked {
    /// Capacities in `gpusim::blocks::sm_alloc::RESOURCES` order, and port widths.
    const CAPS: [usize; 4];
    const WIDTHS: [usize; 4];
    fn drive(&mut self, reset: bool, i: &AllocIn);
    fn outputs(&self) -> AllocOut;
}

impl<
        const TW: usize,
        const TX: usize,
        const CT: usize,
        const RW: usize,
        const RX: usize,
        const CR: usize,
        const SW: usize,
        const SX: usize,
        const CS: usize,
        const BW: usize,
        const BX: usize,
        const CB: usize,
    > Ports for SmAlloc<TW, TX, CT, RW, RX, CR, SW, SX, CS, BW, BX, CB>
{
    const CAPS: [usize; 4] = [CT, CR, CS, CB];
    const WIDTHS: [usize; 4] = [TW, RW, SW, BW];

    fn drive(&mut self, reset: bool, i: &AllocIn) {
        self.reset.next = reset;
        self.need_threads.next = (i.need_threads as u64).to_bits();
        self.need_regs.next = (i.need_regs as u64).to_bits();
        self.need_smem.next = (i.need_smem as u64).to_bits();
        self.alloc_threads.next = (i.alloc_threads as u64).to_bits();
        self.alloc_regs.next = (i.alloc_regs as u64).to_bits();
        self.alloc_smem.next = (i.alloc_smem as u64).to_bits();
        self.alloc_blocks.next = (i.alloc_blocks as u64).to_bits();
        self.free_threads.next = (i.free_threads as u64).to_bits();
        self.free_regs.next = (i.free_regs as u64).to_bits();
        self.free_smem.next = (i.free_smem as u64).to_bits();
        self.free_blocks.next = (i.free_blocks as u64).to_bits();
    }

    fn outputs(&self) -> AllocOut {
        AllocOut {
            room: self.room.val(),
            room2: self.room2.val(),
        }
    }
}

/// Cycles with `room` in `cycles` random cycles, or the first mismatch (cycle, golden, rtl).
fn compare<U: Ports>(
    preset: &str,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(&AllocIn, AllocOut) -> AllocOut,
) -> Result<(usize, usize), (usize, AllocOut, AllocOut)> {
    let params = Kind::params("base", preset);
    let mut u = U::default();
    start(&mut u);
    u.drive(true, &AllocIn::default());
    settle(&mut u);
    clock_edge(&mut u);
    let mut golden = Golden::new(params);
    let mut stim = Kind::stimulus(&params, seed);
    let mut prev = None;
    let (mut room, mut just_one) = (0, 0);
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        u.drive(false, &i);
        settle(&mut u);
        let rtl = u.outputs();
        let want = corrupt(&i, golden.step(&i));
        if rtl != want {
            return Err((c, want, rtl));
        }
        room += want.room as usize;
        just_one += (want.room && !want.room2) as usize;
        clock_edge(&mut u);
        prev = Some(want);
    }
    Ok((room, just_one))
}

#[test]
fn preset_aliases_are_the_golden_presets() {
    fn check<U: Ports>(preset: &str) {
        let p = Kind::params("base", preset);
        assert_eq!(U::CAPS, p.caps().map(|c| c as usize), "{preset} capacities");
        let widths: Vec<u32> = AllocIn::specs(&p).iter().take(4).map(|s| s.width).collect();
        assert_eq!(
            U::WIDTHS.map(|w| w as u32)[..3],
            widths[..3],
            "{preset} port widths"
        );
        assert_eq!(U::WIDTHS.map(|w| w as u32), p.widths(), "{preset} widths");
    }
    check::<BaseFermi>("fermi");
    check::<BaseTitanv>("titanv");
    check::<BaseProto>("proto");
}

#[test]
fn rtl_matches_golden_for_every_preset() {
    let same = |_: &AllocIn, o| o;
    for (preset, r) in [
        ("fermi", compare::<BaseFermi>("fermi", 1, 20_000, same)),
        ("titanv", compare::<BaseTitanv>("titanv", 2, 20_000, same)),
        ("proto", compare::<BaseProto>("proto", 3, 20_000, same)),
    ] {
        let (room, just_one) =
            r.unwrap_or_else(|(c, g, r)| panic!("{preset} cycle {c}: golden {g:?} rtl {r:?}"));
        assert!(
            room > 2000 && just_one > 500 && room < 19_000,
            "{preset}: the stimulus fills and empties the SM ({room} cycles with room, {just_one} with room for one only)"
        );
    }
}

#[test]
fn a_planted_golden_bug_is_caught() {
    // Pretend the golden model forgets that a block released registers.
    let r = compare::<BaseProto>("proto", 4, 20_000, |i, mut o| {
        if i.free_regs > 0 {
            o.room = !o.room;
        }
        o
    });
    assert!(r.is_err());
}
