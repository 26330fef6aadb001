//! An experiment on two simulators side by side: the preset of the simulator its paper ran on
//! (GPGPU-Sim 3.2.2's GTX480 for ELF and the locality thesis), against which the paper's
//! figures are compared, and the Accel-Sim-calibrated preset; with `--attribute`, also the
//! headline figures on the paper's preset with one mechanism at a time switched to the
//! calibrated preset's (`gpusim::config::mechanisms`), which measures what moves each figure
//! between the two.

use super::chart;
use anyhow::{Context, Result};
use gpusim::config::{mechanisms, GpuConfig};
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// The suffix of an attribution sweep's name (its results go to `out/sweep-attribution`).
pub const ATTRIBUTION: &str = "-attribution";

/// A mechanism must move a figure by at least this much (percentage points) to be named in
/// the sentence that explains it.
pub const NAMED_POINTS: f64 = 0.5;

/// What a preset is, for the reader of a side-by-side page.
fn describe(config: &str) -> &'static str {
    match config {
        "gtx480-3.2.2" => "GPGPU-Sim 3.2.2, the simulator the paper ran on",
        "gtx480" => "GPGPU-Sim 4.x as Accel-Sim runs it: the calibrated preset",
        _ => "",
    }
}

/// A headline figure of an experiment: the paper's beside ours.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Headline {
    /// What is compared (`LA-TB + LAWS over RR + GTO, all`).
    pub what: String,
    /// The paper's speedup (1.26 = +26%), when it gives one.
    pub paper: Option<f64>,
    /// Ours.
    pub ours: f64,
}

/// One run of an experiment on one configuration.
pub struct Measured {
    /// Its headline figures.
    pub headlines: Vec<Headline>,
    /// Its Markdown, JSON and SVG (not for an attribution run, which runs the headline
    /// columns only).
    pub outputs: Option<(String, String, String)>,
}

/// The headline figures with one mechanism switched.
#[derive(Clone, Debug, Serialize)]
pub struct Switched {
    /// The configuration it was switched on (index into [`SideBySide::configs`], 0 or 1); it
    /// takes the mechanism from the other one.
    pub on: usize,
    /// The mechanism (`l2-sectors`).
    pub mechanism: &'static str,
    /// The configuration fields it covers.
    pub fields: &'static str,
    /// Each headline figure (speedup) with this mechanism switched.
    pub ours: Vec<f64>,
}

/// The side-by-side document (`<experiment>.json`).
#[derive(Clone, Debug, Serialize)]
pub struct SideBySide {
    /// Experiment name.
    pub experiment: &'static str,
    /// Suite size.
    pub size: String,
    /// The configurations, the paper's simulator first.
    pub configs: Vec<String>,
    /// Per configuration, its headline figures.
    pub headlines: Vec<Vec<Headline>>,
    /// With `--attribute`: one mechanism at a time switched on `configs[0]` to `configs[1]`'s,
    /// then on `configs[1]` to `configs[0]`'s (mechanisms interact, so the two directions
    /// differ).
    pub attribution: Vec<Switched>,
}

/// How an experiment runs: `measure(configs, headline_only, sweep_name)` gives one
/// [`Measured`] per configuration, in order.
pub type Measure<'a> = dyn Fn(&[&str], bool, &str) -> Result<Vec<Measured>> + 'a;

