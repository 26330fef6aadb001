//! Cache building blocks: a set-associative tag array with LRU replacement and a table of
//! miss-status holding registers (MSHRs) that merges requests to a line already being fetched.
//!
//! Line addresses are byte addresses with the offset bits cleared. The set index is either
//! linear (the bits right above the line offset) or GPGPU-Sim's Fermi hash (`H` in a
//! `-gpgpu_cache:dl1` string; Nugteren et al., HPCA 2014), which XORs line-address bits 7-11
//! with address bits 13, 14, 15, 17 and 19 (32 or 64 sets; bit 12 is prepended for 64).

use crate::mem::address::{ipoly, AddressMap};
use std::collections::BTreeMap;

/// How an address selects a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetIndex {
    /// `(addr >> log2(line)) mod sets`.
    Linear,
    /// GPGPU-Sim's Fermi L1 hash (only 32 or 64 sets of 128 B lines).
    FermiHash,
    /// GPGPU-Sim's IPOLY hash (`P`; 16, 32 or 64 sets: [`crate::mem::address::ipoly`] of
    /// the line number's bits above the set index).
    Ipoly,
    /// A memory sub-partition's L2 (GPGPU-Sim's `l2_cache_config::set_index`): linear or
    /// IPOLY on the partition address ([`AddressMap::partition_address`]). The address bits
    /// that choose the channel and the sub-partition are left out, so every set is used;
    /// indexing the global address would see bits that are fixed within one slice.
    Partition {
        /// The memory system's address mapping.
        map: AddressMap,
        /// IPOLY (true) or linear on the partition address.
        ipoly: bool,
    },
}

/// A tag array with LRU replacement and allocate-on-miss reservations.
///
/// A line may be split into sectors ([`TagArray::with_sectors`]; at most 32): each sector is
/// valid, being fetched (reserved) or absent on its own, as in GPGPU-Sim's `sector_cache_block`.
/// Without sectors a line is one sector.
///
/// Recency follows GPGPU-Sim's `tag_array` (`gpu-cache.cc`): a line's last use is set when its
/// way is allocated (the miss, or a write that allocates) and on every hit, a hit on a line
/// still being fetched included; the fill that makes a reserved line valid leaves it alone, so
/// a line is as old as its miss, not its data.
#[derive(Clone, Debug)]
pub struct TagArray {
    sets: u32,
    /// Ways looked at and replaced (at most `stride`: [`TagArray::set_ways`]).
    ways: u32,
    /// Ways each set holds.
    stride: u32,
    line_log2: u32,
    /// log2 of the sector bytes (`line_log2` when the line is one sector).
    sector_log2: u32,
    index: SetIndex,
    /// `tags[set * ways + way]`: line address held, if valid or reserved.
    tags: Vec<Option<u64>>,
    /// Time of last use of each way (larger is more recent).
    last_use: Vec<u64>,
    /// Per way, the sectors (bit `i`: sector `i`) whose data is present.
    valid: Vec<u32>,
    /// Per way, the sectors whose data is still being fetched (a way with any is not
    /// replaced).
    reserved: Vec<u32>,
    /// The way holds data newer than the next level (write-back caches only).
    dirty: Vec<bool>,
    now: u64,
}

/// What an access found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The line is present in `way` (its LRU position is refreshed by `access`).
    Hit { set: u32, way: u32 },
    /// The line is present but its data (some of the sectors asked for) is still being
    /// fetched (reserved on an earlier miss); the rest of the sectors asked for are valid.
    HitReserved { set: u32, way: u32 },
    /// The line is present but `missing` sectors asked for are neither valid nor being fetched
    /// (GPGPU-Sim's `SECTOR_MISS`; only in a sectored tag array).
    SectorMiss { set: u32, way: u32, missing: u32 },
    /// The line is absent; a fill would replace `way` of `set`, evicting `victim` if valid.
    Miss {
        set: u32,
        way: u32,
        victim: Option<u64>,
    },
    /// The line is absent and every way of its set is reserved: nothing can be replaced now.
    AllReserved { set: u32 },
}

impl SetIndex {
    /// Whether GPGPU-Sim's Fermi hash indexes a cache of `sets` sets of `line_bytes` lines (it
    /// is defined for 32 or 64 sets of 128 B).
    pub fn fermi_hash_fits(sets: u32, line_bytes: u32) -> bool {
        line_bytes == 128 && matches!(sets, 32 | 64)
    }
}

