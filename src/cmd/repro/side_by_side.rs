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

/// What the paper's preset is, for an experiment whose paper ran on GPGPU-Sim 3.2.2.
pub const GPGPU_SIM_3_2_2: &str = "GPGPU-Sim 3.2.2, the simulator the paper ran on";

/// What a calibrated preset is, for the reader of a side-by-side page (the paper's preset
/// is described by its experiment: [`SideBySide::paper_simulator`]).
fn describe(config: &str) -> &'static str {
    match config {
        "gtx480" => "GPGPU-Sim 4.x as Accel-Sim runs it: the calibrated preset",
        "gtx980" => "the same GPU under GPGPU-Sim 4.x's mechanisms, as the calibrated presets",
        _ => "",
    }
}

/// How a headline figure reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// A ratio to a baseline (1.26), shown as its change in per cent (+26.0%); moves in
    /// percentage points.
    Ratio,
    /// A share in per cent (10.1), shown as it is (10.1%); moves in percentage points.
    Percent,
    /// A factor (5.5), shown as 5.50x; moves in the factor.
    Times,
}

impl Unit {
    fn is_ratio(&self) -> bool {
        *self == Unit::Ratio
    }

    /// Figure `v` on this unit's axis: per cent for a ratio or a share, the factor itself.
    pub fn axis(self, v: f64) -> f64 {
        match self {
            Unit::Ratio => 100.0 * (v - 1.0),
            Unit::Percent | Unit::Times => v,
        }
    }

    /// Figure `v` as a page shows it.
    pub fn show(self, v: f64) -> String {
        match self {
            Unit::Ratio => format!("{:+.1}%", self.axis(v)),
            Unit::Percent => format!("{v:.1}%"),
            Unit::Times => format!("{v:.2}x"),
        }
    }

    /// The move from figure `a` to figure `b`, on the axis.
    pub fn delta(self, a: f64, b: f64) -> f64 {
        self.axis(b) - self.axis(a)
    }

    /// A move `d` as a sentence says it.
    fn show_delta(self, d: f64) -> String {
        match self {
            Unit::Times => format!("{d:+.2}x"),
            Unit::Ratio | Unit::Percent => format!("{d:+.1} points"),
        }
    }

    /// A move `d` as a table cell shows it.
    fn cell(self, d: f64) -> String {
        match self {
            Unit::Times => format!("{d:+.2}"),
            Unit::Ratio | Unit::Percent => format!("{d:+.1}"),
        }
    }

    /// The smallest move a sentence names: [`NAMED_POINTS`] points, or 0.05 of a factor.
    fn named(self) -> f64 {
        match self {
            Unit::Times => 0.05,
            Unit::Ratio | Unit::Percent => NAMED_POINTS,
        }
    }

    /// The title of this unit's axis.
    fn axis_title(self) -> &'static str {
        match self {
            Unit::Ratio => "change, %",
            Unit::Percent => "%",
            Unit::Times => "x",
        }
    }
}

/// A headline figure of an experiment: the paper's beside ours.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Headline {
    /// What is compared (`LA-TB + LAWS over RR + GTO, all`).
    pub what: String,
    /// How the figures read (absent from the JSON for a ratio).
    #[serde(skip_serializing_if = "Unit::is_ratio")]
    pub unit: Unit,
    /// The paper's figure (for a ratio 1.26 = +26%), when it gives one.
    pub paper: Option<f64>,
    /// Ours.
    pub ours: f64,
}

impl Headline {
    /// A ratio figure.
    pub fn ratio(what: String, paper: Option<f64>, ours: f64) -> Self {
        Self {
            what,
            unit: Unit::Ratio,
            paper,
            ours,
        }
    }
}

