use super::*;
use crate::workload::sass::OpClass::{self, *};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

// ------------------------------------------------------------------------------- helpers

/// An instruction at `pc`.
fn op(pc: u64, class: OpClass, dsts: &[u16], srcs: &[u16], addr_srcs: u8) -> CodeOp {
    CodeOp {
        pc,
        class,
        target: None,
        addr: None,
        dsts: dsts.to_vec(),
        srcs: srcs.to_vec(),
        addr_srcs,
    }
}

/// An instruction as `(class, dsts, srcs, addr_srcs)`.
type Row<'a> = (OpClass, &'a [u16], &'a [u16], u8);

/// Straight-line code from rows, instruction `i` at PC `8 i`.
fn code(ops: &[Row]) -> KernelCode {
    let insts = ops
        .iter()
        .enumerate()
        .map(|(i, &(c, d, s, a))| op(8 * i as u64, c, d, s, a))
        .collect();
    KernelCode { insts }
}

fn opts(long_loads: LongLoads, operands: Operands) -> PhaseOptions {
    PhaseOptions {
        long_loads,
        operands,
    }
}

/// The four option combinations.
fn all_opts() -> [PhaseOptions; 4] {
    use LongLoads::{AllLoads, Default as Dflt};
    use Operands::{Faithful, ReportCode};
    [
        opts(Dflt, Faithful),
        opts(Dflt, ReportCode),
        opts(AllLoads, Faithful),
        opts(AllLoads, ReportCode),
    ]
}

fn one(_: &CodeOp) -> u32 {
    1
}

fn phase_ids(p: &Phases) -> Vec<u32> {
    p.per_inst.iter().map(|i| i.phase).collect()
}

fn dists(p: &Phases) -> Vec<u16> {
    p.per_inst.iter().map(|i| i.distance).collect()
}

/// Indices of the instructions that start a phase (after the first).
fn starts(p: &Phases) -> Vec<usize> {
    (1..p.per_inst.len())
        .filter(|&i| p.per_inst[i].phase != p.per_inst[i - 1].phase)
        .collect()
}

// ------------------------------------------------------------- independent reference, P-PH1

/// The registers an instruction reads under `operands` (RZ aside).
fn reads(op: &CodeOp, operands: Operands) -> Vec<u16> {
    let from = match operands {
        Operands::Faithful => 0,
        Operands::ReportCode => (op.addr_srcs as usize).min(op.srcs.len()),
    };
    op.srcs[from..]
        .iter()
        .copied()
        .filter(|&r| r != RZ)
        .collect()
}

/// The registers a long load leaves in flight under `operands` (RZ aside).
fn loaded(op: &CodeOp, o: PhaseOptions) -> Vec<u16> {
    let long = match o.long_loads {
        LongLoads::Default => matches!(op.class, LoadGlobal | LoadLocal),
        LongLoads::AllLoads => matches!(op.class, LoadGlobal | LoadLocal | LoadShared | LoadConst),
    };
    let scalar = o.operands == Operands::Faithful || op.dsts.len() == 1;
    if !(long && scalar) {
        return vec![];
    }
    op.dsts.iter().copied().filter(|&r| r != RZ).collect()
}

/// P-PH1 by its definition: instruction `i` starts a phase iff it reads a register that a long
/// load of the current phase, before it, wrote (P-R3), or, in the report's code, it or a long
/// load before it in the phase (C3: the destination is pushed first); a start at the report's
/// instruction 0 only forgets the loads.
fn reference_starts(code: &KernelCode, o: PhaseOptions) -> Vec<bool> {
    let mut out = vec![false; code.insts.len()];
    let mut window = 0; // first instruction whose loads are in the current phase
    for (i, op) in code.insts.iter().enumerate() {
        let upto = match o.operands {
            Operands::Faithful => i,
            Operands::ReportCode => i + 1,
        };
        let r = reads(op, o.operands);
        let hit = (window..upto).any(|j| loaded(&code.insts[j], o).iter().any(|d| r.contains(d)));
        if hit {
            out[i] = i > 0;
            window = upto;
        }
    }
    out
}

