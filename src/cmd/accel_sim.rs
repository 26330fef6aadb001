//! A local Accel-Sim build run as a peer: one process per run, in a scratch copy of its
//! configuration's directory, timed from spawn to exit with its peak memory, and its printed
//! statistics read into the figures of a reference record ([`figures`]). `bench --reference
//! --accel-sim` and `reference record` run it; nothing here builds it (how to:
//! docs/src/calibrating-against-your-accel-sim-runs.md).

use anyhow::{bail, Context, Result};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// A local Accel-Sim build and the configuration it runs.
pub struct AccelSim {
    /// Its `accel-sim.out`.
    pub bin: PathBuf,
    /// Its `gpgpusim.config`; the files beside it (the interconnect file, a `trace.config`)
    /// are copied with it.
    pub config: PathBuf,
}

/// The configuration's directory copied for the runs (Accel-Sim reads the interconnect file
/// beside it and may write into its working directory).
pub struct Scratch {
    dir: PathBuf,
    /// The configuration file's name in `dir`.
    config: std::ffi::OsString,
    /// `dir` holds a `trace.config`, passed as a second `-config` (as Accel-Sim's own run
    /// scripts pass the one beside each tested configuration).
    trace_config: bool,
}

/// One Accel-Sim process: wall time from spawn to exit (s), peak resident memory (MB) and
/// what it printed.
pub struct Run {
    pub wall_s: f64,
    pub rss_mb: f64,
    pub stdout: Vec<u8>,
}

impl AccelSim {
    /// `bin` resolved to an absolute path (runs happen in another directory).
    pub fn new(bin: &Path, config: &Path) -> Result<Self> {
        let bin =
            std::fs::canonicalize(bin).with_context(|| format!("--accel-sim {}", bin.display()))?;
        Ok(Self {
            bin,
            config: config.to_path_buf(),
        })
    }

    /// Copies the configuration's directory (its files) into `tmp/accel-sim-config`.
    pub fn scratch(&self, tmp: &Path) -> Result<Scratch> {
        let ctx = || format!("Accel-Sim configuration {}", self.config.display());
        let name = self.config.file_name().with_context(ctx)?.to_os_string();
        let from = self.config.parent().filter(|p| !p.as_os_str().is_empty());
        let from = from.unwrap_or(Path::new("."));
        let dir = tmp.join("accel-sim-config");
        std::fs::create_dir(&dir)?;
        for e in std::fs::read_dir(from).with_context(ctx)? {
            let e = e.with_context(ctx)?;
            if e.file_type().with_context(ctx)?.is_file() {
                std::fs::copy(e.path(), dir.join(e.file_name())).with_context(ctx)?;
            }
        }
        if !dir.join(&name).is_file() {
            bail!("{}: no such configuration file", self.config.display());
        }
        let trace_config = name != "trace.config" && dir.join("trace.config").is_file();
        Ok(Scratch {
            dir,
            config: name,
            trace_config,
        })
    }

    /// Runs the trace directory `trace` (absolute) under GPGPU-Sim scheduler string
    /// `scheduler` (`lrr`, `gto`, `two_level_active:6:0:1`, ...).
    pub fn run(&self, s: &Scratch, trace: &Path, scheduler: &str) -> Result<Run> {
        let mut cmd = Command::new(&self.bin);
        cmd.current_dir(&s.dir)
            .arg("-trace")
            .arg(trace.join("kernelslist.g"))
            .arg("-config")
            .arg(&s.config);
        if s.trace_config {
            cmd.args(["-config", "trace.config"]);
        }
        cmd.args(["-gpgpu_scheduler", scheduler]);
        let (wall_s, rss_mb, stdout) = measure(&mut cmd)?;
        Ok(Run {
            wall_s,
            rss_mb,
            stdout,
        })
    }
}

