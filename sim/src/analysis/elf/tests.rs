use super::*;
use crate::workload::static_code::KernelCode;
use proptest::prelude::*;

fn code(kinds: &[Kind]) -> Code {
    kinds
        .iter()
        .enumerate()
        .map(|(i, &kind)| CodeInst {
            pc: 8 * i as u64,
            kind,
        })
        .collect()
}

const O: Kind = Kind::Other;
const L: Kind = Kind::Load;

fn br(target: usize) -> Kind {
    Kind::Branch {
        target,
        unconditional: false,
    }
}

fn all() -> Params {
    Params {
        branches: PpBranches::All,
        ..Params::default()
    }
}

fn pp(idx: usize, branch: bool, score: u32) -> Pp {
    Pp {
        idx,
        pc: 8 * idx as u64,
        branch,
        score,
    }
}

/// Spec §7.1: idx 0 mov, 1-2 ld, 3 add, 4 ld, 5 mul, 6 add, 7 setp, 8 @p bra 3, 9 st, 10 exit.
fn loop_kernel() -> Code {
    code(&[O, L, L, O, L, O, O, O, br(3), O, O])
}

#[test]
fn worked_example_7_1_loop_kernel() {
    let c = compile(&loop_kernel(), &all());
    assert_eq!(
        c.table,
        vec![
            pp(1, false, 0),
            pp(2, false, 0),
            pp(4, false, 0),
            pp(8, true, 2)
        ]
    );
    let prio = |pc| priority(&c.table, pc, 3, 255, true);
    assert_eq!((prio(0), prio(24), prio(40), prio(72)), (1, 1, 5, 255));
    assert!(
        c.recalc[&64],
        "literal (the default): the taken path is shorter, bit 1"
    );
}

#[test]
fn worked_example_7_1_loop_exit_under_each_recalculation_rule() {
    // At the loop branch (pc 64) the WPT holds 2. Taken, the warp goes to pc 24 (exact value
    // 1); not taken, to pc 72 past the last load (exact value 255). The WPT after the branch:
    // a recalculation gives the calculator's value, a decrement gives 1.
    for (rule, taken, not_taken) in [
        (RecalcPolicy::Literal, 1, 1),
        (RecalcPolicy::Consistent, 1, 255),
        (RecalcPolicy::Always, 1, 255),
    ] {
        let c = compile(
            &loop_kernel(),
            &Params {
                recalc: rule,
                ..all()
            },
        );
        let prio = |pc| priority(&c.table, pc, 3, 255, true);
        assert_eq!(prio(64), 2, "{rule:?}");
        let after = |is_taken: bool, next_pc: u64| {
            let trig = rule == RecalcPolicy::Always || is_taken == c.recalc[&64];
            if trig {
                prio(next_pc)
            } else {
                prio(64) - 1
            }
        };
        assert_eq!(after(true, 24), taken, "{rule:?} taken");
        assert_eq!(after(false, 72), not_taken, "{rule:?} not taken");
    }
}

#[test]
fn worked_example_7_2_load_merge() {
    let c = compile(&loop_kernel(), &Params { max_pp: 3, ..all() });
    assert_eq!(
        c.table,
        vec![pp(2, false, 1), pp(4, false, 0), pp(8, true, 2)]
    );
    assert_eq!(c.merges, 1);
    let ge = |pc| priority(&c.table, pc, 3, 255, true);
    let gt = |pc| priority(&c.table, pc, 3, 255, false);
    assert_eq!((ge(0), ge(8), ge(16)), (1, 0, 0));
    assert_eq!(gt(8), 1, "the literal `>` is wrong at the merged load");
    let c2 = compile(&loop_kernel(), &Params { max_pp: 2, ..all() });
    assert_eq!(c2.table, vec![pp(4, false, 2), pp(8, true, 2)]);
    assert_eq!(
        priority(&c2.table, 0, 3, 255, true),
        2,
        "approximate after a chained merge"
    );
}

#[test]
fn worked_example_7_3_branch_merge() {
    let k = code(&[L, O, br(0), O, L]);
    let c = compile(&k, &all());
    assert_eq!(
        c.table,
        vec![pp(0, false, 0), pp(2, true, 1), pp(4, false, 0)]
    );
    let m = compile(&k, &Params { max_pp: 2, ..all() });
    assert_eq!(m.table, vec![pp(0, false, 0), pp(4, false, 1)]);
    let ge = |pc| priority(&m.table, pc, 3, 255, true);
    assert_eq!((ge(8), ge(16), ge(24)), (2, 1, 0));
    assert_eq!(priority(&m.table, 24, 3, 255, false), 1);
    let consistent = compile(
        &k,
        &Params {
            max_pp: 2,
            recalc: RecalcPolicy::Consistent,
            ..all()
        },
    );
    assert!(
        !consistent.recalc[&16],
        "consistent: merged-away branches recalculate on not-taken"
    );
}