/// Checks `p` against the reference phase starts (P-PH1) and the shape rules: ids from 1 up by
/// one at each start, the end-of-phase mark on the instruction before each start and nowhere
/// else, `count` the last id.
fn check_ph1(code: &KernelCode, o: PhaseOptions, p: &Phases) -> Result<(), TestCaseError> {
    let want = reference_starts(code, o);
    prop_assert_eq!(p.per_inst.len(), code.insts.len());
    let mut phase = 1;
    for (i, info) in p.per_inst.iter().enumerate() {
        prop_assert_eq!(info.pc, code.insts[i].pc);
        phase += u32::from(want[i]);
        prop_assert_eq!(info.phase, phase, "phase of instruction {}", i);
        let ends = want.get(i + 1).copied().unwrap_or(false);
        prop_assert_eq!(info.end_of_phase, ends, "end of phase at {}", i);
    }
    prop_assert_eq!(p.count, p.per_inst.last().map_or(0, |i| i.phase));
    Ok(())
}

/// P-PH2: every distance is the sum of the latencies from the instruction to the last of its
/// phase, saturated to 16 bits.
fn check_ph2(
    code: &KernelCode,
    p: &Phases,
    lat: &dyn Fn(&CodeOp) -> u32,
) -> Result<(), TestCaseError> {
    let n = p.per_inst.len();
    for i in 0..n {
        let end = (i..n)
            .take_while(|&k| p.per_inst[k].phase == p.per_inst[i].phase)
            .last()
            .unwrap_or(i);
        let sum: u64 = (i..=end).map(|k| u64::from(lat(&code.insts[k]))).sum();
        let want = u16::try_from(sum).unwrap_or(u16::MAX);
        prop_assert_eq!(p.per_inst[i].distance, want, "distance of {}", i);
    }
    Ok(())
}

// ------------------------------------------------------------------------ random codes

const CLASSES: [OpClass; 12] = [
    IntAlu,
    IntMul,
    Fp,
    Sfu,
    LoadGlobal,
    LoadLocal,
    LoadShared,
    LoadConst,
    StoreGlobal,
    AtomicGlobal,
    Branch,
    Exit,
];

/// A register: mostly one of a few (so dependences are frequent), sometimes RZ.
fn reg() -> impl Strategy<Value = u16> {
    prop_oneof![9 => 0u16..6, 1 => Just(RZ)]
}

fn arb_op() -> impl Strategy<Value = (OpClass, Vec<u16>, Vec<u16>, u8)> {
    (
        prop::sample::select(CLASSES.to_vec()),
        prop::collection::vec(reg(), 0..3),
        prop::collection::vec(reg(), 0..4),
        0u8..3,
    )
}

/// Straight-line code of up to 40 instructions, PCs `8 i`.
fn arb_code() -> impl Strategy<Value = KernelCode> {
    prop::collection::vec(arb_op(), 0..40).prop_map(|ops| KernelCode {
        insts: ops
            .into_iter()
            .enumerate()
            .map(|(i, (c, d, s, a))| op(8 * i as u64, c, &d, &s, a))
            .collect(),
    })
}

fn arb_opts() -> impl Strategy<Value = PhaseOptions> {
    prop::sample::select(all_opts().to_vec())
}

/// A latency per class, in `range`.
fn arb_table(range: std::ops::Range<u32>) -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(range, OpClass::ALL.len())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::fuzz_cases(2000)))]

    /// P-PH1 in every mode, against the reference.
    #[test]
    fn p_ph1_phase_starts_match_the_definition(c in arb_code(), o in arb_opts()) {
        check_ph1(&c, o, &phases(&c, o, &one))?;
    }

    /// P-PH2, with latencies up to 5000 cycles so long phases saturate.
    #[test]
    fn p_ph2_distances_are_exact_saturating_sums(
        c in arb_code(), o in arb_opts(), t in arb_table(0..5000)
    ) {
        let lat = |op: &CodeOp| t[op.class as usize];
        check_ph2(&c, &phases(&c, o, &lat), &lat)?;
    }

    /// P-PH3: with latencies >= 1 (and no saturation), distances strictly decrease within a
    /// phase; each phase ends at its last instruction's latency.
    #[test]
    fn p_ph3_distances_strictly_decrease_within_a_phase(
        c in arb_code(), o in arb_opts(), t in arb_table(1..50)
    ) {
        let lat = |op: &CodeOp| t[op.class as usize];
        let p = phases(&c, o, &lat);
        for (i, w) in p.per_inst.windows(2).enumerate() {
            if w[0].phase == w[1].phase {
                prop_assert!(w[0].distance > w[1].distance, "at {}", i);
            } else {
                prop_assert_eq!(u32::from(w[0].distance), lat(&c.insts[i]));
            }
        }
    }

    /// The scheduler's lookup finds every instruction's distance by its PC, and nothing else.
    #[test]
    fn distance_at_finds_every_pc(c in arb_code(), o in arb_opts()) {
        let p = phases(&c, o, &one);
        for info in &p.per_inst {
            prop_assert_eq!(p.distance_at(info.pc), Some(info.distance));
            prop_assert_eq!(p.distance_at(info.pc + 4), None);
        }
    }
}

