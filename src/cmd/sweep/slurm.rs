//! `gpusched sweep slurm`: a sweep as a Slurm job array. Each array task runs one shard of the
//! points (`gpusched sweep run SPEC --out DIR --shard $SLURM_ARRAY_TASK_ID/N`) into the shared
//! output directory; results are keyed by content, so a re-submitted array runs only the points
//! that are missing (a cancelled or failed task's), and `sweep status`/`sweep collect` read the
//! directory whatever ran it.

use super::spec::Spec;
use super::store::Manifest;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Arguments of `gpusched sweep slurm`.
#[derive(Args)]
pub struct SlurmArgs {
    /// The sweep spec (TOML).
    spec: PathBuf,
    /// Output directory, shared by every node (default: sweep-<name>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Array tasks (shards of the points; default: one per point, at most 1000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    shards: Option<u32>,
    /// Array tasks running at once (`--array=...%K`).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    max_parallel: Option<u32>,
    /// CPUs per task (its `sweep run -j`).
    #[arg(long, value_name = "J", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    cpus: u32,
    /// Slurm partition.
    #[arg(long, value_name = "P")]
    partition: Option<String>,
    /// Time limit per task (Slurm's format, e.g. 1:00:00).
    #[arg(long, value_name = "T")]
    time: Option<String>,
    /// Memory per task (Slurm's format, e.g. 4G).
    #[arg(long, value_name = "M")]
    mem: Option<String>,
    /// Submit the script with sbatch and print the job id.
    #[arg(long)]
    submit: bool,
    /// Write into a directory that holds another spec's results.
    #[arg(long)]
    force: bool,
}

/// `path` made absolute (against the current directory).
fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("{}", path.display()))
}

/// Quotes `s` for a POSIX shell.
fn sh(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A Slurm option value must not break the `#SBATCH` line.
fn check_value(name: &str, v: &str) -> Result<()> {
    if v.is_empty() || v.chars().any(|c| c.is_whitespace() || c == '#') {
        bail!("--{name} `{v}`: expected one word without spaces or `#`");
    }
    Ok(())
}

/// The job-array script of `spec` writing into `out`.
pub fn script(spec_path: &Path, spec: &Spec, out: &Path, a: &SlurmArgs) -> Result<String> {
    let exe = std::env::current_exe().context("locating the gpusched executable")?;
    // `#SBATCH --output=` takes the path as it is (no shell quoting): plain characters only.
    let shown = out.display().to_string();
    if shown
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || "%#'\"\\".contains(c))
    {
        bail!(
            "--out {}: a Slurm output directory must not hold spaces, `%`, `#`, quotes or control characters",
            shown.escape_debug()
        );
    }
    let n = a
        .shards
        .unwrap_or(spec.points.len().clamp(1, 1000) as u32)
        .min(spec.points.len().max(1) as u32);
    let mut t = String::from("#!/bin/bash\n");
    t += &format!(
        "#SBATCH --job-name=gpusched-{}\n",
        spec.name // one plain word: the spec checks it
    );
    t += &format!(
        "#SBATCH --array=0-{}{}\n",
        n - 1,
        a.max_parallel.map_or(String::new(), |k| format!("%{k}"))
    );
    t += &format!("#SBATCH --output={}/slurm/task-%a.out\n", out.display());
    t += &format!("#SBATCH --cpus-per-task={}\n", a.cpus);
    for (name, v) in [
        ("partition", &a.partition),
        ("time", &a.time),
        ("mem", &a.mem),
    ] {
        if let Some(v) = v {
            check_value(name, v)?;
            t += &format!("#SBATCH --{name}={v}\n");
        }
    }
    t += &format!(
        "# {} points in {n} shards; each task runs its shard into the shared directory\n\
         # (gpusched sweep status/collect reads it). Do not edit the spec while the array runs:\n\
         # the tasks would refuse a directory holding another spec's results.\n",
        spec.points.len()
    );
    t += "set -euo pipefail\n";
    t += &format!(
        "exec {} sweep run {} --out {} --shard \"${{SLURM_ARRAY_TASK_ID}}/{n}\" -j {}\n",
        sh(&exe.display().to_string()),
        sh(&spec_path.display().to_string()),
        sh(&out.display().to_string()),
        a.cpus
    );
    Ok(t)
}

/// Runs `sweep slurm`.
pub fn run(a: SlurmArgs) -> Result<ExitCode> {
    let spec_path = absolute(&a.spec)?;
    let spec = Spec::load(&spec_path)?;
    let out = absolute(
        &a.out
            .clone()
            .unwrap_or_else(|| PathBuf::from(format!("sweep-{}", spec.name))),
    )?;
    // The manifest first: status and collect work before any task has run.
    let keys = super::keys(&spec)?;
    Manifest::new(&spec, keys).write(&out, a.force)?;
    let dir = out.join("slurm");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let text = script(&spec_path, &spec, &out, &a)?;
    let path = dir.join("sweep.sbatch");
    std::fs::write(&path, &text).with_context(|| format!("writing {}", path.display()))?;
    if !a.submit {
        outln!(
            "wrote {}; submit it with: sbatch {}",
            path.display(),
            path.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let o = Command::new("sbatch")
        .arg("--parsable")
        .arg(&path)
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                anyhow::anyhow!(
                    "sbatch not found: install Slurm's client (Debian: slurm-client) or submit {} from a login node",
                    path.display()
                )
            } else {
                anyhow::anyhow!("running sbatch: {e}")
            }
        })?;
    if !o.status.success() {
        bail!(
            "sbatch {} failed ({}): {}",
            path.display(),
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        );
    }
    let id = String::from_utf8_lossy(&o.stdout).trim().to_string();
    outln!("{id}");
    eprintln!(
        "submitted job {id} ({}); follow it with squeue -j {id}, then gpusched sweep status {}",
        path.display(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}
