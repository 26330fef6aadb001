//! GPU Maestro's 2-way resource layout on one SM (thesis ch. V §5.4.2, L1230-L1236; spec
//! `chimera_maestro.md` §2.3 REC, M-R2): the positional model of an SM's registers and shared
//! memory for two kernels, beside a first-fit layout (the baseline that fragments, Fig. 5.4).
//!
//! Two kernels share an SM's one-dimensional resources (registers in warp-register rows,
//! shared memory in 256 B units) from opposite ends, as a stack and a heap: the kernel at
//! [`End::Low`] takes slot `j` at `[j·size, (j+1)·size)`, the kernel at [`End::High`] at
//! `[cap − (j+1)·size, cap − j·size)`. Every block of a kernel needs the same amount, so a slot
//! index is a position. Per end: a slot bitmap, a high-water mark `hwm` (1 + the highest
//! occupied slot), a quota (slots `j >= quota` may not be taken: M-R2). A block takes its own
//! end's lowest hole below `hwm` first (an exact fit), else extends `hwm` when both ends' regions
//! still fit; a release at the boundary walks `hwm` down past free slots, so free space always
//! joins the middle. Threads and block slots are scalar counters.

/// The resources laid out by position, in this order.
pub const RESOURCES: [&str; 2] = ["regs", "smem"];

/// Registers in one allocation unit: a warp-register row (one register of 32 lanes).
pub const REG_UNIT: u32 = 32;

/// Shared-memory bytes in one allocation unit (spec B11: 256 B).
pub const SMEM_UNIT: u32 = 256;

/// The most block slots an end tracks (the bitmap's width).
pub const MAX_SLOTS: u32 = 64;

/// One of the two ends of the SM's resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    /// Grows up from address 0 (the first kernel on an empty SM).
    Low,
    /// Grows down from the top.
    High,
}

impl End {
    /// Both ends, low first.
    pub const BOTH: [End; 2] = [End::Low, End::High];

    /// The other end.
    pub fn other(self) -> End {
        match self {
            End::Low => End::High,
            End::High => End::Low,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// An SM's capacities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Resident threads.
    pub threads: u32,
    /// Thread-block slots (at most [`MAX_SLOTS`]).
    pub blocks: u32,
    /// Positional resources in units ([`RESOURCES`] order: warp-register rows, 256 B).
    pub units: [u32; 2],
}

impl Caps {
    /// The capacities of an SM with `registers` 32-bit registers and `shared_mem` bytes
    /// (both rounded down to whole units).
    pub fn of_sm(threads: u32, blocks: u32, registers: u32, shared_mem: u32) -> Self {
        Self {
            threads,
            blocks: blocks.min(MAX_SLOTS),
            units: [registers / REG_UNIT, shared_mem / SMEM_UNIT],
        }
    }
}

/// What one thread block of a kernel needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Need {
    /// Threads (padded to whole warps).
    pub threads: u32,
    /// Units of each positional resource ([`RESOURCES`] order).
    pub units: [u32; 2],
}

impl Need {
    /// The need of a block of `threads` threads (padded to warps of 32), `regs_per_thread`
    /// registers and `smem` bytes of shared memory: whole register rows per warp, and shared
    /// memory rounded up to whole units (never below the byte-exact need: M-R5).
    pub fn of_block(threads: u32, regs_per_thread: u32, smem: u32) -> Self {
        let warps = threads.div_ceil(32);
        Self {
            threads: warps * 32,
            units: [warps * regs_per_thread, smem.div_ceil(SMEM_UNIT)],
        }
    }
}

impl Need {
    /// The need of a block that takes `res` of the SM as the GPU model counts it (threads
    /// padded to warps, registers rounded as GPGPU-Sim rounds them, shared-memory bytes, one
    /// block slot): registers in whole warp-register rows, shared memory rounded up to units.
    pub fn of_resources(res: [u32; 4]) -> Self {
        Self {
            threads: res[0],
            units: [res[1].div_ceil(REG_UNIT), res[2].div_ceil(SMEM_UNIT)],
        }
    }
}

/// A slot granted to a block, with its bases (the SBR and the first warp's RBR).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    /// The end.
    pub end: End,
    /// The slot index within the end.
    pub slot: u32,
    /// The first unit of each resource ([`RESOURCES`] order); warp `w`'s register base is
    /// `base[0] + w · regs_per_thread`.
    pub base: [u32; 2],
}

