//! A golden model and its Verilated RTL stepped together on one thread and compared every
//! cycle: the engine under [`crate::batch`] (which runs the RTL on a second thread) and the
//! whole-run waveform mode.
//!
//! On the first cycle whose outputs differ, the pair stops and reports the cycle, the first
//! differing port, the expected (golden) and actual (RTL) values and the inputs of that cycle.
//!
//! Waveforms are written either for the whole run (`vcd_dir`), or, after a mismatch, by a
//! pair *resumed* from a snapshot ([`Lockstep::resume`]: a clone of the golden model and the
//! saved RTL state at an earlier cycle), which traces the `window` cycles up to and including
//! the mismatch into `<name>.golden.vcd` and `<name>.rtl.vcd`. Waveforms thus cost nothing
//! while golden and RTL agree. Beside them, [`crate::pair`] writes `<name>.pair.vcd` (both
//! under one root) and `<name>.gtkw`, which opens it in GTKWave with every port golden over RTL
//! and the cursor on the mismatch.

use crate::pair::{write_pair, PairFiles, PairView};
use crate::rtl::{RtlBlock, Snapshot};
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
    /// Cycles between two snapshots of a pair (golden clone and saved RTL state), at least
    /// `window`: writing the waveforms of a mismatch replays at most this many cycles plus the
    /// window. Each pair keeps two snapshots and the input words since the older one
    /// (at most 2 x interval x input words x 8 bytes).
    pub snapshot_interval: u64,
    /// RTL threads of a GPU lockstep run (0: one per core); instances of one module are
    /// spread evenly over them. `cosim` uses one.
    pub rtl_threads: usize,
    /// X randomisation of the RTL's registers that the reset does not set: 0 starts them at 0,
    /// another seed at random values of it ([`RtlBlock::with_x_seed`]).
    pub x_seed: u64,
}

/// Default [`LockstepConfig::snapshot_interval`], cycles.
pub const SNAPSHOT_INTERVAL: u64 = 1 << 14;

impl Default for LockstepConfig {
    fn default() -> Self {
        Self {
            window: 64,
            mismatch_dir: PathBuf::from("mismatch"),
            vcd_dir: None,
            snapshot_interval: SNAPSHOT_INTERVAL,
            rtl_threads: 0,
            x_seed: 0,
        }
    }
}

