//! A locality graph written for other tools: Graphviz (`dot`), METIS's graph file (`gpmetis`
//! reads it: spec A12's check that our partitions match the reference tool's) and JSON.

use super::graph::LocalityGraph;
use std::io::{self, Write};

/// Graph file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Graphviz: `graph { a -- b [weight=w] }`.
    Dot,
    /// METIS's format: a header `n m 001`, then per vertex (1-based) its neighbours and
    /// weights.
    Metis,
    /// `{"vertices": n, "edges": [[a, b, w], ...]}`, each undirected edge once, `a < b`.
    Json,
}

impl Format {
    /// Names (`dot`, `metis`, `json`).
    pub const NAMES: &'static [&'static str] = &["dot", "metis", "json"];

    /// Parses a name.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "dot" => Some(Self::Dot),
            "metis" => Some(Self::Metis),
            "json" => Some(Self::Json),
            _ => None,
        }
    }
}

/// Writes `g` named `name` in `format` to `w`.
pub fn write(g: &LocalityGraph, name: &str, format: Format, w: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Dot => {
            writeln!(w, "graph \"{}\" {{", name.replace('"', "'"))?;
            for v in 0..g.vertices() {
                writeln!(w, "  {v};")?;
            }
            for (a, b, wt) in g.edge_list() {
                writeln!(w, "  {a} -- {b} [weight={wt}];")?;
            }
            writeln!(w, "}}")
        }
        Format::Metis => {
            writeln!(w, "% PAVER locality graph of {name}")?;
            writeln!(w, "{} {} 001", g.vertices(), g.edges())?;
            for v in 0..g.vertices() {
                let row: Vec<String> = g
                    .neighbours(v)
                    .map(|(u, wt)| format!("{} {wt}", u + 1))
                    .collect();
                writeln!(w, "{}", row.join(" "))?;
            }
            Ok(())
        }
        Format::Json => {
            write!(
                w,
                "{{\"name\":{},\"vertices\":{},\"edges\":[",
                serde_json::json!(name),
                g.vertices()
            )?;
            for (k, (a, b, wt)) in g.edge_list().enumerate() {
                write!(w, "{}[{a},{b},{wt}]", if k == 0 { "" } else { "," })?;
            }
            writeln!(w, "]}}")
        }
    }
}
