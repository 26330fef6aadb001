//! X randomisation: every Verilated model is built with `--x-initial unique` and the registers'
//! initial values removed, so a lockstep can start the registers that the reset does not set
//! at random values of a seed (`cosim --x-seed`, `regress`'s X stage). The build's planted
//! module (`newcar_base_proto` without the reset of its valid mask) shows that this catches a
//! missing reset that registers starting at 0 hide.

use gpusched_tb::cosim::{self, CosimOptions, CosimReport};
use gpusched_tb::lockstep::LockstepConfig;
use gpusim::block::BlockKind;
use gpusim::blocks::newcar;
mod common;

use common::verilator_built;

/// The build's module with a reset removed (testbench/build.rs `PLANTED`).
const PLANTED: &str = "planted_noreset_newcar_base_proto";

#[test]
fn the_build_plants_the_missing_reset() {
    if !verilator_built() {
        return;
    }
    assert_eq!(gpusched_tb::rtl::PLANTED_MODULES, [PLANTED]);
}

/// `module` against NewCAR's `proto` golden model, its registers without reset starting from
/// `x_seed`.
fn run(module: &str, x_seed: u64) -> CosimReport {
    let params = newcar::Kind::params("base", "proto");
    let opts = CosimOptions {
        cycles: 20_000,
        seed: 1,
        lockstep: LockstepConfig {
            window: 0,
            x_seed,
            ..Default::default()
        },
    };
    cosim::lockstep::<newcar::Kind, _>(
        newcar::Kind::golden(&params),
        &params,
        module,
        &opts,
        &mut |_| {},
    )
    .unwrap()
}

#[test]
fn a_missing_reset_is_caught_by_x_randomisation_and_not_by_zero_initial_values() {
    if !verilator_built() {
        return;
    }
    for x_seed in [0, 1, 2, 3] {
        let r = run("newcar_base_proto", x_seed);
        assert_eq!(r.mismatches, 0, "the real module, x-seed {x_seed}");
    }
    let zero = run(PLANTED, 0);
    assert_eq!(
        (zero.mismatches, zero.cycles),
        (0, 20_000),
        "registers starting at 0 hide the missing reset"
    );
    for x_seed in [1, 2, 3] {
        let r = run(PLANTED, x_seed);
        assert_eq!(r.mismatches, 1, "x-seed {x_seed} finds the missing reset");
        // The same seed starts the same values: the same first mismatch.
        assert_eq!(run(PLANTED, x_seed).cycles, r.cycles, "x-seed {x_seed}");
    }
}