/// Why a kernel cannot take an end of the SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AttachError {
    /// Both ends belong to kernels with blocks on the SM (a third kernel waits: W2-7).
    #[error("both ends of the SM hold a kernel")]
    Full,
    /// The kernel's blocks cannot fit on the SM even alone.
    #[error("one block needs more than the SM has")]
    TooBig,
}

/// One end's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct EndState {
    owner: Option<u32>,
    need: Option<Need>,
    occupied: u64,
    hwm: u32,
    quota: u32,
}

/// The 2-way layout of one SM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TwoWay {
    caps: Caps,
    ends: [EndState; 2],
    threads: u32,
    blocks: u32,
}

impl TwoWay {
    /// An empty SM.
    pub fn new(caps: Caps) -> Self {
        Self {
            caps,
            ends: [EndState::default(); 2],
            threads: 0,
            blocks: 0,
        }
    }

    /// The SM's capacities.
    pub fn caps(&self) -> Caps {
        self.caps
    }

    /// The end `kernel` holds, if any.
    pub fn end_of(&self, kernel: u32) -> Option<End> {
        End::BOTH
            .into_iter()
            .find(|e| self.ends[e.index()].owner == Some(kernel))
    }

    /// Gives `kernel` (blocks needing `need`) an end: the one it holds, else the low end of an
    /// empty SM, else a free end. Its quota starts at every slot.
    pub fn attach(&mut self, kernel: u32, need: Need) -> Result<End, AttachError> {
        if let Some(e) = self.end_of(kernel) {
            return Ok(e);
        }
        if !self.fits(need) {
            return Err(AttachError::TooBig);
        }
        let end = End::BOTH
            .into_iter()
            .find(|e| self.ends[e.index()].owner.is_none())
            .ok_or(AttachError::Full)?;
        self.ends[end.index()] = EndState {
            owner: Some(kernel),
            need: Some(need),
            occupied: 0,
            hwm: 0,
            quota: self.caps.blocks,
        };
        Ok(end)
    }

    /// The end `kernel` holds, else one it may take (spec B11): the low end of an SM without
    /// blocks, else an end whose kernel has no block left on the SM (its previous owner gives
    /// it up). `Full` while both ends hold blocks of other kernels; `TooBig` (nothing changed)
    /// when one block needs more than the SM has. An end the kernel holds without blocks
    /// takes `need` again (a kernel id reused by another kernel brings its own).
    pub fn claim(&mut self, kernel: u32, need: Need) -> Result<End, AttachError> {
        if let Some(e) = self.end_of(kernel) {
            if self.live(e) == 0 {
                self.ends[e.index()].need = Some(need);
            }
            return Ok(e);
        }
        if !self.fits(need) {
            return Err(AttachError::TooBig);
        }
        let empty = End::BOTH.map(|e| self.live(e) == 0);
        if empty == [true; 2] {
            self.ends = [EndState::default(); 2];
        } else if let Some(e) = End::BOTH.into_iter().find(|e| empty[e.index()]) {
            self.detach(e);
        }
        self.attach(kernel, need)
    }

    /// One block of `need` fits the empty SM.
    fn fits(&self, need: Need) -> bool {
        (0..2).all(|r| need.units[r] <= self.caps.units[r])
            && need.threads <= self.caps.threads
            && self.caps.blocks > 0
    }

    /// Frees `end` for another kernel; refused (false) while it has blocks on the SM.
    pub fn detach(&mut self, end: End) -> bool {
        let e = &mut self.ends[end.index()];
        if e.occupied != 0 {
            return false;
        }
        *e = EndState::default();
        true
    }

    /// Sets `end`'s quota (slots `j >= quota` are not taken; occupied ones are
    /// [`Self::victims`]).
    pub fn set_quota(&mut self, end: End, quota: u32) {
        self.ends[end.index()].quota = quota.min(self.caps.blocks);
    }

    /// `end`'s kernel, its blocks' need, and its occupied slots (bit `j`: slot `j`).
    pub fn state(&self, end: End) -> (Option<u32>, Option<Need>, u64) {
        let e = &self.ends[end.index()];
        (e.owner, e.need, e.occupied)
    }

    /// `end`'s quota.
    pub fn quota(&self, end: End) -> u32 {
        self.ends[end.index()].quota
    }