impl TagArray {
    /// An empty tag array. `sets` and `line_bytes` must be powers of two; `FermiHash` needs 32
    /// or 64 sets of 128 B lines.
    pub fn new(sets: u32, ways: u32, line_bytes: u32, index: SetIndex) -> Self {
        assert!(sets.is_power_of_two() && line_bytes.is_power_of_two() && ways > 0);
        if index == SetIndex::FermiHash {
            assert!(
                SetIndex::fermi_hash_fits(sets, line_bytes),
                "the Fermi hash needs 32/64 sets of 128 B"
            );
        }
        let n = (sets * ways) as usize;
        Self {
            sets,
            ways,
            stride: ways,
            line_log2: line_bytes.trailing_zeros(),
            sector_log2: line_bytes.trailing_zeros(),
            index,
            tags: vec![None; n],
            last_use: vec![0; n],
            valid: vec![0; n],
            reserved: vec![0; n],
            dirty: vec![false; n],
            now: 0,
        }
    }

    /// The same tag array with lines of sectors of `sector_bytes` (a power of two dividing the
    /// line into at most 32 sectors; 0 keeps the line one sector).
    pub fn with_sectors(mut self, sector_bytes: u32) -> Self {
        if sector_bytes != 0 {
            let log2 = sector_bytes.trailing_zeros();
            assert!(
                sector_bytes.is_power_of_two()
                    && log2 <= self.line_log2
                    && self.line_log2 - log2 <= 5,
                "{sector_bytes} B sectors do not split a {} B line into 1 to 32",
                1u64 << self.line_log2
            );
            self.sector_log2 = log2;
        }
        self
    }

    /// Line address of `addr`.
    pub fn line(&self, addr: u64) -> u64 {
        addr >> self.line_log2 << self.line_log2
    }

    /// Bytes of a sector (the line's when it is not sectored).
    pub fn sector_bytes(&self) -> u32 {
        1 << self.sector_log2
    }

    /// Every sector of a line.
    pub fn full_mask(&self) -> u32 {
        u32::MAX >> (32 - (1 << (self.line_log2 - self.sector_log2)))
    }

    /// The sectors of its line that `bytes` bytes from `addr` touch (at least the one of
    /// `addr`; bytes past the line's end are ignored).
    pub fn sector_mask(&self, addr: u64, bytes: u32) -> u32 {
        let offset = addr - self.line(addr);
        let first = offset >> self.sector_log2;
        let end = (offset + bytes.max(1) as u64).min(1 << self.line_log2);
        let last = (end - 1) >> self.sector_log2;
        let n = (last - first + 1) as u32;
        (u32::MAX >> (32 - n)) << first
    }

    /// The sectors of the line of `addr` whose data is present (0 if the line is absent).
    pub fn valid_mask(&self, addr: u64) -> u32 {
        self.find(addr)
            .map_or(0, |(set, way)| self.valid[self.at(set, way)])
    }

    fn at(&self, set: u32, way: u32) -> usize {
        (set * self.stride + way) as usize
    }

    /// The same empty tag array with room for `max` ways per set, of which the first `ways`
    /// are used until [`TagArray::set_ways`] changes that.
    pub fn with_max_ways(self, max: u32) -> Self {
        assert!(max >= self.ways);
        let n = (self.sets * max) as usize;
        Self {
            stride: max,
            tags: vec![None; n],
            last_use: vec![0; n],
            valid: vec![0; n],
            reserved: vec![0; n],
            dirty: vec![false; n],
            ..self
        }
    }

    /// Uses the first `ways` ways of each set from now on (1 to the most it holds): lines in
    /// the others stay but are neither found nor replaced until the ways come back (as
    /// GPGPU-Sim's `set_assoc`), except that a fill still finds its reserved line.
    pub fn set_ways(&mut self, ways: u32) {
        assert!(
            (1..=self.stride).contains(&ways),
            "{ways} of {} ways",
            self.stride
        );
        self.ways = ways;
    }

    /// Ways in use per set.
    pub fn ways(&self) -> u32 {
        self.ways
    }

    /// The set and way holding the line of `addr`, valid or reserved, among the ways in use.
    fn find(&self, addr: u64) -> Option<(u32, u32)> {
        self.find_in(addr, self.ways)
    }

