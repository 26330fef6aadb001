//! A golden model and its Verilated RTL stepped together and compared every cycle.
//!
//! On the first cycle whose outputs differ, the pair stops and reports the cycle, the first
//! differing port, the expected (golden) and actual (RTL) values and the inputs of that cycle,
//! and writes `<name>.golden.vcd` and `<name>.rtl.vcd` covering the `window` cycles up to and
//! including the mismatch.
//!
//! Those waveforms cost nothing while the models agree: every `interval` cycles the pair takes
//! a checkpoint (a clone of the golden model and an in-memory snapshot of the Verilated model)
//! and keeps the inputs since the older of its two latest checkpoints. On a mismatch both models
//! are restored to a checkpoint at least `window` cycles back and the inputs are replayed with
//! tracing switched on for the last `window` cycles.

use crate::rtl::{RtlBlock, RtlSnapshot};
use crate::vcd_out::GoldenVcd;
use crate::TbError;
use gpusim::block::{Block, Inspect, PortBundle, PortSpec};
use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};

/// Waveform options of a lockstep pair.
#[derive(Clone, Debug)]
pub struct LockstepConfig {
    /// Cycles of history written on a mismatch (0: no mismatch waveforms, no checkpoints).
    pub window: usize,
    /// Where the mismatch waveforms go.
    pub mismatch_dir: PathBuf,
    /// When set, both models are traced for the whole run into this directory instead.
    pub vcd_dir: Option<PathBuf>,
}

impl Default for LockstepConfig {
    fn default() -> Self {
        Self {
            window: 64,
            mismatch_dir: PathBuf::from("mismatch"),
            vcd_dir: None,
        }
    }
}

/// Cycles between two checkpoints (at least the window).
pub const CHECKPOINT_INTERVAL: u64 = 4096;

/// The first divergence between golden and RTL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Name of the pair (file prefix of the waveforms).
    pub name: String,
    /// Cycle of the divergence, counted from reset (0 = first cycle after reset).
    pub cycle: u64,
    /// First output port that differs.
    pub port: String,
    /// Golden value.
    pub expected: u64,
    /// RTL value.
    pub got: u64,
    /// Every output port as (name, golden, rtl).
    pub outputs: Vec<(String, u64, u64)>,
    /// Inputs of that cycle as (name, value).
    pub inputs: Vec<(String, u64)>,
    /// Golden waveform, if written.
    pub golden_vcd: Option<PathBuf>,
    /// RTL waveform, if written.
    pub rtl_vcd: Option<PathBuf>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: mismatch at cycle {} on port `{}`: expected {:#x} (golden), got {:#x} (rtl)",
            self.name, self.cycle, self.port, self.expected, self.got
        )?;
        let ins: Vec<String> = self
            .inputs
            .iter()
            .map(|(n, v)| format!("{n}={v:#x}"))
            .collect();
        writeln!(f, "  inputs:  {}", ins.join(" "))?;
        for (n, g, r) in &self.outputs {
            let mark = if g != r { "  <-- differs" } else { "" };
            writeln!(f, "  output {n}: golden {g:#x} rtl {r:#x}{mark}")?;
        }
        if let (Some(g), Some(r)) = (&self.golden_vcd, &self.rtl_vcd) {
            writeln!(f, "  waveforms: {} {}", g.display(), r.display())?;
        }
        Ok(())
    }
}

/// Failure of a lockstep step.
#[derive(Debug)]
pub enum StepError {
    /// Golden and RTL disagree.
    Mismatch(Box<Mismatch>),
    /// The waveforms could not be written.
    Tb(TbError),
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Mismatch(m) => write!(f, "{m}"),
            StepError::Tb(e) => write!(f, "{e}"),
        }
    }
}

impl From<TbError> for StepError {
    fn from(e: TbError) -> Self {
        StepError::Tb(e)
    }
}

type Rtl<G> = RtlBlock<<G as Block>::In, <G as Block>::Out>;

struct Checkpoint<G> {
    cycle: u64,
    golden: G,
    rtl: RtlSnapshot,
}

/// Checkpoints and the inputs since the older one (`inputs[k]` is the input of cycle
/// `base + k`, `base` the cycle of the older checkpoint).
struct History<G: Block> {
    interval: u64,
    older: Option<Checkpoint<G>>,
    newer: Checkpoint<G>,
    inputs: VecDeque<G::In>,
}

