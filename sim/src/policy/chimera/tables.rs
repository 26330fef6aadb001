//! The `chimera_tb` block of every SM as the kernel scheduler drives it: each cycle its status
//! table takes the SM's events ([`Feed`]); a selection starts a pass in the blocks of its
//! candidate SMs and reads their plans when the passes end.

use super::feed::Feed;
use crate::blocks::chimera_tb::block::{mode_of, tech_code, ChimeraIn, ChimeraOut};
use crate::blocks::chimera_tb::cost::{Derived, DrainOvh};
use crate::blocks::chimera_tb::select::{Mode, Rules, SmPlan};
use crate::blocks::chimera_tb::{self as ctb};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::sites::kernel_sched::{BlockView, Technique};
use crate::gpu::sites::{Site, Slot};
use crate::gpu::SimError;

/// What a pass is asked to plan: the victim kernel's statistics and the selector's settings.
#[derive(Clone, Copy, Debug)]
pub struct Ask {
    /// The victim kernel's derived statistics.
    pub kernel: Derived,
    /// Its kernel slot.
    pub victim: usize,
    /// It is strictly idempotent.
    pub idempotent: bool,
    /// The selector's mode, limit and drain overhead.
    pub rules: Rules,
    /// When a block may be flushed (the block's `scope` code: 0 block, 1 SM, 2 kernel).
    pub scope: u8,
}

/// One SM's block, its feed, and the inputs and outputs of its current cycle.
struct Table<'a> {
    block: Slot<'a, ctb::Kind>,
    feed: Feed,
    inp: ChimeraIn,
    out: ChimeraOut,
}

/// The blocks of every SM.
pub struct Tables<'a> {
    sms: Vec<Table<'a>>,
}

/// The block parameters for `cfg`'s SM, or why it has none.
pub fn params(cfg: &GpuConfig) -> Result<ctb::block::Params, String> {
    let (slots, issue) = (cfg.sm.max_blocks, cfg.sm.schedulers);
    if !(2..=16).contains(&slots) || !(1..=4).contains(&issue) {
        return Err(format!(
            "chimera_tb holds 2..=16 block slots and 1..=4 issue ports; this SM has \
             {slots} block slots (max_blocks) and {issue} schedulers"
        ));
    }
    Ok(ctb::block::Params { slots, issue })
}

impl<'a> Tables<'a> {
    /// The blocks of `cfg`'s SMs, from `provider` (site `sm<i>_chimera_tb`).
    pub fn new(cfg: &GpuConfig, provider: &mut dyn DynProvider<'a>) -> Result<Self, SimError> {
        let p = params(cfg).map_err(SimError::Config)?;
        let sms = (0..cfg.sm.count as usize)
            .map(|sm| {
                let site = Site::Sm {
                    sm,
                    block: "chimera_tb",
                };
                Ok(Table {
                    block: Slot::new(provider, site, &p)?,
                    feed: Feed::new(p.slots as usize, p.issue as usize),
                    inp: ChimeraIn::default(),
                    out: ChimeraOut::default(),
                })
            })
            .collect::<Result<_, SimError>>()?;
        Ok(Self { sms })
    }

    /// The cycle's events from every SM's resident blocks (`views[sm]`); no pass starts.
    pub fn feed(&mut self, views: &[Vec<BlockView>]) {
        for (t, v) in self.sms.iter_mut().zip(views) {
            t.feed.events(v, &mut t.inp);
            t.inp.start = false;
        }
    }

    /// Starts a pass on SM `sm` for `ask` over the blocks `views` of its SM.
    pub fn start(&mut self, sm: usize, views: &[BlockView], ask: &Ask) {
        let i = &mut self.sms[sm].inp;
        i.start = true;
        i.victims = views
            .iter()
            .filter(|b| b.slot == ask.victim)
            .fold(0, |m, b| m | 1 << b.tb);
        (i.avg_i, i.cpi_q, i.ipc_q) = (ask.kernel.avg_i, ask.kernel.cpi_q, ask.kernel.ipc_q);
        i.sw_cyc = ask.kernel.sw_cyc_tb;
        let r = &ask.rules;
        (i.lat_limit, i.margin) = (r.limit.cycles, r.limit.margin);
        i.mode = match r.mode {
            Mode::Chimera => 0,
            Mode::Only(t) => tech_code(t),
        };
        debug_assert_eq!(mode_of(i.mode), r.mode);
        i.dr_min = r.drain == DrainOvh::SlotIdle;
        i.scope = ask.scope;
        i.idempotent = ask.idempotent;
    }

    /// Every block's cycle.
    pub fn step(&mut self) -> Result<(), SimError> {
        for t in &mut self.sms {
            t.out = t.block.step(&t.inp)?;
        }
        Ok(())
    }

    /// Whether SM `sm`'s pass ended this cycle.
    pub fn done(&self, sm: usize) -> bool {
        self.sms[sm].out.done
    }

    /// SM `sm`'s plan (this cycle's outputs) for the blocks of slot `victim` in `views`: each
    /// with its technique (drain for one the pass did not see).
    pub fn plan(&self, sm: usize, views: &[BlockView], victim: usize) -> (SmPlan, Vec<(usize, Technique)>) {
        let o = &self.sms[sm].out;
        let blocks = views
            .iter()
            .filter(|b| b.slot == victim && !b.preempting)
            .map(|b| {
                let t = match o.tech[b.tb] {
                    1 => Technique::Switch,
                    3 => Technique::Flush,
                    _ => Technique::Drain,
                };
                (b.tb, t)
            })
            .collect();
        let plan = SmPlan {
            sm,
            choices: vec![],
            ovh: o.sm_ovh,
            lat: o.sm_lat,
            ok: o.ok,
        };
        (plan, blocks)
    }
}