    /// [`TagArray::find`] among the first `ways` ways.
    fn find_in(&self, addr: u64, ways: u32) -> Option<(u32, u32)> {
        let line = self.line(addr);
        let set = self.set_of(addr);
        let base = (set * self.stride) as usize;
        let ways = &self.tags[base..base + ways as usize];
        ways.iter()
            .position(|t| *t == Some(line))
            .map(|w| (set, w as u32))
    }

    /// Set of `addr`.
    pub fn set_of(&self, addr: u64) -> u32 {
        match self.index {
            SetIndex::Linear => self.linear_set(addr),
            SetIndex::Ipoly => self.ipoly_set(addr),
            SetIndex::Partition { map, ipoly: false } => {
                self.linear_set(map.partition_address(addr))
            }
            SetIndex::Partition { map, ipoly: true } => self.ipoly_set(map.partition_address(addr)),
            SetIndex::FermiHash => {
                let lower = (addr >> self.line_log2) & 0x1f;
                let upper =
                    ((addr & 0xe000) >> 13) | ((addr & 0x20000) >> 14) | ((addr & 0x80000) >> 15);
                let mut set = lower ^ upper;
                if self.sets == 64 {
                    set |= (addr & 0x1000) >> 7;
                }
                set as u32
            }
        }
    }

    fn linear_set(&self, addr: u64) -> u32 {
        ((addr >> self.line_log2) & (self.sets as u64 - 1)) as u32
    }

    fn ipoly_set(&self, addr: u64) -> u32 {
        let line = addr >> self.line_log2;
        let sets = self.sets as u64;
        ipoly(line >> sets.trailing_zeros(), line & (sets - 1), sets) as u32
    }

    /// Looks the whole line of `addr` up without changing anything.
    pub fn probe(&self, addr: u64) -> Lookup {
        self.probe_sectors(addr, self.full_mask())
    }

    /// Looks sectors `mask` of the line of `addr` up without changing anything: a hit needs
    /// all of them valid, a reserved hit all of them valid or being fetched.
    pub fn probe_sectors(&self, addr: u64, mask: u32) -> Lookup {
        if let Some((set, way)) = self.find(addr) {
            let i = self.at(set, way);
            let (valid, coming) = (self.valid[i], self.valid[i] | self.reserved[i]);
            return match () {
                _ if mask & !valid == 0 => Lookup::Hit { set, way },
                _ if mask & !coming == 0 => Lookup::HitReserved { set, way },
                _ => Lookup::SectorMiss {
                    set,
                    way,
                    missing: mask & !coming,
                },
            };
        }
        let set = self.set_of(addr);
        let base = (set * self.stride) as usize;
        let ways = &self.tags[base..base + self.ways as usize];
        // Victim: the first invalid way, else the least recently used unreserved way (times
        // are unique, so the choice is deterministic).
        let way = ways.iter().position(Option::is_none).or_else(|| {
            (0..self.ways as usize)
                .filter(|&w| self.reserved[base + w] == 0)
                .min_by_key(|&w| self.last_use[base + w])
        });
        match way {
            Some(way) => Lookup::Miss {
                set,
                way: way as u32,
                victim: ways[way],
            },
            None => Lookup::AllReserved { set },
        }
    }

    /// Looks `addr` up and, on a hit (on a valid line or on one still being fetched), makes
    /// the line most recently used.
    pub fn access(&mut self, addr: u64) -> Lookup {
        let r = self.probe(addr);
        if let Lookup::Hit { set, way } | Lookup::HitReserved { set, way } = r {
            self.touch(set, way);
        }
        r
    }

    /// Reserves a way for the line of `addr` on a miss (allocate-on-miss): the victim is
    /// evicted now and the way waits for [`TagArray::fill`]. Only a `Miss` reserves; the lookup
    /// is returned either way.
    pub fn reserve(&mut self, addr: u64) -> Lookup {
        let r = self.probe(addr);
        if let Lookup::Miss { set, way, .. } = r {
            self.reserve_at(addr, set, way);
        }
        r
    }

    /// Reserves `way` of `set` (from a `Miss` lookup of `addr`) for the whole line without
    /// probing again.
    pub fn reserve_at(&mut self, addr: u64, set: u32, way: u32) {
        self.reserve_sectors_at(addr, set, way, self.full_mask());
    }

