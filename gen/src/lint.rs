//! The Verilog gates: `verilator --lint-only -Wall` (only `DECLFILENAME` waived: rust-hdl puts
//! a module's register submodules in the same file) and Yosys `synth` with no latches and no
//! undriven or multiply driven wires (`check -assert`).

use std::path::Path;
use std::process::Command;
use thiserror::Error;

/// Why a gate did not pass.
#[derive(Debug, Error)]
pub enum GateError {
    /// The tool is not installed.
    #[error("`{tool}` not found on PATH; install it with `apt-get install -y {package}`")]
    ToolMissing {
        tool: &'static str,
        package: &'static str,
    },
    /// The tool ran and reported problems.
    #[error("{tool} rejects {module}:\n{log}")]
    Failed {
        tool: &'static str,
        module: String,
        log: String,
    },
    /// The tool could not be started for another reason.
    #[error("cannot run {tool}: {source}")]
    Spawn {
        tool: &'static str,
        source: std::io::Error,
    },
}

/// Whether `tool` can be started (it is on `PATH`).
pub fn tool_available(tool: &str) -> bool {
    Command::new(tool).arg("-V").output().is_ok()
}

fn run(tool: &'static str, package: &'static str, cmd: &mut Command) -> Result<String, GateError> {
    let out = cmd.output().map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => GateError::ToolMissing { tool, package },
        _ => GateError::Spawn { tool, source },
    })?;
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        Ok(log)
    } else {
        Err(GateError::Failed {
            tool,
            module: String::new(),
            log,
        })
    }
}

fn with_module(e: GateError, module: &str) -> GateError {
    match e {
        GateError::Failed { tool, log, .. } => GateError::Failed {
            tool,
            module: module.into(),
            log,
        },
        other => other,
    }
}

/// `verilator --lint-only -Wall -Wno-DECLFILENAME` on `file` with top `module`. Any warning
/// fails the gate.
pub fn verilator_lint(file: &Path, module: &str) -> Result<(), GateError> {
    verilator_lint_files(&[file], module)
}

/// [`verilator_lint`] on top `module` spread over `files` (a wrapper and what it
/// instantiates).
pub fn verilator_lint_files(files: &[&Path], module: &str) -> Result<(), GateError> {
    let log = run(
        "verilator",
        "verilator",
        Command::new("verilator")
            .args([
                "--lint-only",
                "-Wall",
                "-Wno-DECLFILENAME",
                "--top-module",
                module,
            ])
            .args(files),
    )
    .map_err(|e| with_module(e, module))?;
    if log.contains("%Warning") || log.contains("%Error") {
        return Err(GateError::Failed {
            tool: "verilator",
            module: module.into(),
            log,
        });
    }
    Ok(())
}

/// Result of a clean Yosys synthesis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SynthSummary {
    /// Total cells after `synth` (generic gate library), whole hierarchy.
    pub cells: u64,
}

/// Runs `yosys -q -p script` on `module`'s file; its output (the `tee` of the script).
fn yosys(script: &str, module: &str) -> Result<String, GateError> {
    run(
        "yosys",
        "yosys",
        Command::new("yosys").args(["-q", "-p", script]),
    )
    .map_err(|e| with_module(e, module))
}

/// Yosys `synth -top module -flatten`, then `check -assert` (no undriven, multiply driven or
/// combinational-loop wires) and an assertion that no latch cell exists.
pub fn yosys_synth(file: &Path, module: &str) -> Result<SynthSummary, GateError> {
    let script = format!(
        "read_verilog {file}; synth -flatten -top {module}; check -assert; \
         select -assert-none t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH_* t:$_DLATCHSR_*; \
         tee -o /dev/stdout stat",
        file = file.display()
    );
    let log = yosys(&script, module)?;
    if log.contains("Warning") || log.contains("ERROR") {
        return Err(GateError::Failed {
            tool: "yosys",
            module: module.into(),
            log,
        });
    }
    let cells = log
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Number of cells:"))
        .filter_map(|n| n.trim().parse::<u64>().ok())
        .next_back()
        .unwrap_or(0);
    Ok(SynthSummary { cells })
}

