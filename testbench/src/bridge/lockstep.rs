//! A block's golden model in lockstep with the block behind a host bridge: the same
//! constrained-random stimulus and comparison as `cosim`'s Verilator lockstep, one `C` command
//! per cycle.
//!
//! Waveforms: the bridge shows only ports, so the RTL waveform (`<name>.rtl.vcd`, scope the
//! module's name) holds the inputs sent and the outputs read back; the golden one its ports and
//! its state, as always. The last `window` cycles are kept in memory, so a mismatch's pair of
//! waveforms (with `<name>.pair.vcd` and `<name>.gtkw`) is written without a replay; with
//! `vcd_dir` both are written for the whole run.

use super::{bytes_to_chunks, chunks_to_bytes, BridgeClient, Serial, SimSerial, Target, TtySerial};
use crate::cosim::{resolve, CosimOptions, CosimReport, PROGRESS_EVERY};
use crate::lockstep::{create_dir, describe, LockstepConfig, Mismatch, MismatchData, StepError};
use crate::vcd_out::GoldenVcd;
use crate::TbError;
use gpusim::block::{
    pack_bits, port_values, unpack_bits, word_count, Block, BlockKind, Inspect, PortBundle,
    PortSpec, Stimulus,
};
use gpusim::blocks::{with_kind, KindFn};
use gpusim::gpu::sites::{BlockFault, Port};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The whole-run waveforms: (golden, rtl).
pub type WaveformPaths = (PathBuf, PathBuf);

/// One compared cycle, as the waveforms need it.
struct Record {
    cycle: u64,
    inputs: Vec<u128>,
    expected: Vec<u128>,
    got: Vec<u128>,
    state: Vec<u128>,
}

/// The two waveforms of a run: (golden, rtl).
struct Waves {
    golden: GoldenVcd,
    rtl: GoldenVcd,
}

impl Waves {
    fn create(
        dir: &Path,
        name: &str,
        module: &str,
        ports: &[PortSpec],
        state: &[PortSpec],
    ) -> Result<Self, TbError> {
        create_dir(dir)?;
        Ok(Self {
            golden: GoldenVcd::create(&dir.join(format!("{name}.golden.vcd")), name, ports, state)?,
            rtl: GoldenVcd::create(&dir.join(format!("{name}.rtl.vcd")), module, ports, &[])?,
        })
    }

    fn write(&mut self, r: &Record) -> Result<(), TbError> {
        let mut g = r.inputs.clone();
        g.extend(&r.expected);
        let mut rtl = g.clone();
        g.extend(&r.state);
        rtl.truncate(r.inputs.len());
        rtl.extend(&r.got);
        self.golden.cycle(r.cycle, &g)?;
        self.rtl.cycle(r.cycle, &rtl)
    }

    fn finish(self) -> Result<(PathBuf, PathBuf), TbError> {
        Ok((self.golden.finish()?, self.rtl.finish()?))
    }
}

/// A golden model and the block behind a bridge, stepped together and compared every cycle
/// (one `C` command per cycle), keeping the last `window` cycles for the waveforms of a
/// mismatch ([`LockstepConfig`]: `window`, `mismatch_dir`, `vcd_dir` for the whole run).
pub struct BoardPair<G: Block + Inspect, S: Serial> {
    name: String,
    module: String,
    golden: G,
    client: BridgeClient<S>,
    params: <G::In as PortBundle>::Params,
    in_specs: Vec<PortSpec>,
    out_specs: Vec<PortSpec>,
    /// Inputs then outputs.
    ports: Vec<PortSpec>,
    state_specs: Vec<PortSpec>,
    cfg: LockstepConfig,
    whole: Option<Waves>,
    ring: VecDeque<Record>,
    cycle: u64,
    iw: Vec<u64>,
    ew: Vec<u64>,
    state: Vec<u64>,
}