    /// Reserves `way` of `set` (from a `Miss` lookup of `addr`) for the line of `addr`, whose
    /// sectors `mask` are to be fetched (the others stay absent).
    pub fn reserve_sectors_at(&mut self, addr: u64, set: u32, way: u32, mask: u32) {
        let i = self.at(set, way);
        self.tags[i] = Some(self.line(addr));
        self.valid[i] = 0;
        self.reserved[i] = mask;
        self.dirty[i] = false;
        self.touch(set, way);
    }

    /// Sectors `mask` of the line in `way` of `set` (a `SectorMiss`) are now being fetched too;
    /// the line becomes most recently used.
    pub fn reserve_more(&mut self, set: u32, way: u32, mask: u32) {
        let i = self.at(set, way);
        self.reserved[i] |= mask;
        self.touch(set, way);
    }

    /// Sectors `mask` of the line in `way` of `set` now hold data (a write kept by a
    /// write-back cache); sectors still being fetched stay reserved until their fill.
    pub fn write_sectors(&mut self, set: u32, way: u32, mask: u32) {
        let i = self.at(set, way);
        self.valid[i] |= mask & !self.reserved[i];
    }

    /// Installs the line of `addr` as valid in `way` of `set` (from a `Miss` lookup), replacing
    /// whatever was there, and makes it most recently used; it starts clean.
    pub fn install_at(&mut self, addr: u64, set: u32, way: u32) {
        let i = self.at(set, way);
        self.tags[i] = Some(self.line(addr));
        self.valid[i] = self.full_mask();
        self.reserved[i] = 0;
        self.dirty[i] = false;
        self.touch(set, way);
    }

    /// Marks `way` of `set` dirty (written, not yet written back).
    pub fn mark_dirty(&mut self, set: u32, way: u32) {
        let i = self.at(set, way);
        self.dirty[i] = true;
    }

    /// Whether `way` of `set` is dirty.
    pub fn is_dirty(&self, set: u32, way: u32) -> bool {
        self.dirty[self.at(set, way)]
    }

    /// Installs the line of `addr`, returning the evicted line, if any. A reserved line becomes
    /// valid and keeps the recency of its miss (GPGPU-Sim's `cache_block_t::fill` sets no
    /// access time); a valid line is refreshed; an absent one is installed most recently used;
    /// with every way of the set reserved nothing is installed.
    pub fn fill(&mut self, addr: u64) -> Option<u64> {
        self.fill_sectors(addr, self.full_mask())
    }

    /// [`TagArray::fill`] of sectors `mask` of the line of `addr`: on a line being fetched
    /// they become valid and stop being reserved (its recency is left alone).
    pub fn fill_sectors(&mut self, addr: u64, mask: u32) -> Option<u64> {
        if let Some((set, way)) = self.find_in(addr, self.stride) {
            let i = self.at(set, way);
            if self.reserved[i] & mask == 0 {
                self.touch(set, way);
            }
            self.valid[i] |= mask;
            self.reserved[i] &= !mask;
            return None;
        }
        match self.probe(addr) {
            Lookup::Miss { set, way, victim } => {
                self.install_at(addr, set, way);
                victim
            }
            _ => None,
        }
    }

    /// Removes the line of `addr` if present and valid (evict-on-write); true if it was. A
    /// line still being fetched stays reserved.
    pub fn invalidate(&mut self, addr: u64) -> bool {
        match self.find(addr) {
            Some((set, way)) if self.reserved[self.at(set, way)] == 0 => {
                let i = self.at(set, way);
                self.tags[i] = None;
                self.valid[i] = 0;
                true
            }
            _ => false,
        }
    }

    /// Makes `way` of `set` the most recently used (for a caller that already probed).
    pub fn touch(&mut self, set: u32, way: u32) {
        self.now += 1;
        let i = self.at(set, way);
        self.last_use[i] = self.now;
    }
}

/// Why the MSHR table cannot take a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MshrFull {
    /// No free entry for a new line.
    NoEntry,
    /// The line's entry already merges the maximum number of requests.
    MergeLimit,
}

