//! FPGA self-test wrappers, generated into `rtl-out/fpga/` beside the modules.
//!
//! For every emitted module `<m>` the generator writes:
//! * `<m>.rom.hex`: [`CYCLES`] cycles of the module's inputs, one `$readmemh` row per cycle
//!   (bit layout in [`signature`]), from the block's own constrained-random stimulus run
//!   through its golden model (seed [`SEED`]);
//! * `<m>_selftest.v`: module `<m>_selftest`: the ROM, the module, its outputs registered every
//!   cycle and folded to 32 bits, and its report line; `gs_selftest_ctl` ([`control`]) holds
//!   the module in reset, steps the ROM one row per cycle, absorbs the folds into a 32-bit MISR,
//!   compares the result with the signature the golden model reached, drives `done` and
//!   `pass`, and then reports over a UART ([`uart`]) every `2^REPORT_EVERY_LOG2` cycles:
//!   `GS <m> N=<cycles> SEED=<seed> SIG=<8 hex> EXP=<8 hex> PASS` (or `FAIL`), CR LF.
//!   `inject_fault` flips output bit 0 of the cycle it is high in (the planted fault of the
//!   tests; tie it low on a board);
//! * once: `gs_selftest_ctl.v`, `gs_uart.v`, and `selftest.json`: per module the cycles,
//!   seed, expected signature, input and output widths and active cycles.
//!
//! And the host bridge ([`bridge`], [`bridge_ctl`]): `<m>_bridge.v`, `<m>.regmap.csv` and
//! `<m>.regmap.h` per module, `gs_bridge_ctl.v` once: a UART register bridge through which a
//! host writes the module's inputs, steps it and reads its outputs (`gpusched cosim --target`).
//!
//! [`board`] and [`flow`] put a wrapper on a board (`gpusched fpga`): the board top, Yosys,
//! the fit check, nextpnr and the bitstream, with the report.
//!
//! # Timing of `<m>_selftest`
//! While `rst` is high the module is in reset with its inputs at 0. The cycle after `rst`
//! falls it stays in reset (the ROM's row 0 is read into the block RAM's read register); with
//! the parameter `INPUT_REG` (1, the default) one cycle more, while the row goes into the
//! input register `din_q`: every input of the module then comes from a fabric flip-flop, so a
//! timing report measures the module, not the block RAM's clock-to-out (the ECP5 boards, up
//! to [`board::MAX_REGISTERED_INPUT_BITS`] input bits; on the iCE40 the board top sets 0:
//! [`board::Board::input_reg`]). Then rows
//! `0 .. CYCLES-1` are applied in consecutive cycles, each cycle's outputs registered at its
//! edge and absorbed the cycle after. `done` rises `CYCLES + 2 + INPUT_REG` cycles after `rst`
//! falls, `pass` one cycle later; the module then keeps running with inputs 0, which the
//! signature no longer sees.

pub mod board;
pub mod bridge;
pub mod bridge_ctl;
pub mod control;
pub mod flow;
pub mod signature;
pub mod table;
#[cfg(test)]
mod tests;
pub mod uart;

use crate::manifest::{Manifest, ModuleEntry, PortDecl, PortDir};
use crate::GenError;
use serde::Serialize;
use std::fmt::Write;

/// The subdirectory of `rtl-out/` the wrappers go into.
pub const DIR: &str = "fpga";
/// Cycles of stimulus per self-test (a power of two: the ROM address wraps).
pub const CYCLES: u32 = 256;
/// Stimulus seed of the self-tests.
pub const SEED: u64 = 1;
/// The summary file inside [`DIR`].
pub const SUMMARY: &str = "selftest.json";

/// One module's self-test, as `selftest.json` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SelftestEntry {
    /// The module under test.
    pub module: String,
    /// The wrapper's module name (`<module>_selftest`) and file.
    pub wrapper: String,
    /// Its ROM file.
    pub rom: String,
    /// Cycles of stimulus.
    pub cycles: u32,
    /// Stimulus seed.
    pub seed: u64,
    /// The golden signature, 8 lowercase hex digits.
    pub signature: String,
    /// Input and output bits per cycle (without clock and reset).
    pub in_bits: u32,
    /// Output bits per cycle.
    pub out_bits: u32,
    /// Cycles of the golden run in which the block did something.
    pub active_cycles: u64,
}

