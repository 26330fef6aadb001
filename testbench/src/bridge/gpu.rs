//! One block instance of a GPU run on a host bridge (`gpusched sim --lockstep B --target
//! uart:DEV --target-site SITE`): the instance at the chosen site is a [`BoardPair`], its
//! golden model driving the GPU and the bridge checking it every cycle; every other instance
//! of that block is golden, the other blocks run in their modes as in [`crate::gpu::run`].

use super::lockstep::BoardPair;
use super::{BridgeClient, Serial, SimSerial, Target, TtySerial};
use crate::batch::RtlThreads;
use crate::gpu::{classify, classify_step, module_for, BlockMode, GpuRunError, Modes, TbBlocks};
use crate::lockstep::LockstepConfig;
use crate::TbError;
use gpusim::block::BlockKind;
use gpusim::config::GpuConfig;
use gpusim::gpu::sites::{BlockFault, Port, Provider, Site, SitePort};
use gpusim::gpu::{Gpu, Progress, Report, SimError, SimOptions};
use gpusim::workload::kernel::WorkloadSource;
use std::cell::Cell;
use std::rc::Rc;

/// Which instance goes on which bridge.
pub struct BoardSite<'h> {
    /// Where the bridge is ([`Target::UartSim`] or [`Target::Uart`]).
    pub target: Target,
    /// The block (a name of `gpusched blocks`).
    pub block: String,
    /// The site of the instance (`sm0_sched0`, `sm3_elf`, `tb_dispatch`...); `None`: the
    /// block's first site.
    pub site: Option<String>,
    /// A module's Verilog hash the bridge must report (first 32 bits of its SHA-256), by
    /// module name; `None`: not checked.
    pub hash_of: &'h dyn Fn(&str) -> Option<u32>,
}

/// What ran on the bridge in a GPU run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BoardRun {
    /// The site checked (`sm0_sched0` ...).
    pub site: String,
    /// Its module.
    pub module: String,
    /// The link (`uart-sim:<module>`, `/dev/ttyUSB0`).
    pub link: String,
    /// Cycles the site's instance stepped on the bridge.
    pub cycles: u64,
}

/// A port that counts its steps into a shared cell.
struct Counted<'a, K: BlockKind> {
    inner: SitePort<'a, K>,
    cycles: Rc<Cell<u64>>,
}

impl<K: BlockKind> Port<K::In, K::Out> for Counted<'_, K> {
    fn step(&mut self, inp: &K::In) -> Result<K::Out, BlockFault> {
        let o = self.inner.step(inp)?;
        self.cycles.set(self.cycles.get() + 1);
        Ok(o)
    }
}

/// Opens the link to the bridge of a module, once the site's module is known.
pub type Connect<'c, S> = Box<dyn FnOnce(&str) -> Result<BridgeClient<S>, TbError> + 'c>;

/// The provider: `inner` everywhere but at the board's site.
struct OnBoard<'a, 'h, S: Serial> {
    inner: TbBlocks<'a>,
    block: &'static str,
    site: Option<String>,
    connect: Option<Connect<'h, S>>,
    hash_of: &'h dyn Fn(&str) -> Option<u32>,
    cfg: &'a LockstepConfig,
    /// Sites of the block seen, in order.
    seen: Vec<String>,
    /// What went on the bridge, once it has.
    run: BoardRun,
    cycles: Rc<Cell<u64>>,
}

impl<'a, S: Serial + 'a> Provider<'a> for OnBoard<'a, '_, S> {
    fn block<K: BlockKind>(
        &mut self,
        site: Site,
        params: &K::Params,
    ) -> Result<SitePort<'a, K>, BlockFault> {
        if K::NAME == self.block {
            let name = site.to_string();
            let first = self.seen.is_empty();
            self.seen.push(name.clone());
            let wanted = match &self.site {
                Some(s) => *s == name,
                None => first,
            };
            if wanted {
                if let Some(connect) = self.connect.take() {
                    let module = module_for::<K>(params)?;
                    let mut client = connect(&module)?;
                    self.run = BoardRun {
                        site: name.clone(),
                        module: module.clone(),
                        link: client.serial_mut().describe(),
                        cycles: 0,
                    };
                    let pair = BoardPair::new(
                        &name,
                        K::golden(params),
                        &module,
                        params,
                        client,
                        (self.hash_of)(&module),
                        self.cfg,
                    )?;
                    return Ok(Box::new(Counted::<K> {
                        inner: Box::new(pair),
                        cycles: self.cycles.clone(),
                    }));
                }
            }
        }
        self.inner.block::<K>(site, params)
    }
}