/// Miss-status holding registers (GPGPU-Sim's `mshr_table`): one entry per line being
/// fetched, each merging up to `max_merge` requests; or, `per_sector`, as GPGPU-Sim's sectored
/// caches key their table by `mshr_addr`, one entry per sector being fetched: a request
/// waiting for several sectors then takes a merge slot in each, and an entry for each not yet
/// pending, as GPGPU-Sim's sector requests do one by one. `R` is the request type. Each request records
/// the sectors it waits for, so that a partial fill of a sectored line wakes only the
/// requests it completes.
#[derive(Clone, Debug)]
pub struct MshrTable<R> {
    entries: usize,
    max_merge: usize,
    /// Entries are sectors, not lines.
    per_sector: bool,
    /// Per line: its waiting requests.
    pending: BTreeMap<u64, Waiting<R>>,
    /// Entries in use: the lines, or the sectors, pending.
    sectors_pending: usize,
}

/// The requests waiting for one line's sectors, in arrival order, and the sectors each waits
/// for.
#[derive(Clone, Debug)]
struct Waiting<R> {
    reqs: Vec<R>,
    sectors: Vec<u32>,
}

impl<R> Default for Waiting<R> {
    fn default() -> Self {
        Self {
            reqs: Vec::new(),
            sectors: Vec::new(),
        }
    }
}

/// The entries a request waiting for sectors `mask` takes: its sectors, or the line's one
/// entry (bit 0).
fn entry_mask(mask: u32, per_sector: bool) -> u32 {
    match per_sector {
        true => mask,
        false => 1,
    }
}

impl<R> Waiting<R> {
    /// The entries some request of the line takes.
    fn union(&self, per_sector: bool) -> u32 {
        self.sectors
            .iter()
            .fold(0, |a, &m| a | entry_mask(m, per_sector))
    }

    /// Whether some entry of `entries` already merges `max_merge` requests.
    fn merge_full(&self, entries: u32, max_merge: usize, per_sector: bool) -> bool {
        let mut left = entries;
        while left != 0 {
            let bit = left & left.wrapping_neg();
            left &= left - 1;
            let merged = self.sectors.iter();
            if merged
                .filter(|&&m| entry_mask(m, per_sector) & bit != 0)
                .count()
                >= max_merge
            {
                return true;
            }
        }
        false
    }
}

impl<R> MshrTable<R> {
    /// A table of `entries` entries (lines, or sectors when `per_sector`) merging up to
    /// `max_merge` requests each.
    pub fn new(entries: usize, max_merge: usize, per_sector: bool) -> Self {
        Self {
            entries,
            max_merge,
            per_sector,
            pending: BTreeMap::new(),
            sectors_pending: 0,
        }
    }

    /// Whether `line` is already being fetched (a new request would merge).
    pub fn probe(&self, line: u64) -> bool {
        self.pending.contains_key(&line)
    }

    /// Whether a request for sectors `mask` of `line` can be taken now, and if not, why.
    pub fn check(&self, line: u64, mask: u32) -> Result<(), MshrFull> {
        let (w, per_sector) = (self.pending.get(&line), self.per_sector);
        let wanted = entry_mask(mask, per_sector);
        if w.is_some_and(|w| w.merge_full(wanted, self.max_merge, per_sector)) {
            return Err(MshrFull::MergeLimit);
        }
        let open = w.map_or(0, |w| w.union(per_sector));
        let new = (wanted & !open).count_ones() as usize;
        match self.sectors_pending + new > self.entries {
            true => Err(MshrFull::NoEntry),
            false => Ok(()),
        }
    }

    /// Adds a request waiting for sectors `mask` of `line` (every sector of a line without
    /// sectors: 1); returns true if it opened a new entry for the line (a fetch must be sent)
    /// and false if it merged into a pending one.
    pub fn add_sectors(&mut self, line: u64, req: R, mask: u32) -> Result<bool, MshrFull> {
        self.check(line, mask)?;
        let w = self.pending.entry(line).or_default();
        let new = entry_mask(mask, self.per_sector) & !w.union(self.per_sector);
        self.sectors_pending += new.count_ones() as usize;
        w.reqs.push(req);
        w.sectors.push(mask);
        Ok(w.reqs.len() == 1)
    }

    /// The fill of `line` arrived: its entries are freed and its requests returned in order.
    pub fn fill(&mut self, line: u64) -> Vec<R> {
        let Some(w) = self.pending.remove(&line) else {
            return Vec::new();
        };
        self.sectors_pending -= w.union(self.per_sector).count_ones() as usize;
        w.reqs
    }