/// The files of `rtl-out/fpga/` for `manifest` (names relative to `rtl-out/`).
pub fn generate(manifest: &Manifest) -> Result<Vec<(String, String)>, GenError> {
    let mut files = vec![
        (format!("{DIR}/{}", uart::FILE), uart::TEXT.to_string()),
        (
            format!("{DIR}/{}", control::FILE),
            control::TEXT.to_string(),
        ),
        (
            format!("{DIR}/{}", bridge_ctl::FILE),
            bridge_ctl::TEXT.to_string(),
        ),
    ];
    let mut entries = vec![];
    for m in &manifest.modules {
        let run =
            signature::golden_run(&m.block, &m.policy, &m.preset, CYCLES, SEED).map_err(|e| {
                GenError::Hdl {
                    module: m.module.clone(),
                    reason: format!("self-test golden run: {e}"),
                }
            })?;
        let entry = SelftestEntry {
            module: m.module.clone(),
            wrapper: format!("{}_selftest", m.module),
            rom: format!("{}.rom.hex", m.module),
            cycles: CYCLES,
            seed: SEED,
            signature: format!("{:08x}", run.signature),
            in_bits: run.in_bits,
            out_bits: run.out_bits,
            active_cycles: run.active_cycles,
        };
        files.push((format!("{DIR}/{}", entry.rom), rom_hex(&run)));
        files.push((format!("{DIR}/{}.v", entry.wrapper), wrapper(m, &entry)));
        for (name, text) in bridge::files(m)? {
            files.push((format!("{DIR}/{name}"), text));
        }
        entries.push(entry);
    }
    let json = serde_json::to_string_pretty(&entries).expect("plain data") + "\n";
    files.push((format!("{DIR}/{SUMMARY}"), json));
    Ok(files)
}

/// `$readmemh` text: one row per line, `ceil(in_bits / 4)` hex digits, most significant first.
fn rom_hex(run: &signature::SelftestRun) -> String {
    let digits = run.in_bits.div_ceil(4) as usize;
    let mut s = String::with_capacity(run.rows.len() * (digits + 1));
    for row in &run.rows {
        let mut line = String::with_capacity(row.len() * 8);
        for c in row.iter().rev() {
            write!(line, "{c:08x}").unwrap();
        }
        s.push_str(&line[line.len() - digits..]);
        s.push('\n');
    }
    s
}

/// `[hi:lo]` of a `width`-bit slice at `off`.
fn range(off: u32, width: u32) -> String {
    format!("[{}:{}]", off + width - 1, off)
}

/// The report line as the wrapper's template: its bytes, with [`control::SIG_DIGIT`] and
/// [`control::VERDICT`] codes where the hardware fills in the signature and the verdict.
fn report_template(m: &ModuleEntry, e: &SelftestEntry) -> Vec<u8> {
    let mut v = format!("GS {} N={} SEED={} SIG=", m.module, e.cycles, e.seed).into_bytes();
    v.extend((0..8).map(|k| control::SIG_DIGIT + k));
    v.extend(format!(" EXP={} ", e.signature).bytes());
    v.extend((0..4).map(|k| control::VERDICT + k));
    v.extend(b"\r\n");
    v
}