impl<G: Block + Clone> History<G> {
    fn base(&self) -> u64 {
        self.older.as_ref().map_or(self.newer.cycle, |c| c.cycle)
    }

    /// Records the input of the cycle just stepped; `cycle` is the number of cycles done.
    fn push(&mut self, inp: &G::In, cycle: u64, golden: &G, rtl: &Rtl<G>) {
        self.inputs.push_back(inp.clone());
        if cycle.is_multiple_of(self.interval) {
            let base = self.base();
            let fresh = Checkpoint {
                cycle,
                golden: golden.clone(),
                rtl: rtl.snapshot(),
            };
            let old = std::mem::replace(&mut self.newer, fresh);
            let drop = (old.cycle - base) as usize;
            self.inputs.drain(..drop);
            self.older = Some(old);
        }
    }
}

/// A golden model and its RTL in lockstep.
pub struct Lockstep<G: Block + Inspect + Clone> {
    name: String,
    golden: G,
    rtl: Rtl<G>,
    history: Option<History<G>>,
    cfg: LockstepConfig,
    whole: Option<GoldenVcd>,
    ports: Vec<PortSpec>,
    cycle: u64,
    buf: Vec<u64>,
    state: Vec<u64>,
}

impl<G> Lockstep<G>
where
    G: Block + Inspect + Clone,
    G::Out: PortBundle<Params = <G::In as PortBundle>::Params>,
{
    /// Pairs `golden` (reset here) with a fresh instance of Verilated module `module`.
    /// `name` prefixes the waveform files.
    pub fn new(
        name: &str,
        mut golden: G,
        module: &str,
        params: &<G::In as PortBundle>::Params,
        cfg: LockstepConfig,
    ) -> Result<Self, TbError> {
        golden.reset();
        let mut rtl = RtlBlock::new(module, params)?;
        let mut ports = <G::In as PortBundle>::specs(params);
        ports.extend(<G::Out as PortBundle>::specs(params));
        let mut whole = None;
        if let Some(dir) = &cfg.vcd_dir {
            create_dir(dir)?;
            rtl.trace_open(&dir.join(format!("{name}.rtl.vcd")))?;
            let path = dir.join(format!("{name}.golden.vcd"));
            whole = Some(GoldenVcd::create(
                &path,
                name,
                &ports,
                &golden.state_specs(),
            )?);
        }
        let history = (cfg.window > 0 && cfg.vcd_dir.is_none()).then(|| History {
            interval: CHECKPOINT_INTERVAL.max(cfg.window as u64),
            older: None,
            newer: Checkpoint {
                cycle: 0,
                golden: golden.clone(),
                rtl: rtl.snapshot(),
            },
            inputs: VecDeque::new(),
        });
        Ok(Self {
            name: name.into(),
            golden,
            rtl,
            history,
            cfg,
            whole,
            ports,
            cycle: 0,
            buf: vec![],
            state: vec![],
        })
    }

    /// Cycles compared so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// One cycle of both models; the golden outputs on agreement.
    pub fn step(&mut self, inp: &G::In) -> Result<G::Out, StepError> {
        if self.whole.is_some() {
            self.golden.state_values(&mut self.state);
        }
        let expected = self.golden.step(inp);
        let got = self.rtl.step(inp);
        if let Some(w) = &mut self.whole {
            record(w, self.cycle, inp, &expected, &self.state, &mut self.buf)?;
        }
        if expected != got {
            return Err(StepError::Mismatch(Box::new(
                self.mismatch(inp, &expected, &got)?,
            )));
        }
        self.cycle += 1;
        if let Some(h) = &mut self.history {
            h.push(inp, self.cycle, &self.golden, &self.rtl);
        }
        Ok(expected)
    }

    /// Flushes whole-run waveforms (if any) and returns their paths (golden, rtl).
    pub fn finish(mut self) -> Result<Option<(PathBuf, PathBuf)>, TbError> {
        self.rtl.trace_close();
        match (self.whole.take(), &self.cfg.vcd_dir) {
            (Some(w), Some(dir)) => Ok(Some((
                w.finish()?,
                dir.join(format!("{}.rtl.vcd", self.name)),
            ))),
            _ => Ok(None),
        }
    }

    fn mismatch(
        &mut self,
        inp: &G::In,
        expected: &G::Out,
        got: &G::Out,
    ) -> Result<Mismatch, TbError> {
        let nin = <G::In as PortBundle>::COUNT;
        let nout = <G::Out as PortBundle>::COUNT;
        let (mut iw, mut ew, mut gw) = (vec![0; nin], vec![0; nout], vec![0; nout]);
        inp.to_words(&mut iw);
        expected.to_words(&mut ew);
        got.to_words(&mut gw);
        let out_specs = &self.ports[nin..];
        let k = (0..nout).find(|&k| ew[k] != gw[k]).expect("outputs differ");
        let mut m = Mismatch {
            name: self.name.clone(),
            cycle: self.cycle,
            port: out_specs[k].name.clone(),
            expected: ew[k],
            got: gw[k],
            outputs: (0..nout)
                .map(|k| (out_specs[k].name.clone(), ew[k], gw[k]))
                .collect(),
            inputs: (0..nin)
                .map(|k| (self.ports[k].name.clone(), iw[k]))
                .collect(),
            golden_vcd: None,
            rtl_vcd: None,
        };
        if self.whole.is_some() {
            let dir = self
                .cfg
                .vcd_dir
                .as_ref()
                .expect("whole-run tracing has a dir");
            m.golden_vcd = Some(dir.join(format!("{}.golden.vcd", self.name)));
            m.rtl_vcd = Some(dir.join(format!("{}.rtl.vcd", self.name)));
        } else if let Some(mut h) = self.history.take() {
            h.inputs.push_back(inp.clone());
            let (g, r) = self.replay(&h)?;
            m.golden_vcd = Some(g);
            m.rtl_vcd = Some(r);
        }
        Ok(m)
    }

    /// Restores the latest checkpoint at least `window` cycles before the mismatch and replays
    /// the recorded inputs up to and including the mismatch cycle, tracing the last `window`.
    fn replay(&mut self, h: &History<G>) -> Result<(PathBuf, PathBuf), TbError> {
        let window = self.cfg.window as u64;
        let first_traced = (self.cycle + 1).saturating_sub(window);
        let cp = match &h.older {
            Some(older) if h.newer.cycle > first_traced => older,
            _ => &h.newer,
        };
        let dir = self.cfg.mismatch_dir.clone();
        create_dir(&dir)?;
        let gpath = dir.join(format!("{}.golden.vcd", self.name));
        let rpath = dir.join(format!("{}.rtl.vcd", self.name));
        let mut golden = cp.golden.clone();
        self.rtl.restore(&cp.rtl);
        let mut gv = None;
        let base = h.base();
        for c in cp.cycle..=self.cycle {
            let inp = &h.inputs[(c - base) as usize];
            if c == first_traced.max(cp.cycle) {
                self.rtl.trace_open(&rpath)?;
                gv = Some(GoldenVcd::create(
                    &gpath,
                    &self.name,
                    &self.ports,
                    &golden.state_specs(),
                )?);
            }
            if let Some(w) = &mut gv {
                golden.state_values(&mut self.state);
                let out = golden.step(inp);
                self.rtl.step(inp);
                record(w, c, inp, &out, &self.state, &mut self.buf)?;
            } else {
                golden.step(inp);
                self.rtl.step(inp);
            }
        }
        self.rtl.trace_close();
        let gpath = gv.expect("the mismatch cycle is traced").finish()?;
        Ok((gpath, rpath))
    }
}

fn create_dir(dir: &Path) -> Result<(), TbError> {
    std::fs::create_dir_all(dir).map_err(|source| TbError::Io {
        path: dir.to_path_buf(),
        source,
    })
}

fn record<I: PortBundle, O: PortBundle>(
    w: &mut GoldenVcd,
    cycle: u64,
    inp: &I,
    out: &O,
    state: &[u64],
    buf: &mut Vec<u64>,
) -> Result<(), TbError> {
    buf.clear();
    buf.resize(I::COUNT + O::COUNT, 0);
    inp.to_words(&mut buf[..I::COUNT]);
    out.to_words(&mut buf[I::COUNT..]);
    buf.extend_from_slice(state);
    w.cycle(cycle, buf)
}