#[test]
fn forward_branches_are_program_points_only_when_asked() {
    // idx 0 @p bra 3 (forward), 1 add, 2 add, 3 ld
    let k = code(&[br(3), O, O, L]);
    assert_eq!(compile(&k, &Params::default()).table, vec![pp(3, false, 0)]);
    let c = compile(&k, &all());
    assert_eq!(c.table, vec![pp(0, true, 1), pp(3, false, 0)]);
    // Backward-only: the forward branch is not in the table, so it recalculates on taken.
    assert!(compile(&k, &Params::default()).recalc[&0]);
}

#[test]
fn unconditional_branches_score_their_target_only() {
    // idx 0 ld, 1 bra.uni 0, 2 add, 3 add: the fall-through would be "no load ahead".
    let k = code(&[
        L,
        Kind::Branch {
            target: 0,
            unconditional: true,
        },
        O,
        O,
    ]);
    assert_eq!(
        compile(&k, &all()).table,
        vec![pp(0, false, 0), pp(1, true, 1)]
    );
}

#[test]
fn a_table_that_cannot_merge_falls_back_to_dropping_the_worst_branch() {
    // One load then 3 backward branches to it, far apart: no load has a predecessor.
    let mut kinds = vec![L];
    for _ in 0..3 {
        kinds.extend([O; 4]);
        kinds.push(br(0));
    }
    let k = code(&kinds);
    let c = compile(&k, &Params { max_pp: 2, ..all() });
    assert_eq!(c.table.len(), 2);
    assert!(c.table[0].idx == 0 && !c.table[0].branch);
}

#[test]
fn synthetic_programs_compile_through_their_static_code() {
    let def = crate::workload::synth::build("km", "small").unwrap();
    let code = code_of(&KernelCode::of_program(&def.program));
    let c = compile(&code, &Params::default());
    // km: two nested loops with two global loads in the inner body.
    assert_eq!(c.table.iter().filter(|q| !q.branch).count(), 2);
    assert!(c.table.iter().any(|q| q.branch), "{:?}", c.table);
}

#[test]
fn the_long_suite_kernels_have_the_theses_program_points_and_merge_to_32() {
    // Thesis (seed 003 ch. III): FDTD 60, HW 94, LUD 48 program points before merging.
    for (name, points) in [("fdtd3d", 60), ("heartwall", 94), ("lud_perimeter", 48)] {
        for size in ["small", "medium"] {
            let def = crate::workload::synth::build(name, size).unwrap();
            let code = code_of(&KernelCode::of_program(&def.program));
            let c = compile(&code, &Params::default());
            assert_eq!(
                (c.table.len() + c.merges, c.table.len()),
                (points, 32),
                "{name} {size}"
            );
            // The merged table still gives every load a finite priority: some surviving load
            // absorbed others (a score), and PC-sorted order holds.
            assert!(c.table.iter().any(|q| !q.branch && q.score > 0), "{name}");
            assert!(c.table.windows(2).all(|w| w[0].pc < w[1].pc), "{name}");
        }
    }
}

