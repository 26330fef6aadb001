//! The Accel-Sim reader on the real traces, on each address mode, and on malformed input.

use super::*;
use crate::workload::shared_trace;
use proptest::prelude::*;

/// (warp instructions, thread instructions, thread blocks) of every kernel of a trace dir.
fn count(dir: &Path) -> (u64, u64, u64) {
    let (mut warp, mut thread, mut blocks) = (0, 0, 0);
    for c in read_kernelslist(dir).unwrap() {
        if let Command::Kernel { path } = c {
            let mut k = KernelTrace::open(&path).unwrap();
            while let Some(tb) = k.next_block().unwrap() {
                blocks += 1;
                for w in &tb.warps {
                    warp += w.len() as u64;
                    thread += w.iter().map(|i| i.active_threads() as u64).sum::<u64>();
                }
            }
        }
    }
    (warp, thread, blocks)
}

#[test]
fn real_traces_have_the_expected_instruction_counts() {
    let (Some(va), Some(mm)) = (
        shared_trace("vectoradd-100-32"),
        shared_trace("matrixmul-32-32"),
    ) else {
        return;
    };
    assert_eq!(count(&va), (344, 10_516, 1));
    assert_eq!(count(&mm), (4_416, 139_264, 1));
}

#[test]
fn real_trace_header_and_commands() {
    let Some(va) = shared_trace("vectoradd-100-32") else {
        return;
    };
    let cmds = read_kernelslist(&va).unwrap();
    assert_eq!(cmds.len(), 4);
    assert_eq!(
        cmds[0],
        Command::MemcpyHtoD {
            addr: 0x7f2b2d500000,
            bytes: 400
        }
    );
    let Command::Kernel { path } = &cmds[3] else {
        panic!("{cmds:?}")
    };
    let mut k = KernelTrace::open(path).unwrap();
    let h = &k.header;
    assert_eq!(h.name, "_Z6vecAddIfEvPT_S1_S1_i");
    assert_eq!(
        (h.grid, h.block),
        (
            Dim3 { x: 1, y: 1, z: 1 },
            Dim3 {
                x: 1024,
                y: 1,
                z: 1
            }
        )
    );
    assert_eq!(
        (h.nregs, h.shmem_bytes, h.tracer_version, h.binary_version),
        (8, 0, 4, 61)
    );
    let tb = k.next_block().unwrap().unwrap();
    assert_eq!(tb.warps.len(), 32);
    // Warp 1, first load: base_stride from 0x7f2b2d500080, 4 bytes per lane.
    let ld = tb.warps[1].iter().find(|i| i.mem_width > 0).unwrap();
    assert_eq!(k.opcode_name(ld.opcode), "LDG.E.CG");
    assert_eq!((ld.pc, ld.mask, ld.mem_width), (0x98, u32::MAX, 4));
    assert_eq!(ld.addrs.len(), 32);
    assert_eq!(
        (ld.addrs[0], ld.addrs[31]),
        (0x7f2b2d500080, 0x7f2b2d500080 + 31 * 4)
    );
    assert_eq!(
        (ld.dsts.as_slice(), ld.srcs.as_slice()),
        (&[4u16][..], &[4u16][..])
    );
    assert!(k.next_block().unwrap().is_none());
}

const HEADER: &str =
    "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n\
-shmem = 0\n-nregs = 16\n-binary version = 61\n-cuda stream id = 0\n-accelsim tracer version = 4\n\
-enable lineinfo = 0\n\n#traces format = ...\n\n";

fn trace_file(body: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("kernel-1.traceg");
    std::fs::write(&p, format!("{HEADER}{body}")).unwrap();
    (dir, p)
}

fn read_all(p: &Path) -> Result<Vec<ThreadBlockTrace>, TraceError> {
    let mut k = KernelTrace::open(p)?;
    let mut v = vec![];
    while let Some(tb) = k.next_block()? {
        v.push(tb);
    }
    Ok(v)
}

fn block(insts: &str) -> String {
    let n = insts.lines().count();
    format!("#BEGIN_TB\nthread block = 1,0,0\nwarp = 1\ninsts = {n}\n{insts}\n#END_TB\n")
}