/// FPGA figures of one module from Yosys `synth_xilinx` (7-series cells).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct XilinxFigures {
    /// LUT1..LUT6 cells.
    pub luts: u64,
    /// Flip-flops (FD* cells).
    pub ffs: u64,
    /// CARRY4 cells.
    pub carry: u64,
    /// MUXF7/MUXF8 cells.
    pub muxf: u64,
    /// Capacity of the RAM cells, bits: block RAM (RAMB18E1 18,432, RAMB36E1 36,864) and LUT
    /// RAM (64 bits per LUT it takes: RAM64X1D 128, RAM32M 256, ...); see [`ram_cell_bits`].
    pub ram_bits: u64,
    /// Cells on the longest combinational path between flip-flops and ports (`ltp` once the
    /// flip-flops and I/O buffers are removed: LUTs, MUXFs, CARRY4s, INVs).
    pub depth: u64,
    /// The named signals on that path, in order (bit indices dropped, repeats merged): where
    /// it starts, which sub-blocks and locals it crosses, where it ends.
    pub path: Vec<String>,
}

/// Yosys `synth_xilinx -flatten -top module`, then `stat`; then the flip-flops (`FD*`) and the
/// I/O and clock buffers are deleted and `ltp` measures the longest path of what is left.
///
/// `ltp -noff` alone does not do this on a `synth_xilinx` netlist: it only knows Yosys's own
/// flip-flop cells, so it walks through `FDRE`s into the next cycle's logic and reports
/// "Detected loop" at every register fed back to itself. RAM cells are cut the same way (a
/// LUT RAM's asynchronous read is then not on a path). A loop left after the deletion is a
/// real combinational loop, and an error.
pub fn synth_xilinx(file: &Path, module: &str) -> Result<XilinxFigures, GateError> {
    let script = format!(
        "read_verilog {file}; synth_xilinx -flatten -top {module}; check -assert; \
         select -assert-none t:LD* t:$dlatch t:$_DLATCH_*; \
         tee -o /dev/stdout stat; delete t:FD* t:RAM* t:IBUF t:OBUF t:BUFG; \
         tee -o /dev/stdout ltp",
        file = file.display()
    );
    let log = yosys(&script, module)?;
    if log.contains("Detected loop") {
        return Err(GateError::Failed {
            tool: "yosys",
            module: module.into(),
            log: format!("combinational loop (ltp):\n{log}"),
        });
    }
    Ok(parse_xilinx(&log))
}

/// Logic depth in 6-input LUTs: Yosys `synth -flatten`, `abc -fast -lut 6` (a generic LUT6 mapping,
/// carry chains included as LUTs), then `ltp -noff`: LUT levels on the longest combinational
/// path between flip-flops and ports.
pub fn lut6_depth(file: &Path, module: &str) -> Result<u64, GateError> {
    let script = format!(
        "read_verilog {file}; synth -flatten -top {module}; abc -fast -lut 6; opt_clean; \
         tee -o /dev/stdout ltp -noff",
        file = file.display()
    );
    Ok(parse_xilinx(&yosys(&script, module)?).depth)
}

/// Capacity in bits of a 7-series RAM cell `synth_xilinx` maps memories to: block RAM, or LUT
/// RAM at 64 bits per LUT6 it occupies (`None`: not a RAM cell).
pub fn ram_cell_bits(cell: &str) -> Option<u64> {
    Some(match cell {
        "RAMB18E1" => 18 * 1024,
        "RAMB36E1" => 36 * 1024,
        "RAM32X1S" | "RAM64X1S" => 64,
        "RAM32X1D" | "RAM64X1D" | "RAM128X1S" => 128,
        "RAM128X1D" | "RAM256X1S" | "RAM32M" | "RAM64M" => 256,
        "RAM32M16" | "RAM64M8" => 512,
        _ => return None,
    })
}

/// The figures in a `stat` + `ltp` log.
pub fn parse_xilinx(log: &str) -> XilinxFigures {
    let mut f = XilinxFigures::default();
    for line in log.lines() {
        let mut it = line.split_whitespace();
        if let (Some(cell), Some(n), None) = (it.next(), it.next(), it.next()) {
            let Ok(n) = n.parse::<u64>() else { continue };
            if cell.starts_with("LUT") {
                f.luts += n;
            } else if cell.starts_with("FD") {
                f.ffs += n;
            } else if cell.starts_with("CARRY") {
                f.carry += n;
            } else if cell.starts_with("MUXF") {
                f.muxf += n;
            } else if let Some(bits) = ram_cell_bits(cell) {
                f.ram_bits += n * bits;
            }
        }
        if let Some(rest) = line.split("(length=").nth(1) {
            f.depth = rest.trim_end_matches("):").parse().unwrap_or(f.depth);
            f.path.clear();
        }
        // A path node: "    12: \\name [3] (via ...)"; a process output reads `$1\\name[4:0]`;
        // Yosys's own names start with `$`.
        if let Some((n, rest)) = line.trim_start().split_once(": ") {
            let named = rest.strip_prefix('\\').or(rest.strip_prefix("$1\\"));
            if let (true, Some(rest)) = (
                !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()),
                named,
            ) {
                let name = rest.split([' ', '[']).next().unwrap_or_default();
                if !name.is_empty() && f.path.last().map(String::as_str) != Some(name) {
                    f.path.push(name.to_string());
                }
            }
        }
    }
    f
}