// --------------------------------------------------------------- planted fault, P-PH1

/// A pass 1 that forgets to empty `long_op` when a phase starts (a planted fault).
fn starts_keeping_long_op(code: &KernelCode, o: PhaseOptions) -> Vec<bool> {
    let mut scan = Scan::new(o);
    code.insts
        .iter()
        .map(|op| {
            let kept = scan.long_op.clone();
            let start = scan.step(op);
            if start {
                scan.push(&kept);
            }
            start
        })
        .collect()
}

#[test]
fn planted_fault_keeping_long_op_across_a_phase_start_is_caught() {
    // ld r1; add r2 <- r1 (phase 2); add r3 <- r1: r1 is phase 1's, so no new phase.
    let c = code(&[
        (LoadGlobal, &[1], &[0], 1),
        (IntAlu, &[2], &[1], 0),
        (IntAlu, &[3], &[1], 0),
    ]);
    let o = PhaseOptions::default();
    let good = phases(&c, o, &one);
    assert_eq!(phase_ids(&good), [1, 2, 2]);
    assert!(check_ph1(&c, o, &good).is_ok());
    let bad = Phases::from_starts(&c, &starts_keeping_long_op(&c, o), &one);
    assert_eq!(phase_ids(&bad), [1, 2, 3]);
    assert!(check_ph1(&c, o, &bad).is_err());
    // The random search finds it too.
    let mut runner = TestRunner::new(Config::with_cases(2000));
    let found = runner.run(&(arb_code(), arb_opts()), |(c, o)| {
        check_ph1(
            &c,
            o,
            &Phases::from_starts(&c, &starts_keeping_long_op(&c, o), &one),
        )
    });
    assert!(found.is_err(), "the P-PH1 checker misses the planted fault");
}

// ------------------------------------------------------------------- golden vector, P-PH4

/// Fig. 1's vectorAdd SASS (Fig. 13's PCs), registers as written (`R0H`, `R0L` are halves of
/// `R0`; `g[...]` operands are no registers), with Fig. 1's latencies.
fn vectoradd() -> (KernelCode, [u32; 12]) {
    let rows: [(u64, Row); 12] = [
        (0, (IntAlu, &[0], &[], 0)),          // MOV.U16 R0H, g[0x1]
        (8, (Fp, &[1], &[0], 0)),             // I2I.U32.U16 R1, R0L
        (16, (IntMul, &[0], &[0, 1], 0)),     // IMAD.U16 R0, g[0x6], R0H, R1
        (24, (IntAlu, &[2], &[0], 0)),        // SHL R2, R0, 0x2
        (32, (IntAlu, &[0], &[2], 0)),        // IADD32 R0, g[0x4], R2
        (36, (IntAlu, &[3], &[2], 0)),        // IADD32 R3, g[0x6], R2
        (40, (LoadGlobal, &[1], &[0], 1)),    // GLD.U32 R1, global14[R0]
        (48, (LoadGlobal, &[0], &[3], 1)),    // GLD.U32 R0, global14[R3]
        (56, (IntAlu, &[1], &[1, 0], 0)),     // IADD32 R1, R1, R0
        (60, (IntAlu, &[0], &[2], 0)),        // IADD32 R0, g[0x8], R2
        (64, (StoreGlobal, &[], &[0, 1], 1)), // GST.U32 global14[R0], R1
        (72, (Exit, &[], &[], 0)),            // EXIT
    ];
    let insts = rows
        .iter()
        .map(|&(pc, (c, d, s, a))| op(pc, c, d, s, a))
        .collect();
    (KernelCode { insts }, [1, 1, 5, 1, 4, 4, 1, 1, 4, 4, 1, 1])
}