#[test]
fn address_modes_decompress_per_active_lane() {
    let (_d, p) = trace_file(&block(
        "0010 0000000f 1 R2 LDG.E 1 R4 4 0 0x100 0x200 0x104 0x300\n\
         0018 000000f0 0 STG.E 2 R4 R2 8 1 0x1000 -8\n\
         0020 00000007 1 R3 LDS 1 R5 4 2 0x40 4 -12\n\
         0028 00000000 1 R3 LDS 1 R5 4 2 0x40\n\
         0030 ffffffff 1 R7 FFMA 3 R1 R2 UR4 0",
    ));
    let tbs = read_all(&p).unwrap();
    assert_eq!(tbs.len(), 1);
    assert_eq!(tbs[0].id, Dim3 { x: 1, y: 0, z: 0 });
    let w = &tbs[0].warps;
    assert_eq!(w.len(), 2);
    assert!(w[0].is_empty(), "warp 0 not listed: no instructions");
    assert_eq!(w[1][0].addrs, vec![0x100, 0x200, 0x104, 0x300]);
    assert_eq!(w[1][1].addrs, vec![0x1000, 0xff8, 0xff0, 0xfe8]);
    assert_eq!(w[1][2].addrs, vec![0x40, 0x44, 0x38]);
    assert!(w[1][3].addrs.is_empty(), "no active lane, no address");
    assert_eq!(
        (w[1][4].srcs.as_slice(), w[1][4].mem_width),
        (&[1u16, 2][..], 0),
        "UR4 not listed"
    );
}

#[test]
fn lineinfo_and_version_3_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("k.traceg");
    let h = HEADER
        .replace("version = 4", "version = 3")
        .replace("lineinfo = 0", "lineinfo = 1");
    std::fs::write(&p, format!("{h}{}", block("17 0010 00000001 0 EXIT 0 0"))).unwrap();
    let tbs = read_all(&p).unwrap();
    assert_eq!(tbs[0].warps[1][0].pc, 0x10);
}

/// Asserts that `body` fails at `line` of the file with a message containing `what`.
fn rejects(body: &str, line: usize, what: &str) {
    let (_d, p) = trace_file(body);
    let e = read_all(&p).expect_err(body);
    let msg = e.to_string();
    assert!(msg.contains(&format!("kernel-1.traceg:{line}:")), "{msg}");
    assert!(msg.contains(what), "{msg}");
}

#[test]
fn malformed_traces_are_rejected_with_file_line_and_expectation() {
    let first = HEADER.lines().count() + 1; // line of #BEGIN_TB
    let inst = first + 4; // first instruction line
    rejects(
        &block("0010 ffffffff 1 R2 LDG.E 1 R4 4 0 0x100"),
        inst,
        "address 2 of 32",
    );
    rejects(
        &block("0010 0000000f 1 R2 LDG.E 1 R4 4 2 0x100 4"),
        inst,
        "delta 2 of 3",
    );
    rejects(
        &block("0010 0000000f 1 R2 LDG.E 1 R4 4 7 0x100"),
        inst,
        "address mode",
    );
    rejects(
        &block("0010 0000000f 1 R2 MOV 0 0 junk"),
        inst,
        "end of the line",
    );
    rejects(&block("zz10 0000000f 1 R2 MOV 0 0"), inst, "hexadecimal PC");
    rejects(
        &block("0010 1ffffffff 0 EXIT 0 0"),
        inst,
        "32-bit hexadecimal active mask",
    );
    rejects(
        &block("0010 ffffffff 99 R2 MOV 0 0"),
        inst,
        "number of destination registers",
    );
    // Truncated: the file ends inside the block.
    rejects(
        "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n0010 1 0 EXIT 0 0\n",
        first + 4,
        "instruction 2 of 2",
    );
    rejects(
        "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0010 1 0 EXIT 0 0\n",
        first + 4,
        "#END_TB",
    );
    // A warp header where an instruction should be.
    rejects(
        "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n0010 1 0 EXIT 0 0\nwarp = 1\n",
        first + 5,
        "instruction 2 of 2",
    );
    rejects(
        "#BEGIN_TB\nthread block = 5,0,0\n",
        first + 1,
        "outside the grid",
    );
    // Values the model cannot hold are errors, not truncated.
    rejects(
        &block("0010 ffffffff 1 R256 MOV 0 0"),
        inst,
        "destination register R0..R255",
    );
    rejects(
        &block("0010 ffffffff 0 MOV 1 R70000 0"),
        inst,
        "source register R0..R255",
    );
    rejects(
        &block("100000010 ffffffff 0 EXIT 0 0"),
        inst,
        "hexadecimal PC below 2^32",
    );
    rejects(
        &block("0010 00000001 0 LDG.E 1 R4 256 1 0x100 0"),
        inst,
        "memory width in bytes (0..=255)",
    );
    rejects(
        "#BEGIN_TB\nthread block = 0,0,0\nwarp = 2\n",
        first + 2,
        "warp 2 does not exist",
    );
    rejects(
        "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 0\nwarp = 0\n",
        first + 4,
        "appears twice",
    );
    rejects(
        "#BEGIN_TB\nblock = 0,0,0\n",
        first + 1,
        "thread block = <x>,<y>,<z>",
    );
    rejects("garbage\n", first, "`#BEGIN_TB`");
}

