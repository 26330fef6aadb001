//! rust-hdl simulation of the LAWS scheduler against the golden model (both presets, random
//! stimulus), the preset aliases against the golden presets, and a planted golden bug that the
//! comparison catches.

use super::*;
use crate::sim::{clock_edge, settle, start, to_bits};
use gpusim::block::Stimulus as _;
use gpusim::block::{Block as GoldenBlock, BlockKind};
use gpusim::blocks::locality_degree::{Golden, Kind, LawsIn, LawsOut};

/// Port access of every preset alias.
trait Ports: Default + Clocked {
    /// Warps and active group size.
    const SIZE: (usize, usize);
    fn drive(&mut self, reset: bool, i: &LawsIn);
    fn outputs(&self) -> LawsOut;
}

impl<
        const N: usize,
        const B: usize,
        const K: usize,
        const T: usize,
        const NN: usize,
        const NP: usize,
        const PB: usize,
        const SB: usize,
        const NS: usize,
    > Ports for Laws<N, B, K, T, NN, NP, PB, SB, NS>
{
    const SIZE: (usize, usize) = (N, K);

    fn drive(&mut self, reset: bool, i: &LawsIn) {
        self.reset.next = reset;
        self.ready.next = to_bits(i.ready as u128);
        self.launch.next = to_bits(i.launch as u128);
        self.launch2.next = to_bits(i.launch2 as u128);
        self.tbs_launched.next = to_bits(i.tbs_launched as u128);
        self.exit.next = to_bits(i.exit as u128);
        self.long_stall.next = to_bits(i.long_stall as u128);
        self.starve_after.next = to_bits(i.starve_after as u128);
        for w in 0..N {
            self.region[w].next = to_bits(i.region[w] as u128);
            self.sub[w].next = to_bits(i.sub[w]);
        }
    }

    fn outputs(&self) -> LawsOut {
        LawsOut {
            grant_valid: self.grant_valid.val(),
            grant_warp: self.grant_warp.val().index() as u8,
            active: self.active.val().index() as u64,
        }
    }
}

/// Grants in `cycles` random cycles, or the first mismatch (cycle, golden, rtl).
fn compare<U: Ports>(
    preset: &str,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(&LawsIn, LawsOut) -> LawsOut,
) -> Result<usize, (usize, LawsOut, LawsOut)> {
    let params = Kind::params("base", preset);
    let mut u = U::default();
    start(&mut u);
    u.drive(true, &LawsIn::default());
    settle(&mut u);
    clock_edge(&mut u);
    let mut golden = Golden::new(params);
    let mut stim = Kind::stimulus(&params, seed);
    let mut prev = None;
    let mut grants = 0;
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        u.drive(false, &i);
        settle(&mut u);
        let rtl = u.outputs();
        let want = corrupt(&i, golden.step(&i));
        if rtl != want {
            return Err((c, want, rtl));
        }
        grants += want.grant_valid as usize;
        clock_edge(&mut u);
        prev = Some(want);
    }
    Ok(grants)
}

#[test]
fn preset_aliases_are_the_golden_presets() {
    fn check<U: Ports>(preset: &str) {
        let p = Kind::params("base", preset);
        assert_eq!(U::SIZE, (p.warps, p.active), "{preset}");
    }
    check::<BaseFermi>("fermi");
    check::<BaseProto>("proto");
}

#[test]
fn rtl_matches_golden_for_every_preset() {
    let same = |_: &LawsIn, o| o;
    for (preset, r) in [
        ("fermi", compare::<BaseFermi>("fermi", 1, 4_000, same)),
        ("proto", compare::<BaseProto>("proto", 2, 20_000, same)),
    ] {
        let grants =
            r.unwrap_or_else(|(c, g, r)| panic!("{preset} cycle {c}: golden {g:?} rtl {r:?}"));
        assert!(grants > 500, "{preset}: {grants} grants");
    }
}

#[test]
fn a_planted_golden_bug_is_caught() {
    // Pretend the golden model grants the lowest-numbered ready warp whenever two are ready.
    let r = compare::<BaseProto>("proto", 4, 20_000, |i, mut o| {
        if (i.ready & o.active).count_ones() >= 2 {
            o.grant_warp = (i.ready & o.active).trailing_zeros() as u8;
        }
        o
    });
    assert!(r.is_err());
}
