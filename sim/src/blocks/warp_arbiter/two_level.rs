//! The two-level active scheduler's lists (GPGPU-Sim `two_level_active_scheduler`), shared by
//! every two-level policy: TL-RR (the warp arbiter's `two_level`), TL-GTO (`two_level_gto`)
//! and two-level PAWS (the `paws` block's `tl` and `tl_inner`). They differ only in how the
//! active list is ordered and the grant chosen ([`ListOrder`]; spec `locality_bypass_paws.md`
//! P-R1, P-R2, C8).
//!
//! Every warp slot is always either in the ordered *active list* (`max_active` entries) or in
//! the *pending FIFO* (`warps - max_active` entries). Each cycle, in this order:
//! 1. demote: active entries whose warp is *waiting* leave the active list (order of the rest
//!    kept) and are pushed to the back of the pending FIFO in active-list order;
//! 2. promote: as many warps as were demoted are popped from the front of the pending FIFO and
//!    appended to the active list (whether or not they wait: GPGPU-Sim does not check);
//! 3. select: the first eligible warp in active-list order is granted
//!    ([`ListOrder::SmallestKey`]: the eligible active warp of the smallest key);
//! 4. rotate (not under [`ListOrder::SmallestKey`]): on a grant at list position `j`, the list
//!    becomes `list[j+1..] ++ list[..=j]` (inner LRR).
//!
//! A key is a *rank* (for PAWS the waiting flag over the phase distance; for TL-GTO the
//! waiting flag alone) and an *age* (the launch order), smaller first. Under
//! [`ListOrder::SortAtPromotion`], a cycle that promoted a warp records the ranks of the new
//! list's warps and leaves the list to be sorted in the next cycle: that cycle sorts the whole
//! active list by (recorded rank, age), smallest first, in place of steps 1 and 2 (no warp is
//! demoted or promoted in it), then selects and rotates. GPGPU-Sim sorts in the promotion
//! cycle itself, on that cycle's keys; the hardware sorts a cycle later on the keys it
//! recorded, so that the sort and the demotion are not one path (`hdl::warp_arbiter`).
//!
//! Reset: active list `0..max_active`, pending FIFO `max_active..warps`, no sort pending.

use crate::block::PortSpec;

/// How a two-level scheduler orders its active list and chooses the grant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListOrder {
    /// Never sorted; inner LRR rotation (TL-RR, GPGPU-Sim's `two_level_active:<n>:0:1`).
    Rr,
    /// Sorted by the key in the cycle after a promotion, then inner LRR rotation (TL-GTO and
    /// the report's two-level PAWS, spec P-R1 `PAWS_TL_FAITHFUL`).
    SortAtPromotion,
    /// The eligible active warp of the smallest key is granted; the list is never sorted nor
    /// rotated, so demoted warps enter the FIFO in promotion order (spec C8 `PAWS_TL_INNER`).
    SmallestKey,
}

/// The active list and the pending FIFO of one scheduler.
#[derive(Clone, Debug)]
pub struct TwoLevelLists {
    /// Active-list length.
    k: usize,
    /// Pending-FIFO length.
    plen: usize,
    /// The active list, `k` entries, in priority order.
    act: [u8; 64],
    /// The pending FIFO, `plen` entries, as a ring: its front at index `head`. The FIFO
    /// always holds `plen` warps (a cycle pops as many as it pushes), so a cycle's demoted
    /// warps take the slots its promoted ones left.
    pend: [u8; 64],
    /// Index of the pending FIFO's front in `pend` (`< plen`).
    head: usize,
    /// The warps of the active list, as a mask (derived from `act`, kept with it).
    act_mask: u64,
    order: ListOrder,
    /// [`ListOrder::SortAtPromotion`]: this cycle sorts the list.
    sort_pending: bool,
    /// [`ListOrder::SortAtPromotion`]: per warp, the rank recorded by the last promotion.
    ranks: [u32; 64],
}

impl TwoLevelLists {
    /// Lists for `warps` warp slots with `max_active` active ordered by `order`, in their
    /// reset state (`1 <= max_active <= warps / 2`, checked by the blocks' parameters).
    pub fn new(warps: usize, max_active: usize, order: ListOrder) -> Self {
        assert!((1..=warps / 2).contains(&max_active) && warps <= 64);
        let mut l = Self {
            k: max_active,
            plen: warps - max_active,
            act: [0; 64],
            pend: [0; 64],
            head: 0,
            act_mask: 0,
            order,
            sort_pending: false,
            ranks: [0; 64],
        };
        l.reset();
        l
    }

    /// The reset state: active `0..k`, pending `k..warps` from the front.
    pub fn reset(&mut self) {
        for s in 0..self.k {
            self.act[s] = s as u8;
        }
        for j in 0..self.plen {
            self.pend[j] = (self.k + j) as u8;
        }
        self.head = 0;
        self.act_mask = crate::block::low_bits(self.k);
        self.sort_pending = false;
        self.ranks = [0; 64];
    }

