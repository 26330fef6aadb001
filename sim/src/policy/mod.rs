//! Scheduling policies: which block sits at which site of the GPU ([`crate::gpu::sites`]) for a
//! run's options, with the block parameters the GPU configuration implies. The policy adds no
//! behaviour of its own: everything a scheduler decides, its block decides.
//!
//! | site | per | blocks |
//! |---|---|---|
//! | warp issue | scheduler | `warp_arbiter` (LRR, GTO, two-level) |
//! | warp issue | scheduler | `locality_degree` (LAWS, `--warp-sched laws`) |
//! | warp issue | SM | `elf` (every scheduler's issue select and the fetch order) |
//! | LSU queue | SM | `newcar` (with `--newcar`) |
//! | thread-block dispatch | GPU | `tb_dispatch` (LRR, BCS), `la_tb_dispatch` (locality-aware) |
//! | resource allocation | SM | `sm_alloc` (GPGPU-Sim's occupancy rule) |

use crate::block::BlockKind;
use crate::blocks::{
    elf, la_tb_dispatch, locality_degree, newcar, sm_alloc, tb_dispatch, warp_arbiter,
};
use crate::config::GpuConfig;
use crate::gpu::{SimError, SimOptions};

/// NewCAR queue entries (spec §2.1: 32, as Mascar's CAR).
pub const NEWCAR_ENTRIES: usize = 32;
/// ELF program-point slots (spec §3.2: 32).
pub const ELF_SLOTS: usize = 32;

/// What issues warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpIssue {
    /// One warp arbiter per scheduler.
    Arbiters(warp_arbiter::Params),
    /// One ELF block per SM, granting for every scheduler.
    Elf(elf::Params),
    /// One locality-aware two-level scheduler per scheduler.
    Laws(locality_degree::Params),
}

/// Thread-block dispatch policy (`--tb-sched`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TbSched {
    /// A policy of the `tb_dispatch` block (LRR, BCS).
    Base(tb_dispatch::Policy),
    /// Locality-aware (`la_tb_dispatch`, seed 000).
    Locality,
}

impl TbSched {
    /// LRR.
    pub const LRR: Self = Self::Base(tb_dispatch::Policy::Lrr);
    /// BCS.
    pub const BCS: Self = Self::Base(tb_dispatch::Policy::Bcs);

    /// Parses a policy name: one of `tb_dispatch`'s, or `locality`.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "locality" => Some(Self::Locality),
            _ => tb_dispatch::Policy::from_name(s).map(Self::Base),
        }
    }

    /// The policy's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Base(p) => p.name(),
            Self::Locality => "locality",
        }
    }
}

impl From<tb_dispatch::Policy> for TbSched {
    fn from(p: tb_dispatch::Policy) -> Self {
        Self::Base(p)
    }
}

/// What dispatches thread blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dispatch {
    /// LRR or BCS.
    RoundRobin(tb_dispatch::Params),
    /// Locality-aware.
    Locality(la_tb_dispatch::Params),
}

/// The block of every site of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Warp issue.
    pub warp_issue: WarpIssue,
    /// The LSU's re-execution queue, if any.
    pub lsu_queue: Option<newcar::Params>,
    /// Thread-block dispatch.
    pub tb_dispatch: Dispatch,
    /// Each SM's resource allocator.
    pub sm_alloc: sm_alloc::Params,
}

impl Plan {
    /// The plan of `opts` on `cfg` (errors: a block that cannot serve this configuration).
    pub fn new(cfg: &GpuConfig, opts: &SimOptions) -> Result<Self, SimError> {
        Ok(Self {
            warp_issue: if opts.elf {
                WarpIssue::Elf(elf::Params {
                    wpt_update: opts.elf_wpt,
                    ..elf_params(cfg)?
                })
            } else if opts.laws {
                WarpIssue::Laws(laws_params(cfg, opts.la_active)?)
            } else {
                WarpIssue::Arbiters(arbiter_params(cfg, opts.warp_sched)?)
            },
            lsu_queue: opts.newcar.then(|| newcar_params(cfg)).transpose()?,
            tb_dispatch: match opts.tb_sched {
                TbSched::Base(p) => Dispatch::RoundRobin(tb_dispatch_params(cfg, p)?),
                TbSched::Locality => Dispatch::Locality(la_dispatch_params(cfg, opts.la_window)?),
            },
            sm_alloc: sm_alloc_params(cfg),
        })
    }

    /// Names of the block kinds this plan uses.
    pub fn blocks(&self) -> Vec<&'static str> {
        let mut v = vec![match self.warp_issue {
            WarpIssue::Arbiters(_) => warp_arbiter::Kind::NAME,
            WarpIssue::Elf(_) => elf::Kind::NAME,
            WarpIssue::Laws(_) => locality_degree::Kind::NAME,
        }];
        if self.lsu_queue.is_some() {
            v.push(newcar::Kind::NAME);
        }
        v.push(match self.tb_dispatch {
            Dispatch::RoundRobin(_) => tb_dispatch::Kind::NAME,
            Dispatch::Locality(_) => la_tb_dispatch::Kind::NAME,
        });
        v.push(sm_alloc::Kind::NAME);
        v
    }
}

