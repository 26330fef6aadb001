//! Sweep specs: the text read by [`gpusim::sweep_spec`] (its form, names, axes), then each
//! configuration loaded and each policy's options checked as `gpusched sim` takes them; every
//! combination is a point.
//!
//! The golden model has no random state: a point's result depends only on the point, so the
//! spec has no seed axis.

use crate::cmd::sim::RunArgs;
use anyhow::{anyhow, bail, Context, Result};
use clap::Parser;
use serde::{Deserialize, Serialize};
use std::path::Path;

use gpusim::sweep_spec::line_of;
pub use gpusim::sweep_spec::{Policy, Workload};

/// One point of a sweep: a workload on a configuration under a policy.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Point {
    /// Index in the sweep (points are numbered in axis order: workloads, sizes, configs,
    /// policies, the last fastest).
    pub index: usize,
    /// The workload.
    pub workload: Workload,
    /// The configuration as the spec names it (a preset, or a file path resolved against
    /// the spec's directory).
    pub config: String,
    /// The policy.
    pub policy: Policy,
}

impl Point {
    /// `gpusched sim` options of the point (its configuration and its policy's options).
    pub fn run_args(&self) -> Result<RunArgs> {
        policy_args(&self.policy, &self.config)
    }
}

/// A parsed spec and its points.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The spec's name.
    pub name: String,
    /// Metrics to collect: dotted paths into a run's JSON report (`cycles`, `l1d.misses`).
    pub metrics: Vec<String>,
    /// Every point, in order.
    pub points: Vec<Point>,
    /// The spec's text (kept beside the results).
    pub text: String,
}

#[derive(Parser)]
#[command(name = "policy", no_binary_name = true)]
struct PolicyParser {
    #[command(flatten)]
    run: RunArgs,
}

/// The `gpusched sim` options of `policy` on configuration `config`.
pub fn policy_args(policy: &Policy, config: &str) -> Result<RunArgs> {
    let words: Vec<&str> = policy.args.split_whitespace().collect();
    if words.iter().any(|w| w.starts_with("--config")) {
        bail!("--config is the `configs` axis, not a policy option");
    }
    let mut run = PolicyParser::try_parse_from(&words)
        .map_err(|e| anyhow!("{}", e.render().to_string().trim_end()))?
        .run;
    if !run.rtl.is_empty() || !run.lockstep.is_empty() {
        bail!("sweeps run the golden model: --rtl and --lockstep are not policy options");
    }
    run.config = config.to_string();
    Ok(run)
}

impl Spec {
    /// Reads and checks the spec at `path`: every workload, size, configuration and policy
    /// must be valid (an error names the spec's file and line and the valid choices).
    pub fn load(path: &Path) -> Result<Spec> {
        let text = gpusim::input::read_text(path)
            .with_context(|| format!("reading {}", path.display()))?;
        Self::parse(&text, path)
    }

    /// Parses spec text read from `path` (relative paths in it are relative to its directory).
    pub fn parse(text: &str, path: &Path) -> Result<Spec> {
        let at_in =
            |key: &str, needle: &str| format!("{}:{}", path.display(), line_of(text, key, needle));
        let file = gpusim::sweep_spec::parse(text, path)?;
        let base = path.parent().unwrap_or(Path::new("."));
        let mut configs = vec![];
        for c in &file.configs {
            let resolved = if gpusim::config::GpuConfig::preset(c).is_ok() {
                c.clone()
            } else {
                base.join(c).display().to_string()
            };
            crate::cmd::sim::load_config(&resolved).with_context(|| at_in("configs", c))?;
            configs.push(resolved);
        }
        for p in &file.policies {
            let at = || format!("{}: policy `{}`", at_in("[[policy]]", &p.args), p.name);
            let run = policy_args(p, &configs[0]).with_context(at)?;
            run.resolve().with_context(at)?;
        }
        let mut points = vec![];
        for w in &file.workloads {
            for c in &configs {
                for p in &file.policies {
                    points.push(Point {
                        index: points.len(),
                        workload: w.clone(),
                        config: c.clone(),
                        policy: p.clone(),
                    });
                }
            }
        }
        Ok(Spec {
            name: file.name,
            metrics: file.metrics,
            points,
            text: text.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"[sweep]
name = "t"
workloads = ["stream", "compute"]
sizes = ["small"]
configs = ["gtx480"]
metrics = ["cycles"]

[[policy]]
name = "gto"
args = "--warp-sched gto"

[[policy]]
name = "lrr"
args = "--warp-sched lrr --tb-sched bcs"
"#;

    #[test]
    fn every_combination_is_a_point_in_axis_order() {
        let s = Spec::parse(SPEC, Path::new("s.toml")).unwrap();
        let got: Vec<(String, String)> = s
            .points
            .iter()
            .map(|p| (p.workload.name().to_string(), p.policy.name.clone()))
            .collect();
        let want = [
            ("stream", "gto"),
            ("stream", "lrr"),
            ("compute", "gto"),
            ("compute", "lrr"),
        ];
        assert_eq!(
            got,
            want.map(|(a, b)| (a.to_string(), b.to_string())).to_vec()
        );
        assert_eq!(s.points[3].index, 3);
        let run = s.points[1].run_args().unwrap();
        assert_eq!(
            (run.policies.values.given("tb-sched"), run.config.as_str()),
            (Some("bcs"), "gtx480")
        );
    }

    #[test]
    fn a_bad_spec_is_an_error_naming_its_line_and_the_valid_choices() {
        let cases = [
            (
                "\"compute\"",
                "\"computer\"",
                "s.toml:3: unknown workload `computer`; known: stream, compute",
            ),
            (
                "sizes = [\"small\"]",
                "sizes = [\"tiny\"]",
                "s.toml:4: unknown size `tiny`",
            ),
            (
                "--tb-sched bcs",
                "--tb-sched fifo",
                "s.toml:14: policy `lrr`: unknown thread-block scheduler `fifo`",
            ),
            (
                "--warp-sched lrr ",
                "--warp-shed lrr ",
                "s.toml:14: policy `lrr`: error: unexpected argument '--warp-shed'",
            ),
            ("metrics", "metric", "s.toml:6: unknown field `metric`"),
            (
                "name = \"lrr\"",
                "name = \"gto\"",
                "s.toml:13: policy `gto` is named twice",
            ),
            (
                "args = \"--warp-sched gto\"",
                "args = \"--config titanv\"",
                "--config is the `configs` axis",
            ),
            (
                "name = \"t\"",
                "name = \"t\\nx\"",
                "s.toml:2: name `t\\nx`: expected letters, digits",
            ),
            (
                "\"compute\"]",
                "\"compute\", \"stream\"]",
                "s.toml:3: `workloads` lists `stream` twice",
            ),
        ];
        for (from, to, want) in cases {
            let text = SPEC.replacen(from, to, 1);
            assert_ne!(text, SPEC, "{from}");
            let e = format!("{:#}", Spec::parse(&text, Path::new("s.toml")).unwrap_err());
            assert!(e.contains(want), "{from} -> {to}:\n{e}\nwanted: {want}");
        }
    }

    #[test]
    fn the_example_spec_in_the_repository_loads() {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("sweeps/example.toml");
        let s = Spec::load(&p).unwrap();
        assert_eq!((s.name.as_str(), s.points.len()), ("example", 18));
    }
}
