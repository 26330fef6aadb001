//! The positional side of the resource-allocation protocol ([`super::sites::alloc`]): an
//! allocator that places blocks sees every place it gave come back exactly once, through
//! completions, switches and flushes of two kernels sharing SMs, and never sees a slot taken
//! twice. A planted bug (the SM keeps a switched-out block's place) shows the check can fail.

use super::sites::alloc::{AllocRequest, AllocUnit, Place};
use super::sm::PreemptFault;
use super::*;
use crate::blocks::DynProvider;
use crate::policy::{PolicyEntry, SmAllocPolicy};
use std::sync::{Arc, Mutex};

/// What one SM's placing allocator saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Ledger {
    /// Per end, the slots it holds as taken.
    occupied: [u64; 2],
    /// Places the SM reported taken, and given back.
    placed: u64,
    freed: u64,
    /// Reports of a taken slot taken again, or of a free slot given back.
    violations: Vec<String>,
}

/// Places blocks in the lowest free slots of the end of the offered kernel's launch parity;
/// whether one or two fit comes from the occupancy rule it wraps.
#[derive(Debug)]
struct Placing {
    inner: Arc<dyn SmAllocPolicy>,
    ledgers: Arc<Mutex<Vec<Ledger>>>,
}

impl SmAllocPolicy for Placing {
    fn entry(&self) -> &'static PolicyEntry {
        self.inner.entry()
    }

    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError> {
        self.inner.check(cfg)
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        sm: usize,
    ) -> Result<Box<dyn AllocUnit<'a> + 'a>, SimError> {
        let mut l = self.ledgers.lock().unwrap();
        let len = l.len().max(sm + 1);
        l.resize(len, Ledger::default());
        Ok(Box::new(PlacingUnit {
            inner: self.inner.build(cfg, provider, sm)?,
            sm,
            ledgers: self.ledgers.clone(),
            grants: [None; 2],
        }))
    }
}

struct PlacingUnit<'a> {
    inner: Box<dyn AllocUnit<'a> + 'a>,
    sm: usize,
    ledgers: Arc<Mutex<Vec<Ledger>>>,
    grants: [Option<Place>; 2],
}

impl<'a> AllocUnit<'a> for PlacingUnit<'a> {
    fn step(&mut self, req: &AllocRequest) -> Result<(bool, bool), SimError> {
        let mut all = self.ledgers.lock().unwrap();
        let l = &mut all[self.sm];
        for e in 0..2 {
            let (placed, freed) = (req.placed[e], req.freed[e]);
            if placed & l.occupied[e] != 0 {
                l.violations
                    .push(format!("end {e}: slots {placed:#x} taken twice"));
            }
            l.occupied[e] |= placed;
            if freed & !l.occupied[e] != 0 {
                l.violations
                    .push(format!("end {e}: free slots {freed:#x} given back"));
            }
            l.occupied[e] &= !freed;
            l.placed += u64::from(placed.count_ones());
            l.freed += u64::from(freed.count_ones());
        }
        let (one, two) = self.inner.step(req)?;
        let end = req.kernel.unwrap_or(0) as usize % 2;
        let free = !l.occupied[end];
        let first = free.trailing_zeros();
        let second = (free & !(1 << first)).trailing_zeros();
        let place = |slot: u32| Place {
            end: end as u8,
            slot: slot as u8,
            stacked: false,
            base: [slot, slot],
        };
        self.grants = [one.then(|| place(first)), two.then(|| place(second))];
        Ok((one, two))
    }

    fn place(&self, nth: usize) -> Option<Place> {
        self.grants[nth]
    }
}

/// Runs two suite kernels (the second arriving at cycle 2,000) under `sched` with the placing
/// allocator; what each SM's allocator saw, the blocks the run completed, and those it switched
/// out or flushed.
fn run(sched: &str, fault: Option<PreemptFault>) -> (Vec<Ledger>, u64, u64) {
    let text = "[[kernel]]\nworkload = \"mm\"\nstream = 0\n\n[[kernel]]\nworkload = \"chimera_bs\"\nstream = 1\narrival = 2000\n";
    let mut mix = crate::workload::mix::Mix::parse(text, std::path::Path::new("m.toml")).unwrap();
    let mut opts = SimOptions::parse(sched).unwrap();
    let ledgers = Arc::new(Mutex::new(vec![]));
    opts.plan.sm_alloc = Arc::new(Placing {
        inner: opts.plan.sm_alloc.clone(),
        ledgers: ledgers.clone(),
    });
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let mut gpu = Gpu::golden(&cfg, opts).unwrap();
    if let Some(f) = fault {
        gpu.plant(f);
    }
    let r = gpu.run(&mut mix, &mut |_| {}).unwrap();
    let left: u64 = r
        .kernels
        .iter()
        .map(|k| k.preemptions.switch.blocks + k.preemptions.flush.blocks)
        .sum();
    // One more step of each allocator takes the reports of the run's last cycle.
    gpu.step_allocators_idle().unwrap();
    let l = ledgers.lock().unwrap().clone();
    (l, r.counters.blocks, left)
}

#[test]
fn every_place_comes_back_once_through_completions_switches_and_flushes() {
    for sched in [
        "--kernel-sched smk",
        "--kernel-sched even --preempt switch",
        "--kernel-sched even --preempt flush",
        "--kernel-sched timeslice --quantum 3000 --preempt switch",
    ] {
        let (ledgers, completed, left) = run(sched, None);
        assert_eq!(
            left > 0,
            sched.contains("preempt"),
            "{sched}: {left} taken off"
        );
        let placed: u64 = ledgers.iter().map(|l| l.placed).sum();
        for (sm, l) in ledgers.iter().enumerate() {
            assert_eq!(l.violations, Vec::<String>::new(), "{sched}: SM {sm}");
            assert_eq!(
                l.occupied, [0; 2],
                "{sched}: SM {sm} holds places at the end"
            );
            assert_eq!(l.placed, l.freed, "{sched}: SM {sm}");
        }
        assert_eq!(placed, completed + left, "{sched}: one place per residency");
        assert!(
            ledgers.iter().all(|l| l.placed > 0),
            "{sched}: every SM placed blocks"
        );
    }
}

#[test]
fn a_place_kept_by_a_switched_out_block_is_caught() {
    let (ledgers, _, _) = run(
        "--kernel-sched even --preempt switch",
        Some(PreemptFault::KeepPlace),
    );
    assert!(
        ledgers.iter().any(|l| l.occupied != [0; 2]),
        "places leaked by switched-out blocks stay taken"
    );
}
