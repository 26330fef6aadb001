//! The per-warp marks a kernel-aware warp-issue unit reads ([`IssueUnit::wants_marks`]): each
//! warp's kernel (the SM's first or second), whether its block is its kernel's boundary block,
//! whether it is being drained, and per kernel whether it has blocks left to dispatch.
//!
//! Kernels: under a 2-way allocator a block's kernel is its place's end (the first kernel on an
//! empty SM takes the low end, spec B11); under any other allocator the SM's earliest launch
//! is the first kernel and every other the second. The boundary block of an end is its
//! resident block on the highest slot (a 2-way end's high-water mark less one, W2-3); a
//! counting allocator has none. The marks are computed at the issue stage from the SM's blocks
//! as they are then: blocks launched this cycle counted, blocks that left before it not.
//!
//! [`IssueUnit::wants_marks`]: crate::gpu::sites::issue::IssueUnit::wants_marks

use super::preempt::Phase;
use super::Sm;

/// The marks of one cycle and the GPU's tails.
#[derive(Clone, Debug, Default)]
pub(super) struct Marks {
    /// Per scheduler: the second kernel's, boundary and draining warps (local masks).
    pub(super) per_sched: Vec<[u64; 3]>,
    /// Bit `k`: kernel `k` of this SM is in its tail.
    pub(super) tail: u8,
    /// Launches with no blocks left to dispatch while another launch has some (set by the
    /// GPU each cycle before the SM's).
    pub(super) tails: Vec<usize>,
}

/// Which of the SM's two kernels a block belongs to (true: the second), given the SM's
/// earliest launch.
fn second(tb: &super::warps::TbSlot, first_launch: usize) -> bool {
    match tb.place {
        Some(p) if p.stacked => p.end == 1,
        _ => tb.kernel.as_ref().is_some_and(|k| k.launch != first_launch),
    }
}

impl Sm<'_> {
    /// The warp-issue unit reads marks.
    pub fn wants_marks(&self) -> bool {
        self.marks.is_some()
    }

    /// The launches with no blocks left to dispatch while another has some (see [`Marks`]);
    /// a no-op for a unit without marks.
    pub fn set_tails(&mut self, launches: &[usize]) {
        if let Some(m) = self.marks.as_mut() {
            m.tails.clear();
            m.tails.extend_from_slice(launches);
        }
    }

    /// Recomputes this cycle's marks (before the issue stage; a unit without marks has none).
    pub(super) fn update_marks(&mut self) {
        let Some(mut m) = self.marks.take() else {
            return;
        };
        m.per_sched.iter_mut().for_each(|s| *s = [0; 3]);
        m.tail = 0;
        let live = || {
            self.tbs
                .iter()
                .filter(|tb| tb.active && tb.kernel.is_some())
        };
        let first = live()
            .filter_map(|tb| tb.kernel.as_ref().map(|k| k.launch))
            .min()
            .unwrap_or(0);
        // Each end's boundary: its block on the highest stacked slot.
        let mut top: [Option<(u8, usize)>; 2] = [None; 2];
        for (i, tb) in self.tbs.iter().enumerate() {
            if let (true, Some(p)) = (tb.active, tb.place.filter(|p| p.stacked)) {
                let e = &mut top[p.end as usize & 1];
                if e.is_none_or(|(slot, _)| p.slot > slot) {
                    *e = Some((p.slot, i));
                }
            }
        }
        let boundary = |i: usize| top.iter().flatten().any(|&(_, b)| b == i);
        for (i, tb) in self.tbs.iter().enumerate() {
            if !tb.active || tb.kernel.is_none() {
                continue;
            }
            let k = second(tb, first);
            let launch = tb.kernel.as_ref().map_or(0, |c| c.launch);
            if m.tails.contains(&launch) {
                m.tail |= 1 << k as u8;
            }
            let draining = tb
                .preempt
                .as_ref()
                .is_some_and(|p| matches!(p.phase, Phase::Draining));
            let flags = [k, boundary(i), draining];
            for w in tb.first_warp..tb.first_warp + tb.warps {
                let bit = 1u64 << (w / self.schedulers);
                let s = &mut m.per_sched[w % self.schedulers];
                for (mask, on) in s.iter_mut().zip(flags) {
                    if on {
                        *mask |= bit;
                    }
                }
            }
        }
        self.marks = Some(m);
    }
}