#[test]
fn register_names_that_are_not_registers_are_rejected() {
    let inst = HEADER.lines().count() + 5;
    for (line, bad, kind) in [
        ("0010 ffffffff 1 R9999x MOV 0 0", "R9999x", "destination"),
        ("0010 ffffffff 0 MOV 2 R1 Q3 0", "Q3", "source"),
        ("0010 ffffffff 0 MOV 1 UR64 0", "UR64", "source"),
        ("0010 ffffffff 0 MOV 1 P8 0", "P8", "source"),
        ("0010 ffffffff 0 MOV 1 SR_ 0", "SR_", "source"),
        ("0010 ffffffff 0 MOV 1 R 0", "R", "source"),
        ("0010 ffffffff 0 MOV 1 r4 0", "r4", "source"),
    ] {
        let want = format!(
            "expected a {kind} register (R<n>, RZ, UR0..UR63, URZ, P0..P7, PT, UP0..UP7, UPT \
             or SR_<name>), found `{bad}`"
        );
        rejects(&block(line), inst, &want);
    }
    // The other kinds are read and not listed; R<n> are.
    let (_d, p) = trace_file(&block(
        "0010 ffffffff 2 R1 P0 ISETP 8 R2 RZ UR4 URZ PT UP1 UPT SR_TID.X 0",
    ));
    let i = &read_all(&p).unwrap()[0].warps[1][0];
    assert_eq!(
        (i.dsts.as_slice(), i.srcs.as_slice()),
        (&[1u16][..], &[2u16][..])
    );
}

#[test]
fn memcpy_sizes_that_overflow_are_errors_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("kernelslist.g");
    let max = u64::MAX;
    for (list, line, what) in [
        (
            format!("MemcpyHtoD,0x100,{max}\nMemcpyHtoD,0x0,2\nkernel-1.traceg\n"),
            1,
            "runs past the end of the 64-bit address space",
        ),
        (
            format!(
                "MemcpyHtoD,0x0,{}\nMemcpyHtoD,0x0,{}\nkernel-1.traceg\n",
                max / 2 + 1,
                max / 2 + 1
            ),
            2,
            "the copies add up to more than 2^64-1 bytes",
        ),
        (
            "MemcpyHtoD,0x0,18446744073709551616\nkernel-1.traceg\n".into(),
            1,
            "(numbers below 2^64)",
        ),
    ] {
        std::fs::write(&p, &list).unwrap();
        let e = read_kernelslist(&p).unwrap_err().to_string();
        assert!(
            e.contains(&format!("kernelslist.g:{line}: ")) && e.contains(what),
            "{list}: {e}"
        );
    }
    // Up to the limits exactly is read, and summed without overflow.
    std::fs::write(
        &p,
        format!("MemcpyHtoD,0x0,{max}\nMemcpyHtoD,0x1,0\nkernel-1.traceg\n"),
    )
    .unwrap();
    assert_eq!(memcpy_bytes(&read_kernelslist(&p).unwrap()), max);
}

