//! Mix files (`gpusched sim --mix FILE`): a TOML list of kernel launches, each a suite or
//! built-in kernel or every kernel of an Accel-Sim trace, with its stream, arrival, priority,
//! and optionally a period and a deadline.
//!
//! ```toml
//! [[kernel]]
//! workload = "mm"          # a suite or built-in kernel (`gpusched workloads`) ...
//! size = "small"           # ... at this size (default small)
//! stream = 0               # its CUDA stream (default 0)
//!
//! [[kernel]]
//! trace = "traces/bfs"     # ... or every kernel of a trace directory (relative to the file),
//!                          #     each on its own `-cuda stream id` unless `stream` is given
//! arrival = 20000          # core cycle it arrives (default "after": when the launch before it
//!                          # in its stream has finished; at cycle 0 for the first)
//! priority = 1             # 0 (lowest) to 15 (default 0)
//! period = 100000          # a new instance every period cycles (needs an arrival)...
//! count = 3                # ... this many (default: while another launch has not finished)
//! deadline = 40000         # each instance should finish within this many cycles of arriving
//! ```
//!
//! Kernels of one stream run in order (a launch with an arrival also waits for the launch
//! before it in its stream); their explicit arrivals must not go back in time. Every error
//! names the file, the line and the field.

use super::kernel::{Arrival, KernelSource, Launch, WorkloadError, WorkloadSource, MAX_PRIORITY};
use super::trace_kernel::TraceWorkload;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// A launch's arrival as a mix file writes it: a cycle, or `"after"`.
#[derive(Deserialize)]
#[serde(untagged)]
enum ArrivalField {
    At(i64),
    Word(String),
}

/// One `[[kernel]]` entry.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    workload: Option<Spanned<String>>,
    size: Option<Spanned<String>>,
    trace: Option<Spanned<String>>,
    stream: Option<Spanned<i64>>,
    arrival: Option<Spanned<ArrivalField>>,
    priority: Option<Spanned<i64>>,
    period: Option<Spanned<i64>>,
    count: Option<Spanned<i64>>,
    deadline: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MixFile {
    #[serde(default)]
    kernel: Vec<Spanned<Entry>>,
}

/// Where a mix's launch runs alone (for its isolated run, the base of ANTT and STP).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Alone {
    /// A suite or built-in kernel at a size.
    Named {
        /// Its name.
        name: String,
        /// Its size.
        size: String,
    },
    /// Kernel `kernel` (0-based) of a trace directory, run with the trace's others in order.
    Trace {
        /// The directory.
        dir: PathBuf,
        /// The kernel's position in its `kernelslist.g`.
        kernel: usize,
    },
}

/// A mix file's launches, read and checked.
pub struct Mix {
    name: String,
    launches: Vec<Launch>,
    /// Per launch: where it runs alone.
    alone: Vec<Alone>,
}