/// Runs `workload()` on the GPU like [`crate::gpu::run`], with the instance of `board.block`
/// at `board.site` checked against the bridge on `board.target` (the block's other instances
/// golden). Fails before the run when the site does not exist. Returns the report and what
/// ran on the bridge.
pub fn run_on_board(
    cfg: &GpuConfig,
    opts: &SimOptions,
    workload: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    modes: Modes,
    lockstep: &LockstepConfig,
    board: &BoardSite,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(Report, BoardRun), GpuRunError> {
    let link = |target: String| {
        move |e: std::io::Error| TbError::Bridge {
            target,
            reason: e.to_string(),
        }
    };
    match &board.target {
        Target::Verilator => Err(GpuRunError::Tb(TbError::Config(
            "a GPU run on the Verilator target runs through gpu::run".into(),
        ))),
        Target::UartSim => {
            let connect: Connect<'_, SimSerial> = Box::new(move |module: &str| {
                let serial = SimSerial::new(module).map_err(link(format!("uart-sim:{module}")))?;
                BridgeClient::connect(serial)
            });
            run_on_board_with(
                cfg, opts, workload, modes, lockstep, board, connect, progress,
            )
        }
        Target::Uart { path, baud } => {
            let connect: Connect<'_, TtySerial> = Box::new(move |_: &str| {
                let serial =
                    TtySerial::open(path, *baud).map_err(link(path.display().to_string()))?;
                BridgeClient::connect(serial)
            });
            run_on_board_with(
                cfg, opts, workload, modes, lockstep, board, connect, progress,
            )
        }
    }
}

/// [`run_on_board`] with the link opened by `connect` (tests damage the line this way):
/// `board.target` is not read.
#[allow(clippy::too_many_arguments)]
pub fn run_on_board_with<S: Serial>(
    cfg: &GpuConfig,
    opts: &SimOptions,
    workload: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    modes: Modes,
    lockstep: &LockstepConfig,
    board: &BoardSite,
    connect: Connect<'_, S>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(Report, BoardRun), GpuRunError> {
    let info = gpusim::blocks::find_block(&board.block)
        .map_err(|e| GpuRunError::Tb(TbError::Config(e.to_string())))?;
    let mut modes = modes;
    modes
        .set(info.name, BlockMode::Golden)
        .map_err(GpuRunError::Tb)?;
    run_site(
        cfg, opts, workload, modes, lockstep, board, info.name, connect, progress,
    )
}

#[allow(clippy::too_many_arguments)]
fn run_site<S: Serial>(
    cfg: &GpuConfig,
    opts: &SimOptions,
    workload: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    modes: Modes,
    lockstep: &LockstepConfig,
    board: &BoardSite,
    block: &'static str,
    connect: Connect<'_, S>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(Report, BoardRun), GpuRunError> {
    let threads = RtlThreads::new(lockstep.rtl_threads);
    let result = (|| {
        let mut w = workload().map_err(GpuRunError::Sim)?;
        let mut blocks = OnBoard {
            inner: TbBlocks::new(modes, lockstep, &threads),
            block,
            site: board.site.clone(),
            connect: Some(connect),
            hash_of: board.hash_of,
            cfg: lockstep,
            seen: vec![],
            run: BoardRun::default(),
            cycles: Rc::new(Cell::new(0)),
        };
        let mut gpu = Gpu::new(cfg, opts.clone(), &mut blocks).map_err(classify)?;
        if blocks.connect.is_some() {
            return Err(GpuRunError::Tb(TbError::Config(format!(
                "--target-site {}: this run has no such {block} site ({})",
                board.site.as_deref().unwrap_or("(the block's first site)"),
                if blocks.seen.is_empty() {
                    "and no site of this block at all".to_string()
                } else {
                    format!(
                        "its sites: {} .. {}",
                        blocks.seen[0],
                        blocks.seen[blocks.seen.len() - 1]
                    )
                }
            ))));
        }
        let report = gpu.run(w.as_mut(), progress).map_err(classify)?;
        drop(gpu);
        let run = BoardRun {
            cycles: blocks.cycles.get(),
            ..blocks.run
        };
        Ok((report, run))
    })();
    match threads.finish() {
        Err(e) => Err(classify_step(e)),
        Ok(()) => result,
    }
}