/// Runs `experiment` on `configs` (the paper's simulator first) through `measure`, and with
/// `attribute` the headline columns on `configs[0]` with each mechanism in which it differs
/// from `configs[1]` switched; writes `<experiment>-<config>.{md,json,svg}` per configuration
/// and the side-by-side `<experiment>.{md,json,svg}` into `out`.
pub fn run(
    experiment: &'static str,
    (title, size): (&str, &str),
    configs: &[&str],
    attribute: bool,
    out: &Path,
    measure: &Measure<'_>,
) -> Result<SideBySide> {
    let measured = measure(configs, false, experiment)?;
    for (c, m) in configs.iter().zip(&measured) {
        let (md, json, svg) = m.outputs.as_ref().expect("a full run has outputs");
        super::write_files(out, &format!("{experiment}-{c}"), (md, json, svg))?;
    }
    let mut attribution = vec![];
    if attribute && configs.len() >= 2 {
        let load = |c: &str| crate::cmd::sim::load_config(c);
        let pair = [load(configs[0])?, load(configs[1])?];
        let dir = out.join("attribution");
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let (mut files, mut switched) = (vec![], vec![]);
        for on in 0..2 {
            let (base, other) = (&pair[on], &pair[1 - on]);
            for m in mechanisms::differences(other, base) {
                let mut c: GpuConfig = m.switched(other, base);
                c.name = format!("{}+{}", base.name, m.name);
                let f = dir.join(format!("{}.toml", c.name));
                std::fs::write(&f, c.to_toml())
                    .with_context(|| format!("writing {}", f.display()))?;
                files.push(f.display().to_string());
                switched.push((on, m));
            }
        }
        let names: Vec<&str> = files.iter().map(String::as_str).collect();
        let runs = measure(&names, true, &format!("{experiment}{ATTRIBUTION}"))?;
        for ((on, m), r) in switched.into_iter().zip(runs) {
            attribution.push(Switched {
                on,
                mechanism: m.name,
                fields: m.fields,
                ours: r.headlines.iter().map(|h| h.ours).collect(),
            });
        }
    }
    let doc = SideBySide {
        experiment,
        size: size.to_string(),
        configs: configs.iter().map(|c| c.to_string()).collect(),
        headlines: measured.into_iter().map(|m| m.headlines).collect(),
        attribution,
    };
    let md = markdown(&doc, title);
    let json = serde_json::to_string_pretty(&doc)?;
    let svg = svg(&doc, title)?;
    super::write_files(out, experiment, (&md, &json, &svg))?;
    Ok(doc)
}

fn pct(x: f64) -> String {
    format!("{:+.1}%", 100.0 * (x - 1.0))
}

/// Percentage points from speedup `a` to `b`.
fn points(a: f64, b: f64) -> f64 {
    100.0 * (b - a)
}

/// The sentence that says what moves headline figure `i` from the first configuration to the
/// second: the whole move, then on each configuration the mechanisms that, switched alone to
/// the other's, move it by [`NAMED_POINTS`] or more (largest first), and what the single moves
/// sum to (mechanisms interact: the rest is how).
pub fn what_moves(doc: &SideBySide, i: usize) -> String {
    let at = |c: usize| doc.headlines[c][i].ours;
    let total = points(at(0), at(1));
    let mut s = format!(
        "{total:+.1} points from `{}` to `{}`",
        doc.configs[0], doc.configs[1]
    );
    for on in 0..2 {
        let all: Vec<(&str, f64)> = doc
            .attribution
            .iter()
            .filter(|a| a.on == on)
            .map(|a| (a.mechanism, points(at(on), a.ours[i])))
            .collect();
        if all.is_empty() {
            continue;
        }
        let sum: f64 = all.iter().map(|m| m.1).sum();
        let mut moves: Vec<(&str, f64)> = all
            .into_iter()
            .filter(|(_, d)| d.abs() >= NAMED_POINTS)
            .collect();
        moves.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()).then(a.0.cmp(b.0)));
        let named: Vec<String> = moves
            .iter()
            .map(|(m, d)| format!("`{m}` {d:+.1}"))
            .collect();
        let _ = write!(
            s,
            "; on `{}`, one of `{}`'s mechanisms alone: {} (sum {sum:+.1})",
            doc.configs[on],
            doc.configs[1 - on],
            match named.is_empty() {
                true => format!("none moves it {NAMED_POINTS} points"),
                false => named.join(", "),
            }
        );
    }
    s
}

/// The side-by-side Markdown page.
pub fn markdown(doc: &SideBySide, title: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {title}, suite size `{}`\n", doc.size);
    let _ = writeln!(
        s,
        "The paper's figures beside ours on each configuration (the paper's simulator first):\n"
    );
    for c in &doc.configs {
        let what = describe(c);
        let sep = if what.is_empty() { "" } else { ": " };
        let _ = writeln!(
            s,
            "- `{c}`{sep}{what} (every figure: [{e}-{c}.md]({e}-{c}.md))",
            e = doc.experiment
        );
    }
    let moves = doc.configs.len() >= 2;
    let _ = write!(s, "\n| figure | paper |");
    for c in &doc.configs {
        let _ = write!(s, " `{c}` |");
    }
    let _ = writeln!(s, "{}", if moves { " what moves it |" } else { "" });
    let _ = write!(s, "|---|---:|");
    s.push_str(&"---:|".repeat(doc.configs.len()));
    let _ = writeln!(s, "{}", if moves { "---|" } else { "" });
    for (i, h) in doc.headlines[0].iter().enumerate() {
        let paper = h.paper.map(pct).unwrap_or_else(|| "—".into());
        let _ = write!(s, "| {} | {paper} |", h.what);
        for per in &doc.headlines {
            let _ = write!(s, " {} |", pct(per[i].ours));
        }
        let _ = match moves {
            true => writeln!(s, " {} |", what_moves(doc, i)),
            false => writeln!(s),
        };
    }
    if !doc.attribution.is_empty() {
        let _ = writeln!(
            s,
            "\n## One mechanism at a time\n\nEach headline figure with one mechanism of the \
             other configuration, in percentage points from its value on the configuration it \
             was switched on (`gpusched repro {} --attribute`; the configurations are in \
             `attribution/`). Mechanisms interact, so the two directions differ and the single \
             moves need not add up to the whole.",
            doc.experiment
        );
        for on in 0..2 {
            let _ = write!(
                s,
                "\nOn `{}`, with `{}`'s:\n\n| mechanism | fields |",
                doc.configs[on],
                doc.configs[1 - on]
            );
            for h in &doc.headlines[0] {
                let _ = write!(s, " {} |", h.what);
            }
            let _ = write!(s, "\n|---|---|");
            s.push_str(&"---:|".repeat(doc.headlines[0].len()));
            s.push('\n');
            for a in doc.attribution.iter().filter(|a| a.on == on) {
                let _ = write!(s, "| `{}` | {} |", a.mechanism, a.fields);
                for (h, x) in doc.headlines[on].iter().zip(&a.ours) {
                    let _ = write!(s, " {:+.1} |", points(h.ours, *x));
                }
                s.push('\n');
            }
        }
    }
    s
}