/// `path`'s line of byte offset `at` (1-based).
fn line_at(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

impl Mix {
    /// Test mixes: suite kernel `kernels[i].0` at size medium on stream `i`, arriving at cycle
    /// `kernels[i].1`.
    #[cfg(test)]
    pub(crate) fn medium(kernels: &[(&str, u64)]) -> Self {
        let text: String = kernels
            .iter()
            .enumerate()
            .map(|(i, (w, at))| {
                format!("[[kernel]]\nworkload = \"{w}\"\nsize = \"medium\"\nstream = {i}\narrival = {at}\n\n")
            })
            .collect();
        Self::parse(&text, Path::new("m.toml")).expect("a test mix parses")
    }

    /// Reads the mix file at `path` (its traces relative to its directory).
    pub fn open(path: &Path) -> Result<Self, WorkloadError> {
        let text = crate::input::read_text(path)
            .map_err(|e| WorkloadError::Invalid(format!("{}: {e}", path.display())))?;
        Self::parse(&text, path)
    }

    /// Reads mix `text` as the file `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Self, WorkloadError> {
        let file = path.display().to_string();
        let err = |at: usize, what: String| {
            WorkloadError::Invalid(format!("{file}:{}: {what}", line_at(text, at)))
        };
        let mix: MixFile = toml::from_str(text).map_err(|e| {
            let at = e.span().map_or(0, |s| s.start);
            err(at, e.message().to_string())
        })?;
        if mix.kernel.is_empty() {
            return Err(err(
                0,
                "no [[kernel]] entry: a mix names at least one kernel".into(),
            ));
        }
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let mut launches = vec![];
        let mut alone = vec![];
        // Per stream: the last explicit arrival and where it was written.
        let mut last_at: BTreeMap<u32, (u64, usize)> = BTreeMap::new();
        for entry in &mix.kernel {
            let at = entry.span().start;
            let e = entry.get_ref();
            let ctx = Ctx {
                text,
                file: &file,
                at,
                err: &err,
            };
            let (entry_launches, entry_alone) = ctx.entry(e, &dir)?;
            alone.extend(entry_alone);
            for l in entry_launches {
                if let Arrival::At(c) = l.arrival {
                    if let Some(&(prev, line)) = last_at.get(&l.stream) {
                        if c < prev {
                            let field = e.arrival.as_ref().map_or(at, |a| a.span().start);
                            return Err(err(
                                field,
                                format!(
                                    "arrival: {c} comes before the arrival {prev} of the \
                                     launch on line {line} of the same stream {} (kernels \
                                     of a stream run in order)",
                                    l.stream
                                ),
                            ));
                        }
                    }
                    let field = e.arrival.as_ref().map_or(at, |a| a.span().start);
                    last_at.insert(l.stream, (c, line_at(text, field)));
                }
                launches.push(l);
            }
        }
        if launches
            .iter()
            .all(|l| l.period.is_some() && l.count.is_none())
        {
            return Err(err(
                0,
                "every launch is periodic without a count: the mix would never end (give one \
                 a count, or add a launch that is not periodic)"
                    .into(),
            ));
        }
        let name = path
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.clone());
        Ok(Self {
            name,
            launches,
            alone,
        })
    }

    /// Per launch of the file (a periodic one once): where it runs alone.
    pub fn alone(&self) -> &[Alone] {
        &self.alone
    }
}

/// Reads one entry, its errors at its fields' lines.
struct Ctx<'t, E: Fn(usize, String) -> WorkloadError> {
    text: &'t str,
    /// The mix file, for the launches' origins.
    file: &'t str,
    /// Where the entry starts.
    at: usize,
    err: &'t E,
}