/// Wall time (s), peak resident memory (MB) and standard output of one child process, which
/// must exit with status 0.
pub fn measure(cmd: &mut Command) -> Result<(f64, f64, Vec<u8>)> {
    let start = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {cmd:?}"))?;
    // Standard error on its own thread, so neither pipe can fill while the other is read.
    let mut stderr = child.stderr.take().expect("piped");
    let err_reader = std::thread::spawn(move || {
        let mut err = vec![];
        let _ = stderr.read_to_end(&mut err);
        err
    });
    let mut out = vec![];
    let read = child.stdout.take().expect("piped").read_to_end(&mut out);
    let mut status = 0;
    // SAFETY: `rusage` is plain data that `wait4` fills; the child is ours and not reaped yet
    // (std reaps only in `wait`/`try_wait`, which are not called).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed().as_secs_f64();
    let err = err_reader.join().unwrap_or_default();
    read.with_context(|| format!("reading the output of {cmd:?}"))?;
    if r != pid {
        bail!("wait4 on {cmd:?}: {}", std::io::Error::last_os_error());
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        bail!(
            "{cmd:?} failed (status {status}): {}",
            String::from_utf8_lossy(&err).trim()
        );
    }
    // Linux reports ru_maxrss in KiB.
    Ok((wall, usage.ru_maxrss as f64 / 1024.0, out))
}

/// The statistics a reference record keeps, as Accel-Sim prints them (`name = value`, the
/// last value printed; a name with spaces is kept with underscores).
pub const FIGURES: &[&str] = &[
    "gpu_sim_cycle",
    "gpu_sim_insn",
    "gpu_ipc",
    "gpu_tot_sim_cycle",
    "gpu_tot_sim_insn",
    "L1D_total_cache_accesses",
    "L1D_total_cache_misses",
    "L1D_total_cache_pending_hits",
    "L1D_total_cache_reservation_fails",
    "L1I_total_cache_accesses",
    "L1I_total_cache_misses",
    "L2_total_cache_accesses",
    "L2_total_cache_misses",
    "L2_total_cache_pending_hits",
    "L2_total_cache_reservation_fails",
    "gpgpu_n_tot_w_icount",
    "gpgpu_n_tot_thrd_icount",
    "gpgpu_n_shmem_bkconflict",
    "gpgpu_n_l1cache_bkconflict",
    "gpgpu_n_mem_read_global",
    "gpgpu_n_mem_write_global",
    "gpgpu_n_mem_const",
    "gpgpu_n_load_insn",
    "gpgpu_n_store_insn",
    "gpgpu_n_shmem_insn",
    "total_dram_reads",
    "total_dram_writes",
    "gpu_tot_issued_cta",
];

/// The DRAM channel counters summed over the channels into `dram_<name>_sum` (from each
/// channel's last `n_cmd=... n_rd=...` line).
const DRAM_SUMS: &[&str] = &["n_rd", "n_write", "n_wr_bk", "n_act", "n_req", "n_rd_L2_A"];

/// The cache breakdowns kept, nonzero entries only, as `<access>.<outcome>`: the printed
/// name's prefix and the record's key.
const BREAKDOWNS: &[(&str, &str)] = &[
    ("L2_cache_stats_breakdown", "l2_breakdown_nonzero"),
    ("Total_core_cache_stats_breakdown", "l1_breakdown_nonzero"),
];

