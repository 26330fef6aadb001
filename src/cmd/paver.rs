//! `gpusched paver graph`: a kernel's PAVER locality graph (statistics beside the paper's
//! Table 2, and the graph as dot, METIS or JSON); `gpusched paver groups`: the thread-block
//! groups a scheme makes of it for a GPU.

use super::sim::{load_config, open_workload};
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use gpusim::analysis::paver::{self, format, paper, Granularity, LeafRule, LocalityGraph, Scheme};
use gpusim::workload::kernel::KernelSource;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `gpusched paver`.
#[derive(Args)]
pub struct PaverArgs {
    #[command(subcommand)]
    action: Action,
}

/// The kernels to analyse.
#[derive(Args)]
struct Source {
    /// Workload name (see `gpusched workloads`).
    #[arg(long, conflicts_with = "trace")]
    workload: Option<String>,
    /// Size of a named workload: small, medium, large, or a paper's (`paper`, `elf`, `paver`:
    /// every launch, `gpusched workloads --size S`).
    #[arg(long, default_value = "small")]
    size: String,
    /// Accel-Sim trace directory (with kernelslist.g).
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Only kernel N (1-based, in launch order); default: every kernel.
    #[arg(long, value_name = "N")]
    kernel: Option<usize>,
    /// What one shared element is: word (4 bytes, the paper's element sets) or line (128 B).
    #[arg(long, default_value = "word", value_parser = Granularity::NAMES.to_vec())]
    granularity: String,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum Action {
    /// Build each kernel's locality graph (thread blocks joined by the global elements both
    /// load) and print its statistics: vertices, edges, SpScore, shared blocks, build time;
    /// beside them the paper's Table 2 row of the benchmark a suite kernel mirrors.
    Graph {
        #[command(flatten)]
        source: Source,
        /// Write the graph (one kernel: give --kernel when there are several) to FILE.
        #[arg(long, value_name = "FILE", requires = "format")]
        out: Option<PathBuf>,
        /// The file's format: dot (Graphviz), metis (gpmetis's input) or json.
        #[arg(long, value_parser = format::Format::NAMES.to_vec(), requires = "out")]
        format: Option<String>,
    },
    /// The thread-block groups a scheme makes of each kernel for a GPU: mst (MST-TS), kway
    /// (kway-TS) or rb (RB-TS); N = the GPU's SMs, x = the kernel's blocks per SM.
    Groups {
        #[command(flatten)]
        source: Source,
        /// The scheme: mst, kway or rb.
        #[arg(long, value_parser = Scheme::NAMES.to_vec())]
        scheme: String,
        /// GPU: preset name, .toml/.json file or GPGPU-Sim config file.
        #[arg(long, default_value = "gtx480")]
        config: String,
        /// RB-TS's leaf rule: below (a part smaller than x, the paper's Algorithm 1) or
        /// at-most (a part of at most x).
        #[arg(long, default_value = "below", value_parser = ["below", "at-most"])]
        leaf: String,
        /// Print every group, not only the first ten.
        #[arg(long)]
        all: bool,
    },
}

/// Runs `gpusched paver`.
pub fn run(a: PaverArgs) -> Result<ExitCode> {
    match a.action {
        Action::Graph {
            source,
            out,
            format,
        } => graph(&source, out.as_deref(), format.as_deref()),
        Action::Groups {
            source,
            scheme,
            config,
            leaf,
            all,
        } => groups(&source, &scheme, &config, &leaf, all),
    }
}

/// A kernel and its 1-based index in the workload.
type Indexed = (usize, Box<dyn KernelSource>);

/// The workload's name and each selected kernel.
fn kernels(s: &Source) -> Result<(String, Vec<Indexed>)> {
    let mut w = open_workload(s.trace.as_ref(), s.workload.as_deref(), &s.size)?;
    let name = w.name().to_string();
    let mut v = vec![];
    let mut index = 0;
    while let Some(k) = w.next_kernel()? {
        index += 1;
        if s.kernel.is_none_or(|n| n == index) {
            v.push((index, k));
        }
    }
    if let Some(n) = s.kernel.filter(|_| v.is_empty()) {
        bail!("{name} has {index} kernel(s); there is no kernel {n}");
    }
    Ok((name, v))
}

fn granularity(s: &Source) -> Granularity {
    Granularity::from_name(&s.granularity).expect("clap checked the name")
}

fn graph(s: &Source, out: Option<&std::path::Path>, fmt: Option<&str>) -> Result<ExitCode> {
    let (name, ks) = kernels(s)?;
    if out.is_some() && ks.len() != 1 {
        bail!(
            "--out writes one kernel's graph and {name} has {} kernels: give --kernel N",
            ks.len()
        );
    }
    let gran = granularity(s);
    let mirrored = s.workload.as_deref().and_then(paper::mirrored_by);
    let mut rows = vec![];
    for (index, k) in &ks {
        let start = Instant::now();
        let built = paver::build(k.as_ref(), gran)?;
        let seconds = start.elapsed().as_secs_f64();
        let Some((g, summary)) = built else {
            bail!(
                "kernel {index} `{}` cannot be visited for its addresses",
                k.info().name
            );
        };
        if let (Some(path), Some(f)) = (out, fmt) {
            write_graph(&g, &k.info().name, f, path)?;
        }
        rows.push((*index, k.info().name.clone(), g.stats(), summary, seconds));
    }
    let mean = rows.iter().map(|r| r.2.sparsity).sum::<f64>() / rows.len().max(1) as f64;
    if s.json {
        let kernels: Vec<_> = rows
            .iter()
            .map(|(i, n, st, su, secs)| {
                json!({ "index": i, "name": n, "stats": st, "build": su, "build_seconds": secs })
            })
            .collect();
        outln!(
            "{}",
            json!({
                "workload": name,
                "granularity": gran.name(),
                "kernels": kernels,
                "mean_sparsity": mean,
                "paper": mirrored,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    outln!("{name}: PAVER locality graph ({} elements)", gran.name());
    outln!("| kernel | blocks | edges | non-zeros | SpScore | shared blocks | max weight | elements | build |");
    outln!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (i, n, st, su, secs) in &rows {
        outln!(
            "| {i} `{n}` | {} | {} | {} | {:.9} | {} | {} | {} | {:.3} s |",
            st.vertices,
            st.edges,
            st.nonzeros,
            st.sparsity,
            st.shared_tbs,
            st.max_weight,
            su.elements,
            secs
        );
    }
    if rows.len() > 1 {
        outln!(
            "mean SpScore over {} kernels: {mean:.9} (the paper averages over kernels, L177)",
            rows.len()
        );
    }
    if let Some(p) = mirrored {
        outln!(
            "paper, Table 2, {} ({} inter-block locality): SpScore {}, {} blocks",
            p.benchmark,
            p.category,
            p.sparsity,
            p.tbs
        );
    }
    if let Some(path) = out {
        outln!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn write_graph(g: &LocalityGraph, name: &str, f: &str, path: &std::path::Path) -> Result<()> {
    let f = format::Format::from_name(f).expect("clap checked the name");
    let file = std::fs::File::create(path).with_context(|| format!("{}", path.display()))?;
    let mut w = std::io::BufWriter::new(file);
    format::write(g, name, f, &mut w)
        .and_then(|()| std::io::Write::flush(&mut w))
        .with_context(|| format!("{}", path.display()))
}

fn groups(s: &Source, scheme: &str, config: &str, leaf: &str, all: bool) -> Result<ExitCode> {
    let cfg = load_config(config)?;
    let scheme = Scheme::from_name(scheme).expect("clap checked the name");
    let leaf = match leaf {
        "at-most" => LeafRule::AtMost,
        _ => LeafRule::Below,
    };
    let (name, ks) = kernels(s)?;
    let mut out = vec![];
    for (index, k) in &ks {
        let params = paver::params_for(&cfg, k.info(), leaf)
            .with_context(|| format!("kernel {index} `{}` on {}", k.info().name, cfg.name))?;
        let sched = paver::schedule(k.as_ref(), scheme, granularity(s), &params)?;
        out.push((*index, k.info().name.clone(), params, sched));
    }
    if s.json {
        let kernels: Vec<_> = out
            .iter()
            .map(|(i, n, p, sc)| {
                json!({
                    "index": i, "name": n, "sms": p.sms, "blocks_per_sm": p.per_sm,
                    "groups": sc.groups.len(), "order": sc.groups.order,
                    "gstart": sc.groups.gstart, "intra_weight": sc.intra_weight,
                    "stats": sc.stats, "jit_seconds": sc.jit_seconds, "notes": sc.notes,
                })
            })
            .collect();
        outln!(
            "{}",
            json!({ "workload": name, "config": cfg.name, "scheme": scheme.name(), "kernels": kernels })
        );
        return Ok(ExitCode::SUCCESS);
    }
    for (i, n, p, sc) in &out {
        outln!(
            "kernel {i} `{n}` on {} ({} SMs, x = {} blocks per SM): {} {} groups, {} of {} \
             edge weight inside groups, JIT {:.3} s",
            cfg.name,
            p.sms,
            p.per_sm,
            sc.groups.len(),
            scheme.name(),
            sc.intra_weight,
            sc.stats.as_ref().map_or(0, |st| st.total_weight),
            sc.jit_seconds
        );
        let shown = if all {
            sc.groups.len()
        } else {
            sc.groups.len().min(10)
        };
        for g in 0..shown {
            let ids: Vec<String> = sc.groups.group(g).iter().map(|b| b.to_string()).collect();
            outln!("  group {g}: {}", ids.join(" "));
        }
        if shown < sc.groups.len() {
            outln!(
                "  ... {} more groups (--all prints them)",
                sc.groups.len() - shown
            );
        }
        for note in &sc.notes {
            outln!("  note: {note}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