fn arb_code() -> impl Strategy<Value = Code> {
    (2usize..60).prop_flat_map(|n| {
        proptest::collection::vec((0u8..10, 0usize..n, any::<bool>()), n).prop_map(move |v| {
            code(
                &v.into_iter()
                    .map(|(k, t, u)| match k {
                        0..=2 => Kind::Load,
                        3 => Kind::Branch {
                            target: t,
                            unconditional: u,
                        },
                        _ => Kind::Other,
                    })
                    .collect::<Vec<_>>(),
            )
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Spec §5.7 C-1..C-5 on random kernels, for every policy combination.
    #[test]
    fn compiler_properties(
        k in arb_code(),
        max_pp in 1usize..8,
        all_branches in any::<bool>(),
        clean in any::<bool>(),
    ) {
        let p = Params {
            max_pp,
            branches: if all_branches { PpBranches::All } else { PpBranches::Backward },
            merge: if clean { MergePolicy::Clean } else { MergePolicy::Literal },
            ..Params::default()
        };
        let found = find_program_points(&k, &p);
        // C-2: retained branches have 1 <= score <= 254 and beat their fall-through.
        for b in found.iter().filter(|b| b.branch) {
            prop_assert!((1..=254).contains(&b.score));
        }
        // C-3: the fixed point is stable: running Algorithm 1 again gives the same table.
        prop_assert_eq!(&found, &find_program_points(&k, &p));
        let c = compile(&k, &p);
        // C-1: sorted strictly by PC, at most max_pp, scores <= 255.
        prop_assert!(c.table.len() <= max_pp);
        prop_assert!(c.table.windows(2).all(|w| w[0].pc < w[1].pc));
        prop_assert!(c.table.iter().all(|q| q.score <= 255));
        // C-4: merges remove exactly one point each.
        prop_assert_eq!(c.merges, found.len().saturating_sub(max_pp));
        // C-5: without merges, the priority of every PC is the exact distance to the next load
        // along the sequential path when no branch program point is in the way.
        if c.merges == 0 {
            for (i, inst) in k.iter().enumerate() {
                let next = c.table.iter().find(|q| q.idx >= i);
                if let Some(q) = next.filter(|q| !q.branch) {
                    prop_assert_eq!(
                        priority(&c.table, inst.pc, 3, 255, true),
                        ((q.idx - i) as u32).min(255)
                    );
                }
            }
        }
        // Every branch has a recalculation bit.
        let branches = k.iter().filter(|c| matches!(c.kind, Kind::Branch { .. })).count();
        prop_assert_eq!(c.recalc.len(), branches);
    }
}

#[test]
fn real_trace_static_code_compiles() {
    use crate::workload::accelsim::{read_kernelslist, Command};
    let Some(dir) = crate::workload::shared_trace("matrixmul-32-32") else {
        return;
    };
    let Command::Kernel { path } = read_kernelslist(&dir).unwrap().pop().unwrap() else {
        panic!()
    };
    let code = code_of(&KernelCode::of_trace_file(&path));
    assert_eq!(code.len(), 138);
    let loads: Vec<u64> = code
        .iter()
        .filter(|c| c.kind == Kind::Load)
        .map(|c| c.pc)
        .collect();
    let c = compile(&code, &Params::default());
    // One 32x32 tile: the loop is never taken, so only the global loads are program points.
    assert!(!loads.is_empty());
    assert_eq!(c.table.iter().map(|q| q.pc).collect::<Vec<_>>(), loads);
    assert!(c.table.iter().all(|q| !q.branch && q.score == 0));
    let first = code.iter().position(|x| x.kind == Kind::Load).unwrap();
    assert_eq!(
        c.table[0].idx, first,
        "the first program point is the first global load"
    );
}

#[test]
fn a_kernel_compiles_the_same_from_its_program_and_from_its_trace() {
    // Every loop of these runs at least twice, so the trace shows each back edge (a branch
    // never taken in a trace, like mm's outer loop at size small, has no visible target).
    let mut loop_points = 0;
    for name in ["km", "lud", "syrk"] {
        let def = crate::workload::synth::build(name, "small").unwrap();
        let from_trace = compile(
            &code_of(&KernelCode::of_exported_trace(&def)),
            &Params::default(),
        );
        let direct = compile(
            &code_of(&KernelCode::of_program(&def.program)),
            &Params::default(),
        );
        assert_eq!(from_trace, direct, "{name}");
        loop_points += direct.table.iter().filter(|q| q.branch).count();
    }
    assert!(
        loop_points > 0,
        "loop branches are program points somewhere"
    );
}

#[test]
fn distances_count_pc_units_as_the_calculator_does() {
    // A trace's code has holes: instructions that never ran, control words. Here pc 8 is
    // missing: idx 0 @0, idx 1 @16 (load), idx 2 @24, idx 3 @32 (branch back to idx 0).
    let k: Code = [(0, O), (16, L), (24, O), (32, br(0))]
        .into_iter()
        .map(|(pc, kind)| CodeInst { pc, kind })
        .collect();
    let c = compile(&k, &Params::default());
    assert_eq!(
        c.table[1].score, 3,
        "taken: 1 for the branch + 2 PC units to the load"
    );
    let prio = |pc| priority(&c.table, pc, 3, 255, true);
    // Issuing the taken branch decrements its priority: the calculator agrees at the target.
    assert_eq!(prio(32) - 1, prio(0));
    assert_eq!(prio(0), 2);
}
