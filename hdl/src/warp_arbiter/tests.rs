//! rust-hdl simulation of each arbiter against the golden model (DESIGN.md §6 level 2) and
//! Verilog generation of every preset.

use gpusim::block::Stimulus as _;
use super::*;
use crate::sim::{clock_edge, settle, start, Clocked};
use gpusim::block::Block as GoldenBlock;
use gpusim::blocks::warp_arbiter::stimulus::Stimulus;
use gpusim::blocks::warp_arbiter::{ArbiterIn, ArbiterOut, Golden, Params, Policy, Preset};
use rust_hdl::prelude::*;

/// Port access shared by the arbiters, for this test only.
trait ArbiterPorts: Clocked {
    fn drive(&mut self, reset: bool, i: &ArbiterIn);
    fn outputs(&self) -> ArbiterOut;
}

macro_rules! arbiter_ports {
    ($ty:ty) => {
        impl ArbiterPorts for $ty {
            fn drive(&mut self, reset: bool, i: &ArbiterIn) {
                self.reset.next = reset;
                self.ready.next = i.ready.to_bits();
                self.launch.next = i.launch.to_bits();
                self.exit.next = i.exit.to_bits();
                self.long_stall.next = i.long_stall.to_bits();
            }
            fn outputs(&self) -> ArbiterOut {
                ArbiterOut {
                    grant_valid: self.grant_valid.val(),
                    grant_warp: self.grant_warp.val().to_u64() as u8,
                    active: self.active.val().to_u64(),
                }
            }
        }
    };
}
arbiter_ports!(ArbiterLrr<24, 5>);
arbiter_ports!(ArbiterGto<24, 5>);
arbiter_ports!(ArbiterTwoLevel<24, 5, 6, 18>);
arbiter_ports!(ArbiterLrr<8, 3>);
arbiter_ports!(ArbiterGto<8, 3>);
arbiter_ports!(ArbiterTwoLevel<8, 3, 4, 4>);
arbiter_ports!(ArbiterTwoLevelGto<24, 5, 6, 18>);
arbiter_ports!(ArbiterTwoLevelGto<8, 3, 4, 4>);

/// Runs `cycles` cycles of random stimulus through the rust-hdl model and the golden model and
/// returns the first mismatch as (cycle, golden, rtl).
fn compare<U: ArbiterPorts>(
    mut uut: U,
    params: Params,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(ArbiterOut) -> ArbiterOut,
) -> Option<(usize, ArbiterOut, ArbiterOut)> {
    start(&mut uut);
    uut.drive(true, &ArbiterIn::default());
    settle(&mut uut);
    clock_edge(&mut uut);
    let mut golden = Golden::new(params);
    let mut stim = Stimulus::new(params, seed);
    let mut prev = None;
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        uut.drive(false, &i);
        settle(&mut uut);
        let rtl = uut.outputs();
        let gold = corrupt(golden.step(&i));
        if rtl != gold {
            return Some((c, gold, rtl));
        }
        clock_edge(&mut uut);
        prev = Some(gold);
    }
    None
}

const CYCLES: usize = 20_000;

#[test]
fn rust_hdl_matches_golden_for_every_policy_and_preset() {
    let f = |p: Policy, s: Preset| Params::preset(p, s);
    let id = |o| o;
    let runs = [
        (
            "lrr fermi",
            compare(
                ArbiterLrr::<24, 5>::default(),
                f(Policy::Lrr, Preset::Fermi),
                1,
                CYCLES,
                id,
            ),
        ),
        (
            "gto fermi",
            compare(
                ArbiterGto::<24, 5>::default(),
                f(Policy::Gto, Preset::Fermi),
                2,
                CYCLES,
                id,
            ),
        ),
        (
            "two_level fermi",
            compare(
                ArbiterTwoLevel::<24, 5, 6, 18>::default(),
                f(Policy::TwoLevel, Preset::Fermi),
                3,
                CYCLES,
                id,
            ),
        ),
        (
            "lrr proto",
            compare(
                ArbiterLrr::<8, 3>::default(),
                f(Policy::Lrr, Preset::Proto),
                4,
                CYCLES,
                id,
            ),
        ),
        (
            "gto proto",
            compare(
                ArbiterGto::<8, 3>::default(),
                f(Policy::Gto, Preset::Proto),
                5,
                CYCLES,
                id,
            ),
        ),
        (
            "two_level proto",
            compare(
                ArbiterTwoLevel::<8, 3, 4, 4>::default(),
                f(Policy::TwoLevel, Preset::Proto),
                6,
                CYCLES,
                id,
            ),
        ),
        (
            "two_level_gto fermi",
            compare(
                ArbiterTwoLevelGto::<24, 5, 6, 18>::default(),
                f(Policy::TwoLevelGto, Preset::Fermi),
                7,
                CYCLES,
                id,
            ),
        ),
        (
            "two_level_gto proto",
            compare(
                ArbiterTwoLevelGto::<8, 3, 4, 4>::default(),
                f(Policy::TwoLevelGto, Preset::Proto),
                8,
                CYCLES,
                id,
            ),
        ),
    ];
    for (name, r) in runs {
        assert_eq!(r, None, "{name}: first mismatch (cycle, golden, rtl)");
    }
}

#[test]
fn comparison_catches_a_planted_golden_bug() {
    // Golden that forgets the highest warp's grants: the comparison must notice.
    let p = Params::preset(Policy::Gto, Preset::Proto);
    let bug = |mut o: ArbiterOut| {
        if o.grant_warp == 7 {
            o.grant_valid = false;
        }
        o
    };
    let r = compare(ArbiterGto::<8, 3>::default(), p, 9, CYCLES, bug);
    assert!(r.is_some(), "a planted bug went unnoticed");
}

#[test]
fn every_arbiter_generates_verilog() {
    fn gen<U: Block + Default>() -> String {
        let mut u = U::default();
        u.connect_all();
        generate_verilog(&u)
    }
    for v in [
        gen::<ArbiterLrr<8, 3>>(),
        gen::<ArbiterGto<8, 3>>(),
        gen::<ArbiterTwoLevel<8, 3, 4, 4>>(),
    ] {
        assert!(v.contains("module top"), "{v}");
    }
}