    /// `end`'s high-water mark: 1 + its highest occupied slot (0 when none).
    pub fn hwm(&self, end: End) -> u32 {
        self.ends[end.index()].hwm
    }

    /// Whether slot `slot` of `end` holds a block.
    pub fn occupied(&self, end: End, slot: u32) -> bool {
        slot < MAX_SLOTS && self.ends[end.index()].occupied >> slot & 1 == 1
    }

    /// Blocks on the SM at `end`.
    pub fn live(&self, end: End) -> u32 {
        self.ends[end.index()].occupied.count_ones()
    }

    /// Whether one more block of `need` would fit if the SM's free threads, block slots and
    /// units of each resource were one piece each (an allocator that never fragments).
    pub fn fits_in_total(&self, need: Need) -> bool {
        let used = |r: usize| -> u64 {
            End::BOTH
                .into_iter()
                .map(|e| {
                    let size = self.ends[e.index()].need.map_or(0, |n| n.units[r]);
                    u64::from(self.live(e)) * u64::from(size)
                })
                .sum()
        };
        self.threads + need.threads <= self.caps.threads
            && self.blocks < self.caps.blocks
            && (0..2).all(|r| used(r) + u64::from(need.units[r]) <= u64::from(self.caps.units[r]))
    }

    /// Units of resource `r` below `end`'s high-water mark (its region).
    fn region(&self, end: End, r: usize) -> u64 {
        let e = &self.ends[end.index()];
        let size = e.need.map_or(0, |n| n.units[r]);
        u64::from(e.hwm) * u64::from(size)
    }

    /// The free middle of resource `r`: `[low region's top, high region's bottom)` in units.
    pub fn free_middle(&self, r: usize) -> std::ops::Range<u32> {
        let low = self.region(End::Low, r) as u32;
        let high = self.caps.units[r] - self.region(End::High, r) as u32;
        low..high
    }

    /// The first unit of each resource of slot `slot` at `end`.
    pub fn base(&self, end: End, slot: u32) -> [u32; 2] {
        let need = self.ends[end.index()].need.map_or([0; 2], |n| n.units);
        std::array::from_fn(|r| match end {
            End::Low => slot * need[r],
            End::High => self.caps.units[r] - (slot + 1) * need[r],
        })
    }

    /// The slot a block of `end`'s kernel would take now, if one would fit: its own lowest
    /// hole below the high-water mark, else the high-water mark itself when both regions still
    /// fit every resource; within the quota, and with threads and a block slot to spare.
    pub fn next_slot(&self, end: End) -> Option<u32> {
        let e = &self.ends[end.index()];
        let need = e.need?;
        let scalars =
            self.threads + need.threads <= self.caps.threads && self.blocks < self.caps.blocks;
        if !scalars {
            return None;
        }
        let hole = (!e.occupied).trailing_zeros();
        if hole < e.hwm {
            return Some(hole).filter(|&j| j < e.quota);
        }
        let j = e.hwm;
        let other = end.other();
        let grows = (0..2).all(|r| {
            let mine = u64::from(j + 1) * u64::from(need.units[r]);
            mine + self.region(other, r) <= u64::from(self.caps.units[r])
        });
        (grows && j < e.quota && j < MAX_SLOTS).then_some(j)
    }

    /// Makes a block of `end`'s kernel resident in [`Self::next_slot`], if there is one.
    pub fn allocate(&mut self, end: End) -> Option<Grant> {
        let slot = self.next_slot(end)?;
        self.occupy(end, slot);
        Some(Grant {
            end,
            slot,
            base: self.base(end, slot),
        })
    }

    /// The next two blocks of `end`'s kernel would go to these slots (the second assuming the
    /// first was taken).
    pub fn next_two(&self, end: End) -> [Option<Grant>; 2] {
        let mut after = self.clone();
        let first = after.allocate(end);
        [first, first.and_then(|_| after.allocate(end))]
    }

    /// Marks slot `slot` of `end` taken by a block of its kernel (a slot [`Self::next_slot`]
    /// gave); false if it is taken already or out of range, or the end has no kernel.
    pub fn occupy(&mut self, end: End, slot: u32) -> bool {
        let e = &self.ends[end.index()];
        let Some(need) = e
            .need
            .filter(|_| slot < MAX_SLOTS && !self.occupied(end, slot))
        else {
            return false;
        };
        let e = &mut self.ends[end.index()];
        e.occupied |= 1 << slot;
        e.hwm = e.hwm.max(slot + 1);
        self.threads += need.threads;
        self.blocks += 1;
        true
    }

