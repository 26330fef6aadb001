use super::*;
use crate::block::Stimulus as _;
use crate::analysis::elf as compiler;
use crate::blocks::warp_arbiter as wa;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A per-scheduler port with `v` for scheduler 0 and nothing for the others.
fn at0<T: Default + Copy>(v: T) -> [T; MAX_SCHEDULERS] {
    let mut a = [T::default(); MAX_SCHEDULERS];
    a[0] = v;
    a
}

fn entry(pc: u32, branch: bool, score: u8) -> PpEntry {
    PpEntry {
        valid: true,
        branch,
        pc,
        score,
    }
}

#[test]
fn calculator_directed_cases() {
    let t = [entry(16, false, 0), entry(64, true, 2), PpEntry::default()];
    assert_eq!(calc(&t, 16, 3, true).prio, 0, "PC-4: at an unmerged load");
    assert_eq!(
        calc(&t, 64, 3, true).prio,
        2,
        "PC-4: at a branch, its score"
    );
    assert_eq!(
        calc(&t, 0, 3, true),
        Lookup {
            prio: 2,
            found: true,
            sel: 0
        }
    );
    assert_eq!(
        calc(&t, 24, 3, true),
        Lookup {
            prio: 7,
            found: true,
            sel: 1
        }
    );
    assert_eq!(
        calc(&t, 72, 3, true),
        Lookup {
            prio: 255,
            found: false,
            sel: 0
        }
    );
    // PC-6: saturation, no wrap.
    let far = [entry(u32::MAX - 7, true, 200)];
    assert_eq!(calc(&far, 0, 3, true).prio, 255);
    // merged load boundary.
    let m = [entry(16, false, 1)];
    assert_eq!(
        (calc(&m, 8, 3, true).prio, calc(&m, 8, 3, false).prio),
        (0, 1)
    );
}