    /// Sectors of `line` arrived and `valid` of its sectors now hold data: the requests whose
    /// sectors are all valid are returned in order; a sector's entry is freed once no request
    /// waits for it.
    pub fn fill_covered(&mut self, line: u64, valid: u32) -> Vec<R> {
        let Some(w) = self.pending.get_mut(&line) else {
            return Vec::new();
        };
        let before = w.union(self.per_sector).count_ones() as usize;
        if w.sectors.iter().all(|&m| m & !valid == 0) {
            // Every request is served (the common case): the entry's own list is the answer.
            self.sectors_pending -= before;
            return self.pending.remove(&line).map_or_else(Vec::new, |w| w.reqs);
        }
        let mut done = Vec::new();
        let (mut reqs, mut sectors) = (Vec::new(), Vec::new());
        for (r, m) in w.reqs.drain(..).zip(w.sectors.drain(..)) {
            if m & !valid == 0 {
                done.push(r);
            } else {
                reqs.push(r);
                sectors.push(m);
            }
        }
        *w = Waiting { reqs, sectors };
        self.sectors_pending -= before - w.union(self.per_sector).count_ones() as usize;
        if w.reqs.is_empty() {
            self.pending.remove(&line);
        }
        done
    }

    /// Entries in use.
    pub fn occupied(&self) -> usize {
        self.sectors_pending
    }

