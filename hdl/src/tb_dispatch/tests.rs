//! rust-hdl simulation of the dispatcher against the golden model (every preset and policy,
//! random stimulus), and a planted golden bug that the comparison catches.

use gpusim::block::Stimulus as _;
use super::*;
use crate::sim::{clock_edge, settle, start};
use gpusim::block::{Block as GoldenBlock, BlockKind};
use gpusim::blocks::tb_dispatch::stimulus::Stimulus;
use gpusim::blocks::tb_dispatch::{DispatchIn, DispatchOut, Golden, Kind, Params};

use crate::sim::{from_bits, to_bits};

/// Port access of every dispatcher variant, so the tests name variants by their preset aliases.
trait Ports: Default + Clocked {
    const SMS: usize;
    fn drive(&mut self, reset: bool, i: &DispatchIn);
    fn outputs(&self) -> DispatchOut;
}

impl<
        const N: usize,
        const B: usize,
        const C: usize,
        const P: usize,
        const M: usize,
        const C1: usize,
    > Ports for TbDispatch<N, B, C, P, M, C1>
{
    const SMS: usize = N;

    fn drive(&mut self, reset: bool, i: &DispatchIn) {
        self.reset.next = reset;
        self.start.next = i.start;
        self.total.next = (i.total as u64).to_bits();
        self.max_per_sm.next = (i.max_per_sm as u64).to_bits();
        self.room.next = to_bits(i.room);
        self.room2.next = to_bits(i.room2);
    }

    fn outputs(&self) -> DispatchOut {
        let mut o = DispatchOut {
            grant: from_bits(self.grant.val()),
            grant2: from_bits(self.grant2.val()),
            idle: self.idle.val(),
            ..Default::default()
        };
        for s in 0..N {
            o.id[s] = self.id[s].val().to_u64() as u32;
            o.id2[s] = self.id2[s].val().to_u64() as u32;
        }
        o
    }
}

/// Mismatch: (cycle, golden, rtl).
type Diff = (usize, Box<DispatchOut>, Box<DispatchOut>);

/// The blocks granted in `cycles` random cycles, or the first mismatch.
fn compare<U: Ports>(
    policy: &str,
    preset: &str,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(DispatchOut) -> DispatchOut,
) -> Result<usize, Diff> {
    let params: Params = Kind::params(policy, preset);
    let mut u = U::default();
    start(&mut u);
    u.drive(true, &DispatchIn::default());
    settle(&mut u);
    clock_edge(&mut u);
    let mut golden = Golden::new(params);
    let mut stim = Stimulus::new(params, seed);
    let mut prev = None;
    let mut granted = 0;
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        u.drive(false, &i);
        settle(&mut u);
        let rtl = u.outputs();
        let want = corrupt(golden.step(&i));
        if rtl != want {
            return Err((c, Box::new(want), Box::new(rtl)));
        }
        granted += want.grants(U::SMS).count();
        clock_edge(&mut u);
        prev = Some(want);
    }
    Ok(granted)
}

#[test]
fn rtl_matches_golden_for_every_policy_and_preset() {
    let same = |o| o;
    let runs = [
        compare::<LrrFermi>("lrr", "fermi", 1, 3000, same),
        compare::<BcsFermi>("bcs", "fermi", 2, 3000, same),
        compare::<LrrProto>("lrr", "proto", 3, 6000, same),
        compare::<BcsProto>("bcs", "proto", 4, 6000, same),
        compare::<LrrTitanv>("lrr", "titanv", 5, 1000, same),
        compare::<BcsTitanv>("bcs", "titanv", 6, 1000, same),
    ];
    for r in runs {
        let granted = r.unwrap_or_else(|(c, g, r)| panic!("cycle {c}: golden {g:?} rtl {r:?}"));
        assert!(granted > 100, "the stimulus keeps the dispatcher busy: {granted} grants");
    }
}

#[test]
fn a_planted_golden_bug_is_caught() {
    // Pretend the golden model gives every pair's second block the first one's id.
    let r = compare::<BcsProto>("bcs", "proto", 6, 6000, |mut o| {
        o.id2 = o.id;
        o
    });
    assert!(r.is_err_and(|(_, g, r)| g.grant2 != 0 && g.id2 != r.id2));
}

