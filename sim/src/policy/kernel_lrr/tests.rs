//! The kernel-aware scheduler in the GPU: one kernel issues as GTO does (L3, whatever the
//! allocator), and a Maestro pair hands the blocks every mark (kernels, boundary blocks,
//! drained warps, tails) and runs to its end.

use super::*;
use crate::gpu::{Gpu, Report, SimOptions};
use crate::gpu::sites::{BlockFault, GoldenBlocks, Override, Port, SitePort};
use std::cell::RefCell;
use std::rc::Rc;

fn run(args: &str, kernels: &[(&str, u64)]) -> Report {
    let cfg = GpuConfig::preset("gtx480").unwrap();
    Gpu::golden(&cfg, SimOptions::parse(args).unwrap())
        .unwrap()
        .run(&mut crate::workload::mix::Mix::medium(kernels), &mut |_| {})
        .unwrap()
}

#[test]
fn one_kernel_issues_as_gto() {
    for alloc in ["", " --sm-alloc twoway"] {
        let gto = run(&format!("--warp-sched gto{alloc}"), &[("mm", 0)]);
        let klrr = run(&format!("--warp-sched kernel_lrr{alloc}"), &[("mm", 0)]);
        assert_eq!(klrr.counters, gto.counters, "{alloc}");
    }
}

/// Selects (summed over schedulers) that saw each mark, and grants per tier.
#[derive(Debug, Default)]
struct Seen {
    kernel: u64,
    boundary: u64,
    drain: u64,
    tail: u64,
    tiers: [u64; 4],
}

/// The golden block, counting what it is given and what it answers.
struct Observed {
    block: kernel_lrr::Golden,
    seen: Rc<RefCell<Seen>>,
}

impl Port<KernelLrrIn, kernel_lrr::KernelLrrOut> for Observed {
    fn step(&mut self, inp: &KernelLrrIn) -> Result<kernel_lrr::KernelLrrOut, BlockFault> {
        let o = crate::block::Block::step(&mut self.block, inp);
        let mut s = self.seen.borrow_mut();
        s.kernel += (inp.kernel != 0) as u64;
        s.boundary += (inp.boundary != 0) as u64;
        s.drain += (inp.drain != 0) as u64;
        s.tail += (inp.tail != 0) as u64;
        s.tiers[o.tier as usize] += 1;
        Ok(o)
    }
}

#[test]
fn a_maestro_pair_hands_every_mark_and_runs_to_its_end() {
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let pair = [("mm", 0), ("chimera_bs", 500)];
    let args = "--kernel-sched maestro --epoch 10000 --preempt drain";
    let seen = Rc::new(RefCell::new(Seen::default()));
    let mut blocks = Override::<_, kernel_lrr::Kind, _>::new(GoldenBlocks, |_, p: &kernel_lrr::Params| {
        Ok(Box::new(Observed {
            block: kernel_lrr::Golden::new(*p),
            seen: seen.clone(),
        }) as SitePort<'_, kernel_lrr::Kind>)
    });
    let opts = SimOptions::parse(&format!("--warp-sched kernel_lrr {args}")).unwrap();
    let r = Gpu::new(&cfg, opts, &mut blocks)
        .unwrap()
        .run(&mut crate::workload::mix::Mix::medium(&pair), &mut |_| {})
        .unwrap();
    let gto = run(&format!("--warp-sched gto {args}"), &pair);
    for (k, o) in r.kernels.iter().zip(&gto.kernels) {
        let c = (k.counters.warp_instructions, k.counters.blocks);
        assert_eq!(c, (o.counters.warp_instructions, o.counters.blocks), "every instruction");
    }
    let s = seen.borrow();
    eprintln!(
        "kernel_lrr: {} cycles (gto {}), fragmented SM-cycles {} (gto {}); selects with marks: \
         {s:?}",
        r.counters.cycles,
        gto.counters.cycles,
        r.sm_alloc_stats["fragmented_cycles"],
        gto.sm_alloc_stats["fragmented_cycles"]
    );
    assert!(s.kernel > 0 && s.boundary > 0 && s.tail > 0, "{s:?}");
    assert!(s.tiers[2] > 0, "boundary warps granted first: {s:?}");
}