/// A reference record's figures from Accel-Sim's output: [`FIGURES`], the DRAM sums, the L1
/// and L2 breakdowns and `completed` (the simulation's end and its cycle count were printed).
/// An output without `gpu_sim_cycle` is an error (Accel-Sim exits with status 0 without
/// simulating a trace whose binary version it does not support).
pub fn figures(out: &[u8]) -> Result<Map<String, Value>> {
    let text = String::from_utf8_lossy(out);
    let mut last: BTreeMap<String, &str> = BTreeMap::new();
    let mut breakdowns: BTreeMap<&str, BTreeMap<String, u64>> = BTreeMap::new();
    let mut channels: BTreeMap<usize, BTreeMap<&str, u64>> = BTreeMap::new();
    let mut channel = 0;
    let mut exited = false;
    for line in text.lines().map(str::trim) {
        exited |= line.contains("exit detected");
        if let Some(id) = line.strip_prefix("DRAM[").and_then(|l| l.split(']').next()) {
            channel = id.parse().unwrap_or(channel);
        } else if line.starts_with("n_cmd=") {
            let c = channels.entry(channel).or_default();
            for (k, v) in line.split_whitespace().filter_map(|t| t.split_once('=')) {
                if let (Some(k), Ok(v)) = (DRAM_SUMS.iter().find(|&&s| s == k), v.parse()) {
                    c.insert(k, v);
                }
            }
        } else if let Some((key, value)) = line.split_once(" = ") {
            let key = key.trim();
            if let Some(&(prefix, to)) = BREAKDOWNS.iter().find(|(p, _)| key.starts_with(p)) {
                let parts: Vec<&str> = key[prefix.len()..]
                    .split(['[', ']'])
                    .filter(|s| !s.is_empty())
                    .collect();
                if let (&[access, outcome], Ok(n)) = (&parts[..], value.trim().parse::<u64>()) {
                    breakdowns
                        .entry(to)
                        .or_default()
                        .insert(format!("{access}.{outcome}"), n);
                }
            } else {
                last.insert(key.replace(' ', "_"), value.trim());
            }
        }
    }
    let mut fig = Map::new();
    for &k in FIGURES {
        if let Some(v) = last.get(k) {
            let n: Value = serde_json::from_str(v)
                .with_context(|| format!("Accel-Sim printed `{k} = {v}`: not a number"))?;
            fig.insert(k.into(), n);
        }
    }
    if !fig.contains_key("gpu_sim_cycle") {
        bail!(
            "Accel-Sim printed no `gpu_sim_cycle = N` line (it exits with status 0 without \
             simulating a trace whose binary version it does not support)"
        );
    }
    for &k in DRAM_SUMS {
        let sum: u64 = channels.values().filter_map(|c| c.get(k)).sum();
        fig.insert(format!("dram_{k}_sum"), sum.into());
    }
    for (key, parts) in breakdowns {
        let nonzero: Map<String, Value> = parts
            .into_iter()
            .filter(|&(_, n)| n > 0)
            .map(|(k, n)| (k, n.into()))
            .collect();
        fig.insert(key.into(), nonzero.into());
    }
    fig.insert("completed".into(), exited.into());
    Ok(fig)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shapes of Accel-Sim's output lines that records keep (abridged from a real run).
    const OUT: &str = "\
GPGPU-Sim uArch: Shader 0 exit detected
gpu_sim_cycle = 10
gpu_sim_insn = 5
gpu_ipc =       0.5000
total dram reads = 7
\tL2_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = 3
\tL2_cache_stats_breakdown[GLOBAL_ACC_R][MISS] = 0
\tTotal_core_cache_stats_breakdown[INST_ACC_R][TOTAL_ACCESS] = 9
DRAM[0]: 16 bks, busW=4 BL=8 CL=12, 
n_cmd=100 n_nop=1 n_act=2 n_pre=0 n_ref_event=0 n_req=4 n_rd=3 n_rd_L2_A=0 n_write=1 n_wr_bk=0 bw_util=0.1
DRAM[1]: 16 bks, busW=4 BL=8 CL=12, 
n_cmd=100 n_nop=1 n_act=5 n_pre=0 n_ref_event=0 n_req=6 n_rd=6 n_rd_L2_A=0 n_write=0 n_wr_bk=2 bw_util=0.1
gpu_sim_cycle = 12
";

    #[test]
    fn figures_are_the_last_printed_with_sums_and_nonzero_breakdowns() {
        let f = figures(OUT.as_bytes()).unwrap();
        assert_eq!(f["gpu_sim_cycle"], 12);
        assert_eq!(f["gpu_ipc"], 0.5);
        assert_eq!(f["total_dram_reads"], 7);
        assert_eq!(f["dram_n_rd_sum"], 9);
        assert_eq!(f["dram_n_act_sum"], 7);
        assert_eq!(f["dram_n_wr_bk_sum"], 2);
        assert_eq!(
            f["l2_breakdown_nonzero"],
            serde_json::json!({"GLOBAL_ACC_R.HIT": 3})
        );
        assert_eq!(
            f["l1_breakdown_nonzero"],
            serde_json::json!({"INST_ACC_R.TOTAL_ACCESS": 9})
        );
        assert_eq!(f["completed"], true);
    }

    #[test]
    fn an_output_without_cycles_is_an_error() {
        let e = figures(b"unsupported binary version: 20\n").unwrap_err();
        assert!(e.to_string().contains("binary version"), "{e}");
    }
}