/// The locality-aware scheduler's parameters for `cfg`: its warps per scheduler (at most
/// [`locality_degree::MAX_WARPS`]) and an active group of `active` warps (0: the
/// configuration's two-level active count, GPGPU-Sim's 6 on the GTX 480; R9).
pub fn laws_params(cfg: &GpuConfig, active: usize) -> Result<locality_degree::Params, SimError> {
    let (warps, scheds) = (cfg.sm.max_warps as usize, cfg.sm.schedulers as usize);
    let per = warps / scheds.max(1);
    if scheds == 0 || warps % scheds != 0 || !(2..=locality_degree::MAX_WARPS).contains(&per) {
        return Err(SimError::Config(format!(
            "LAWS needs 2 to {} warps per scheduler; `{}` has {warps} warps over {scheds} \
             schedulers",
            locality_degree::MAX_WARPS,
            cfg.name
        )));
    }
    let active = if active == 0 {
        cfg.sm.two_level_max_active as usize
    } else {
        active
    };
    if !(1..=per).contains(&active) {
        return Err(SimError::Config(format!(
            "LAWS's active group must hold 1 to {per} warps (the scheduler's); got {active}"
        )));
    }
    Ok(locality_degree::Params { warps: per, active })
}

/// The warp-arbiter parameters every scheduler of `cfg` uses under `policy`.
pub fn arbiter_params(
    cfg: &GpuConfig,
    policy: warp_arbiter::Policy,
) -> Result<warp_arbiter::Params, SimError> {
    let (warps, scheds) = (cfg.sm.max_warps, cfg.sm.schedulers);
    if scheds == 0 || warps % scheds != 0 {
        return Err(SimError::Config(format!(
            "sm.max_warps ({warps}) must be a multiple of sm.schedulers ({scheds})"
        )));
    }
    warp_arbiter::Params::new(
        policy,
        (warps / scheds) as usize,
        cfg.sm.two_level_max_active as usize,
    )
    .map_err(|e| SimError::Config(format!("warp arbiter of `{}`: {e}", cfg.name)))
}

/// The ELF block's parameters for `cfg` (its schedulers, at most
/// [`elf::MAX_SCHEDULERS`]; at most 64 warps per SM, a multiple of the schedulers;
/// [`ELF_SLOTS`] program points).
pub fn elf_params(cfg: &GpuConfig) -> Result<elf::Params, SimError> {
    let (warps, scheds) = (cfg.sm.max_warps as usize, cfg.sm.schedulers as usize);
    if !(1..=elf::MAX_SCHEDULERS).contains(&scheds) || warps > 64 || warps % scheds != 0 {
        return Err(SimError::Config(format!(
            "ELF needs 1 to {} warp schedulers and at most 64 warps per SM, a multiple of the \
             schedulers; `{}` has {scheds} and {warps}",
            elf::MAX_SCHEDULERS,
            cfg.name
        )));
    }
    Ok(elf::Params {
        warps,
        schedulers: scheds,
        slots: ELF_SLOTS,
        ..elf::Params::preset(elf::Preset::Fermi)
    })
}

/// The NewCAR queue's parameters for `cfg` ([`NEWCAR_ENTRIES`] entries, at most 64 warps per
/// SM).
pub fn newcar_params(cfg: &GpuConfig) -> Result<newcar::Params, SimError> {
    let warps = cfg.sm.max_warps as usize;
    if !(1..=64).contains(&warps) {
        return Err(SimError::Config(format!(
            "NewCAR needs at most 64 warps per SM; `{}` has {warps}",
            cfg.name
        )));
    }
    Ok(newcar::Params {
        entries: NEWCAR_ENTRIES,
        warps,
    })
}

/// The dispatcher's parameters for `cfg` (at most [`tb_dispatch::MAX_SMS`] SMs).
pub fn tb_dispatch_params(
    cfg: &GpuConfig,
    policy: tb_dispatch::Policy,
) -> Result<tb_dispatch::Params, SimError> {
    let sms = cfg.sm.count as usize;
    if !(1..=tb_dispatch::MAX_SMS).contains(&sms) {
        return Err(SimError::Config(format!(
            "the thread-block dispatcher serves 1 to {} SMs; `{}` has {sms}",
            tb_dispatch::MAX_SMS,
            cfg.name
        )));
    }
    Ok(tb_dispatch::Params::new(policy, sms))
}

/// The locality-aware dispatcher's parameters for `cfg` (at most
/// [`la_tb_dispatch::MAX_SMS`] SMs and [`la_tb_dispatch::MAX_SLOTS`] blocks per SM) with a
/// candidate window of `window` blocks (0: the whole queue).
pub fn la_dispatch_params(
    cfg: &GpuConfig,
    window: usize,
) -> Result<la_tb_dispatch::Params, SimError> {
    let (sms, slots) = (cfg.sm.count as usize, cfg.sm.max_blocks as usize);
    if !(1..=la_tb_dispatch::MAX_SMS).contains(&sms)
        || !(1..=la_tb_dispatch::MAX_SLOTS).contains(&slots)
    {
        return Err(SimError::Config(format!(
            "locality-aware dispatch serves 1 to {} SMs of at most {} blocks each; `{}` has {sms} \
             SMs of {slots}",
            la_tb_dispatch::MAX_SMS,
            la_tb_dispatch::MAX_SLOTS,
            cfg.name
        )));
    }
    Ok(la_tb_dispatch::Params {
        sms,
        slots,
        window,
        arrays: crate::analysis::locality::MAX_ARRAYS,
        // The whole queue loads 16 blocks per cycle (the thesis computes it at launch); a
        // window loads one per cycle, as its RTL does.
        fill: if window == 0 {
            la_tb_dispatch::MAX_FILL
        } else {
            1
        },
    })
}

/// The resource allocator's parameters for `cfg`: its SM's capacities.
pub fn sm_alloc_params(cfg: &GpuConfig) -> sm_alloc::Params {
    sm_alloc::Params {
        threads: cfg.sm.max_threads,
        registers: cfg.sm.registers,
        shared_mem: cfg.sm.shared_mem_bytes,
        blocks: cfg.sm.max_blocks,
    }
}