impl<G, S> BoardPair<G, S>
where
    G: Block + Inspect,
    G::Out: PortBundle<Params = <G::In as PortBundle>::Params>,
    <G::In as PortBundle>::Params: Clone,
    S: Serial,
{
    /// Pairs `golden` (reset here) with the block behind `client` (a reset cycle is sent):
    /// `module` is the RTL's name (the RTL waveform's scope), `name` prefixes the waveform
    /// files. Refuses a bridge whose widths differ from the golden ports', or whose Verilog
    /// hash is not `expected_hash` (when given: the first 32 bits of the module's SHA-256).
    pub fn new(
        name: &str,
        mut golden: G,
        module: &str,
        params: &<G::In as PortBundle>::Params,
        mut client: BridgeClient<S>,
        expected_hash: Option<u32>,
        cfg: &LockstepConfig,
    ) -> Result<Self, TbError> {
        let (in_specs, out_specs) = (
            <G::In as PortBundle>::specs(params),
            <G::Out as PortBundle>::specs(params),
        );
        let bits = |s: &[PortSpec]| s.iter().map(|p| p.width).sum::<u32>();
        let info = client.info();
        let target = client.serial_mut().describe();
        if (info.in_bits, info.out_bits) != (bits(&in_specs), bits(&out_specs)) {
            return Err(TbError::Bridge {
                target,
                reason: format!(
                    "the bridge has {} input and {} output bits; `{module}` has {} and {}: the \
                     board runs the bridge of another module",
                    info.in_bits,
                    info.out_bits,
                    bits(&in_specs),
                    bits(&out_specs)
                ),
            });
        }
        if let Some(h) = expected_hash.filter(|&h| h != info.hash) {
            return Err(TbError::Bridge {
                target,
                reason: format!(
                    "the bridge's Verilog hash is {:08x}, `{module}`'s is {h:08x}: the \
                     bitstream was built from other RTL (rebuild it from this rtl-out/)",
                    info.hash
                ),
            });
        }
        let mut ports = in_specs.clone();
        ports.extend(out_specs.iter().cloned());
        let state_specs = golden.state_specs();
        let whole = match &cfg.vcd_dir {
            Some(dir) => Some(Waves::create(dir, name, module, &ports, &state_specs)?),
            None => None,
        };
        golden.reset();
        client.reset_cycle()?;
        Ok(Self {
            name: name.into(),
            module: module.into(),
            golden,
            client,
            params: params.clone(),
            iw: vec![0; word_count(&in_specs)],
            ew: vec![0; word_count(&out_specs)],
            in_specs,
            out_specs,
            ports,
            state_specs,
            cfg: cfg.clone(),
            whole,
            ring: VecDeque::with_capacity(cfg.window + 1),
            cycle: 0,
            state: vec![],
        })
    }

    /// Cycles compared so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The bridge client (to damage its line in tests, or read its status).
    pub fn client_mut(&mut self) -> &mut BridgeClient<S> {
        &mut self.client
    }

    /// One cycle of both; the golden outputs on agreement.
    pub fn step(&mut self, inp: &G::In) -> Result<G::Out, StepError> {
        let window = self.cfg.window;
        if window > 0 || self.whole.is_some() {
            self.golden.state_values(&mut self.state);
        }
        let expected = self.golden.step(inp);
        inp.to_words(&self.params, &mut self.iw);
        let in_bytes = gpusim::bridge::payload_bytes(self.client.info().in_bits);
        let payload = chunks_to_bytes(&pack_bits(&self.in_specs, &self.iw), in_bytes);
        let answer = self.client.cycle(&payload)?;
        let gw = unpack_bits(&self.out_specs, &bytes_to_chunks(&answer));
        expected.to_words(&self.params, &mut self.ew);
        let record = Record {
            cycle: self.cycle,
            inputs: port_values(&self.in_specs, &self.iw),
            expected: port_values(&self.out_specs, &self.ew),
            got: port_values(&self.out_specs, &gw),
            state: self.state.iter().map(|&v| v as u128).collect(),
        };
        if let Some(w) = &mut self.whole {
            w.write(&record)?;
        }
        let differs = record.expected != record.got;
        if self.ring.len() == window.max(1) {
            self.ring.pop_front();
        }
        self.ring.push_back(record);
        if differs {
            return Err(StepError::Mismatch(Box::new(self.mismatch()?)));
        }
        self.cycle += 1;
        Ok(expected)
    }

    fn mismatch(&mut self) -> Result<Mismatch, TbError> {
        let waveforms = match self.whole.take() {
            Some(w) => Some(w.finish()?),
            None if self.cfg.window == 0 => None,
            None => {
                let mut w = Waves::create(
                    &self.cfg.mismatch_dir,
                    &self.name,
                    &self.module,
                    &self.ports,
                    &self.state_specs,
                )?;
                for r in &self.ring {
                    w.write(r)?;
                }
                Some(w.finish()?)
            }
        };
        let last = self.ring.back().expect("the cycle compared is kept");
        describe(MismatchData {
            name: &self.name,
            rtl_scope: &self.module,
            cycle: self.cycle,
            in_specs: &self.in_specs,
            out_specs: &self.out_specs,
            inputs: last.inputs.clone(),
            expected: last.expected.clone(),
            got: last.got.clone(),
            waveforms,
            resumed_from: None,
        })
    }

    /// Flushes the whole-run waveforms, if any, and returns their paths (golden, rtl) and the
    /// client.
    pub fn finish(self) -> Result<(Option<WaveformPaths>, BridgeClient<S>), TbError> {
        let w = match self.whole {
            Some(w) => Some(w.finish()?),
            None => None,
        };
        Ok((w, self.client))
    }
}