    /// Every line with entries in use and its waiting requests, in line order.
    pub fn entries(&self) -> impl Iterator<Item = (u64, &[R])> {
        self.pending.iter().map(|(&l, w)| (l, w.reqs.as_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The misses of the accesses of `seq` ((load, line) pairs) whose load `counted` keeps, on
    /// an LRU tag array of 2 sets x 2 ways filled at each miss, with the accesses of the loads
    /// `bypassed` keeps left out (a bypassed load never looks the L1D up).
    fn misses(
        seq: &[(u8, u64)],
        bypassed: impl Fn(u8) -> bool,
        counted: impl Fn(u8) -> bool,
    ) -> usize {
        let mut t = TagArray::new(2, 2, 128, SetIndex::Linear);
        let mut n = 0;
        for &(load, line) in seq.iter().filter(|(l, _)| !bypassed(*l)) {
            if !matches!(t.access(line * 128), Lookup::Hit { .. }) {
                t.fill(line * 128);
                n += usize::from(counted(load));
            }
        }
        n
    }

    /// Fewer ways in use: a set holds fewer lines, the lines in the ways set aside are neither
    /// found nor replaced, and they are found again when the ways come back.
    #[test]
    fn ways_set_aside_are_not_looked_at_until_they_come_back() {
        let mut t = TagArray::new(1, 2, 128, SetIndex::Linear).with_max_ways(4);
        let hit = |t: &mut TagArray, line: u64| matches!(t.access(line * 128), Lookup::Hit { .. });
        for line in 0..2 {
            t.fill(line * 128);
        }
        assert!(hit(&mut t, 0) && hit(&mut t, 1));
        t.fill(2 * 128); // two ways in use: evicts line 0 (LRU)
        assert!(!hit(&mut t, 0));
        t.set_ways(4);
        for line in [0, 3] {
            t.fill(line * 128);
        }
        assert!((0..4).all(|l| hit(&mut t, l)), "four lines in four ways");
        t.set_ways(1);
        assert_eq!(
            (0..4).filter(|&l| hit(&mut t, l)).count(),
            1,
            "only way 0 is looked at"
        );
        t.set_ways(4);
        assert!((0..4).all(|l| hit(&mut t, l)), "the others come back");
    }

    proptest! {
        /// P-BY2: bypassing loads whose lines no cached load touches never raises the cached
        /// loads' misses (on LRU their stack distances can only shrink). Loads 0-2 touch lines
        /// 0-7, loads 3-4 lines 8-15: bypassing any subset of 3-4 is within the restriction.
        #[test]
        fn bypassing_loads_of_disjoint_lines_never_adds_misses(
            seq in proptest::collection::vec((0u8..5, 0u64..8), 1..200),
            which in 1u8..4,
        ) {
            let seq: Vec<(u8, u64)> =
                seq.into_iter().map(|(l, x)| (l, if l >= 3 { x + 8 } else { x })).collect();
            let bypassed = |l: u8| l >= 3 && (which >> (l - 3)) & 1 == 1;
            let kept = |l: u8| l < 3;
            prop_assert!(misses(&seq, bypassed, kept) <= misses(&seq, |_| false, kept));
        }
    }

    /// Without P-BY2's restriction the property is false: a bypassed load that brought a line
    /// in for another load (a prefetch, a positive gain edge) leaves that load a miss.
    #[test]
    fn bypassing_a_load_that_prefetches_for_another_adds_its_misses() {
        let seq = [(0u8, 4u64), (1, 4), (1, 4)];
        let kept = |l: u8| l == 1;
        assert_eq!(misses(&seq, |_| false, kept), 0);
        assert_eq!(misses(&seq, |l| l == 0, kept), 1);
    }

    #[test]
    fn lru_evicts_the_least_recently_used_way() {
        // 2 sets x 2 ways of 128 B: lines 0x000, 0x100, 0x200 map to set 0.
        let mut t = TagArray::new(2, 2, 128, SetIndex::Linear);
        assert!(matches!(t.access(0x000), Lookup::Miss { victim: None, .. }));
        assert_eq!(t.fill(0x000), None);
        assert_eq!(t.fill(0x100), None);
        assert!(
            matches!(t.access(0x010), Lookup::Hit { .. }),
            "same line, other offset"
        );
        // 0x000 was used after 0x100: 0x100 is the LRU victim.
        assert_eq!(t.fill(0x200), Some(0x100));
        assert!(matches!(
            t.access(0x100),
            Lookup::Miss {
                victim: Some(0x000),
                ..
            }
        ));
        assert!(matches!(t.probe(0x200), Lookup::Hit { .. }));
        // Set 1 is untouched by all of this.
        assert_eq!(t.fill(0x080), None);
        assert!(t.invalidate(0x200) && !t.invalidate(0x200));
        assert!(
            matches!(t.probe(0x300), Lookup::Miss { victim: None, .. }),
            "the freed way is reused first"
        );
    }

    #[test]
    fn a_filled_line_is_as_old_as_its_miss() {
        // 1 set x 2 ways. 0x000 misses first, 0x080 misses later; 0x000's data arrives last.
        let mut t = TagArray::new(1, 2, 128, SetIndex::Linear);
        t.reserve(0x000);
        t.reserve(0x080);
        t.fill(0x080);
        t.fill(0x000);
        assert!(
            matches!(
                t.probe(0x100),
                Lookup::Miss {
                    victim: Some(0x000),
                    ..
                }
            ),
            "the older miss is the victim, though its fill came last"
        );
        // A hit on a line still being fetched refreshes it (GPGPU-Sim's HIT_RESERVED).
        let mut t = TagArray::new(1, 2, 128, SetIndex::Linear);
        t.reserve(0x000);
        t.reserve(0x080);
        assert!(matches!(t.access(0x000), Lookup::HitReserved { .. }));
        t.fill(0x000);
        t.fill(0x080);
        assert!(matches!(
            t.probe(0x100),
            Lookup::Miss {
                victim: Some(0x080),
                ..
            }
        ));
    }

    #[test]
    fn reserved_ways_are_not_victims_until_filled() {
        let mut t = TagArray::new(1, 2, 128, SetIndex::Linear);
        assert!(matches!(
            t.reserve(0x000),
            Lookup::Miss { victim: None, .. }
        ));
        assert!(matches!(t.probe(0x000), Lookup::HitReserved { .. }));
        assert!(matches!(
            t.reserve(0x080),
            Lookup::Miss { victim: None, .. }
        ));
        assert_eq!(
            t.probe(0x100),
            Lookup::AllReserved { set: 0 },
            "both ways wait for data"
        );
        assert!(!t.invalidate(0x000), "a pending line is not invalidated");
        t.fill(0x080);
        assert!(matches!(t.probe(0x080), Lookup::Hit { .. }));
        // Only the filled way can be replaced, though the reserved one is older.
        assert!(matches!(
            t.reserve(0x100),
            Lookup::Miss {
                victim: Some(0x080),
                ..
            }
        ));
    }

    #[test]
    fn fermi_hash_spreads_a_large_stride_over_sets() {
        let lin = TagArray::new(32, 4, 128, SetIndex::Linear);
        let hash = TagArray::new(32, 4, 128, SetIndex::FermiHash);
        // A 4 KB stride hits one linear set but several hashed ones.
        let addrs: Vec<u64> = (0..8).map(|i| i * 4096).collect();
        let lin_sets: std::collections::BTreeSet<_> =
            addrs.iter().map(|&a| lin.set_of(a)).collect();
        let hash_sets: std::collections::BTreeSet<_> =
            addrs.iter().map(|&a| hash.set_of(a)).collect();
        assert_eq!(lin_sets.len(), 1);
        assert_eq!(
            hash_sets.len(),
            4,
            "bits 13-14 vary over 8 x 4 KB: {hash_sets:?}"
        );
        // Worked values: bits 7-11 = 3 and bit 13 set -> 3 ^ 1 = 2; 64 sets add bit 12.
        assert_eq!(hash.set_of(0x2180), 2);
        assert_eq!(
            TagArray::new(64, 6, 128, SetIndex::FermiHash).set_of(0x3180),
            2 | 32
        );
        assert!(hash.set_of(u64::MAX) < 32);
    }

    #[test]
    fn mshrs_merge_up_to_the_limit_and_run_out_of_entries() {
        let mut m: MshrTable<u32> = MshrTable::new(2, 3, false);
        assert_eq!(
            m.add_sectors(0x100, 1, 1),
            Ok(true),
            "first miss opens an entry"
        );
        assert_eq!(m.add_sectors(0x100, 2, 1), Ok(false), "second merges");
        assert_eq!(m.add_sectors(0x100, 3, 1), Ok(false));
        assert_eq!(m.add_sectors(0x100, 4, 1), Err(MshrFull::MergeLimit));
        assert_eq!(m.add_sectors(0x200, 5, 1), Ok(true));
        assert_eq!(m.check(0x300, 1), Err(MshrFull::NoEntry));
        assert_eq!(m.occupied(), 2);
        assert_eq!(m.fill(0x100), vec![1, 2, 3], "requests come back in order");
        assert!(!m.probe(0x100));
        assert_eq!(
            m.add_sectors(0x300, 6, 1),
            Ok(true),
            "the freed entry is reusable"
        );
        assert!(m.fill(0x999).is_empty());
    }

    /// In a sectored cache an entry is a sector (GPGPU-Sim's `mshr_addr` is the sector's
    /// address): one line's four single-sector misses take four entries and merge apart, and
    /// a line request takes an entry and a merge slot in each sector it waits for.
    #[test]
    fn sectored_mshrs_count_entries_and_merges_per_sector() {
        let mut m: MshrTable<u32> = MshrTable::new(5, 2, true);
        for (req, sector) in (1..=4).zip([1, 2, 4, 8]) {
            assert_eq!(m.add_sectors(0x100, req, sector), Ok(req == 1));
        }
        assert_eq!(m.occupied(), 4, "four sectors pending");
        assert_eq!(
            m.add_sectors(0x100, 5, 1),
            Ok(false),
            "sector 0 merges a second"
        );
        assert_eq!(m.check(0x100, 1), Err(MshrFull::MergeLimit));
        assert_eq!(m.check(0x100, 0b1110), Ok(()), "the others have room");
        assert_eq!(
            m.check(0x200, 0b11),
            Err(MshrFull::NoEntry),
            "two new, one free"
        );
        assert_eq!(m.add_sectors(0x200, 6, 1), Ok(true));
        assert_eq!(m.fill_covered(0x100, 0b0011), vec![1, 2, 5]);
        assert_eq!(
            m.occupied(),
            3,
            "sectors 2 and 3 of 0x100, sector 0 of 0x200"
        );
        assert_eq!(m.fill_covered(0x100, 0b1111), vec![3, 4]);
        assert!(!m.probe(0x100));
        assert_eq!(m.fill(0x200), vec![6]);
        assert_eq!(m.occupied(), 0);
        // Per line, the same requests take one entry and merge in it.
        let mut m: MshrTable<u32> = MshrTable::new(1, 2, false);
        assert_eq!(m.add_sectors(0x100, 1, 1), Ok(true));
        assert_eq!(m.add_sectors(0x100, 2, 2), Ok(false));
        assert_eq!(m.check(0x100, 4), Err(MshrFull::MergeLimit));
        assert_eq!(m.occupied(), 1);
        assert_eq!(m.fill_covered(0x100, 0b01), vec![1]);
        assert_eq!(m.occupied(), 1, "request 2 still waits");
    }
}