/// The headline figures as grouped bars: per figure, the paper's and ours per configuration.
pub fn svg(doc: &SideBySide, title: &str) -> Result<String> {
    let mut series = vec!["paper".to_string()];
    series.extend(doc.configs.iter().cloned());
    let items: Vec<(String, Vec<Option<f64>>)> = doc.headlines[0]
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let mut v = vec![h.paper.map(|p| 100.0 * (p - 1.0))];
            v.extend(
                doc.headlines
                    .iter()
                    .map(|per| Some(100.0 * (per[i].ours - 1.0))),
            );
            (h.what.clone(), v)
        })
        .collect();
    chart::grouped_bars(title, "speedup, %", &series, &items)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(attribution: Vec<Switched>) -> SideBySide {
        let h = |ours| Headline {
            what: "A over B".into(),
            paper: Some(1.26),
            ours,
        };
        SideBySide {
            experiment: "locality",
            size: "large".into(),
            configs: vec!["gtx480-3.2.2".into(), "gtx480".into()],
            headlines: vec![vec![h(1.115)], vec![h(1.011)]],
            attribution,
        }
    }

    /// The sentence gives the whole move and, per direction, the mechanisms that alone move
    /// the figure by half a point or more, largest first, and their sum; the page has a column
    /// per configuration and a table per direction.
    #[test]
    fn the_sentence_names_the_mechanisms_that_move_a_figure() {
        let sw = |on, mechanism, ours| Switched {
            on,
            mechanism,
            fields: "f",
            ours: vec![ours],
        };
        let d = doc(vec![
            sw(0, "l2-sectors", 1.035),
            sw(0, "dram-queue", 1.125),
            sw(0, "flit-size", 1.113),
            sw(1, "l2-sectors", 1.09),
        ]);
        assert_eq!(
            what_moves(&d, 0),
            "-10.4 points from `gtx480-3.2.2` to `gtx480`; on `gtx480-3.2.2`, one of `gtx480`'s \
             mechanisms alone: `l2-sectors` -8.0, `dram-queue` +1.0 (sum -7.2); on `gtx480`, one \
             of `gtx480-3.2.2`'s mechanisms alone: `l2-sectors` +7.9 (sum +7.9)"
        );
        let md = markdown(&d, "Locality");
        assert!(
            md.contains("| A over B | +26.0% | +11.5% | +1.1% | -10.4 points"),
            "{md}"
        );
        assert!(md.contains("| `flit-size` | f | -0.2 |"), "{md}");
        assert!(md.contains("On `gtx480`, with `gtx480-3.2.2`'s:"), "{md}");
        assert!(md.contains("| `l2-sectors` | f | +7.9 |"), "{md}");
        assert_eq!(
            what_moves(&doc(vec![sw(0, "flit-size", 1.113)]), 0),
            "-10.4 points from `gtx480-3.2.2` to `gtx480`; on `gtx480-3.2.2`, one of `gtx480`'s \
             mechanisms alone: none moves it 0.5 points (sum -0.2)"
        );
        assert_eq!(
            what_moves(&doc(vec![]), 0),
            "-10.4 points from `gtx480-3.2.2` to `gtx480`"
        );
        svg(&d, "Locality").unwrap();
    }
}