#[test]
fn bad_headers_are_rejected() {
    let cases = [
        (
            "version = 4",
            "version = 2",
            "tracer version 2 is not supported",
        ),
        ("(64,1,1)", "(0,1,1)", "must have 1 to 1024 threads"),
        ("(64,1,1)", "(2048,1,1)", "must have 1 to 1024 threads"),
        ("(2,1,1)", "(0,1,1)", "must have 1 to 2^32-1 blocks"),
        ("(2,1,1)", "(2,1)", "`-grid dim = (<x>,<y>,<z>)`"),
        ("-nregs = 16", "-nregs = 300", "at most 255"),
        (
            "-nregs = 16",
            "-nregs = 4294967296",
            "-nregs = 4294967296 does not fit in 32 bits",
        ),
        (
            "version = 4",
            "version = 4294967300",
            "does not fit in 32 bits",
        ),
        (
            "-kernel id = 1",
            "-kernel id = 99999999999",
            "does not fit in 32 bits",
        ),
        (
            "-nregs = 16",
            "-nregs = many",
            "`-nregs = <decimal number>`",
        ),
        ("-kernel name = k\n", "", "no `-kernel name = ...` line"),
        ("-shmem = 0\n", "shmem 0\n", "`-<key> = <value>`"),
    ];
    for (from, to, what) in cases {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("kernel-1.traceg");
        std::fs::write(&p, HEADER.replace(from, to)).unwrap();
        let e = KernelTrace::open(&p)
            .err()
            .unwrap_or_else(|| panic!("accepted {to}"))
            .to_string();
        assert!(
            e.contains("kernel-1.traceg:") && e.contains(what),
            "{to}: {e}"
        );
    }
    let e = KernelTrace::open(Path::new("/nonexistent/kernel-1.traceg"))
        .err()
        .unwrap();
    assert!(
        e.to_string().starts_with("/nonexistent/kernel-1.traceg: "),
        "{e}"
    );
}

#[test]
fn kernelslist_errors_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("kernelslist.g");
    std::fs::write(&p, "MemcpyHtoD,0x10,64\n\nMemcpyHtoD,0xzz,64\n").unwrap();
    let e = read_kernelslist(dir.path()).unwrap_err().to_string();
    assert!(
        e.contains("kernelslist.g:3:") && e.contains("MemcpyHtoD,<hex address>,<bytes>"),
        "{e}"
    );
    // A list without a kernel is an error, not a run of 0 cycles.
    for empty in ["", "# comment\n", "MemcpyHtoD,0x10,64\n"] {
        std::fs::write(&p, empty).unwrap();
        let e = read_kernelslist(&p).unwrap_err().to_string();
        assert!(e.contains("no kernel"), "{empty:?}: {e}");
    }
    std::fs::write(&p, "launch something\n").unwrap();
    let e = read_kernelslist(&p).unwrap_err().to_string();
    assert!(
        e.contains("kernelslist.g:1:") && e.contains("kernel-<N>.traceg"),
        "{e}"
    );
}

/// A valid trace to mutate: header and two blocks with every address mode.
fn valid_trace() -> String {
    format!(
        "{HEADER}{}{}",
        block("0010 0000000f 1 R2 LDG.E 1 R4 4 0 0x100 0x200 0x104 0x300\n0018 000000f0 0 STG.E 2 R4 R2 8 1 0x1000 -8"),
        block("0020 00000007 1 R3 LDS 1 R5 4 2 0x40 4 -12\n0030 ffffffff 1 R7 FFMA 3 R1 R2 R3 0").replace("1,0,0", "0,0,0"),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::fuzz_cases(100_000)))]

    /// Any corruption of a valid trace (a token replaced, a line cut short or dropped) is read
    /// or rejected, never a panic.
    #[test]
    fn corrupted_traces_never_panic(
        pos in 0usize..2000, cut in 0usize..2000, garbage in "[-0-9a-zA-Z#=(),. ]{0,12}", drop in any::<bool>()
    ) {
        let text = valid_trace();
        let mut toks: Vec<String> = text.split(' ').map(str::to_string).collect();
        let i = pos % toks.len();
        if drop { toks.remove(i); } else { toks[i] = garbage; }
        let mut mutated = toks.join(" ");
        if cut < mutated.len() && mutated.is_char_boundary(cut) && cut % 3 == 0 {
            mutated.truncate(cut);
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("kernel-1.traceg");
        std::fs::write(&p, mutated).unwrap();
        let _ = KernelTrace::open(&p).and_then(|mut k| { while k.next_block()?.is_some() {} Ok(()) });
    }
}