#[test]
fn p_ph4_vectoradd_golden_vector_of_fig_13() {
    let (c, lats) = vectoradd();
    let lat = |op: &CodeOp| {
        let k = c.insts.iter().position(|o| o.pc == op.pc);
        k.map_or(0, |k| lats[k])
    };
    for o in all_opts() {
        let p = phases(&c, o, &lat);
        assert_eq!(p.count, 2, "{o:?}");
        assert_eq!(phase_ids(&p), [1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2], "{o:?}");
        assert_eq!(
            dists(&p),
            [18, 17, 16, 11, 10, 6, 2, 1, 10, 6, 2, 1],
            "{o:?}"
        );
        let ends: Vec<u64> = p
            .per_inst
            .iter()
            .filter(|i| i.end_of_phase)
            .map(|i| i.pc)
            .collect();
        assert_eq!(ends, [48], "{o:?}");
        assert_eq!(p.at(72).map(|i| i.end_of_phase), Some(false));
        assert_eq!(p.distance_at(56), Some(10));
        assert_eq!(p.distance_at(52), None);
    }
}

// ---------------------------------------------------------------- operand modes, C3, P-R3

#[test]
fn c3_a_load_reading_its_own_destination_starts_a_phase_only_in_report_code() {
    // MOV R4; TEX R4, R4 (coordinates in R4, no memory operand); FADD R5 <- R4.
    let c = code(&[
        (IntAlu, &[4], &[], 0),
        (LoadGlobal, &[4], &[4], 0),
        (Fp, &[5], &[4], 0),
    ]);
    let faithful = phases(&c, PhaseOptions::default(), &one);
    // Faithful: R4 is checked before the TEX pushes it; the FADD waits on the TEX.
    assert_eq!(phase_ids(&faithful), [1, 1, 2]);
    let report = phases(&c, opts(LongLoads::Default, Operands::ReportCode), &one);
    // Report: the TEX's R4 is pushed, then found among its own sources: a phase of its own
    // starts, `long_op` is emptied, and the FADD no longer sees the TEX.
    assert_eq!(phase_ids(&report), [1, 2, 2]);
}

#[test]
fn p_r3_memory_operand_and_vector_registers_count_only_when_faithful() {
    let report = opts(LongLoads::Default, Operands::ReportCode);
    // `ld r1, [r1]`: the address is a memory operand, no register source in the report's code,
    // so C3's self-trigger does not happen there either; its use starts a phase in both.
    let c = code(&[(LoadGlobal, &[1], &[1], 1), (IntAlu, &[2], &[1], 0)]);
    for o in [PhaseOptions::default(), report] {
        assert_eq!(phase_ids(&phases(&c, o, &one)), [1, 2], "{o:?}");
    }
    // Pointer chasing: ld r1, [r0]; ld r2, [r1]; add r3 <- r2.
    let c = code(&[
        (LoadGlobal, &[1], &[0], 1),
        (LoadGlobal, &[2], &[1], 1),
        (IntAlu, &[3], &[2], 0),
    ]);
    assert_eq!(
        phase_ids(&phases(&c, PhaseOptions::default(), &one)),
        [1, 2, 3]
    );
    assert_eq!(phase_ids(&phases(&c, report, &one)), [1, 1, 2]);
    // A vector load ld {r1, r2}: every register in flight when faithful, none in the report.
    let c = code(&[(LoadGlobal, &[1, 2], &[0], 1), (IntAlu, &[3], &[2], 0)]);
    assert_eq!(
        phase_ids(&phases(&c, PhaseOptions::default(), &one)),
        [1, 2]
    );
    assert_eq!(phase_ids(&phases(&c, report, &one)), [1, 1]);
    // A store's value register is a register source in both.
    let c = code(&[(LoadGlobal, &[1], &[0], 1), (StoreGlobal, &[], &[3, 1], 1)]);
    for o in [PhaseOptions::default(), report] {
        assert_eq!(phase_ids(&phases(&c, o, &one)), [1, 2], "{o:?}");
    }
}

#[test]
fn a_later_alu_write_does_not_take_a_register_out_of_long_op() {
    // ld r1; mov r1 <- r0; add r2 <- r1: conservative, as the report (P-R3).
    let c = code(&[
        (LoadGlobal, &[1], &[0], 1),
        (IntAlu, &[1], &[0], 0),
        (IntAlu, &[2], &[1], 0),
    ]);
    assert_eq!(
        phase_ids(&phases(&c, PhaseOptions::default(), &one)),
        [1, 1, 2]
    );
}

