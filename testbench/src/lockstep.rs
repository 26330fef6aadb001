//! A golden model and its Verilated RTL stepped together and compared every cycle.
//!
//! On the first cycle whose outputs differ, the pair stops and reports the cycle, the first
//! differing port, the expected (golden) and actual (RTL) values and the inputs of that cycle.
//!
//! The lockstep runs the fast (untraced) Verilated model. Waveforms come from the traced
//! model: either for the whole run (`vcd_dir`), or, after a mismatch, from a *replay*: the
//! driver runs the same deterministic stimulus again through [`Lockstep::replay`], which traces
//! the `window` cycles up to and including the mismatch into `<name>.golden.vcd` and
//! `<name>.rtl.vcd`. Waveforms thus cost nothing while golden and RTL agree. Beside them,
//! [`crate::pair`] writes `<name>.pair.vcd` (both under one root) and `<name>.gtkw`, which
//! opens it in GTKWave with every port golden over RTL and the cursor on the mismatch.

use crate::pair::{write_pair, PairFiles, PairView};
use crate::rtl::RtlBlock;
use crate::vcd_out::GoldenVcd;
use crate::TbError;
use gpusim::block::{port_values, word_count, Block, Inspect, PortBundle, PortSpec};
use std::fmt;
use std::path::{Path, PathBuf};