impl LockstepConfig {
    /// The snapshot interval in force: [`LockstepConfig::snapshot_interval`], at least the
    /// window and 1.
    pub fn interval(&self) -> u64 {
        self.snapshot_interval.max(self.window as u64).max(1)
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
    /// The snapshot cycle the pair was resumed from to describe the mismatch and write its
    /// waveforms (cycles replayed: `cycle + 1 - resumed_from`), when it was.
    pub resumed_from: Option<u64>,
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
        if let Some(s) = self.resumed_from {
            writeln!(
                f,
                "  (replayed {} cycles from the snapshot at cycle {s})",
                self.cycle + 1 - s
            )?;
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
    /// The snapshot cycle a resumed pair started from.
    resumed_from: Option<u64>,
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
    /// Pairs `golden` (reset here) with a fresh instance of Verilated module `module`, traced
    /// for the whole run when `cfg.vcd_dir` is set. `name` prefixes the waveform files.
    pub fn new(
        name: &str,
        mut golden: G,
        module: &str,
        params: &<G::In as PortBundle>::Params,
        cfg: &LockstepConfig,
    ) -> Result<Self, TbError> {
        golden.reset();
        let rtl = RtlBlock::with_x_seed(module, params, cfg.x_seed)?;
        let whole_run = cfg.vcd_dir.clone();
        let mut pair = Self::build(name, golden, rtl, params, cfg.clone());
        if let Some(dir) = whole_run {
            pair.open_traces(&dir)?;
        }
        Ok(pair)
    }

    /// A pair resumed from a snapshot, to describe a mismatch at `mismatch_cycle` and write its
    /// waveforms: `golden` in its state at the start of cycle `rtl.cycle`, the RTL restored
    /// from `rtl`. Driven with the inputs recorded from that cycle on, it stops at the same
    /// mismatch, having traced the last `cfg.window` cycles up to it into `cfg.mismatch_dir`
    /// (none when the window is 0).
    pub fn resume(
        name: &str,
        golden: G,
        rtl: &Snapshot,
        params: &<G::In as PortBundle>::Params,
        cfg: &LockstepConfig,
        mismatch_cycle: u64,
    ) -> Result<Self, TbError> {
        let mut model = RtlBlock::new(rtl.module(), params)?;
        model.restore(rtl);
        let cfg = LockstepConfig {
            vcd_dir: None,
            ..cfg.clone()
        };
        let window = cfg.window as u64;
        let mut pair = Self::build(name, golden, model, params, cfg);
        pair.cycle = rtl.cycle;
        pair.resumed_from = Some(rtl.cycle);
        if window > 0 {
            pair.trace_from = Some((mismatch_cycle + 1).saturating_sub(window).max(rtl.cycle));
        }
        Ok(pair)
    }

    fn build(
        name: &str,
        golden: G,
        rtl: Rtl<G>,
        params: &<G::In as PortBundle>::Params,
        cfg: LockstepConfig,
    ) -> Self {
        let mut ports = <G::In as PortBundle>::specs(params);
        let inputs = ports.len();
        ports.extend(<G::Out as PortBundle>::specs(params));
        Self {
            name: name.into(),
            module: rtl.name().into(),
            golden,
            rtl,
            trace_from: None,
            resumed_from: None,
            cfg,
            golden_vcd: None,
            params: params.clone(),
            ports,
            inputs,
            cycle: 0,
            buf: vec![],
            state: vec![],
        }
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
        // Both close, whichever fails.
        let rtl_closed = self.rtl.trace_close();
        let golden = self.golden_vcd.take().map(|w| w.finish()).transpose()?;
        rtl_closed?;
        let rtl = self.trace_dir().join(format!("{}.rtl.vcd", self.name));
        Ok(golden.map(|g| (g, rtl)))
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
        let (golden_vcd, rtl_vcd) = match self.close_traces()? {
            Some((g, r)) => (Some(g), Some(r)),
            None => (None, None),
        };
        describe(MismatchData {
            name: &self.name,
            rtl_scope: &self.module,
            cycle: self.cycle,
            in_specs,
            out_specs,
            inputs: iw,
            expected: ew,
            got: gw,
            waveforms: golden_vcd.zip(rtl_vcd),
            resumed_from: self.resumed_from,
        })
    }
}

/// What a mismatch report is made of: the cycle's port values and the waveforms written.
pub(crate) struct MismatchData<'a> {
    /// The pair's name (the golden waveform's port scope).
    pub name: &'a str,
    /// The port scope of the RTL waveform.
    pub rtl_scope: &'a str,
    /// Cycle of the divergence.
    pub cycle: u64,
    /// Input ports.
    pub in_specs: &'a [PortSpec],
    /// Output ports.
    pub out_specs: &'a [PortSpec],
    /// Input values of that cycle.
    pub inputs: Vec<u128>,
    /// Golden output values.
    pub expected: Vec<u128>,
    /// RTL output values.
    pub got: Vec<u128>,
    /// (golden, rtl) waveforms, if written: the pair file and the GTKWave save file are made
    /// from them.
    pub waveforms: Option<(PathBuf, PathBuf)>,
    /// The snapshot cycle the pair was resumed from, if it was.
    pub resumed_from: Option<u64>,
}

/// The [`Mismatch`] of `d`, with the pair waveform and the GTKWave save file written when both
/// waveforms are there.
pub(crate) fn describe(d: MismatchData) -> Result<Mismatch, TbError> {
    let (ew, gw, out_specs) = (&d.expected, &d.got, d.out_specs);
    let nout = out_specs.len();
    let k = (0..nout).find(|&k| ew[k] != gw[k]).expect("outputs differ");
    let names = |specs: &[PortSpec]| specs.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    let (outputs, inputs) = (names(out_specs), names(d.in_specs));
    let differing: Vec<String> = (0..nout)
        .filter(|&k| ew[k] != gw[k])
        .map(|k| out_specs[k].name.clone())
        .collect();
    let pair = match &d.waveforms {
        Some((g, r)) => Some(write_pair(
            g,
            r,
            &PairView {
                golden_scope: d.name,
                rtl_scope: d.rtl_scope,
                cycle: d.cycle,
                outputs: &outputs,
                inputs: &inputs,
                differing: &differing,
            },
        )?),
        None => None,
    };
    let (golden_vcd, rtl_vcd) = d.waveforms.clone().unzip();
    Ok(Mismatch {
        name: d.name.into(),
        cycle: d.cycle,
        port: out_specs[k].name.clone(),
        expected: ew[k],
        got: gw[k],
        outputs: (0..nout)
            .map(|k| (out_specs[k].name.clone(), ew[k], gw[k]))
            .collect(),
        inputs: d
            .in_specs
            .iter()
            .zip(d.inputs)
            .map(|(s, v)| (s.name.clone(), v))
            .collect(),
        golden_vcd,
        rtl_vcd,
        pair,
        resumed_from: d.resumed_from,
    })
}

pub(crate) fn create_dir(dir: &Path) -> Result<(), TbError> {
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