impl<G, S> Port<G::In, G::Out> for BoardPair<G, S>
where
    G: Block + Inspect,
    G::Out: PortBundle<Params = <G::In as PortBundle>::Params>,
    <G::In as PortBundle>::Params: Clone,
    S: Serial,
{
    fn step(&mut self, inp: &G::In) -> Result<G::Out, BlockFault> {
        BoardPair::step(self, inp).map_err(|e| Box::new(e) as BlockFault)
    }
}

/// Runs `golden` against the block behind `client` for `opts.cycles` cycles of the block's
/// random stimulus (seed `opts.seed`) in a [`BoardPair`] named `module`; `expected_hash` as
/// there. `progress` is called every [`PROGRESS_EVERY`] cycles. The client is handed back.
pub fn board_lockstep<K, G, S>(
    golden: G,
    params: &K::Params,
    module: &str,
    client: BridgeClient<S>,
    expected_hash: Option<u32>,
    opts: &CosimOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<(CosimReport, BridgeClient<S>), TbError>
where
    K: BlockKind,
    G: Block<In = K::In, Out = K::Out> + Inspect,
    S: Serial,
{
    let mut pair = BoardPair::new(
        module,
        golden,
        module,
        params,
        client,
        expected_hash,
        &opts.lockstep,
    )?;
    let mut stim = K::stimulus(params, opts.seed);
    let mut prev: Option<K::Out> = None;
    let start = Instant::now();
    let mut mismatch: Option<Mismatch> = None;
    for cycle in 0..opts.cycles {
        match pair.step(&stim.next(prev.as_ref())) {
            Ok(o) => prev = Some(o),
            Err(StepError::Mismatch(m)) => {
                mismatch = Some(*m);
                break;
            }
            Err(StepError::Tb(e)) => return Err(e),
        }
        if (cycle + 1) % PROGRESS_EVERY == 0 {
            progress(cycle + 1);
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let (waveforms, client) = pair.finish()?;
    let cycles = mismatch.as_ref().map_or(opts.cycles, |m| m.cycle);
    Ok((
        CosimReport {
            module: module.into(),
            cycles,
            mismatches: mismatch.is_some() as u64,
            seconds,
            cycles_per_s: cycles as f64 / seconds.max(1e-9),
            mismatch,
            waveforms,
        },
        client,
    ))
}

/// [`board_lockstep`] of the catalog variant `block`/`policy`/`preset` against its bridge on
/// `target` ([`Target::UartSim`] or [`Target::Uart`]); `expected_hash` as there.
pub fn run_variant_on(
    target: &Target,
    block: &str,
    policy: &str,
    preset: &str,
    expected_hash: Option<u32>,
    opts: &CosimOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<CosimReport, TbError> {
    let (module, policy) = resolve(block, policy, preset)?;
    /// What the run needs besides the link.
    struct Args<'r> {
        module: &'r str,
        policy: &'r str,
        preset: &'r str,
        hash: Option<u32>,
        opts: &'r CosimOptions,
        progress: &'r mut dyn FnMut(u64),
    }
    struct Run<'r, S: Serial> {
        client: BridgeClient<S>,
        a: Args<'r>,
    }
    impl<S: Serial> KindFn for Run<'_, S> {
        type Output = Result<CosimReport, TbError>;
        fn call<K: BlockKind>(self) -> Self::Output {
            let a = self.a;
            let p = K::params(a.policy, a.preset);
            board_lockstep::<K, _, _>(
                K::golden(&p),
                &p,
                a.module,
                self.client,
                a.hash,
                a.opts,
                a.progress,
            )
            .map(|(report, _)| report)
        }
    }
    fn drive<S: Serial>(serial: S, block: &str, a: Args<'_>) -> Result<CosimReport, TbError> {
        let run = Run {
            client: BridgeClient::connect(serial)?,
            a,
        };
        with_kind(block, run).map_err(|e| TbError::Config(e.to_string()))?
    }
    let link_error = |target: String| {
        move |e: std::io::Error| TbError::Bridge {
            target,
            reason: e.to_string(),
        }
    };
    let a = Args {
        module: &module,
        policy: &policy,
        preset,
        hash: expected_hash,
        opts,
        progress,
    };
    match target {
        Target::Verilator => Err(TbError::Config(
            "the Verilator target runs through cosim::run_variant".into(),
        )),
        Target::UartSim => {
            let link = format!("uart-sim:{module}");
            drive(SimSerial::new(&module).map_err(link_error(link))?, block, a)
        }
        Target::Uart { path, baud } => {
            let link = path.display().to_string();
            drive(
                TtySerial::open(path, *baud).map_err(link_error(link))?,
                block,
                a,
            )
        }
    }
}
