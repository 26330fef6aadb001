//! rust-hdl simulation of the ELF block against the golden model.

use gpusim::block::Stimulus as _;
use super::*;
use crate::sim::{clock_edge, settle, start};
use gpusim::block::Block as GoldenBlock;
use gpusim::blocks::elf::stimulus::Stimulus;
use gpusim::blocks::elf::{ElfIn, ElfOut, Golden, Params, Preset};

type Fermi = super::ElfFermi;
type Proto = super::ElfProto;
type Quad = super::ElfQuad;

macro_rules! ports {
    ($u:expr, $reset:expr, $i:expr) => {{
        let (u, i) = ($u, $i);
        u.reset.next = $reset;
        u.tw_clear.next = i.tw_clear;
        u.tw_en.next = i.tw_en;
        u.tw_slot.next = (i.tw_slot as u64).to_bits();
        u.tw_valid.next = i.tw_valid;
        u.tw_branch.next = i.tw_branch;
        u.tw_pc.next = (i.tw_pc as u64).to_bits();
        u.tw_score.next = (i.tw_score as u64).to_bits();
        u.merge_ge.next = i.merge_ge;
        u.launch.next = i.launch.to_bits();
        u.launch_pc.next = (i.launch_pc as u64).to_bits();
        u.exit.next = i.exit.to_bits();
        for k in 0..u.ready.len() {
            u.ready[k].next = i.ready[k].to_bits();
            u.unit[k].next = i.unit[k].to_bits();
            u.upd_valid[k].next = i.upd_valid[k];
            u.upd_trig[k].next = i.upd_trig[k];
            u.upd_pc[k].next = (i.upd_pc[k] as u64).to_bits();
        }
        u.fetch_elig.next = i.fetch_elig.to_bits();
        u.fetch_on_grant.next = i.fetch_on_grant.to_bits();
        for k in 0..3 {
            u.free[k].next = (i.free[k] as u64).to_bits();
        }
        u.issue_lead.next = (i.issue_lead as u64).to_bits();
        u.fetch_lead.next = (i.fetch_lead as u64).to_bits();
    }};
}

macro_rules! outs {
    ($u:expr) => {{
        let u = $u;
        let mut o = ElfOut::default();
        for k in 0..u.grant_valid.len() {
            o.grant_valid[k] = u.grant_valid[k].val();
            o.grant_warp[k] = u.grant_warp[k].val().to_u64() as u8;
            o.prio[k] = u.prio[k].val().to_u64() as u8;
        }
        ElfOut {
            fetch_valid: u.fetch_valid.val(),
            fetch_warp: u.fetch_warp.val().to_u64() as u8,
            ..o
        }
    }};
}

macro_rules! compare {
    ($ty:ty, $params:expr, $seed:expr, $cycles:expr, $corrupt:expr) => {{
        let mut u = <$ty>::default();
        start(&mut u);
        ports!(&mut u, true, &ElfIn::default());
        settle(&mut u);
        clock_edge(&mut u);
        let mut golden = Golden::new($params);
        let mut stim = Stimulus::new($params, $seed);
        let mut prev: Option<ElfOut> = None;
        let mut result = None;
        for c in 0..$cycles {
            let i = stim.next(prev.as_ref());
            ports!(&mut u, false, &i);
            settle(&mut u);
            let rtl = outs!(&u);
            let want = $corrupt(golden.step(&i));
            if rtl != want {
                result = Some((c, want, rtl));
                break;
            }
            clock_edge(&mut u);
            prev = Some(want);
        }
        result
    }};
}

#[test]
fn rtl_matches_golden_for_both_presets_and_four_schedulers() {
    let id = |o: ElfOut| o;
    let r = compare!(Proto, Params::preset(Preset::Proto), 1, 20_000, id);
    assert_eq!(r, None);
    let r = compare!(Fermi, Params::preset(Preset::Fermi), 2, 3_000, id);
    assert_eq!(r, None);
    let quad = Params {
        warps: 16,
        schedulers: 4,
        ..Params::preset(Preset::Proto)
    };
    let r = compare!(Quad, quad, 4, 20_000, id);
    assert_eq!(r, None);
}

#[test]
fn pipelined_rtl_matches_golden_for_both_presets() {
    use gpusim::blocks::elf::WptUpdate;
    let id = |o: ElfOut| o;
    let pip = |p: Params| Params {
        wpt_update: WptUpdate::Pipelined,
        ..p
    };
    let r = compare!(
        super::ElfPipelinedProto,
        pip(Params::preset(Preset::Proto)),
        5,
        20_000,
        id
    );
    assert_eq!(r, None);
    let r = compare!(
        super::ElfPipelinedFermi,
        pip(Params::preset(Preset::Fermi)),
        6,
        3_000,
        id
    );
    assert_eq!(r, None);
}

#[test]
fn a_planted_golden_bug_is_caught() {
    let r = compare!(
        Proto,
        Params::preset(Preset::Proto),
        3,
        20_000,
        |mut o: ElfOut| {
            o.prio[0] = o.prio[0].saturating_add(1);
            o
        }
    );
    assert!(r.is_some_and(|(_, g, r)| g.prio[0] != r.prio[0]));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// The table's lookup against the golden calculator, PCs within 6 KB of a 64 KB boundary
    /// (or of the top of the address space): hits, distances and clipping across the halves.
    #[test]
    fn table_lookups_near_64k_boundaries_match_golden(
        boundary in proptest::sample::select(vec![0x1_0000u64, 0x7_0000, 0x8000_0000, 0xffff_0000, 0x1_0000_0000]),
        slots in proptest::collection::vec((proptest::prelude::any::<bool>(), proptest::prelude::any::<bool>(), -6000i64..6000, proptest::prelude::any::<u8>()), 8),
        pcs in proptest::collection::vec(-6000i64..6000, 1..24),
        merge_ge in proptest::prelude::any::<bool>(),
    ) {
        use gpusim::blocks::elf::{calc, PpEntry};
        let at = |off: i64| (boundary as i64 + off).clamp(0, u32::MAX as i64) as u32;
        let table: Vec<PpEntry> = slots
            .iter()
            .map(|&(valid, branch, off, score)| PpEntry { valid, branch, pc: at(off), score })
            .collect();
        // Both tables: the base one and the pipelined block's slot-wise one.
        macro_rules! check {
            ($ty:ty) => {{
                let mut u = <$ty>::default();
                start(&mut u);
                u.reset.next = false;
                u.merge_ge.next = merge_ge;
                u.en[0].next = true;
                for (k, e) in table.iter().enumerate() {
                    u.tw_en.next = true;
                    u.tw_slot.next = (k as u64).to_bits();
                    u.tw_valid.next = e.valid;
                    u.tw_branch.next = e.branch;
                    u.tw_pc.next = (e.pc as u64).to_bits();
                    u.tw_score.next = (e.score as u64).to_bits();
                    settle(&mut u);
                    clock_edge(&mut u);
                }
                u.tw_en.next = false;
                for &off in &pcs {
                    let pc = at(off);
                    u.pc[0].next = (pc as u64).to_bits();
                    settle(&mut u);
                    let want = calc(&table, pc, 3, merge_ge).prio;
                    proptest::prop_assert_eq!(
                        u.prio[0].val().to_u64() as u8,
                        want,
                        "{} pc {:#x}",
                        stringify!($ty),
                        pc
                    );
                }
            }};
        }
        check!(PpTable::<8, 3, 1>);
        check!(PpTableSlotwise::<8, 3, 1>);
    }
}
