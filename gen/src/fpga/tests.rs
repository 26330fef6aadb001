//! The self-test wrappers in Verilator: lint-clean, the golden signature reached (PASS on the
//! UART), and a planted fault (one output bit flipped in one cycle) reported as FAIL.

use super::*;
use crate::lint::{tool_available, verilator_lint_files};
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

fn have_verilator() -> bool {
    gpusim::testing::available(
        "rtl",
        tool_available("verilator"),
        "verilator not installed (apt-get install -y verilator)",
    )
}

/// Everything `gen` writes, once per test binary, in a temporary directory.
fn generated() -> &'static (tempfile::TempDir, crate::Generated) {
    static G: OnceLock<(tempfile::TempDir, crate::Generated)> = OnceLock::new();
    G.get_or_init(|| {
        let g = crate::testing::generated().clone();
        let dir = tempfile::tempdir().unwrap();
        crate::write_all(&g, dir.path()).unwrap();
        (dir, g)
    })
}

fn entry<'g>(g: &'g crate::Generated, module: &str) -> &'g crate::ModuleEntry {
    g.manifest
        .modules
        .iter()
        .find(|m| m.module == module)
        .unwrap()
}

#[test]
fn every_wrapper_bridge_and_the_uart_are_lint_clean() {
    if !have_verilator() {
        return;
    }
    let (dir, g) = generated();
    let fpga = dir.path().join(DIR);
    let (control, uart) = (fpga.join(control::FILE), fpga.join(uart::FILE));
    for m in &g.manifest.modules {
        let wrapper = fpga.join(format!("{}_selftest.v", m.module));
        let module = dir.path().join(&m.file);
        let files = [wrapper.as_path(), module.as_path(), &control, &uart];
        verilator_lint_files(&files, &format!("{}_selftest", m.module))
            .unwrap_or_else(|e| panic!("{e}"));
        let bridge = fpga.join(format!("{}_bridge.v", m.module));
        let ctl = fpga.join(bridge_ctl::FILE);
        let files = [bridge.as_path(), module.as_path(), &ctl, &uart];
        verilator_lint_files(&files, &format!("{}_bridge", m.module))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    verilator_lint_files(&[&uart], "gs_uart_rx").unwrap_or_else(|e| panic!("{e}"));
}

/// A simulation top: the wrapper of `module` at 8 clocks per UART bit with `INPUT_REG` set to
/// `input_reg`, its report decoded by `gs_uart_rx` and printed; `+fault=C` raises
/// `inject_fault` in cycle `C`.
fn testbench(module: &str, rom: &Path, input_reg: u8) -> String {
    format!(
        r#"module tb;
    reg clk = 1'b0;
    always #5 clk = ~clk;
    reg rst = 1'b1;
    reg fault = 1'b0;
    integer cycle = 0;
    integer fault_at = -1;
    wire done, pass, tx, valid, frame_error;
    wire [31:0] signature;
    wire [7:0] data;
    {module}_selftest #(.ROM_FILE("{rom}"), .CLKS_PER_BIT(16'd8), .REPORT_EVERY_LOG2(12),
        .INPUT_REG({input_reg})) st (
        .clk(clk), .rst(rst), .inject_fault(fault), .done(done), .pass(pass),
        .signature(signature), .uart_tx(tx));
    gs_uart_rx #(.CLKS_PER_BIT(16'd8)) rx (
        .clk(clk), .rst(rst), .rx(tx), .data(data), .valid(valid), .frame_error(frame_error));
    initial begin
        if (!$value$plusargs("fault=%d", fault_at)) fault_at = -1;
    end
    always @(posedge clk) begin
        cycle <= cycle + 1;
        if (cycle == 3) rst <= 1'b0;
        fault <= cycle == fault_at;
        if (valid) $write("%c", data);
        if (frame_error) begin $display("FRAME ERROR"); $finish; end
        if (valid && data == 8'h0a) $finish;
        if (cycle > 100000) begin $display("TIMEOUT"); $finish; end
    end
endmodule
"#,
        rom = rom.display()
    )
}

/// The make variables of every testbench build: the model compiled at `-O0` (a run is 256
/// cycles; `paver_tb_base_titanv` builds in 44 s instead of 117), and, when `ccache` is on
/// PATH, through it, so Verilator's runtime library (about 10 s of g++ a build) is compiled
/// once for the 40 builds. Its cache lives in the build tree (`target/ccache`).
fn make_flags() -> Vec<String> {
    let mut flags = vec!["OPT_FAST=-O0".to_string(), "OPT_SLOW=-O0".to_string()];
    if tool_available("ccache") {
        flags.push("OBJCACHE=ccache".into());
    }
    flags
        .into_iter()
        .flat_map(|f| ["-MAKEFLAGS".to_string(), f])
        .collect()
}