#[test]
fn uses_of_an_earlier_phases_loads_start_no_phase() {
    // ld r1; ld r2; add <- r1 (phase 2); add <- r2 (r2 is phase 1's): one start only.
    let c = code(&[
        (LoadGlobal, &[1], &[0], 1),
        (LoadGlobal, &[2], &[0], 1),
        (IntAlu, &[3], &[1], 0),
        (IntAlu, &[4], &[2], 0),
    ]);
    for o in all_opts() {
        assert_eq!(phase_ids(&phases(&c, o, &one)), [1, 1, 2, 2], "{o:?}");
    }
}

// --------------------------------------------------------------------- long loads, C2

#[test]
fn c2_shared_and_constant_loads_are_long_only_with_all_loads() {
    for space in [LoadShared, LoadConst] {
        let c = code(&[(space, &[1], &[0], 1), (IntAlu, &[2], &[1], 0)]);
        let d = phases(&c, PhaseOptions::default(), &one);
        assert_eq!((d.count, phase_ids(&d)), (1, vec![1, 1]), "{space:?}");
        let all = phases(&c, opts(LongLoads::AllLoads, Operands::Faithful), &one);
        assert_eq!((all.count, phase_ids(&all)), (2, vec![1, 2]), "{space:?}");
    }
    for space in [LoadGlobal, LoadLocal] {
        let c = code(&[(space, &[1], &[0], 1), (IntAlu, &[2], &[1], 0)]);
        for o in all_opts() {
            assert_eq!(phases(&c, o, &one).count, 2, "{space:?} {o:?}");
        }
    }
    // Atomics return a value but are loads in neither mode.
    let c = code(&[(AtomicGlobal, &[1], &[0], 1), (IntAlu, &[2], &[1], 0)]);
    for o in all_opts() {
        assert_eq!(phases(&c, o, &one).count, 1, "{o:?}");
    }
    assert!(LongLoads::Default.is_long(LoadGlobal) && !LongLoads::Default.is_long(LoadShared));
    assert!(OpClass::ALL
        .iter()
        .all(|&c| LongLoads::AllLoads.is_long(c) == format!("{c:?}").starts_with("Load")));
}

// ------------------------------------------------------------- bad inputs, edge cases

#[test]
fn a_kernel_with_no_long_load_is_one_phase_of_suffix_sums() {
    let c = code(&[
        (IntAlu, &[0], &[], 0),
        (IntMul, &[1], &[0], 0),
        (LoadShared, &[2], &[1], 1),
        (Fp, &[3], &[2], 0),
        (Exit, &[], &[], 0),
    ]);
    let t = Latencies {
        int_alu: 2,
        int_mul: 5,
        fp: 4,
        dp: 8,
        sfu: 20,
        other: 1,
    };
    let p = phases(&c, PhaseOptions::default(), &|op| t.of(op.class));
    assert_eq!(p.count, 1);
    assert_eq!(phase_ids(&p), [1; 5]);
    // 2 + 5 + 1 + 4 + 1 from the top.
    assert_eq!(dists(&p), [13, 11, 6, 5, 1]);
    assert!(p.per_inst.iter().all(|i| !i.end_of_phase));
}

#[test]
fn an_empty_code_has_no_phase() {
    for o in all_opts() {
        let p = phases(&KernelCode::default(), o, &one);
        assert_eq!(p, Phases::default());
        assert_eq!(p.distance_at(0), None);
    }
}

#[test]
fn distances_saturate_at_16_bits() {
    let c = code(&[
        (Sfu, &[0], &[], 0),
        (Sfu, &[0], &[0], 0),
        (Sfu, &[0], &[0], 0),
        (Exit, &[], &[], 0),
    ]);
    let t = Latencies {
        sfu: 40_000,
        ..Latencies::uniform(1)
    };
    let p = phases(&c, PhaseOptions::default(), &|op| t.of(op.class));
    assert_eq!(dists(&p), [u16::MAX, u16::MAX, 40_001, 1]);
    // A latency beyond 16 bits saturates by itself.
    let p = phases(&c, PhaseOptions::default(), &|_| u32::MAX);
    assert_eq!(dists(&p), [u16::MAX; 4]);
}

#[test]
fn rz_is_never_a_dependence() {
    // A load into RZ discards its value; reading RZ reads 0.
    let c = code(&[(LoadGlobal, &[RZ], &[0], 1), (IntAlu, &[1], &[RZ], 0)]);
    for o in all_opts() {
        assert_eq!(phases(&c, o, &one).count, 1, "{o:?}");
    }
}