#[cfg(test)]
mod tests {
    #[test]
    fn xilinx_figures_parse_from_stat_and_ltp() {
        let log = "   Number of cells:   558\n     FDRE   107\n     LUT2   47\n     LUT6   148\n\
                   CARRY4  3\n   MUXF7  9\n   MUXF8  1\n   RAMB18E1  2\n   RAM64X1D  3\nLongest topological path in m (length=17):\n\
                   \x20   0: \\act_1.q [2]\n    1: $abc$1.A [3] (via $abc$2)\n    7: \\kept_before_2 [1] (via $abc)\n\
                   \x20   8: \\kept_before_2 [2] (via $abc)\n   62: $1\\act_1__d[4:0] [4] (via $abc$3)\n";
        assert_eq!(
            parse_xilinx(log),
            XilinxFigures {
                luts: 195,
                ffs: 107,
                carry: 3,
                muxf: 10,
                ram_bits: 2 * 18432 + 3 * 128,
                depth: 17,
                path: vec!["act_1.q".into(), "kept_before_2".into(), "act_1__d".into()],
            }
        );
    }

    use super::*;

    #[track_caller]
    fn have(tool: &str) -> bool {
        let missing = format!("{tool} not installed (apt-get install -y {tool})");
        gpusim::testing::available("rtl", tool_available(tool), &missing)
    }

    /// A 1,024 x 16 memory with a registered read becomes one RAMB18E1 (18 kbit), a 32 x 8 one
    /// with an asynchronous read two RAM32Ms of LUT RAM: the report's RAM bits count what
    /// Yosys mapped.
    #[test]
    fn synth_xilinx_counts_block_ram_and_lut_ram_bits() {
        if !have("yosys") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mems.v");
        std::fs::write(
            &file,
            "module mems(input clock, input we, input [9:0] wa, input [9:0] ra, \
             input [15:0] d, output reg [15:0] q, input [4:0] la, output [7:0] lq);\n\
             reg [15:0] big [0:1023]; reg [7:0] small [0:31];\n\
             always @(posedge clock) begin if (we) begin big[wa] <= d; small[wa[4:0]] <= d[7:0]; end \
             q <= big[ra]; end\n\
             assign lq = small[la];\nendmodule\n",
        )
        .unwrap();
        let f = synth_xilinx(&file, "mems").unwrap();
        assert_eq!(f.ram_bits, 18432 + 2 * 256, "{f:?}");
    }