/// `ccache`'s directory: `target/ccache` of this workspace (or of `CARGO_TARGET_DIR`).
fn ccache_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
        .join("ccache")
}

/// Builds `module`'s wrapper (`INPUT_REG` = `input_reg`) with the testbench; returns the
/// binary.
fn build(module: &str, work: &Path, input_reg: u8) -> std::path::PathBuf {
    let (dir, g) = generated();
    let fpga = dir.path().join(DIR);
    let tb = work.join("tb.v");
    std::fs::write(
        &tb,
        testbench(module, &fpga.join(format!("{module}.rom.hex")), input_reg),
    )
    .unwrap();
    let out = Command::new("verilator")
        .args([
            "--binary",
            "--timing",
            "-Wno-fatal",
            "-Wno-lint",
            "-Wno-style",
        ])
        .args(make_flags())
        .env("CCACHE_DIR", ccache_dir())
        .args(["--top-module", "tb", "-Mdir"])
        .arg(work.join("obj"))
        .arg(&tb)
        .arg(fpga.join(format!("{module}_selftest.v")))
        .arg(dir.path().join(&entry(g, module).file))
        .arg(fpga.join(control::FILE))
        .arg(fpga.join(uart::FILE))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{module}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    work.join("obj/Vtb")
}

/// The report line the binary prints (`fault`: the cycle of the planted fault).
fn report(bin: &Path, fault: Option<u32>) -> String {
    let mut c = Command::new(bin);
    if let Some(f) = fault {
        c.arg(format!("+fault={f}"));
    }
    let out = c.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .next()
        .unwrap_or_default()
        .trim_end()
        .to_string()
}

/// `module`'s wrapper with `INPUT_REG` = `input_reg` reaches `signature` (its report says
/// PASS), and a planted fault (one output bit of one row flipped) makes it report FAIL.
fn check_wrapper(module: &str, signature: &str, input_reg: u8) {
    let work = tempfile::tempdir().unwrap();
    let bin = build(module, work.path(), input_reg);
    let head = format!("GS {module} N={CYCLES} SEED={SEED} SIG=");
    assert_eq!(
        report(&bin, None),
        format!("{head}{signature} EXP={signature} PASS"),
        "{module}, INPUT_REG {input_reg}"
    );
    // `inject_fault` high for one cycle early in the run (reset falls in cycle 4, rows from
    // cycle 6, or 7 with the input register).
    let faulty = report(&bin, Some(22));
    assert!(
        faulty.starts_with(&head) && faulty.ends_with(&format!(" EXP={signature} FAIL")),
        "{module}, INPUT_REG {input_reg}: {faulty}"
    );
    assert!(
        !faulty.contains(&format!("SIG={signature}")),
        "{module}, INPUT_REG {input_reg}: {faulty}"
    );
}

#[test]
fn wrappers_reach_the_golden_signature_and_a_planted_fault_fails() {
    if !have_verilator() {
        return;
    }
    let (dir, _) = generated();
    let summary: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(DIR).join(SUMMARY)).unwrap())
            .unwrap();
    // Every module with its inputs registered (the ECP5 boards; 4-40 s to build each), and
    // a few small ones straight from the ROM (the iCE40 board top's INPUT_REG 0).
    assert_eq!(summary.len(), generated().1.manifest.modules.len());
    let direct = [
        "warp_arbiter_lrr_proto",
        "newcar_base_proto",
        "tb_dispatch_bcs_proto",
    ];
    let named = |e: &&serde_json::Value| direct.contains(&e["module"].as_str().unwrap());
    assert_eq!(summary.iter().filter(named).count(), direct.len());
    let mut builds = vec![];
    for e in &summary {
        let module = e["module"].as_str().unwrap();
        let sig = e["signature"].as_str().unwrap();
        builds.push((module, sig, 1));
        if direct.contains(&module) {
            builds.push((module, sig, 0));
        }
    }
    // The builds on every core, the largest modules first (their Verilog is the largest).
    let size = |m: &str| {
        let g = &generated().1;
        let file = &entry(g, m).file;
        g.files
            .iter()
            .find(|(f, _)| f == file)
            .map_or(0, |(_, v)| v.len())
    };
    builds.sort_by_key(|(m, _, _)| std::cmp::Reverse(size(m)));
    crate::parallel::map(builds, |(module, sig, input_reg)| {
        check_wrapper(module, sig, input_reg)
    });
}