#[test]
fn malformed_operand_counts_do_not_panic() {
    // addr_srcs beyond the sources: no source outside the memory operand.
    let c = code(&[(LoadGlobal, &[1], &[0], 1), (IntAlu, &[2], &[1], 200)]);
    let report = phases(&c, opts(LongLoads::Default, Operands::ReportCode), &one);
    assert_eq!(report.count, 1);
    assert_eq!(phases(&c, PhaseOptions::default(), &one).count, 2);
}

#[test]
fn latency_table_counts_memory_at_issue_latency() {
    let units = crate::config::GpuConfig::preset("gtx480").unwrap().units;
    let t = Latencies::from_units(&units);
    assert_eq!(t.of(IntAlu), units.int_alu.latency);
    assert_eq!(t.of(IntMul), units.int_mul.latency);
    assert_eq!(t.of(Fp), units.fp.latency);
    assert_eq!(t.of(Dp), units.dp.latency);
    assert_eq!(t.of(Sfu), units.sfu.latency);
    assert_eq!(t.of(Exit), 1);
    let big = Latencies::uniform(600);
    for c in OpClass::ALL {
        let want = if c.is_memory() {
            MEMORY_ISSUE_LATENCY
        } else {
            600
        };
        assert_eq!(big.of(c), want, "{c:?}");
    }
}

// ------------------------------------------------------------------ workload kernels

/// The suite's PAWS kernel (App A, straight-line): a phase starts at the FFMA that reads each
/// pair of loads, from the program and from its exported trace alike.
#[test]
fn suite_phase_kernel_splits_where_each_loaded_value_is_used() {
    let def = crate::workload::synth::build("phase_msl", "small").unwrap();
    let direct = KernelCode::of_program(&def.program);
    let loads: Vec<usize> = (0..direct.insts.len())
        .filter(|&i| direct.insts[i].class == LoadGlobal)
        .collect();
    assert_eq!(
        loads.len(),
        4,
        "two loads at the end of each phase but the last"
    );
    let t = Latencies::uniform(4);
    let lat = |op: &CodeOp| t.of(op.class);
    let p = phases(&direct, PhaseOptions::default(), &lat);
    // Each pair of loads feeds the FFMA right after it.
    assert_eq!(starts(&p), [loads[1] + 1, loads[3] + 1]);
    assert_eq!(p.count, 3);
    // The first instruction of a phase holds its length: the short phase is 4 FFMAs and its
    // two loads (a load counts its issue latency, 1), the long one 200 FFMAs and more.
    let first = |i: usize| p.per_inst[i].distance;
    assert_eq!(first(loads[1] + 1), 4 * 4 + 2);
    assert!(first(loads[3] + 1) > 200 * 4);
    // The kernel exported as a trace and read back has the same registers and phases.
    let traced = KernelCode::of_exported_trace(&def);
    let regs = |c: &KernelCode| {
        c.insts
            .iter()
            .map(|o| (o.pc, o.dsts.clone(), o.srcs.clone(), o.addr_srcs))
            .collect::<Vec<_>>()
    };
    assert_eq!(regs(&traced), regs(&direct));
    for o in all_opts() {
        assert_eq!(phases(&traced, o, &lat), phases(&direct, o, &lat), "{o:?}");
    }
}

#[test]
fn real_vectoradd_trace_has_two_phases() {
    use crate::workload::accelsim::{read_kernelslist, Command};
    let Some(dir) = crate::workload::shared_trace("vectoradd-100-32") else {
        return;
    };
    let Command::Kernel { path } = read_kernelslist(&dir).unwrap().pop().unwrap() else {
        panic!("the last command is the kernel")
    };
    let c = KernelCode::of_trace_file(&path);
    // 0x98 LDG R4, [R4]; 0xb0 LDG R2, [R2]; 0xd0 FADD R0, R2, R4 starts phase 2; then STG,
    // NOP, EXIT. As in the report's Fig. 1, on a Pascal binary.
    for o in all_opts() {
        let p = phases(&c, o, &one);
        assert_eq!(p.count, 2, "{o:?}");
        assert_eq!(p.at(0xc8).map(|i| i.end_of_phase), Some(true));
        assert_eq!(p.at(0xd0).map(|i| i.phase), Some(2));
        assert_eq!(p.distance_at(0xd0), Some(4));
        assert_eq!(
            p.distance_at(0x08),
            Some(19),
            "phase 1: 19 instructions 0x08..=0xc8"
        );
    }
}