    /// Releases slot `slot` of `end` (a block completed, or was flushed or switched out);
    /// false if it held no block. At the boundary, the high-water mark walks down past the
    /// free slots below it, so the freed space joins the middle.
    pub fn release(&mut self, end: End, slot: u32) -> bool {
        if !self.occupied(end, slot) {
            return false;
        }
        let need = self.ends[end.index()].need.unwrap_or(Need {
            threads: 0,
            units: [0; 2],
        });
        let e = &mut self.ends[end.index()];
        e.occupied &= !(1 << slot);
        e.hwm = 64 - e.occupied.leading_zeros();
        self.threads -= need.threads;
        self.blocks -= 1;
        true
    }

    /// The blocks a quota reduction preempts at `end`: its occupied slots at or above the
    /// quota, highest (the boundary block) first.
    pub fn victims(&self, end: End) -> Vec<u32> {
        let e = &self.ends[end.index()];
        (e.quota..e.hwm)
            .rev()
            .filter(|&j| self.occupied(end, j))
            .collect()
    }
}

/// Blocks of `need` that fit an empty SM of `caps` alone (`maxFit(need, full SM)`).
pub fn alone(caps: Caps, need: Need) -> u32 {
    let mut sm = TwoWay::new(caps);
    if sm.claim(0, need).is_err() {
        return 0;
    }
    std::iter::from_fn(|| sm.allocate(End::Low)).count() as u32
}

/// A first-fit layout of the same resources, for comparison: each block takes, per resource,
/// the lowest free interval it fits in (registers and shared memory independently), so freed
/// space can be left in pieces no block fits (Fig. 5.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstFit {
    caps: Caps,
    /// Per resource, the allocated intervals `(start, len, block)`, sorted by start.
    used: [Vec<(u32, u32, u64)>; 2],
    threads: u32,
    blocks: u32,
    next_id: u64,
}

impl FirstFit {
    /// An empty SM.
    pub fn new(caps: Caps) -> Self {
        Self {
            caps,
            used: [vec![], vec![]],
            threads: 0,
            blocks: 0,
            next_id: 0,
        }
    }

    /// The lowest start at which `len` units of resource `r` are free.
    fn fit(&self, r: usize, len: u32) -> Option<u32> {
        let mut at = 0;
        for &(start, l, _) in &self.used[r] {
            if start - at >= len {
                return Some(at);
            }
            at = start + l;
        }
        (self.caps.units[r] - at >= len).then_some(at)
    }

    /// Places a block needing `need`; its id and bases, or `None` if it fits nowhere.
    pub fn allocate(&mut self, need: Need) -> Option<(u64, [u32; 2])> {
        if self.threads + need.threads > self.caps.threads || self.blocks >= self.caps.blocks {
            return None;
        }
        let base = [self.fit(0, need.units[0])?, self.fit(1, need.units[1])?];
        let id = self.next_id;
        self.next_id += 1;
        for ((used, start), len) in self.used.iter_mut().zip(base).zip(need.units) {
            // Sorted by (start, length): a block that needs none of a resource sits before one
            // that starts at the same unit, so `fit`'s running end never passes a start.
            let at = used.partition_point(|&(s, l, _)| (s, l) < (start, len));
            used.insert(at, (start, len, id));
        }
        self.threads += need.threads;
        self.blocks += 1;
        Some((id, base))
    }

    /// Whether one more block of `need` would fit if the free space of each resource were one
    /// piece.
    pub fn fits_in_total(&self, need: Need) -> bool {
        let used = |r: usize| -> u32 { self.used[r].iter().map(|&(_, len, _)| len).sum() };
        self.threads + need.threads <= self.caps.threads
            && self.blocks < self.caps.blocks
            && (0..2).all(|r| used(r) + need.units[r] <= self.caps.units[r])
    }

    /// Frees block `id` (needing `need`); false if it is not resident.
    pub fn release(&mut self, id: u64, need: Need) -> bool {
        let before = self.used[0].len();
        for used in &mut self.used {
            used.retain(|&(_, _, b)| b != id);
        }
        if self.used[0].len() == before {
            return false;
        }
        self.threads -= need.threads;
        self.blocks -= 1;
        true
    }
}

#[cfg(test)]
mod tests;