/// One run of an experiment on one configuration.
pub struct Measured {
    /// Its headline figures.
    pub headlines: Vec<Headline>,
    /// Its Markdown, JSON and SVG (not for an attribution run, which runs the headline
    /// columns only).
    pub outputs: Option<(String, String, String)>,
    /// Further figures, `<page>-<suffix>.svg` beside its page: (suffix, SVG).
    pub figures: Vec<(&'static str, String)>,
}

impl Measured {
    /// Writes the page `name` (`<name>.md`, `.json`, `.svg` and its further figures) into
    /// `out`.
    pub fn write(&self, out: &Path, name: &str) -> Result<()> {
        let (md, json, svg) = self.outputs.as_ref().expect("a full run has outputs");
        super::write_files(out, name, (md, json, svg))?;
        for (suffix, svg) in &self.figures {
            let p = out.join(format!("{name}-{suffix}.svg"));
            std::fs::write(&p, svg).with_context(|| format!("writing {}", p.display()))?;
        }
        Ok(())
    }
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
    /// What the paper's preset (`configs[0]`) is: the simulator the paper ran on.
    #[serde(skip)]
    pub paper_simulator: &'static str,
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

/// Runs `experiment` on `configs` (the paper's simulator first, described by
/// `paper_simulator`) through `measure`, and with
/// `attribute` the headline columns on each of the first two configurations with each
/// mechanism in which it differs from the other switched (`Some(&[])`: every one; otherwise
/// only those named); writes `<experiment>-<config>.{md,json,svg}` per configuration and the
/// side-by-side `<experiment>.{md,json,svg}` into `out`.
pub fn run(
    (experiment, paper_simulator): (&'static str, &'static str),
    (title, size): (&str, &str),
    configs: &[&str],
    attribute: Option<&[String]>,
    out: &Path,
    measure: &Measure<'_>,
) -> Result<SideBySide> {
    let load = |c: &str| crate::cmd::sim::load_config(c);
    let pair = match (attribute, configs) {
        (Some(_), [a, b, ..]) => Some([load(a)?, load(b)?]),
        _ => None,
    };
    let only = match (attribute, &pair) {
        (Some(names), Some(pair)) => chosen(names, pair)?,
        _ => vec![],
    };
    let measured = measure(configs, false, experiment)?;
    for (c, m) in configs.iter().zip(&measured) {
        m.write(out, &format!("{experiment}-{c}"))?;
    }
    let mut attribution = vec![];
    if let Some(pair) = pair {
        let dir = out.join("attribution");
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let (mut files, mut switched) = (vec![], vec![]);
        for on in 0..2 {
            let (base, other) = (&pair[on], &pair[1 - on]);
            for m in mechanisms::differences(other, base) {
                if !only.is_empty() && !only.contains(&m.name) {
                    continue;
                }
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
        paper_simulator,
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

/// The mechanisms `names` picks (every one when empty), each checked to be one in which the
/// two configurations differ.
fn chosen(names: &[String], pair: &[GpuConfig; 2]) -> Result<Vec<&'static str>> {
    let differ: Vec<&str> = mechanisms::differences(&pair[0], &pair[1])
        .iter()
        .map(|m| m.name)
        .collect();
    names
        .iter()
        .map(|n| match differ.iter().find(|d| *d == n) {
            Some(d) => Ok(*d),
            None => anyhow::bail!(
                "--mechanisms: `{n}` is not a mechanism in which `{}` and `{}` differ; those are: {}",
                pair[0].name,
                pair[1].name,
                differ.join(", ")
            ),
        })
        .collect()
}

/// The sentence that says what moves headline figure `i` from the first configuration to the
/// second: the whole move, then on each configuration the mechanisms that, switched alone to
/// the other's, move it by [`NAMED_POINTS`] or more (0.05 for a factor; largest first), and
/// what the single moves sum to (mechanisms interact: the rest is how).
pub fn what_moves(doc: &SideBySide, i: usize) -> String {
    let at = |c: usize| doc.headlines[c][i].ours;
    let unit = doc.headlines[0][i].unit;
    let points = |a: f64, b: f64| unit.delta(a, b);
    let total = points(at(0), at(1));
    let mut s = format!(
        "{} from `{}` to `{}`",
        unit.show_delta(total),
        doc.configs[0],
        doc.configs[1]
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
            .filter(|(_, d)| d.abs() >= unit.named())
            .collect();
        moves.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()).then(a.0.cmp(b.0)));
        let named: Vec<String> = moves
            .iter()
            .map(|(m, d)| format!("`{m}` {}", unit.cell(*d)))
            .collect();
        let _ = write!(
            s,
            "; on `{}`, one of `{}`'s mechanisms alone: {} (sum {})",
            doc.configs[on],
            doc.configs[1 - on],
            match (named.is_empty(), unit) {
                (true, Unit::Times) => format!("none moves it {}x", unit.named()),
                (true, _) => format!("none moves it {NAMED_POINTS} points"),
                (false, _) => named.join(", "),
            },
            unit.cell(sum)
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
    for (i, c) in doc.configs.iter().enumerate() {
        let what = if i == 0 {
            doc.paper_simulator
        } else {
            describe(c)
        };
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
        let paper = h.paper.map(|p| h.unit.show(p));
        let paper = paper.unwrap_or_else(|| "—".into());
        let _ = write!(s, "| {} | {paper} |", h.what);
        for per in &doc.headlines {
            let _ = write!(s, " {} |", h.unit.show(per[i].ours));
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
             other configuration, in percentage points (for a factor, in the factor) from its \
             value on the configuration it was switched on (`gpusched repro {} --attribute`; the configurations are in \
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
                    let _ = write!(s, " {} |", h.unit.cell(h.unit.delta(h.ours, *x)));
                }
                s.push('\n');
            }
        }
    }
    s
}

/// The headline figures as grouped bars: per figure, the paper's and ours per configuration;
/// a panel per unit.
pub fn svg(doc: &SideBySide, title: &str) -> Result<String> {
    let mut series = vec!["paper".to_string()];
    series.extend(doc.configs.iter().cloned());
    let mut panels: Vec<(Unit, chart::Panel)> = vec![];
    for (i, h) in doc.headlines[0].iter().enumerate() {
        let u = h.unit;
        let mut v = vec![h.paper.map(|p| u.axis(p))];
        v.extend(doc.headlines.iter().map(|per| Some(u.axis(per[i].ours))));
        let at = match panels.iter().position(|p| p.0 == u) {
            Some(at) => at,
            None => {
                let y_desc = u.axis_title().to_string();
                panels.push((
                    u,
                    chart::Panel {
                        y_desc,
                        items: vec![],
                    },
                ));
                panels.len() - 1
            }
        };
        panels[at].1.items.push((h.what.clone(), v));
    }
    let panels: Vec<chart::Panel> = panels.into_iter().map(|p| p.1).collect();
    chart::bar_panels(&format!("{title}, size {}", doc.size), &series, &panels)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(attribution: Vec<Switched>) -> SideBySide {
        let h = |ours| Headline::ratio("A over B".into(), Some(1.26), ours);
        SideBySide {
            experiment: "locality",
            paper_simulator: GPGPU_SIM_3_2_2,
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
        // The chart's title names the suite size, as the page's does.
        assert!(svg(&d, "Locality")
            .unwrap()
            .contains(">\nLocality, size large\n<"));
    }
}
