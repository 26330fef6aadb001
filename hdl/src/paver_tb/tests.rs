//! rust-hdl simulation of PAVER's scheduler against the golden model (every preset, random
//! stimulus with every stealer mode), and a planted golden fault that the comparison catches.

use super::*;
use crate::sim::{clock_edge, from_bits, settle, start, to_bits};
use gpusim::block::Stimulus as _;
use gpusim::block::{Block as GoldenBlock, BlockKind};
use gpusim::blocks::paver_tb::stimulus::Stimulus;
use gpusim::blocks::paver_tb::{Fault, Golden, Kind, PaverIn, PaverOut};

/// Port access of every preset.
trait Ports: Default + Clocked {
    const SMS: usize;
    fn drive(&mut self, reset: bool, i: &PaverIn);
    fn outputs(&self) -> PaverOut;
}

impl<const N: usize, const B: usize, const C: usize, const M: usize, const C1: usize, const RB: usize>
    Ports for PaverTb<N, B, C, M, C1, RB>
{
    const SMS: usize = N;

    fn drive(&mut self, reset: bool, i: &PaverIn) {
        self.reset.next = reset;
        self.start.next = i.start;
        self.groups.next = (i.groups as u64).to_bits();
        self.steal_mode.next = (i.steal_mode as u64 & 3).to_bits();
        self.recipient_idle.next = i.recipient_idle;
        self.room.next = to_bits(i.room);
        self.empty.next = to_bits(i.empty);
        self.rsp_valid.next = to_bits(i.rsp_valid);
        for s in 0..N {
            self.rsp_data[s].next = (i.rsp_data[s] as u64).to_bits();
        }
    }

    fn outputs(&self) -> PaverOut {
        let mut o = PaverOut {
            grant: from_bits(self.grant.val()),
            req_valid: from_bits(self.req_valid.val()),
            req_group: from_bits(self.req_group.val()),
            assigned: from_bits(self.assigned.val()),
            steal: self.steal.val(),
            steal_donor: self.steal_donor.val().to_u64() as u8,
            steal_to: self.steal_to.val().to_u64() as u8,
            steal_count: self.steal_count.val().to_u64() as u16,
            idle: self.idle.val(),
            ..Default::default()
        };
        for s in 0..N {
            o.id[s] = self.id[s].val().to_u64() as u16;
            o.req_addr[s] = self.req_addr[s].val().to_u64() as u16;
        }
        o
    }
}

/// A mismatch: the cycle, the golden outputs, the RTL's.
type Mismatch = (usize, Box<PaverOut>, Box<PaverOut>);

/// The grants and steals of `cycles` cycles of random stimulus, or the first mismatch.
fn compare<U: Ports>(
    preset: &str,
    seed: u64,
    cycles: usize,
    fault: Option<Fault>,
) -> Result<(usize, usize), Mismatch> {
    let params = Kind::params("base", preset);
    let mut stim = Stimulus::new(params, seed);
    let mut u = U::default();
    start(&mut u);
    u.drive(true, &PaverIn::default());
    settle(&mut u);
    clock_edge(&mut u);
    let mut golden = Golden::new(params);
    golden.fault = fault;
    let (mut prev, mut grants, mut steals) = (None, 0, 0);
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        u.drive(false, &i);
        settle(&mut u);
        let rtl = u.outputs();
        let want = golden.step(&i);
        if rtl != want {
            return Err((c, Box::new(want), Box::new(rtl)));
        }
        grants += want.grants(U::SMS).count();
        steals += want.steal as usize;
        clock_edge(&mut u);
        prev = Some(want);
    }
    Ok((grants, steals))
}

/// The fields in which `g` (golden) and `r` (RTL) differ.
fn diff(g: &PaverOut, r: &PaverOut) -> String {
    let a = format!("{g:?}");
    let b = format!("{r:?}");
    let split = |s: &str| s.split(", ").map(str::to_string).collect::<Vec<_>>();
    let (a, b) = (split(&a), split(&b));
    let mut v = vec![];
    for (k, (x, y)) in a.iter().zip(&b).enumerate() {
        if x != y {
            v.push(format!("#{k}: golden {x} rtl {y}"));
        }
    }
    format!("{} (steal {} grant {:#x} req {:#x})", v.join("; "), g.steal, g.grant, g.req_valid)
}

#[test]
fn rtl_matches_golden_for_every_preset() {
    let runs = [
        compare::<PaverProto>("proto", 1, 20_000, None),
        compare::<PaverFermi>("fermi", 2, 8_000, None),
        compare::<PaverTitanx>("titanx", 3, 8_000, None),
        compare::<PaverTitanv>("titanv", 4, 8_000, None),
    ];
    for r in runs {
        let (grants, steals) = r.unwrap_or_else(|(c, g, r)| panic!("cycle {c}: {}", diff(&g, &r)));
        assert!(grants > 300 && steals > 0, "{grants} grants, {steals} steals");
    }
}

#[test]
fn the_divider_takes_the_golden_models_cycles() {
    assert_eq!(DIV_CYCLES, gpusim::blocks::paver_tb::DIV_CYCLES);
}

#[test]
fn a_planted_golden_fault_is_caught() {
    let r = compare::<PaverProto>("proto", 1, 20_000, Some(Fault::StealOneMore));
    assert!(r.is_err_and(|(_, g, _)| g.steal));
}