/// Waveform options of a lockstep pair.
#[derive(Clone, Debug)]
pub struct LockstepConfig {
    /// Cycles written to the waveforms of a mismatch (0: no mismatch waveforms, no replay).
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
    pub expected: u128,
    /// RTL value.
    pub got: u128,
    /// Every output port as (name, golden, rtl).
    pub outputs: Vec<(String, u128, u128)>,
    /// Inputs of that cycle as (name, value).
    pub inputs: Vec<(String, u128)>,
    /// Golden waveform, if written.
    pub golden_vcd: Option<PathBuf>,
    /// RTL waveform, if written.
    pub rtl_vcd: Option<PathBuf>,
    /// Both waveforms in one file and the GTKWave save file that opens it, if written.
    pub pair: Option<PairFiles>,
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
        if let Some(p) = &self.pair {
            writeln!(f, "  view both: gtkwave {}", p.gtkw.display())?;
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

impl std::error::Error for StepError {}

impl From<TbError> for StepError {
    fn from(e: TbError) -> Self {
        StepError::Tb(e)
    }
}

type Rtl<G> = RtlBlock<<G as Block>::In, <G as Block>::Out>;

/// A golden model and its RTL in lockstep.
pub struct Lockstep<G: Block + Inspect + Clone> {
    name: String,
    /// The Verilated module (the port scope of the RTL waveform).
    module: String,
    golden: G,
    rtl: Rtl<G>,
    /// Replay mode: the cycle from which both models are traced into `mismatch_dir`.
    trace_from: Option<u64>,
    cfg: LockstepConfig,
    /// The open golden waveform, if any (the RTL one is open at the same time).
    golden_vcd: Option<GoldenVcd>,
    params: <G::In as PortBundle>::Params,
    /// Input ports, then output ports.
    ports: Vec<PortSpec>,
    inputs: usize,
    cycle: u64,
    buf: Vec<u64>,
    state: Vec<u64>,
}

impl<G> Lockstep<G>
where
    G: Block + Inspect + Clone,
    G::Out: PortBundle<Params = <G::In as PortBundle>::Params>,
    <G::In as PortBundle>::Params: Clone,
{
    /// Pairs `golden` (reset here) with a fresh instance of Verilated module `module`: the
    /// fast model, or the traced one when `cfg.vcd_dir` asks for whole-run waveforms.
    /// `name` prefixes the waveform files.
    pub fn new(
        name: &str,
        golden: G,
        module: &str,
        params: &<G::In as PortBundle>::Params,
        cfg: &LockstepConfig,
    ) -> Result<Self, TbError> {
        Self::build(name, golden, module, params, cfg.clone(), None)
    }

    /// A pair for replaying a run that diverged at `mismatch_cycle`: traced model, waveforms
    /// of the last `cfg.window` cycles up to the mismatch written into `cfg.mismatch_dir`.
    /// Driven with the same inputs, it stops at the same cycle, with the waveforms named in
    /// its [`Mismatch`].
    pub fn replay(
        name: &str,
        golden: G,
        module: &str,
        params: &<G::In as PortBundle>::Params,
        cfg: &LockstepConfig,
        mismatch_cycle: u64,
    ) -> Result<Self, TbError> {
        let from = (mismatch_cycle + 1).saturating_sub(cfg.window.max(1) as u64);
        let cfg = LockstepConfig {
            vcd_dir: None,
            ..cfg.clone()
        };
        Self::build(name, golden, module, params, cfg, Some(from))
    }

    fn build(
        name: &str,
        mut golden: G,
        module: &str,
        params: &<G::In as PortBundle>::Params,
        cfg: LockstepConfig,
        trace_from: Option<u64>,
    ) -> Result<Self, TbError> {
        golden.reset();
        let traced = cfg.vcd_dir.is_some() || trace_from.is_some();
        let rtl = if traced {
            RtlBlock::traced(module, params)?
        } else {
            RtlBlock::new(module, params)?
        };
        let mut ports = <G::In as PortBundle>::specs(params);
        let inputs = ports.len();
        ports.extend(<G::Out as PortBundle>::specs(params));
        let whole_run = cfg.vcd_dir.clone();
        let mut pair = Self {
            name: name.into(),
            module: module.into(),
            golden,
            rtl,
            trace_from,
            cfg,
            golden_vcd: None,
            params: params.clone(),
            ports,
            inputs,
            cycle: 0,
            buf: vec![],
            state: vec![],
        };
        if let Some(dir) = whole_run {
            pair.open_traces(&dir)?;
        }
        Ok(pair)
    }

    fn trace_dir(&self) -> &Path {
        self.cfg
            .vcd_dir
            .as_deref()
            .unwrap_or(&self.cfg.mismatch_dir)
    }

    fn open_traces(&mut self, dir: &Path) -> Result<(), TbError> {
        create_dir(dir)?;
        self.rtl
            .trace_open(&dir.join(format!("{}.rtl.vcd", self.name)))?;
        let path = dir.join(format!("{}.golden.vcd", self.name));
        let specs = self.golden.state_specs();
        self.golden_vcd = Some(GoldenVcd::create(&path, &self.name, &self.ports, &specs)?);
        Ok(())
    }

    /// Closes both waveforms, if open, and returns their paths (golden, rtl).
    fn close_traces(&mut self) -> Result<Option<(PathBuf, PathBuf)>, TbError> {
        self.rtl.trace_close();
        let rtl = self.trace_dir().join(format!("{}.rtl.vcd", self.name));
        match self.golden_vcd.take() {
            Some(w) => Ok(Some((w.finish()?, rtl))),
            None => Ok(None),
        }
    }

    /// Cycles compared so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// One cycle of both models; the golden outputs on agreement.
    pub fn step(&mut self, inp: &G::In) -> Result<G::Out, StepError> {
        if self.trace_from == Some(self.cycle) {
            let dir = self.cfg.mismatch_dir.clone();
            self.open_traces(&dir)?;
        }
        if self.golden_vcd.is_some() {
            self.golden.state_values(&mut self.state);
        }
        let expected = self.golden.step(inp);
        let got = self.rtl.step(inp);
        if let Some(w) = &mut self.golden_vcd {
            record(
                w,
                self.cycle,
                (&self.params, &self.ports),
                inp,
                &expected,
                &self.state,
                &mut self.buf,
            )?;
        }
        if expected != got {
            return Err(StepError::Mismatch(Box::new(
                self.mismatch(inp, &expected, &got)?,
            )));
        }
        self.cycle += 1;
        Ok(expected)
    }

    /// Flushes the waveforms (if any) and returns their paths (golden, rtl).
    pub fn finish(mut self) -> Result<Option<(PathBuf, PathBuf)>, TbError> {
        self.close_traces()
    }

    fn mismatch(
        &mut self,
        inp: &G::In,
        expected: &G::Out,
        got: &G::Out,
    ) -> Result<Mismatch, TbError> {
        let ports = self.ports.clone();
        let (in_specs, out_specs) = ports.split_at(self.inputs);
        let words = |specs: &[PortSpec], put: &dyn Fn(&mut [u64])| {
            let mut w = vec![0; word_count(specs)];
            put(&mut w);
            port_values(specs, &w)
        };
        let iw = words(in_specs, &|w| inp.to_words(&self.params, w));
        let ew = words(out_specs, &|w| expected.to_words(&self.params, w));
        let gw = words(out_specs, &|w| got.to_words(&self.params, w));
        let nout = out_specs.len();
        let (golden_vcd, rtl_vcd) = match self.close_traces()? {
            Some((g, r)) => (Some(g), Some(r)),
            None => (None, None),
        };
        let k = (0..nout).find(|&k| ew[k] != gw[k]).expect("outputs differ");
        let names = |specs: &[PortSpec]| specs.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
        let (outputs, inputs) = (names(out_specs), names(in_specs));
        let differing: Vec<String> = (0..nout)
            .filter(|&k| ew[k] != gw[k])
            .map(|k| out_specs[k].name.clone())
            .collect();
        let pair = match (&golden_vcd, &rtl_vcd) {
            (Some(g), Some(r)) => Some(write_pair(
                g,
                r,
                &PairView {
                    golden_scope: &self.name,
                    rtl_scope: &self.module,
                    cycle: self.cycle,
                    outputs: &outputs,
                    inputs: &inputs,
                    differing: &differing,
                },
            )?),
            _ => None,
        };
        Ok(Mismatch {
            name: self.name.clone(),
            cycle: self.cycle,
            port: out_specs[k].name.clone(),
            expected: ew[k],
            got: gw[k],
            outputs: (0..nout)
                .map(|k| (out_specs[k].name.clone(), ew[k], gw[k]))
                .collect(),
            inputs: in_specs
                .iter()
                .zip(iw)
                .map(|(s, v)| (s.name.clone(), v))
                .collect(),
            golden_vcd,
            rtl_vcd,
            pair,
        })
    }
}

fn create_dir(dir: &Path) -> Result<(), TbError> {
    if dir.exists() && !dir.is_dir() {
        return Err(TbError::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "exists and is not a directory (waveforms need a directory)",
            ),
        });
    }
    std::fs::create_dir_all(dir).map_err(|source| TbError::Io {
        path: dir.to_path_buf(),
        source,
    })
}

fn record<I: PortBundle, O: PortBundle<Params = I::Params>>(
    w: &mut GoldenVcd,
    cycle: u64,
    (params, ports): (&I::Params, &[PortSpec]),
    inp: &I,
    out: &O,
    state: &[u64],
    buf: &mut Vec<u64>,
) -> Result<(), TbError> {
    let nin = word_count(&I::specs(params));
    buf.clear();
    buf.resize(word_count(ports), 0);
    inp.to_words(params, &mut buf[..nin]);
    out.to_words(params, &mut buf[nin..]);
    let mut values = port_values(ports, buf);
    values.extend(state.iter().map(|&v| v as u128));
    w.cycle(cycle, &values)
}