impl<E: Fn(usize, String) -> WorkloadError> Ctx<'_, E> {
    /// `field` as a whole number in `range` (its name for errors).
    fn number(
        &self,
        field: &Option<Spanned<i64>>,
        name: &str,
        range: std::ops::RangeInclusive<i64>,
        why: &str,
    ) -> Result<Option<u64>, WorkloadError> {
        let Some(f) = field else { return Ok(None) };
        let v = *f.get_ref();
        if !range.contains(&v) {
            return Err((self.err)(
                f.span().start,
                format!("{name}: {v} is out of range: {why}"),
            ));
        }
        Ok(Some(v as u64))
    }

    /// The launches of entry `e` (its traces relative to `dir`) and where each runs alone.
    fn entry(&self, e: &Entry, dir: &Path) -> Result<(Vec<Launch>, Vec<Alone>), WorkloadError> {
        let stream = self
            .number(&e.stream, "stream", 0..=u32::MAX as i64, "0 to 4294967295")?
            .map(|s| s as u32);
        let priority = self
            .number(
                &e.priority,
                "priority",
                0..=MAX_PRIORITY as i64,
                &format!("0 (lowest) to {MAX_PRIORITY}"),
            )?
            .unwrap_or(0) as u8;
        let period = self.number(&e.period, "period", 1..=i64::MAX, "at least 1 cycle")?;
        let count = self.number(&e.count, "count", 1..=u32::MAX as i64, "at least 1")?;
        if let (Some(c), None) = (&e.count, period) {
            return Err((self.err)(
                c.span().start,
                "count: needs a period (the instances of a periodic launch)".into(),
            ));
        }
        let deadline = self.number(
            &e.deadline,
            "deadline",
            1..=i64::MAX,
            "at least 1 cycle (a deadline of 0 is shorter than any kernel's launch)",
        )?;
        let arrival = match &e.arrival {
            None => Arrival::AfterPrevious,
            Some(a) => match a.get_ref() {
                ArrivalField::At(c) if *c >= 0 => Arrival::At(*c as u64),
                ArrivalField::Word(w) if w == "after" => Arrival::AfterPrevious,
                ArrivalField::At(c) => {
                    return Err((self.err)(
                        a.span().start,
                        format!("arrival: {c} is negative (a core cycle, or \"after\")"),
                    ))
                }
                ArrivalField::Word(w) => {
                    return Err((self.err)(
                        a.span().start,
                        format!("arrival: expected a core cycle or \"after\", got \"{w}\""),
                    ))
                }
            },
        };
        if period.is_some() && arrival == Arrival::AfterPrevious {
            let at = e.period.as_ref().map_or(self.at, |p| p.span().start);
            return Err((self.err)(
                at,
                "period: a periodic launch needs an arrival cycle (its first instance)".into(),
            ));
        }
        let origin = |what: &str| format!("{}:{} ({what})", self.file, line_at(self.text, self.at));
        let mut alone = vec![];
        let mut launches: Vec<Launch> = match (&e.workload, &e.trace) {
            (Some(w), None) => {
                let size = e
                    .size
                    .as_ref()
                    .map_or("small".to_string(), |s| s.get_ref().clone());
                let (name, at) = (w.get_ref().clone(), w.span().start);
                let size_at = e.size.as_ref().map_or(at, |s| s.span().start);
                let mut probe = super::open_named(&name, &size).map_err(|err| {
                    let at = if err.to_string().contains("size") {
                        size_at
                    } else {
                        at
                    };
                    (self.err)(at, format!("workload: {err}"))
                })?;
                let first = probe
                    .next_kernel()?
                    .ok_or_else(|| (self.err)(at, format!("workload: `{name}` has no kernel")))?;
                if probe.next_kernel()?.is_some() {
                    let why = format!(
                        "a mix entry launches one kernel; `{name}` at `{size}` is a launch \
                         sequence (export it with `gpusched trace export` and name the directory \
                         as `trace`)"
                    );
                    return Err((self.err)(size_at, format!("size: {why}")));
                }
                let info = first.info().clone();
                let mut first = Some(first);
                alone.push(Alone::Named {
                    name: name.clone(),
                    size: size.clone(),
                });
                vec![Launch {
                    info,
                    origin: origin(&format!("{name} {size}")),
                    stream: 0,
                    arrival,
                    priority,
                    period,
                    count: count.map(|c| c as u32),
                    deadline,
                    open: Box::new(move || -> Result<Box<dyn KernelSource>, WorkloadError> {
                        if let Some(k) = first.take() {
                            return Ok(k);
                        }
                        super::open_named(&name, &size)?
                            .next_kernel()?
                            .ok_or_else(|| {
                                WorkloadError::Invalid(format!("`{name}` has no kernel"))
                            })
                    }),
                }]
            }
            (None, Some(t)) => {
                if e.size.is_some() {
                    let at = e.size.as_ref().map_or(self.at, |s| s.span().start);
                    return Err((self.err)(at, "size: a trace has its own size".into()));
                }
                let d: PathBuf = dir.join(t.get_ref());
                let mut w = TraceWorkload::open(&d)
                    .map_err(|err| (self.err)(t.span().start, format!("trace: {err}")))?;
                let mut v = w
                    .launches()
                    .map_err(|err| (self.err)(t.span().start, format!("trace: {err}")))?;
                for (k, l) in v.iter_mut().enumerate() {
                    alone.push(Alone::Trace {
                        dir: d.clone(),
                        kernel: k,
                    });
                    l.origin = origin(&l.origin);
                    l.arrival = arrival;
                    l.priority = priority;
                    l.period = period;
                    l.count = count.map(|c| c as u32);
                    l.deadline = deadline;
                }
                v
            }
            (Some(w), Some(_)) => {
                return Err((self.err)(
                    w.span().start,
                    "workload and trace: an entry names one kernel source, not both".into(),
                ))
            }
            (None, None) => {
                return Err((self.err)(
                    self.at,
                    "an entry needs `workload` (a suite or built-in kernel) or `trace` (a \
                     trace directory)"
                        .into(),
                ))
            }
        };
        if let Some(s) = stream {
            for l in &mut launches {
                l.stream = s;
            }
        }
        Ok((launches, alone))
    }
}

impl WorkloadSource for Mix {
    fn name(&self) -> &str {
        &self.name
    }

    fn next_kernel(&mut self) -> Result<Option<Box<dyn KernelSource>>, WorkloadError> {
        if self.launches.is_empty() {
            return Ok(None);
        }
        let mut l = self.launches.remove(0);
        (l.open)().map(Some)
    }

    fn launches(&mut self) -> Result<Vec<Launch>, WorkloadError> {
        Ok(std::mem::take(&mut self.launches))
    }
}

#[cfg(test)]
mod tests;
