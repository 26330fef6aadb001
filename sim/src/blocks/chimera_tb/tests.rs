//! Properties of the estimator and the selector (spec §4.2 E1-E5, §4.3 A1-A9).

use super::algorithm3::algorithm3;
use super::cost::{
    costs, div_q, mul_q, Derived, DrainOvh, KernelStats, TbCounters, Victims, MAX, ORDER,
};
use super::select::{choose, plan_sm, select, Limit, Mode, Rules, SmPlan};
use crate::gpu::sites::kernel_sched::Technique;
use proptest::prelude::*;

fn derived() -> impl Strategy<Value = Derived> {
    (
        prop_oneof![Just(MAX), 0u32..200_000],
        prop_oneof![Just(MAX), 0u32..(64 << 16)],
        prop_oneof![Just(MAX), 0u32..(8 << 16)],
        0u32..(1 << 24),
    )
        .prop_map(|(avg_i, cpi_q, ipc_q, sw_cyc_tb)| Derived {
            avg_i,
            cpi_q,
            ipc_q,
            sw_cyc_tb,
        })
}

fn tb() -> impl Strategy<Value = TbCounters> {
    (prop_oneof![0u32..300_000, Just(MAX)], any::<bool>())
        .prop_map(|(issued, flushable)| TbCounters { issued, flushable })
}

fn limit() -> impl Strategy<Value = Limit> {
    (1u32..200_000, prop_oneof![Just(0u32), 0u32..2_000])
        .prop_map(|(cycles, margin)| Limit { cycles, margin })
}

fn sms() -> impl Strategy<Value = Vec<(usize, Vec<TbCounters>)>> {
    prop::collection::vec(prop::collection::vec(tb(), 1..=8), 1..=8)
        .prop_map(|v| v.into_iter().enumerate().collect())
}

fn index(t: Technique) -> usize {
    ORDER.iter().position(|&o| o == t).unwrap()
}

#[test]
fn derived_ratios_are_truncating_q16_and_max_when_unknown() {
    let k = KernelStats {
        done_tbs: 3,
        done_instr: 1000,
        done_cycles: 7001,
        instrs: 5,
        sm_cycles: 3,
        sw_cyc_tb: 10,
    }
    .derive();
    assert_eq!(k.avg_i, 333);
    assert_eq!(k.cpi_q, (7001u64 << 16) as u32 / 1000);
    assert_eq!(k.ipc_q, (5 << 16) / 3);
    let none = KernelStats::default().derive();
    assert_eq!((none.avg_i, none.cpi_q, none.ipc_q), (MAX, MAX, MAX));
    assert_eq!(div_q(u64::MAX, 1), MAX);
    assert_eq!(mul_q(3, 1 << 15), 1);
    assert_eq!(mul_q(MAX, 1), MAX);
}

#[test]
fn costs_follow_the_formulas() {
    let k = Derived {
        avg_i: 1000,
        cpi_q: 3 << 16,
        ipc_q: 1 << 15,
        sw_cyc_tb: 100,
    };
    let sm = Victims {
        n: 4,
        i_max: 900,
        i_min: 250,
    };
    let tb = TbCounters {
        issued: 600,
        flushable: true,
    };
    let c = costs(&k, &sm, DrainOvh::Literal, tb);
    // flush, drain, switch
    assert_eq!(c.lat, [0, 400 * 3, 400]);
    assert_eq!(c.ovh, [600, 300, 100]);
    let c = costs(&k, &sm, DrainOvh::SlotIdle, tb);
    assert_eq!(c.lat, [0, 400 * 3, 400]);
    assert_eq!(c.ovh, [600, 350, 100]);
}

