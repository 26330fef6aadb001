//! A golden model and its Verilated RTL stepped together and compared every cycle.
//!
//! On the first cycle whose outputs differ, the pair stops and reports the cycle, the first
//! differing port, the expected (golden) and actual (RTL) values and the inputs of that cycle,
//! and writes `<name>.golden.vcd` and `<name>.rtl.vcd` covering the `window` cycles up to and
//! including the mismatch. To have those cycles without tracing the whole run, the pair keeps a
//! second golden model and a second RTL instance `window` cycles behind, fed from a ring of the
//! recent inputs; on a mismatch they are traced while the ring is replayed into them.

use crate::rtl::RtlBlock;
use crate::vcd_out::GoldenVcd;
use crate::TbError;
use gpusim::block::{Block, Inspect, PortBundle, PortSpec};
use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};

/// Waveform options of a lockstep pair.
#[derive(Clone, Debug)]
pub struct LockstepConfig {
    /// Cycles of history written on a mismatch (0: no mismatch waveforms, no lagging copies).
    pub window: usize,
    /// Where the mismatch waveforms go.
    pub mismatch_dir: PathBuf,
    /// When set, both models are traced for the whole run into this directory instead.
    pub vcd_dir: Option<PathBuf>,
}

impl Default for LockstepConfig {
    fn default() -> Self {
        Self { window: 64, mismatch_dir: PathBuf::from("mismatch"), vcd_dir: None }
    }
}

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
        let ins: Vec<String> = self.inputs.iter().map(|(n, v)| format!("{n}={v:#x}")).collect();
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

struct Lagging<G: Block> {
    golden: G,
    rtl: Rtl<G>,
    ring: VecDeque<G::In>,
}

/// A golden model and its RTL in lockstep.
pub struct Lockstep<G: Block + Inspect + Clone> {
    name: String,
    golden: G,
    rtl: Rtl<G>,
    lag: Option<Lagging<G>>,
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
            whole = Some(GoldenVcd::create(&path, name, &ports, &golden.state_specs())?);
        }
        let lag = if cfg.window > 0 && cfg.vcd_dir.is_none() {
            Some(Lagging {
                golden: golden.clone(),
                rtl: RtlBlock::new(module, params)?,
                ring: VecDeque::with_capacity(cfg.window + 1),
            })
        } else {
            None
        };
        Ok(Self {
            name: name.into(),
            golden,
            rtl,
            lag,
            cfg,
            whole,
            ports,
            cycle: 0,
            buf: vec![0; <G::In as PortBundle>::COUNT + <G::Out as PortBundle>::COUNT],
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
        if let Some(lag) = &mut self.lag {
            lag.ring.push_back(inp.clone());
            if lag.ring.len() > self.cfg.window {
                let old = lag.ring.pop_front().expect("ring is not empty");
                lag.golden.step(&old);
                lag.rtl.step(&old);
            }
        }
        if expected != got {
            return Err(StepError::Mismatch(Box::new(self.mismatch(inp, &expected, &got)?)));
        }
        self.cycle += 1;
        Ok(expected)
    }

    /// Flushes whole-run waveforms (if any) and returns their paths (golden, rtl).
    pub fn finish(mut self) -> Result<Option<(PathBuf, PathBuf)>, TbError> {
        self.rtl.trace_close();
        match (self.whole.take(), &self.cfg.vcd_dir) {
            (Some(w), Some(dir)) => Ok(Some((w.finish()?, dir.join(format!("{}.rtl.vcd", self.name))))),
            _ => Ok(None),
        }
    }

    fn mismatch(&mut self, inp: &G::In, expected: &G::Out, got: &G::Out) -> Result<Mismatch, TbError> {
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
            outputs: (0..nout).map(|k| (out_specs[k].name.clone(), ew[k], gw[k])).collect(),
            inputs: (0..nin).map(|k| (self.ports[k].name.clone(), iw[k])).collect(),
            golden_vcd: None,
            rtl_vcd: None,
        };
        if let Some(w) = &mut self.whole {
            // The whole-run traces already hold this cycle.
            record(w, self.cycle, inp, expected, &self.state, &mut self.buf)?;
            let dir = self.cfg.vcd_dir.as_ref().expect("whole-run tracing has a dir");
            m.golden_vcd = Some(dir.join(format!("{}.golden.vcd", self.name)));
            m.rtl_vcd = Some(dir.join(format!("{}.rtl.vcd", self.name)));
        } else if let Some(lag) = &mut self.lag {
            let (g, r) = replay(&self.name, lag, &self.cfg.mismatch_dir, &self.ports, &mut self.buf)?;
            m.golden_vcd = Some(g);
            m.rtl_vcd = Some(r);
        }
        Ok(m)
    }
}

fn create_dir(dir: &Path) -> Result<(), TbError> {
    std::fs::create_dir_all(dir).map_err(|source| TbError::Io { path: dir.to_path_buf(), source })
}

fn record<I: PortBundle, O: PortBundle>(
    w: &mut GoldenVcd,
    cycle: u64,
    inp: &I,
    out: &O,
    state: &[u64],
    buf: &mut Vec<u64>,
) -> Result<(), TbError> {
    buf.resize(I::COUNT + O::COUNT, 0);
    inp.to_words(&mut buf[..I::COUNT]);
    out.to_words(&mut buf[I::COUNT..I::COUNT + O::COUNT]);
    buf.truncate(I::COUNT + O::COUNT);
    buf.extend_from_slice(state);
    w.cycle(cycle, buf)
}

/// Replays the ring into the lagging pair with both traced; returns (golden, rtl) VCD paths.
fn replay<G: Block + Inspect + Clone>(
    name: &str,
    lag: &mut Lagging<G>,
    dir: &Path,
    ports: &[PortSpec],
    buf: &mut Vec<u64>,
) -> Result<(PathBuf, PathBuf), TbError> {
    create_dir(dir)?;
    let gpath = dir.join(format!("{name}.golden.vcd"));
    let rpath = dir.join(format!("{name}.rtl.vcd"));
    let mut gv = GoldenVcd::create(&gpath, name, ports, &lag.golden.state_specs())?;
    lag.rtl.trace_open(&rpath)?;
    let mut state = vec![];
    for inp in lag.ring.drain(..) {
        let cycle = lag.rtl.cycle();
        lag.golden.state_values(&mut state);
        let out = lag.golden.step(&inp);
        lag.rtl.step(&inp);
        record(&mut gv, cycle, &inp, &out, &state, buf)?;
    }
    lag.rtl.trace_close();
    Ok((gv.finish()?, rpath))
}