fn arb_table() -> impl Strategy<Value = Vec<PpEntry>> {
    proptest::collection::vec((0u32..4000, any::<bool>(), any::<u8>()), 0..32).prop_map(|v| {
        let mut pcs: Vec<u32> = v.iter().map(|x| 8 * x.0).collect();
        pcs.sort_unstable();
        pcs.dedup();
        pcs.iter()
            .zip(&v)
            .map(|(&pc, &(_, b, s))| entry(pc, b, s))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// PC-2, PC-5, PC-7 on random sorted tables.
    #[test]
    fn calculator_properties(t in arb_table(), pc in 0u32..33000) {
        let pc = pc & !7;
        let l = calc(&t, pc, 3, true);
        let first = t.iter().position(|e| e.pc >= pc);
        prop_assert_eq!(l.found, first.is_some());
        if let Some(i) = first { prop_assert_eq!(l.sel, i) } else { prop_assert_eq!(l.prio, 255) }
        // PC-7: an invalid trailing slot changes nothing.
        let mut t2 = t.clone();
        t2.push(PpEntry { valid: false, branch: true, pc: u32::MAX, score: 0 });
        prop_assert_eq!(calc(&t2, pc, 3, true).prio, l.prio);
        // PC-5: decrement consistency within one selected entry.
        let n = calc(&t, pc + 8, 3, true);
        if l.found && n.found && n.sel == l.sel {
            let e = t[l.sel];
            let d = (e.pc - pc) >> 3;
            if d >= 1 && (e.branch || e.score == 0) {
                prop_assert_eq!(l.prio as u32, (n.prio as u32 + 1).min(255));
            }
        }
    }
}

#[test]
fn the_closest_program_point_gives_the_minimum_on_compiled_tables() {
    // PC-3 with tables from Algorithm 1 (no merges): calc == brute-force minimum.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    for _ in 0..500 {
        let n = rng.gen_range(2..50);
        let code: compiler::Code = (0..n)
            .map(|i| compiler::CodeInst {
                pc: 8 * i as u64,
                kind: match rng.gen_range(0..10) {
                    0..=2 => compiler::Kind::Load,
                    3 => compiler::Kind::Branch {
                        target: rng.gen_range(0..n),
                        unconditional: false,
                    },
                    _ => compiler::Kind::Other,
                },
            })
            .collect();
        let p = compiler::Params {
            max_pp: 64,
            branches: compiler::PpBranches::All,
            ..Default::default()
        };
        let c = compiler::compile(&code, &p);
        let table = table_of(&c.table);
        for i in 0..n {
            let pc = 8 * i as u32;
            let brute = table
                .iter()
                .filter(|e| e.pc >= pc)
                .map(|e| ((e.pc - pc) / 8 + if e.branch { e.score as u32 } else { 0 }).min(255))
                .min()
                .unwrap_or(255);
            assert_eq!(calc(&table, pc, 3, true).prio as u32, brute);
        }
    }
}

fn table_of(pps: &[compiler::Pp]) -> Vec<PpEntry> {
    pps.iter()
        .map(|q| entry(q.pc as u32, q.branch, q.score as u8))
        .collect()
}

/// Writes a table through the write port.
fn load_table(g: &mut Golden, t: &[PpEntry]) {
    for inp in table_writes(t, true) {
        g.step(&inp);
    }
}

#[test]
fn the_write_port_stores_the_table_and_launch_computes_the_start_priority() {
    let mut g = Golden::new(Params::preset(Preset::Proto));
    let t = [entry(16, false, 0), entry(64, true, 2)];
    load_table(&mut g, &t);
    assert_eq!(&g.table()[..2], &t, "PC-8");
    assert!(!g.table()[2].valid);
    g.step(&ElfIn {
        launch: 0b11,
        launch_pc: 0,
        ..Default::default()
    });
    assert_eq!((g.wpt(0), g.wpt(1)), (2, 2), "WPT-5");
}

#[test]
fn the_merge_boundary_input_decides_a_merged_load_at_its_score() {
    // A load at PC 40 carrying score 3 (a load merged away 3 steps before it, at PC 16).
    // A warp launched at PC 16 is 3 steps away: `d == score`. With the thesis's `d > score`
    // nothing is subtracted (3); with `d >= score` the merged load is next (0).
    for (merge_ge, want) in [(false, 3), (true, 0)] {
        let mut g = Golden::new(Params::preset(Preset::Proto));
        load_table(&mut g, &[entry(40, false, 3)]);
        g.step(&ElfIn {
            launch: 0b11,
            launch_pc: 16,
            merge_ge,
            ..Default::default()
        });
        assert_eq!(g.wpt(0), want, "merge_ge = {merge_ge}");
        // One step earlier (`d = 4 > 3`) both boundaries subtract.
        g.step(&ElfIn {
            exit: 0b11,
            ..Default::default()
        });
        g.step(&ElfIn {
            launch: 0b1,
            launch_pc: 8,
            merge_ge,
            ..Default::default()
        });
        assert_eq!(g.wpt(0), 1);
    }
}

#[test]
fn wpt_updates_follow_the_rules() {
    let mut g = Golden::new(Params::preset(Preset::Proto));
    load_table(&mut g, &[entry(40, false, 0)]);
    g.step(&ElfIn {
        launch: 0b01,
        launch_pc: 0,
        ..Default::default()
    });
    assert_eq!(g.wpt(0), 5);
    let calcs = g.calcs;
    // Cycle 1: warp 0 (scheduler 0, local 0) granted; cycle 2: its update is a decrement.
    let o = g.step(&ElfIn {
        ready: at0(1),
        ..Default::default()
    });
    assert!(o.grant_valid[0] && o.grant_warp[0] == 0 && o.prio[0] == 5);
    g.step(&ElfIn {
        ready: at0(1),
        upd_valid: at0(true),
        upd_pc: at0(8),
        ..Default::default()
    });
    assert_eq!(g.wpt(0), 4, "WPT-1: decrement");
    // The next update recalculates at pc 48 (past the only load): 255, then stays 255.
    g.step(&ElfIn {
        ready: at0(1),
        upd_valid: at0(true),
        upd_trig: at0(true),
        upd_pc: at0(48),
        ..Default::default()
    });
    assert_eq!(g.wpt(0), 255, "WPT-2");
    g.step(&ElfIn {
        upd_valid: at0(true),
        upd_pc: at0(56),
        ..Default::default()
    });
    assert_eq!(g.wpt(0), 255, "sticky 255 (A-21)");
    assert_eq!(g.calcs, calcs + 1, "WPT-6: one recalculation");
}

#[test]
fn issue_picks_the_lowest_priority_then_the_greedy_warp_then_the_oldest() {
    let mut g = Golden::new(Params::preset(Preset::Proto));
    load_table(&mut g, &[entry(40, false, 0)]);
    // Warps 0, 2, 4 (scheduler 0, locals 0, 1, 2) launched in that order at pc 0 (prio 5).
    g.step(&ElfIn {
        launch: 0b10101,
        launch_pc: 0,
        ..Default::default()
    });
    let o = g.step(&ElfIn {
        ready: at0(0b110),
        ..Default::default()
    });
    assert_eq!(o.grant_warp[0], 1, "equal priority: the oldest ready");
    // Local 1 decremented to 4 (update for that grant), so it stays ahead.
    let o = g.step(&ElfIn {
        ready: at0(0b111),
        upd_valid: at0(true),
        upd_pc: at0(8),
        ..Default::default()
    });
    assert_eq!(o.grant_warp[0], 1, "greedy");
    // Local 1 recalculates to 255 after its load: local 0 (older, prio 5) wins next.
    g.step(&ElfIn {
        ready: at0(0b111),
        upd_valid: at0(true),
        upd_trig: at0(true),
        upd_pc: at0(48),
        ..Default::default()
    });
    let o = g.step(&ElfIn {
        ready: at0(0b111),
        ..Default::default()
    });
    assert_eq!((o.grant_warp[0], o.prio[0]), (0, 5));
}

#[test]
fn with_an_empty_table_elf_issues_exactly_as_gto() {
    // SCH-4 on random stimulus: every scheduler against a golden GTO arbiter stepped as the
    // SM's paired issue steps them (unit slots taken in grant order from the lead), with the
    // presets' two schedulers and with four.
    for (preset, schedulers) in [(Preset::Fermi, 2), (Preset::Proto, 2), (Preset::Fermi, 4)] {
        let p = Params {
            schedulers,
            ..Params::preset(preset)
        };
        let (n, per) = (p.schedulers, p.per_sched());
        let mut elf = Golden::new(p);
        let gp = wa::Params::new(wa::Policy::Gto, per, 1).unwrap();
        let mut gto = vec![wa::Golden::new(gp); n];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut live = 0u64;
        let mut prev = [None::<u8>; MAX_SCHEDULERS];
        for cycle in 0..100_000u64 {
            let all = low_bits(p.warps);
            let launch = if rng.gen_ratio(1, 20) {
                rng.gen::<u64>() & all & !live
            } else {
                0
            };
            let exit = if rng.gen_ratio(1, 25) {
                rng.gen::<u64>() & live
            } else {
                0
            };
            let mut inp = ElfIn {
                launch,
                launch_pc: 0,
                exit,
                ..Default::default()
            };
            for (s, granted) in prev.iter().enumerate().take(n) {
                inp.ready[s] = rng.gen::<u64>() & low_bits(per);
                inp.unit[s] = rng.gen::<u64>() & low_bits(2 * per);
                inp.upd_valid[s] = granted.is_some();
                inp.upd_trig[s] = rng.gen();
                inp.upd_pc[s] = 8 * rng.gen_range(0..100);
            }
            inp.free = std::array::from_fn(|_| rng.gen_range(0..=n as u8));
            inp.issue_lead = rng.gen_range(0..n as u8);
            let o = elf.step(&inp);
            // The SM's paired issue with GTO arbiters: from the lead, each scheduler offered
            // its warps whose unit has a slot left, taking one for the warp it grants.
            let mut avail = inp.free;
            for k in 0..n {
                let s = (inp.issue_lead as usize + k) % n;
                let got = o.grant_valid[s].then_some(o.grant_warp[s]);
                let unit = |l: usize| (inp.unit[s] >> (2 * l) & 3) as usize;
                let ready = (0..per)
                    .filter(|&l| unit(l) == 0 || avail[unit(l) - 1] > 0)
                    .fold(0, |m, l| m | 1 << l)
                    & inp.ready[s];
                let local =
                    |m: u64| (0..per).fold(0u64, |acc, l| acc | (m >> (n * l + s) & 1) << l);
                let g = gto[s].step(&wa::ArbiterIn {
                    ready,
                    launch: local(launch),
                    exit: local(exit),
                    long_stall: 0,
                });
                assert_eq!(
                    got,
                    g.grant_valid.then_some(g.grant_warp),
                    "{preset:?} x{n} scheduler {s} cycle {cycle}"
                );
                if let Some(l) = got.filter(|&l| unit(l as usize) != 0) {
                    avail[unit(l as usize) - 1] -= 1;
                }
                prev[s] = got;
            }
            live = (live & !exit) | launch;
        }
    }
}

/// The fetch warp of spec §1.9 computed literally: every scheduler's live warps sorted by
/// `(WPT, not last issued, age)`, interleaved from the leading scheduler, the first eligible.
fn interleaved_fetch(g: &Golden, elig: u64, lead: usize) -> Option<usize> {
    let n = g.params.schedulers;
    let order = |s: usize| {
        let mut v: Vec<usize> = (0..g.params.per_sched())
            .map(|l| n * l + s)
            .filter(|&w| g.live >> w & 1 == 1)
            .collect();
        v.sort_by_key(|&w| (g.wpt[w], g.last[s] != Some(w), g.age[w]));
        v
    };
    let orders: Vec<Vec<usize>> = (0..n).map(|k| order((lead + k) % n)).collect();
    let mut unified = vec![];
    for i in 0..g.params.per_sched() {
        for o in &orders {
            unified.extend(o.get(i));
        }
    }
    unified.into_iter().find(|&w| elig >> w & 1 == 1)
}

#[test]
fn fetch_select_is_the_first_eligible_warp_of_the_interleaved_orders() {
    // F-1 (rank form == interleave) and F-3 (rank tie: the leading scheduler) on the random
    // stimulus, which rewrites tables, launches, exits and updates priorities; with the
    // presets' two schedulers and with four.
    for (preset, schedulers) in [(Preset::Fermi, 2), (Preset::Proto, 2), (Preset::Fermi, 4)] {
        let p = Params {
            schedulers,
            ..Params::preset(preset)
        };
        let mut g = Golden::new(p);
        let mut stim = super::stimulus::Stimulus::new(p, 11);
        let mut prev = None;
        let (mut fetched, mut lead_ties, mut on_grant) = (0, 0, 0);
        for cycle in 0..100_000 {
            let inp = stim.next(prev.as_ref());
            let lead = inp.fetch_lead as usize % schedulers;
            // The selects see last cycle's WPT updates; the warps granted now are eligible
            // when `fetch_on_grant` says so.
            let mut before = g.clone();
            before.apply_updates(&inp);
            let o = g.step(&inp);
            let mut granted = 0u64;
            for s in 0..schedulers {
                if o.grant_valid[s] {
                    granted |= 1 << (o.grant_warp[s] as usize * schedulers + s);
                }
            }
            let elig = inp.fetch_elig | (inp.fetch_on_grant & granted);
            let fresh = elig & inp.launch & !before.live & low_bits(p.warps);
            let want = interleaved_fetch(&before, elig, lead)
                .or((fresh != 0).then(|| fresh.trailing_zeros() as usize));
            assert_eq!(
                o.fetch_valid.then_some(o.fetch_warp as usize),
                want,
                "{preset:?} x{schedulers} cycle {cycle}"
            );
            on_grant += (want.is_some_and(|w| inp.fetch_elig >> w & 1 == 0)) as usize;
            if let Some(w) = want {
                fetched += 1;
                let others = (0..schedulers).filter(|&s| s != lead);
                if w % schedulers == lead
                    && others.clone().any(|s| before.best(s, elig).is_some())
                {
                    lead_ties += 1;
                }
            }
            prev = Some(o);
        }
        assert!(
            fetched > 10_000 && lead_ties > 1_000 && on_grant > 1_000,
            "{fetched} {lead_ties} {on_grant}"
        );
    }
}

/// Warp A (warp 0: scheduler 0, local 0) at its load (priority 0) and warp B (warp 2: local
/// warp 1) one instruction before it (priority 1); A, greedy, issues its load at `t` and its
/// update (recalculate past the only load: 255) reports at `t + 1`. The outputs of `t + 1`.
fn load_issued_then_reported(wpt_update: WptUpdate) -> (Golden, ElfOut) {
    let mut g = Golden::new(Params {
        wpt_update,
        ..Params::preset(Preset::Proto)
    });
    load_table(&mut g, &[entry(40, false, 0)]);
    for (launch, launch_pc) in [(0b001, 40), (0b100, 32)] {
        g.step(&ElfIn {
            launch,
            launch_pc,
            ..Default::default()
        });
    }
    if wpt_update == WptUpdate::Pipelined {
        // The launches land one edge later.
        g.step(&ElfIn::default());
    }
    assert_eq!((g.wpt(0), g.wpt(2)), (0, 1));
    let t = g.step(&ElfIn {
        ready: at0(0b11),
        ..Default::default()
    });
    assert_eq!((t.grant_warp[0], t.prio[0]), (0, 0), "A issues its load at t");
    let t1 = g.step(&ElfIn {
        ready: at0(0b11),
        upd_valid: at0(true),
        upd_trig: at0(true),
        upd_pc: at0(48),
        ..Default::default()
    });
    (g, t1)
}

#[test]
fn a_load_hands_the_scheduler_over_in_the_next_cycle() {
    // Issue 18 item 4 (spec §1.6, L337): at t + 1 A's update is what the select sees, so B
    // is granted although A has a ready instruction and is greedy.
    let (g, t1) = load_issued_then_reported(WptUpdate::Bypass);
    assert_eq!((t1.grant_warp[0], t1.prio[0]), (1, 1), "B at t + 1");
    assert_eq!(g.wpt(0), 255);
}

#[test]
fn a_registered_wpt_update_hands_over_one_cycle_later() {
    // `WptUpdate::Registered`: at t + 1 the select still reads A's stored 0 (A is granted
    // again and reports 0), the new 255 is written at that edge, and B takes over at t + 2.
    let (mut g, t1) = load_issued_then_reported(WptUpdate::Registered);
    assert_eq!((t1.grant_warp[0], t1.prio[0]), (0, 0), "A again at t + 1");
    assert_eq!(g.wpt(0), 255, "written at the edge of t + 1");
    // A's second grant reports a decrement (255 stays 255); B wins at t + 2.
    let t2 = g.step(&ElfIn {
        ready: at0(0b11),
        upd_valid: at0(true),
        upd_pc: at0(56),
        ..Default::default()
    });
    assert_eq!((t2.grant_warp[0], t2.prio[0]), (1, 1), "B at t + 2");
    assert_eq!(g.wpt(0), 255);
}

#[test]
fn a_pipelined_wpt_update_hands_over_two_cycles_later() {
    // `WptUpdate::Pipelined`: the new 255 is computed at t + 1, registered at that edge and
    // written at the edge of t + 2; A keeps the scheduler at t + 1 and t + 2, B takes over at
    // t + 3.
    let (mut g, t1) = load_issued_then_reported(WptUpdate::Pipelined);
    assert_eq!((t1.grant_warp[0], t1.prio[0]), (0, 0), "A again at t + 1");
    assert_eq!(g.wpt(0), 0, "in flight after the edge of t + 1");
    // A's grant at t + 1 reports a decrement at t + 2: it reads the value landing at that
    // edge (255, which stays 255), not the stored 0 (which would give 0).
    let t2 = g.step(&ElfIn {
        ready: at0(0b11),
        upd_valid: at0(true),
        upd_pc: at0(56),
        ..Default::default()
    });
    assert_eq!((t2.grant_warp[0], t2.prio[0]), (0, 0), "A again at t + 2");
    assert_eq!(g.wpt(0), 255, "landed at the edge of t + 2");
    let t3 = g.step(&ElfIn {
        ready: at0(0b11),
        upd_valid: at0(true),
        upd_pc: at0(64),
        ..Default::default()
    });
    assert_eq!((t3.grant_warp[0], t3.prio[0]), (1, 1), "B at t + 3");
    assert_eq!(g.wpt(0), 255, "the decrement of A's t + 1 grant kept 255");
}

#[test]
fn a_pipelined_launch_has_255_until_its_lookup_lands() {
    let mut g = Golden::new(Params {
        wpt_update: WptUpdate::Pipelined,
        ..Params::preset(Preset::Proto)
    });
    load_table(&mut g, &[entry(40, false, 0)]);
    // Warp 0 launched at 32 (priority 1) while warp 2 is live at 255 and older.
    for (launch, launch_pc) in [(0b100, 48), (0b001, 32)] {
        g.step(&ElfIn {
            launch,
            launch_pc,
            ..Default::default()
        });
    }
    assert_eq!((g.wpt(0), g.wpt(2)), (255, 255), "warp 0 live at 255 after its launch edge");
    let t1 = g.step(&ElfIn {
        ready: at0(0b11),
        ..Default::default()
    });
    assert_eq!((t1.grant_warp[0], t1.prio[0]), (1, 255), "the older warp 2 wins the tie");
    assert_eq!(g.wpt(0), 1, "the launch lookup landed at that edge");
    let t2 = g.step(&ElfIn {
        ready: at0(0b11),
        ..Default::default()
    });
    assert_eq!((t2.grant_warp[0], t2.prio[0]), (0, 1), "warp 0 at its priority");
}
