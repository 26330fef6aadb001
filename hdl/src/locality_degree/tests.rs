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
    /// Warps, active group size, `serial`, `scan`.
    const SIZE: (usize, usize, bool, bool);
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
        const NU: usize,
        const SER: usize,
        const PAR: usize,
        const NR: usize,
        const NA: usize,
        const NC: usize,
        const NRK: usize,
        const SCN: usize,
        const NBS: usize,
        const NPL: usize,
        const TT: usize,
        const NDG: usize,
        const NDP: usize,
    > Ports for Laws<N, B, K, T, NN, NP, PB, SB, NS, NU, SER, PAR, NR, NA, NC, NRK, SCN, NBS, NPL, TT, NDG, NDP>
{
    const SIZE: (usize, usize, bool, bool) = (N, K, SER == 1, SCN == 1);

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
    policy: &str,
    preset: &str,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(&LawsIn, LawsOut) -> LawsOut,
) -> Result<usize, (usize, LawsOut, LawsOut)> {
    compare_in::<U>(policy, preset, seed, cycles, true, corrupt)
}

/// [`compare`]; without `starve`, no warp starves (the threshold raised past every gap), so
/// the promotion scores decide more promotions.
fn compare_in<U: Ports>(
    policy: &str,
    preset: &str,
    seed: u64,
    cycles: usize,
    starve: bool,
    corrupt: impl Fn(&LawsIn, LawsOut) -> LawsOut,
) -> Result<usize, (usize, LawsOut, LawsOut)> {
    let params = Kind::params(policy, preset);
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
        let mut i = stim.next(prev.as_ref());
        if !starve {
            i.starve_after = u8::MAX;
        }
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
    fn check<U: Ports>(policy: &str, preset: &str) {
        let p = Kind::params(policy, preset);
        assert_eq!(
            U::SIZE,
            (p.warps, p.active, p.serial, p.scan),
            "{policy} {preset}"
        );
    }
    check::<BaseFermi>("base", "fermi");
    check::<BaseProto>("base", "proto");
    check::<SerialFermi>("serial", "fermi");
    check::<SerialProto>("serial", "proto");
    check::<ScanFermi>("scan", "fermi");
    check::<ScanProto>("scan", "proto");
}

#[test]
fn rtl_matches_golden_for_every_preset() {
    let same = |_: &LawsIn, o| o;
    for (module, r) in [
        ("base fermi", compare::<BaseFermi>("base", "fermi", 1, 4_000, same)),
        ("base proto", compare::<BaseProto>("base", "proto", 2, 20_000, same)),
        ("serial fermi", compare::<SerialFermi>("serial", "fermi", 3, 4_000, same)),
        ("serial proto", compare::<SerialProto>("serial", "proto", 5, 20_000, same)),
        ("scan fermi", compare::<ScanFermi>("scan", "fermi", 6, 4_000, same)),
        ("scan proto", compare::<ScanProto>("scan", "proto", 7, 20_000, same)),
        (
            "scan fermi, no starvation",
            compare_in::<ScanFermi>("scan", "fermi", 8, 4_000, false, same),
        ),
        (
            "scan proto, no starvation",
            compare_in::<ScanProto>("scan", "proto", 9, 20_000, false, same),
        ),
        (
            "serial fermi, no starvation",
            compare_in::<SerialFermi>("serial", "fermi", 8, 4_000, false, same),
        ),
    ] {
        let grants =
            r.unwrap_or_else(|(c, g, r)| panic!("{module} cycle {c}: golden {g:?} rtl {r:?}"));
        assert!(grants > 500, "{module}: {grants} grants");
    }
}

#[test]
fn a_planted_golden_bug_is_caught() {
    // Pretend the golden model grants the lowest-numbered ready warp whenever two are ready.
    let r = compare::<BaseProto>("base", "proto", 4, 20_000, |i, mut o| {
        if (i.ready & o.active).count_ones() >= 2 {
            o.grant_warp = (i.ready & o.active).trailing_zeros() as u8;
        }
        o
    });
    assert!(r.is_err());
}

#[test]
fn the_other_row_engine_is_caught() {
    // Each policy's RTL against the golden model of the other: the rows' timing (a row a
    // cycle, or an entry a cycle with dirty warps masked) decides grants, and the comparison
    // sees it within the run.
    let same = |_: &LawsIn, o| o;
    assert!(compare::<SerialProto>("base", "proto", 5, 20_000, same).is_err());
    assert!(compare::<BaseProto>("serial", "proto", 2, 20_000, same).is_err());
}

#[test]
fn the_other_promotion_is_caught() {
    // `scan` against `serial` and back: the scanned scores and one promotion a cycle decide
    // the active group, and the comparison sees it within the run.
    let same = |_: &LawsIn, o| o;
    assert!(compare::<ScanProto>("serial", "proto", 5, 20_000, same).is_err());
    assert!(compare::<SerialProto>("scan", "proto", 7, 20_000, same).is_err());
    // With no warp starving, the scores decide: the scanned scores' relation is checked.
    assert!(compare_in::<ScanFermi>("serial", "fermi", 8, 4_000, false, same).is_err());
}