    /// One cycle over `eligible` and `waiting` warps, ordering by `key` (rank, age), smaller
    /// first (ages of distinct warps differ). Returns the grant and the active list of this
    /// cycle as a mask, and updates the lists.
    pub fn step(
        &mut self,
        eligible: u64,
        waiting: u64,
        key: impl Fn(u8) -> (u32, u64),
    ) -> (Option<u8>, u64) {
        let k = self.k;
        // Whole-array copies (no length-dependent copy); entries from `k` on are unused.
        let mut list = self.act;
        if self.sort_pending {
            self.sort_pending = false;
            let ranks = &self.ranks;
            list[..k].sort_unstable_by_key(|&w| (ranks[w as usize], key(w).1));
        } else {
            let promoted = self.demote_and_promote(waiting, &mut list);
            self.sort_pending = promoted && self.order == ListOrder::SortAtPromotion;
            if self.sort_pending {
                for &w in &list[..k] {
                    self.ranks[w as usize] = key(w).0;
                }
            }
        }
        if self.order == ListOrder::SmallestKey {
            self.act = list;
            let grant = (list[..k].iter().copied())
                .filter(|&w| eligible >> w & 1 == 1)
                .min_by_key(|&w| key(w));
            return (grant, self.act_mask);
        }
        match list[..k].iter().position(|&w| eligible >> w & 1 == 1) {
            Some(j) => {
                // Rotate so that the granted entry ends the list.
                let mut at = j + 1;
                for slot in &mut self.act[..k] {
                    at = if at == k { 0 } else { at };
                    *slot = list[at];
                    at += 1;
                }
                (Some(self.act[k - 1]), self.act_mask)
            }
            None => {
                self.act = list;
                (None, self.act_mask)
            }
        }
    }

    /// The grant of a [`Self::step`] over `eligible` and `waiting` that would leave the lists
    /// as they are: no sort due, no active warp waiting (so none demoted), and either no
    /// eligible active warp or, under inner LRR, the last active entry the first eligible one
    /// (its rotation keeps the list). `None` when the step would change the lists (or the
    /// answer needs the key).
    pub fn holds(&self, eligible: u64, waiting: u64) -> Option<Option<u8>> {
        if self.sort_pending || self.act_mask & waiting != 0 {
            return None;
        }
        if eligible & self.act_mask == 0 {
            return Some(None);
        }
        let k = self.k;
        let last = self.act[k - 1];
        let before_last = self.act[..k - 1].iter().fold(0u64, |m, &w| m | 1 << w);
        let rotates = self.order != ListOrder::SmallestKey;
        (rotates && eligible & before_last == 0).then_some(Some(last))
    }

    /// The active list as a mask.
    pub fn active_mask(&self) -> u64 {
        self.act_mask
    }

    /// Steps 1-2 on `list` (the active list on entry): writes the active list after demotion
    /// and promotion into it (and the FIFO into its ring); whether any warp was promoted.
    fn demote_and_promote(&mut self, waiting: u64, list: &mut [u8; 64]) -> bool {
        let k = self.k;
        if self.act_mask & waiting == 0 {
            return false;
        }
        // Kept warps in order into `list`, demoted ones in order to the FIFO's back; as many
        // promoted from its front to the list's tail.
        let (mut kept, mut ndem) = (0, 0);
        let mut demoted = [0u8; 64];
        for &w in &self.act[..k] {
            if waiting >> w & 1 == 1 {
                demoted[ndem] = w;
                ndem += 1;
            } else {
                list[kept] = w;
                kept += 1;
            }
        }
        self.act_mask &= !waiting;
        // Popping `ndem` from the front and pushing `ndem` at the back of a full ring: the
        // pushed warps take the popped ones' slots, in order.
        let (plen, mut h) = (self.plen, self.head);
        for (to, &d) in list[kept..k].iter_mut().zip(&demoted[..ndem]) {
            *to = self.pend[h];
            self.act_mask |= 1 << *to;
            self.pend[h] = d;
            h = if h + 1 == plen { 0 } else { h + 1 };
        }
        self.head = h;
        true
    }

    /// The active list, in priority order.
    pub fn active(&self) -> &[u8] {
        &self.act[..self.k]
    }

    /// The pending FIFO, from its front.
    pub fn pending(&self) -> impl Iterator<Item = u8> + '_ {
        let (front, back) = self.pend[..self.plen].split_at(self.head);
        back.iter().chain(front).copied()
    }

    /// The lists' state for waveforms, `id_bits`-wide warp ids: `act_<s>`, `pend_<j>` (from
    /// the front), and `sort_pending` under [`ListOrder::SortAtPromotion`].
    pub fn state_specs(&self, id_bits: u32, v: &mut Vec<PortSpec>) {
        for s in 0..self.k {
            v.push(PortSpec::new(format!("act_{s}"), id_bits));
        }
        for j in 0..self.plen {
            v.push(PortSpec::new(format!("pend_{j}"), id_bits));
        }
        if self.order == ListOrder::SortAtPromotion {
            v.push(PortSpec::new("sort_pending", 1));
        }
    }

    /// The values of [`Self::state_specs`], appended to `out`.
    pub fn state_values(&self, out: &mut Vec<u64>) {
        out.extend(self.act[..self.k].iter().map(|&w| u64::from(w)));
        out.extend(self.pending().map(u64::from));
        if self.order == ListOrder::SortAtPromotion {
            out.push(u64::from(self.sort_pending));
        }
    }
}