/// The Verilog of `<m>_selftest`: the ROM, the module, its registered outputs folded to 32
/// bits, the report template, and [`control`]'s `gs_selftest_ctl`.
fn wrapper(m: &ModuleEntry, e: &SelftestEntry) -> String {
    let data = |dir| {
        m.ports
            .iter()
            .filter(move |p: &&PortDecl| p.dir == dir && p.name != "clock" && p.name != "reset")
    };
    let (wi, wo) = (e.in_bits, e.out_bits);
    let chunks = wo.div_ceil(32);
    let abits = CYCLES.trailing_zeros();
    let line = report_template(m, e);
    assert!(line.len() <= 256, "{}: report line too long", m.module);
    let mut v = String::new();
    let w = &mut v;
    writeln!(
        w,
        "// {}: FPGA self-test of `{}` (block `{}`, policy `{}`, preset `{}`).\n\
         // Generated by gpusched-gen from the golden model; do not edit: run `gpusched gen`.\n\
         // Plays {} cycles of the block's constrained-random stimulus (seed {}, ROM_FILE) into the\n\
         // module and checks its outputs against the golden signature {}; sequencing, signature\n\
         // and UART report in gs_selftest_ctl.v. `inject_fault` flips output bit 0 while high.\n\
         module {} #(\n    parameter ROM_FILE = \"{}\",\n    parameter [15:0] CLKS_PER_BIT = 16'd104,\n    parameter integer REPORT_EVERY_LOG2 = 24,\n    parameter integer INPUT_REG = 1\n) (\n    input  wire        clk,\n    input  wire        rst,\n    input  wire        inject_fault,\n    output wire        done,\n    output wire        pass,\n    output wire [31:0] signature,\n    output wire        uart_tx\n);",
        e.wrapper, m.module, m.block, m.policy, m.preset, e.cycles, e.seed, e.signature,
        e.wrapper, e.rom
    )
    .unwrap();
    writeln!(
        w,
        "    reg  [{hi}:0] rom [0:{last}];\n    initial $readmemh(ROM_FILE, rom);\n    reg  [{hi}:0] row;\n    wire [{a}:0] addr;\n    wire        run;\n    wire        dut_reset;\n    always @(posedge clk) row <= rom[addr];\n    // The module's inputs: with INPUT_REG registered once more after the ROM (its input\n    // paths then start at a fabric flip-flop), else straight from the ROM's read register.\n    reg  [{hi}:0] din_q;\n    always @(posedge clk) din_q <= run ? row : {wi}'d0;\n    wire [{hi}:0] din = INPUT_REG != 0 ? din_q : run ? row : {wi}'d0;",
        a = abits - 1,
        hi = wi - 1,
        last = CYCLES - 1,
    )
    .unwrap();
    for p in data(PortDir::Output) {
        writeln!(w, "    wire [{}:0] o_{};", p.width - 1, p.name).unwrap();
    }
    let mut conns = vec![".clock(clk)".to_string(), ".reset(dut_reset)".to_string()];
    let mut off = 0;
    for p in data(PortDir::Input) {
        conns.push(format!(".{}(din{})", p.name, range(off, p.width)));
        off += p.width;
    }
    for p in data(PortDir::Output) {
        conns.push(format!(".{n}(o_{n})", n = p.name));
    }
    writeln!(
        w,
        "    {} dut (\n        {}\n    );",
        m.module,
        conns.join(",\n        ")
    )
    .unwrap();
    let outs: Vec<String> = data(PortDir::Output)
        .map(|p| format!("o_{}", p.name))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let fault = if wo > 1 {
        format!("{{{}'d0, inject_fault}}", wo - 1)
    } else {
        "inject_fault".into()
    };
    writeln!(
        w,
        "    // The outputs, registered (they are combinational), ports end to end from bit 0.\n    reg  [{}:0] out_q;\n    always @(posedge clk) out_q <= {{{}}} ^ {fault};",
        wo - 1,
        outs.join(", ")
    )
    .unwrap();
    let pad = chunks * 32 - wo;
    if pad > 0 {
        writeln!(
            w,
            "    wire [{}:0] padded = {{{pad}'d0, out_q}};",
            chunks * 32 - 1
        )
        .unwrap();
    } else {
        writeln!(w, "    wire [{}:0] padded = out_q;", chunks * 32 - 1).unwrap();
    }
    let terms: Vec<String> = (0..chunks)
        .map(|j| {
            let (lo, r) = (32 * j, j % 32);
            match r {
                0 => format!("padded[{}:{lo}]", lo + 31),
                _ => format!(
                    "{{padded[{}:{lo}], padded[{}:{}]}}",
                    lo + 31 - r,
                    lo + 31,
                    lo + 32 - r
                ),
            }
        })
        .collect();
    writeln!(
        w,
        "    // Chunk j of the registered outputs, rotated left by j % 32.\n    wire [31:0] fold =\n        {};",
        terms.join("\n      ^ ")
    )
    .unwrap();
    writeln!(
        w,
        "    // The report line; codes 01-08 and 10-13 are filled in by gs_selftest_ctl.\n    wire [7:0] report_index;\n    reg  [7:0] template;\n    always @(*) begin\n        case (report_index)"
    )
    .unwrap();
    for (i, b) in line.iter().enumerate() {
        let shown = match *b {
            0x21..=0x7e => format!(" // {}", *b as char),
            _ => String::new(),
        };
        writeln!(w, "            8'd{i}: template = 8'h{b:02x};{shown}").unwrap();
    }
    writeln!(
        w,
        "            default: template = 8'h20;\n        endcase\n    end\n    gs_selftest_ctl #(\n        .ADDR_BITS({abits}),\n        .EXPECTED(32'h{}),\n        .LINE_LAST(8'd{}),\n        .CLKS_PER_BIT(CLKS_PER_BIT),\n        .REPORT_EVERY_LOG2(REPORT_EVERY_LOG2),\n        .INPUT_REG(INPUT_REG)\n    ) ctl (\n        .clk(clk),\n        .rst(rst),\n        .fold(fold),\n        .template(template),\n        .addr(addr),\n        .run(run),\n        .dut_reset(dut_reset),\n        .done(done),\n        .pass(pass),\n        .signature(signature),\n        .report_index(report_index),\n        .uart_tx(uart_tx)\n    );\nendmodule",
        e.signature,
        line.len() - 1
    )
    .unwrap();
    v
}