proptest! {
    /// E1-E3: the formulas, E4 monotonicity, E5 determinism.
    #[test]
    fn estimator(k in derived(), n in 1u32..=8, a in tb(), b in 0u32..300_000, lo in 0u32..300_000) {
        let i_max = a.issued.max(b);
        let i_min = a.issued.min(lo);
        let sm = Victims { n, i_max, i_min };
        let c = costs(&k, &sm, DrainOvh::Literal, a);
        let idle = costs(&k, &sm, DrainOvh::SlotIdle, a);
        prop_assert_eq!(idle.of(Technique::Drain).1, a.issued - i_min);
        prop_assert_eq!((idle.lat, idle.ovh[0], idle.ovh[2]), (c.lat, c.ovh[0], c.ovh[2]));
        let (lf, of) = c.of(Technique::Flush);
        prop_assert_eq!(lf == 0, a.flushable);
        prop_assert_eq!(of, if a.flushable { a.issued } else { MAX });
        let (ld, od) = c.of(Technique::Drain);
        prop_assert_eq!(od, i_max - a.issued);
        if k.avg_i == MAX { prop_assert_eq!(ld, MAX); }
        else { prop_assert_eq!(ld, mul_q(k.avg_i.saturating_sub(a.issued), k.cpi_q)); }
        let (ls, os) = c.of(Technique::Switch);
        prop_assert_eq!(ls as u64, (n as u64 * k.sw_cyc_tb as u64).min(MAX as u64));
        prop_assert_eq!(os, mul_q(2 * k.sw_cyc_tb, k.ipc_q));
        // E4: more progress, no longer drain, no cheaper flush.
        if a.issued < i_max {
            let later = costs(&k, &sm, DrainOvh::Literal, TbCounters { issued: a.issued + 1, ..a });
            prop_assert!(later.of(Technique::Drain).0 <= ld);
            prop_assert!(later.of(Technique::Flush).1 >= of);
        }
        prop_assert_eq!(costs(&k, &sm, DrainOvh::Literal, a), c);
    }

    /// A1-A4, A9: the choice meets the limit when anything does, is the cheapest that does,
    /// falls back to a switch, never flushes what cannot be flushed.
    #[test]
    fn chooser(k in derived(), n in 1u32..=8, a in tb(), lim in limit()) {
        let sm = Victims { n, i_max: a.issued, i_min: a.issued };
        let c = costs(&k, &sm, DrainOvh::Literal, a);
        let ch = choose(&c, Mode::Chimera, lim);
        let meeting: Vec<usize> = (0..3).filter(|&i| lim.meets(c.lat[i])).collect();
        if meeting.is_empty() {
            prop_assert_eq!(ch.technique, Technique::Switch);
            prop_assert!(ch.fallback);
        } else {
            prop_assert!(!ch.fallback);
            prop_assert!(lim.meets(ch.lat));
            let best = meeting.iter().map(|&i| (c.ovh[i], c.lat[i], i)).min().unwrap();
            prop_assert_eq!(index(ch.technique), best.2);
        }
        if !a.flushable {
            prop_assert_ne!(ch.technique, Technique::Flush);
            prop_assert_eq!(choose(&c, Mode::Only(Technique::Flush), lim).technique, Technique::Drain);
        }
        for t in Technique::ALL {
            if t != Technique::Flush || a.flushable {
                prop_assert_eq!(choose(&c, Mode::Only(t), lim).technique, t);
            }
        }
    }

    /// A5: the hardware form equals Algorithm 3 taken literally; A6-A8 on the SM selection.
    #[test]
    fn selector_equals_algorithm3(
        k in derived(), sms in sms(), lim in limit(), num in 1usize..=9, slot_idle in any::<bool>()
    ) {
        let drain = if slot_idle { DrainOvh::SlotIdle } else { DrainOvh::Literal };
        let rules = Rules { mode: Mode::Chimera, limit: lim, drain };
        let plans: Vec<SmPlan> = sms
            .iter()
            .map(|(s, tbs)| plan_sm(*s, &k, tbs, rules))
            .collect();
        let sel = select(&plans, num);
        let (lit, short) = algorithm3(&k, &sms, (lim, drain), num);
        let ours: Vec<(usize, Vec<Technique>)> = sel
            .plans
            .iter()
            .map(|&i| (plans[i].sm, plans[i].choices.iter().map(|c| c.technique).collect()))
            .collect();
        prop_assert_eq!(&ours, &lit);
        prop_assert_eq!(sel.predicted_violation, short);
        // A6: distinct, min(num, #SMs), ok ones first.
        prop_assert_eq!(sel.plans.len(), num.min(plans.len()));
        let mut seen = sel.plans.clone();
        seen.sort();
        seen.dedup();
        prop_assert_eq!(seen.len(), sel.plans.len());
        let oks: Vec<bool> = sel.plans.iter().map(|&i| plans[i].ok).collect();
        prop_assert!(oks.windows(2).all(|w| w[0] || !w[1]));
        // A8: ok iff no block fell back.
        for p in &plans {
            prop_assert_eq!(p.ok, p.choices.iter().all(|c| !c.fallback));
        }
        // A7: with enough ok SMs, the selection's overhead is the least of any ok subset.
        let n_ok = plans.iter().filter(|p| p.ok).count();
        if n_ok >= num {
            let total: u64 = sel.plans.iter().map(|&i| plans[i].ovh as u64).sum();
            let mut ok_ovh: Vec<u64> = plans.iter().filter(|p| p.ok).map(|p| p.ovh as u64).collect();
            ok_ovh.sort();
            prop_assert_eq!(total, ok_ovh[..num].iter().sum::<u64>());
        }
    }
}

#[test]
fn the_equivalence_check_catches_a_planted_tie_break_bug() {
    // A block at its start that may be flushed, alone on its SM: flush and drain both cost no
    // instructions; the flush is immediate. Algorithm 3 and the select flush it; a select that
    // broke ties by the later technique would drain it, and the comparison sees it.
    let k = Derived {
        avg_i: 1000,
        cpi_q: 1 << 16,
        ipc_q: 1 << 16,
        sw_cyc_tb: 1000,
    };
    let tbs = vec![TbCounters {
        issued: 0,
        flushable: true,
    }];
    let lim = Limit {
        cycles: 5000,
        margin: 0,
    };
    let (lit, _) = algorithm3(&k, &[(0, tbs.clone())], (lim, DrainOvh::Literal), 1);
    let c = costs(&k, &Victims::of(&tbs), DrainOvh::Literal, tbs[0]);
    assert_eq!(lit[0].1, vec![choose(&c, Mode::Chimera, lim).technique]);
    let buggy = (0..3)
        .filter(|&i| lim.meets(c.lat[i]))
        .min_by_key(|&i| (c.ovh[i], std::cmp::Reverse(i)))
        .map(|i| ORDER[i])
        .unwrap();
    assert_eq!(buggy, Technique::Drain);
    assert_ne!(lit[0].1, vec![buggy]);
}