    #[test]
    fn gates_reject_a_latch_and_a_lint_warning() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("bad.v");
        // `q` holds its value when `en` is low: a latch; `unused` is never read: lint warning.
        std::fs::write(
            &f,
            "module bad(input wire en, input wire d, input wire unused, output reg q);\n\
             always @(*) begin if (en) q = d; end\nendmodule\n",
        )
        .unwrap();
        if have("verilator") {
            assert!(matches!(
                verilator_lint(&f, "bad"),
                Err(GateError::Failed { .. })
            ));
        }
        if have("yosys") {
            assert!(matches!(
                yosys_synth(&f, "bad"),
                Err(GateError::Failed { .. })
            ));
        }
    }

    #[test]
    fn the_7_series_depth_stops_at_flip_flops() {
        if !have("yosys") {
            return;
        }
        // A 32-bit counter: its adder (8 CARRY4s) feeds its own register. Measured through
        // the FDREs (the old `ltp -noff`), the path is a loop and the length meaningless.
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("count.v");
        std::fs::write(
            &f,
            "module count(input wire clock, input wire [31:0] step, output reg [31:0] q);\n\
             always @(posedge clock) q <= q + step;\nendmodule\n",
        )
        .unwrap();
        let x = synth_xilinx(&f, "count").unwrap();
        assert_eq!((x.ffs, x.carry), (32, 8), "{x:?}");
        assert!((8..=12).contains(&x.depth), "{x:?}");
        // A real combinational loop is an error.
        std::fs::write(
            &f,
            "module count(input wire a, output wire y);\n\
             wire w; assign w = ~(a & w); assign y = w;\nendmodule\n",
        )
        .unwrap();
        assert!(synth_xilinx(&f, "count").is_err());
    }

    #[test]
    fn missing_tool_names_the_package() {
        let e = run(
            "no-such-tool-xyz",
            "no-such-package",
            &mut Command::new("no-such-tool-xyz"),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("apt-get install -y no-such-package"),
            "{e}"
        );
    }

    /// Every primitive of `gpusched_hdl::prim` and every unit of `gpusched_hdl::locality`, at
    /// the sizes of their samples, passes both gates in the form `gen` writes (after
    /// [`crate::readable`]); the units also meet the depth bound.
    #[test]
    fn every_primitive_is_lint_and_synth_clean() {
        if !have("verilator") || !have("yosys") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let units = gpusched_hdl::locality::samples();
        let nunits = units.len();
        for (name, v) in gpusched_hdl::prim::samples().into_iter().chain(units) {
            let v = crate::readable::readable(&v.unwrap(), &name).unwrap();
            let f = dir.path().join(format!("{name}.v"));
            std::fs::write(&f, v).unwrap();
            verilator_lint(&f, &name).unwrap_or_else(|e| panic!("{e}"));
            let s = yosys_synth(&f, &name).unwrap_or_else(|e| panic!("{e}"));
            // Strided lanes are a bit permutation: wiring, no cell; the others compute.
            let wiring = name.starts_with("prim_deal") || name.starts_with("prim_gather");
            assert_eq!(s.cells == 0, wiring, "{name}: {} cells", s.cells);
        }
        for (name, _) in gpusched_hdl::locality::samples().iter().take(nunits) {
            let f = dir.path().join(format!("{name}.v"));
            let x = synth_xilinx(&f, name).unwrap_or_else(|e| panic!("{e}"));
            assert!(x.depth <= 30, "{name}: 7-series depth {}", x.depth);
        }
        // The RAM is block RAM, its read register inside it: no flip-flop, no LUT RAM.
        let name = "prim_ram_256x285";
        let x = synth_xilinx(&dir.path().join(format!("{name}.v")), name)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            x.ram_bits >= 256 * 285 && x.ffs == 0,
            "{name}: {} RAM bits, {} flip-flops",
            x.ram_bits,
            x.ffs
        );
        // And the boards' block RAMs: the ULX3S's ECP5 and the iCEBreaker's iCE40.
        let f = dir.path().join(format!("{name}.v"));
        for (synth, cell) in [("synth_ecp5", "DP16KD"), ("synth_ice40", "SB_RAM40_4K")] {
            let script = format!(
                "read_verilog {}; {synth} -top {name}; tee -o /dev/stdout stat",
                f.display()
            );
            let log = yosys(&script, name).unwrap_or_else(|e| panic!("{e}"));
            assert!(log.contains(cell), "{name}: no {cell} from {synth}:\n{log}");
        }
    }

    /// Every module in the generator's output passes both gates. Yosys runs on the modules
    /// whose Verilog has no row in the committed `REPORT.md`: a row with the same hash was
    /// made by `gen` synthesizing that very text with the same structural checks (the `fermi`
    /// locality modules take minutes each), and `gen`'s own test fails when the report is
    /// stale.
    #[test]
    fn every_emitted_module_is_lint_and_synth_clean() {
        if !have("verilator") || !have("yosys") {
            return;
        }
        let g = crate::testing::generated();
        let dir = tempfile::tempdir().unwrap();
        crate::write_all(g, dir.path()).unwrap();
        let rows =
            crate::report::rows_at(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../rtl-out"));
        let mut reported = vec![];
        for m in &g.manifest.modules {
            let f = dir.path().join(&m.file);
            verilator_lint(&f, &m.module).unwrap_or_else(|e| panic!("{e}"));
            let hash = crate::report::short_hash(&std::fs::read_to_string(&f).unwrap());
            if crate::report::row_for(&rows, &m.module, &hash).is_some() {
                reported.push(m.module.as_str());
                continue;
            }
            let s = yosys_synth(&f, &m.module).unwrap_or_else(|e| panic!("{e}"));
            assert!(s.cells > 0, "{}: no cells", m.module);
        }
        eprintln!(
            "yosys: {} of {} modules synthesized here; the others by `gen` for REPORT.md \
             (same Verilog): {}",
            g.manifest.modules.len() - reported.len(),
            g.manifest.modules.len(),
            reported.join(", ")
        );
    }
}
