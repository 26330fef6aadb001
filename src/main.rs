//! `gpusched`: command-line front end. Parses arguments and dispatches to `cmd::*`.

mod cmd;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// GPU scheduler hardware from published research: Verilog generation, lint and synthesis
/// gates, and Verilator co-simulation against the golden model.
#[derive(Parser)]
#[command(name = "gpusched", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Emit the Verilog of every block x policy x preset into rtl-out/ with manifest.json, and
    /// each module's FPGA self-test wrapper into rtl-out/fpga/.
    Gen(cmd::gen::GenArgs),
    /// A module's FPGA self-test wrapper through synthesis, place and route and bitstream for a
    /// board (iCEBreaker, ULX3S; Arty: Yosys figures), with utilization, Fmax, critical path.
    Fpga(cmd::fpga::FpgaArgs),
    /// Verilator lint (-Wall) and Yosys synthesis of every module in rtl-out/.
    Lint(cmd::lint::LintArgs),
    /// Lockstep co-simulation of one block's Verilated RTL against its golden model.
    Cosim(cmd::cosim::CosimArgs),
    /// The main job: check rtl-out/, lint it, and run the lockstep regression of every block,
    /// policy and preset; ends with a pass/fail table.
    Regress(cmd::regress::RegressArgs),
    /// Reproduce a paper's experiment on the golden GPU model (`elf`, `locality`, `chimera`,
    /// `maestro`, `paver`, `bypass`, `paws`: see the list below); Markdown, JSON and SVG with
    /// the paper's figures beside ours.
    Repro(cmd::repro::ReproArgs),
    /// List the blocks, policies and presets.
    Blocks(cmd::blocks::BlocksArgs),
    /// List the scheduling policies at each site of the GPU, their blocks and options.
    Policies(cmd::policies::PoliciesArgs),
    /// GPU configurations of the golden model: list the presets, show one.
    Config(cmd::config::ConfigArgs),
    /// Accel-Sim traces: summarize one, or export a workload as one.
    Trace(cmd::trace::TraceArgs),
    /// PAVER's JIT analysis: a kernel's locality graph (statistics beside the paper's Table 2;
    /// dot, METIS or JSON), and the thread-block groups MST-TS, kway-TS or RB-TS make of it.
    Paver(cmd::paver::PaverArgs),
    /// Run a workload (Accel-Sim trace or built-in kernel) on the golden GPU model under the
    /// chosen policies, optionally with Verilated blocks in the loop; prints statistics.
    Sim(Box<cmd::sim::SimArgs>),
    /// Experiment sweeps (workloads x configs x policies) that resume, cache their points,
    /// and shard across machines.
    Sweep(cmd::sweep::SweepArgs),
    /// Speed of the golden GPU model on a fixed workload set (gtx480): thread instructions/s,
    /// cycles/s, peak memory.
    Bench(cmd::bench::BenchArgs),
    /// Our cycles and counters beside a reference simulator's (an Accel-Sim reference set),
    /// run by run, with the error summary and the schedulers' rankings.
    Calibrate(cmd::calibrate::CalibrateArgs),
    /// Make a reference set for `calibrate` with a local Accel-Sim build: the suite's traces
    /// under LRR, GTO and two-level, its statistics kept with each trace's SHA-256.
    Reference(cmd::reference::ReferenceArgs),
    /// The built-in kernels and the workload suite (what each mirrors, its pattern, sizes).
    Workloads(cmd::workloads::WorkloadsArgs),
    /// Write the command-line reference (docs/src/cli.md, man pages in docs/man/) from this
    /// binary's own help; `--check` fails when the committed files are stale.
    Docs(cmd::docs::DocsArgs),
}

fn main() -> ExitCode {
    // Under `--json` an error is also a JSON object on standard output (a script reading the
    // output gets an answer it can parse).
    let json = std::env::args_os().skip(1).any(|a| a == "--json");
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if json && e.use_stderr() {
                json_error(e.render().to_string().trim(), e.exit_code());
            }
            e.exit()
        }
    };
    let result = match cli.command {
        Command::Gen(a) => cmd::gen::run(a),
        Command::Fpga(a) => cmd::fpga::run(a),
        Command::Lint(a) => cmd::lint::run(a),
        Command::Cosim(a) => cmd::cosim::run(a),
        Command::Regress(a) => cmd::regress::run(a),
        Command::Repro(a) => cmd::repro::run(a),
        Command::Blocks(a) => cmd::blocks::run(a),
        Command::Policies(a) => cmd::policies::run(a),
        Command::Config(a) => cmd::config::run(a),
        Command::Trace(a) => cmd::trace::run(a),
        Command::Paver(a) => cmd::paver::run(a),
        Command::Sim(a) => cmd::sim::run(*a),
        Command::Sweep(a) => cmd::sweep::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Calibrate(a) => cmd::calibrate::run(a),
        Command::Reference(a) => cmd::reference::run(a),
        Command::Workloads(a) => cmd::workloads::run(a),
        Command::Docs(a) => cmd::docs::run(a, Cli::command()),
    };
    // What is still buffered for standard output must reach it, or be an error.
    let result = result.and_then(|code| {
        use std::io::Write;
        std::io::stdout().flush().map_err(cmd::StdoutError)?;
        Ok(code)
    });
    match result {
        Ok(code) => code,
        // The reader of a pipe went away (`gpusched ... | head`): stop quietly, as Unix
        // tools do.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let text = error_text(&e);
            eprintln!("error: {text}");
            if json {
                json_error(&text, 2);
            }
            ExitCode::from(2)
        }
    }
}

/// Prints `{"error": text, "exit_code": code}` on standard output, if it can be written.
fn json_error(text: &str, code: i32) {
    let text = text.strip_prefix("error: ").unwrap_or(text);
    let v = serde_json::json!({ "error": text, "exit_code": code });
    // Standard output may be what failed (a full disk): the text on stderr is the answer then.
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{v}").and_then(|()| out.flush());
}

/// Whether `e` comes from writing to standard output when its reader has closed the pipe
/// (not any other broken pipe, such as an output file that is a FIFO).
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<cmd::StdoutError>()
            .is_some_and(|s| s.0.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// An error and its causes, joined with `: `, leaving out a cause whose text the message
/// already holds (an error that prints its source, as `path: os error` does, would otherwise
/// print it twice).
fn error_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !text.contains(&c) {
            text.push_str(": ");
            text.push_str(&c);
        }
    }
    text
}
