//! A data cache's access path (no timing yet), as GPGPU-Sim's Fermi L1D behaves:
//! allocate-on-miss reads, and write-through, no-write-allocate, evict-on-write stores.
//!
//! A read
//! * **hits** a valid line;
//! * **hits reserved** a line being fetched: it merges into that line's MSHR entry;
//! * **misses**: a way is reserved (its victim evicted), an MSHR entry opened and a fetch put in
//!   the miss queue;
//! * **fails** (the requester retries later) when the miss queue is full, no MSHR entry is
//!   free, the line's entry merges no more requests, or every way of the set is reserved.
//!
//! A write goes through to the next level via the miss queue (failing only when it is full) and
//! invalidates a valid copy of its line; it never allocates.
//!
//! A [`WritePolicy::WriteBack`] cache (the L2 of GPGPU-Sim's configurations) instead keeps
//! writes: a write hit (or a write to a line being fetched) marks the line dirty; a write miss
//! allocates the line dirty without fetching it (the written bytes are the line's data as far
//! as the timing model is concerned). Replacing a dirty line, on a read or a write miss, queues
//! a write-back of the victim ahead of the fetch. A [`WritePolicy::WriteBackFetch`] cache (the
//! L2 of GPGPU-Sim 3.x) sends a missing write on to the next level and fetches its line: the
//! write waits in the line's MSHR entry, like a read, and the line arrives clean.
//!
//! A sectored cache ([`DataCache::sectored`], GPGPU-Sim's `S:` L2) keeps each sector of a line
//! valid or absent on its own: a read hits when the sectors it touches are valid, and a miss
//! fetches only those of its sectors that are neither valid nor being fetched (GPGPU-Sim's
//! `SECTOR_MISS` when the line is present). One MSHR entry per line still merges the line's
//! requests; a fill wakes the requests whose sectors it completes. A write kept by a
//! write-back cache makes its sectors valid; a write miss allocates the whole line.

use super::cache::{Lookup, MshrFull, MshrTable, SetIndex, TagArray};
use super::per_kernel::PerKernel;
use crate::config::{CacheConfig, WriteThrough};
use serde::Serialize;
use std::collections::VecDeque;

/// Why an access could not be taken this cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fail {
    /// The miss queue to the next level is full.
    MissQueueFull,
    /// No free MSHR entry for a new line.
    MshrFull,
    /// The line's MSHR entry already merges its maximum number of requests.
    MergeLimit,
    /// Every way of the set waits for data.
    AllWaysReserved,
}

/// What a cache does with writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WritePolicy {
    /// Write-through, no write-allocate, evict on write (GPGPU-Sim's Fermi L1D).
    WriteThrough,
    /// Write-back, write-allocate without fetch (GPGPU-Sim 4's L2).
    WriteBack,
    /// Write-through; a write hit updates the line (the sectors it writes wholly become
    /// valid), a miss allocates nothing (GPGPU-Sim's `T` with `N`).
    WriteThroughUpdate,
    /// Write-through; a write hit updates the line and a miss allocates it without a fetch,
    /// the sectors it writes wholly valid (GPGPU-Sim's `T` with `L`,
    /// `data_cache::wr_miss_wa_lazy_fetch_on_read`).
    WriteThroughAllocate,
    /// Write-back; a write miss sends the write on and fetches its line into a reserved way,
    /// the write waiting in the line's MSHR entry for the fill (GPGPU-Sim 3.x's L2,
    /// `data_cache::wr_miss_wa`); a write to a line being fetched is sent on and waits there
    /// too.
    WriteBackFetch,
}

impl WritePolicy {
    /// A write-through policy that keeps written data in the cache.
    fn keeps_writes(self) -> bool {
        matches!(
            self,
            WritePolicy::WriteThroughUpdate | WritePolicy::WriteThroughAllocate
        )
    }
}

/// The bytes `bytes` bytes from `addr` cover in the aligned 128 B block of `addr` (bit `i`:
/// byte `i`; bytes past the block are left out).
pub fn span_mask(addr: u64, bytes: u32) -> u128 {
    let span = match bytes {
        b if b >= 128 => u128::MAX,
        b => (1u128 << b) - 1,
    };
    span << (addr % 128)
}

/// Result of one access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Read hit.
    Hit,
    /// Read merged into the pending fetch of its line.
    HitReserved,
    /// Read miss: a fetch was queued.
    Miss,
    /// Write sent through to the next level (`evicted`: a valid copy was invalidated).
    WriteThrough {
        /// A valid copy of the line was invalidated.
        evicted: bool,
    },
    /// Write kept in a write-back cache (`allocated`: the line was absent and was allocated).
    WriteBack {
        /// The line was absent and has been allocated dirty.
        allocated: bool,
    },
    /// Not taken; retry.
    Fail(Fail),
}

/// A request from this cache to the next level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fetch<R> {
    /// Line address.
    pub line: u64,
    /// A write to the next level (write-through, or write-back of a dirty victim) or a line
    /// fetch.
    pub write: bool,
    /// Bytes carried: the sectors fetched, the line for write-backs, the transaction for
    /// write-through.
    pub bytes: u32,
    /// The line's sectors a fetch asks for (every sector for writes, and for fetches of a cache
    /// without sectors).
    pub sectors: u32,
    /// The request a write-through carries (so its acknowledgement can find the writer);
    /// `None` for fetches and write-backs (fetches wake their requests through the MSHRs).
    pub req: Option<R>,
    /// The kernel whose access caused it (the cache's owner then; see
    /// [`DataCache::set_owner`]).
    pub owner: u32,
}

/// Refused accesses by cause ([`Fail`]); each retry counts again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FailCauses {
    /// The miss queue to the next level was full.
    pub miss_queue_full: u64,
    /// No MSHR entry was free for a new line.
    pub mshr_full: u64,
    /// The line's MSHR entry already merged its maximum number of requests.
    pub merge_limit: u64,
    /// Every way of the set waited for data.
    pub all_ways_reserved: u64,
}

impl FailCauses {
    /// Counts `times` refusals for `why`.
    fn count(&mut self, why: Fail, times: u64) {
        *match why {
            Fail::MissQueueFull => &mut self.miss_queue_full,
            Fail::MshrFull => &mut self.mshr_full,
            Fail::MergeLimit => &mut self.merge_limit,
            Fail::AllWaysReserved => &mut self.all_ways_reserved,
        } += times;
    }

    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &Self) {
        self.miss_queue_full += other.miss_queue_full;
        self.mshr_full += other.mshr_full;
        self.merge_limit += other.merge_limit;
        self.all_ways_reserved += other.all_ways_reserved;
    }

    /// All refusals.
    pub fn total(&self) -> u64 {
        self.miss_queue_full + self.mshr_full + self.merge_limit + self.all_ways_reserved
    }
}

/// Access counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    /// Reads taken (hits + hit-reserved + misses).
    pub reads: u64,
    /// Writes taken.
    pub writes: u64,
    /// Read hits.
    pub hits: u64,
    /// Reads merged into a pending fetch.
    pub hit_reserved: u64,
    /// Read misses (fetches sent).
    pub misses: u64,
    /// Accesses refused (reservation failures), by cause.
    pub fail_causes: FailCauses,
    /// Write misses (write-back caches: lines allocated by a write).
    pub write_misses: u64,
    /// Dirty lines written back to the next level.
    pub writebacks: u64,
    /// Prefetches sent (lines fetched with no request waiting; not counted as reads).
    pub prefetches: u64,
    /// Sectors the reads taken touch (GPGPU-Sim counts a sectored cache's accesses per sector;
    /// a line is one sector without sectors).
    pub read_sectors: u64,
    /// Sectors the writes taken touch.
    pub write_sectors: u64,
    /// Sectors read misses fetch (GPGPU-Sim's `MISS` plus `SECTOR_MISS` of reads).
    pub read_sector_misses: u64,
}

/// A data cache of `R`-identified requests.
#[derive(Clone, Debug)]
pub struct DataCache<R> {
    tags: TagArray,
    mshrs: MshrTable<R>,
    miss_queue: VecDeque<Fetch<R>>,
    miss_queue_cap: usize,
    line_bytes: u32,
    policy: WritePolicy,
    version: u64,
    /// Counters.
    pub stats: CacheStats,
    /// The same counters per kernel, each event under the owner of the cache when it
    /// happened ([`DataCache::stats_of`]).
    by_kernel: PerKernel<CacheStats>,
    /// The kernel whose accesses the cache serves now.
    owner: u32,
}

impl<R> DataCache<R> {
    /// A write-through cache of geometry `cfg` (its `write_through` policy) with set index
    /// function `index`.
    pub fn new(cfg: &CacheConfig, index: SetIndex) -> Self {
        let policy = match cfg.write_through {
            WriteThrough::Evict => WritePolicy::WriteThrough,
            WriteThrough::Update => WritePolicy::WriteThroughUpdate,
            WriteThrough::Allocate => WritePolicy::WriteThroughAllocate,
        };
        Self::with_policy(cfg, index, policy)
    }

    /// A cache of geometry `cfg`, set index function `index` and write policy `policy`.
    pub fn with_policy(cfg: &CacheConfig, index: SetIndex, policy: WritePolicy) -> Self {
        Self {
            tags: TagArray::new(cfg.sets(), cfg.ways, cfg.line_bytes, index),
            mshrs: MshrTable::new(
                cfg.mshrs as usize,
                cfg.mshr_merge as usize,
                cfg.mshr_sectors,
            ),
            miss_queue: VecDeque::new(),
            miss_queue_cap: cfg.miss_queue as usize,
            line_bytes: cfg.line_bytes,
            policy,
            version: 0,
            stats: CacheStats::default(),
            by_kernel: PerKernel::default(),
            owner: 0,
        }
    }

    /// The same empty cache with room for `max` ways per set ([`TagArray::with_max_ways`]).
    pub fn with_max_ways(mut self, max: u32) -> Self {
        self.tags = self.tags.with_max_ways(max);
        self
    }

    /// Uses `ways` ways per set from now on ([`TagArray::set_ways`]).
    pub fn set_ways(&mut self, ways: u32) {
        self.tags.set_ways(ways);
    }

    /// The same cache with lines of sectors of `sector_bytes` (0: not sectored), at most 32 to
    /// a line.
    pub fn sectored(mut self, sector_bytes: u32) -> Self {
        self.tags = self.tags.with_sectors(sector_bytes);
        self
    }

    /// The kernel (launch index) whose accesses follow: their counters and the requests they
    /// queue for the next level are its own.
    #[inline]
    pub fn set_owner(&mut self, kernel: u32) {
        if self.owner != kernel {
            self.owner = kernel;
            self.by_kernel.set_owner(kernel, &self.stats);
        }
    }

    /// Counts an event in the totals and under the owner.
    #[inline]
    fn count(&mut self, f: impl Fn(&mut CacheStats)) {
        f(&mut self.stats);
        if let Some(o) = self.by_kernel.owner_mut() {
            f(o);
        }
    }

    /// Counts a read taken that touches sectors `mask` and fetches sectors `fetched`.
    fn count_read(&mut self, mask: u32, fetched: u32) {
        let (n, f) = (
            u64::from(mask.count_ones()),
            u64::from(fetched.count_ones()),
        );
        self.count(|s| {
            s.reads += 1;
            s.read_sectors += n;
            s.read_sector_misses += f;
        });
    }

    /// Counts a write taken that touches sectors `mask`.
    fn count_write(&mut self, mask: u32) {
        let n = u64::from(mask.count_ones());
        self.count(|s| {
            s.writes += 1;
            s.write_sectors += n;
        });
    }

    /// Kernel `k`'s counters.
    pub fn stats_of(&self, k: u32) -> CacheStats {
        self.by_kernel.get(k, &self.stats)
    }

    /// Queue entries a miss needs: the fetch, plus a write-back if the victim is dirty.
    fn miss_entries(&self, set: u32, way: u32, victim: Option<u64>) -> usize {
        1 + usize::from(victim.is_some() && self.tags.is_dirty(set, way))
    }

    /// Queues the write-back of a dirty victim (write-back caches), before it is replaced.
    fn write_back_victim(&mut self, set: u32, way: u32, victim: Option<u64>) {
        if let Some(v) = victim {
            if self.tags.is_dirty(set, way) {
                self.miss_queue.push_back(Fetch {
                    line: v,
                    write: true,
                    bytes: self.line_bytes,
                    sectors: self.tags.full_mask(),
                    req: None,
                    owner: self.owner,
                });
                self.count(|s| s.writebacks += 1);
            }
        }
    }

    /// Whether an access to `addr` would be taken now, and if not, why; no side effects. The
    /// probe it made comes back for [`DataCache::access_sized`] to act on (`None`: a
    /// write-through write, which needs none). `access_sized` takes an access exactly when
    /// this is `Ok` (NewCAR's `lsu_accept`/`q_accept` come from here).
    pub fn check(&self, addr: u64, write: bool) -> Result<Option<Lookup>, Fail> {
        self.check_sectors(addr, self.tags.full_mask(), write)
    }

    /// [`DataCache::check`] of an access to sectors `mask` of the line of `addr`.
    fn check_sectors(&self, addr: u64, mask: u32, write: bool) -> Result<Option<Lookup>, Fail> {
        let queued = self.miss_queue.len();
        let queue_full = queued >= self.miss_queue_cap;
        if write && self.policy == WritePolicy::WriteBackFetch {
            return self.check_write_fetch(addr, mask, queued);
        }
        if write && self.policy == WritePolicy::WriteBack {
            let free = self.miss_queue_cap - queued.min(self.miss_queue_cap);
            return match self.tags.probe_sectors(addr, mask) {
                l @ (Lookup::Hit { .. }
                | Lookup::HitReserved { .. }
                | Lookup::SectorMiss { .. }) => Ok(Some(l)),
                Lookup::AllReserved { .. } => Err(Fail::AllWaysReserved),
                l @ Lookup::Miss { set, way, victim } => {
                    if self.miss_entries(set, way, victim) - 1 > free {
                        Err(Fail::MissQueueFull)
                    } else {
                        Ok(Some(l))
                    }
                }
            };
        }
        if write && queue_full {
            return Err(Fail::MissQueueFull);
        }
        if write && self.policy.keeps_writes() {
            let allocate = self.policy == WritePolicy::WriteThroughAllocate;
            return match self.tags.probe_sectors(addr, mask) {
                Lookup::AllReserved { .. } if allocate => Err(Fail::AllWaysReserved),
                Lookup::Miss { .. } | Lookup::AllReserved { .. } if !allocate => Ok(None),
                l => Ok(Some(l)),
            };
        }
        if write {
            return Ok(None);
        }
        let line = self.tags.line(addr);
        match self.tags.probe_sectors(addr, mask) {
            l @ Lookup::Hit { .. } => Ok(Some(l)),
            l @ Lookup::HitReserved { .. } => {
                match self.mshrs.check(line, self.pending(addr, mask)) {
                    Err(MshrFull::MergeLimit) => Err(Fail::MergeLimit),
                    Err(MshrFull::NoEntry) => unreachable!("a reserved sector has its MSHR entry"),
                    Ok(()) => Ok(Some(l)),
                }
            }
            _ if queue_full => Err(Fail::MissQueueFull),
            l @ Lookup::SectorMiss { .. } => match self.mshrs.check(line, mask) {
                Err(MshrFull::MergeLimit) => Err(Fail::MergeLimit),
                Err(MshrFull::NoEntry) => Err(Fail::MshrFull),
                Ok(()) => Ok(Some(l)),
            },
            Lookup::AllReserved { .. } => Err(Fail::AllWaysReserved),
            Lookup::Miss { set, way, victim }
                if queued + self.miss_entries(set, way, victim) > self.miss_queue_cap =>
            {
                Err(Fail::MissQueueFull)
            }
            l @ Lookup::Miss { .. } => match self.mshrs.check(line, mask) {
                Err(_) => Err(Fail::MshrFull),
                Ok(()) => Ok(Some(l)),
            },
        }
    }

    /// `check` of a write to a [`WritePolicy::WriteBackFetch`] cache with `queued` requests in
    /// the miss queue: a hit is kept; a write to a line being fetched needs room in its MSHR
    /// entry and the queue for itself; a miss needs an MSHR entry and the queue for itself,
    /// the fetch and a dirty victim's write-back (GPGPU-Sim's `miss_queue_full(2)`).
    fn check_write_fetch(
        &self,
        addr: u64,
        mask: u32,
        queued: usize,
    ) -> Result<Option<Lookup>, Fail> {
        let line = self.tags.line(addr);
        let room = |n: usize| match queued + n > self.miss_queue_cap {
            true => Err(Fail::MissQueueFull),
            false => Ok(()),
        };
        match self.tags.probe_sectors(addr, mask) {
            l @ (Lookup::Hit { .. } | Lookup::SectorMiss { .. }) => Ok(Some(l)),
            l @ Lookup::HitReserved { .. } => {
                room(1)?;
                match self.mshrs.check(line, mask) {
                    Err(_) => Err(Fail::MergeLimit),
                    Ok(()) => Ok(Some(l)),
                }
            }
            Lookup::AllReserved { .. } => Err(Fail::AllWaysReserved),
            l @ Lookup::Miss { set, way, victim } => {
                room(1 + self.miss_entries(set, way, victim))?;
                match self.mshrs.check(line, self.tags.full_mask()) {
                    Err(_) => Err(Fail::MshrFull),
                    Ok(()) => Ok(Some(l)),
                }
            }
        }
    }

    /// Queues a write of `bytes` bytes to `line` for the next level (the write's request waits
    /// for the line's fill in its MSHR entry, where the caller puts it).
    fn send_write_on(&mut self, line: u64, bytes: u32) {
        self.miss_queue.push_back(Fetch {
            line,
            write: true,
            bytes,
            sectors: self.tags.full_mask(),
            req: None,
            owner: self.owner,
        });
        self.count(|s| s.writes += 1);
    }

    fn fail(&mut self, why: Fail) -> Outcome {
        self.count_fail(why);
        Outcome::Fail(why)
    }

    fn count_fail(&mut self, why: Fail) {
        self.count(|s| s.fail_causes.count(why, 1));
    }

    /// One access of request `req` to `addr` (a write carries a whole line).
    pub fn access(&mut self, addr: u64, write: bool, req: R) -> Outcome {
        self.access_sized(addr, self.line_bytes, write, req)
    }

    /// One access of request `req` to `addr`; a write-through or a write sent on carries
    /// `bytes` bytes, every one of them written.
    pub fn access_sized(&mut self, addr: u64, bytes: u32, write: bool, req: R) -> Outcome {
        self.access_with(addr, bytes, write, span_mask(addr, bytes), req)
    }

    /// A write of request `req` to `addr` carrying `bytes` bytes, of which it writes
    /// `touched` (bit `i`: byte `i` of the aligned 128 B block of `addr`).
    pub fn access_write(&mut self, addr: u64, bytes: u32, touched: u128, req: R) -> Outcome {
        self.access_with(addr, bytes, true, touched, req)
    }

    fn access_with(
        &mut self,
        addr: u64,
        bytes: u32,
        write: bool,
        touched: u128,
        req: R,
    ) -> Outcome {
        let mask = self.tags.sector_mask(addr, bytes);
        let lookup = match self.check_sectors(addr, mask, write) {
            Ok(l) => l,
            Err(why) => return self.fail(why),
        };
        self.version += 1;
        let line = self.tags.line(addr);
        match lookup {
            Some(l) if write && self.policy.keeps_writes() => {
                self.keep_write(addr, touched, l);
                self.write_through(line, (bytes, mask), req, false)
            }
            None => {
                let evicted = self.tags.invalidate(addr);
                self.write_through(line, (bytes, mask), req, evicted)
            }
            Some(Lookup::HitReserved { set, way })
                if write && self.policy == WritePolicy::WriteBackFetch =>
            {
                self.tags.touch(set, way);
                self.send_write_on(line, bytes);
                self.mshrs.add_sectors(line, req, mask).expect("checked");
                Outcome::HitReserved
            }
            Some(Lookup::Miss { set, way, victim })
                if write && self.policy == WritePolicy::WriteBackFetch =>
            {
                self.send_write_on(line, bytes);
                self.fetch_line(addr, set, way, victim, req, self.tags.full_mask());
                self.count(|s| s.write_misses += 1);
                Outcome::Miss
            }
            Some(
                Lookup::Hit { set, way }
                | Lookup::HitReserved { set, way }
                | Lookup::SectorMiss { set, way, .. },
            ) if write => {
                self.tags.touch(set, way);
                self.tags.write_sectors(set, way, mask);
                self.tags.mark_dirty(set, way);
                self.count_write(mask);
                Outcome::WriteBack { allocated: false }
            }
            Some(Lookup::Miss { set, way, victim }) if write => {
                self.write_back_victim(set, way, victim);
                self.tags.install_at(addr, set, way);
                self.tags.mark_dirty(set, way);
                self.count_write(mask);
                self.count(|s| s.write_misses += 1);
                Outcome::WriteBack { allocated: true }
            }
            Some(Lookup::Hit { set, way }) => {
                self.tags.touch(set, way);
                self.count_read(mask, 0);
                self.count(|s| s.hits += 1);
                Outcome::Hit
            }
            Some(Lookup::HitReserved { set, way }) => {
                self.tags.touch(set, way);
                let waits = self.pending(addr, mask);
                self.mshrs.add_sectors(line, req, waits).expect("checked");
                self.count_read(mask, 0);
                self.count(|s| s.hit_reserved += 1);
                Outcome::HitReserved
            }
            Some(Lookup::SectorMiss { set, way, missing }) => {
                self.tags.reserve_more(set, way, missing);
                self.mshrs.add_sectors(line, req, mask).expect("checked");
                self.queue_fetch(line, missing);
                self.count_read(mask, missing);
                self.count(|s| s.misses += 1);
                Outcome::Miss
            }
            Some(Lookup::Miss { set, way, victim }) => {
                self.fetch_line(addr, set, way, victim, req, mask);
                self.count_read(mask, mask);
                self.count(|s| s.misses += 1);
                Outcome::Miss
            }
            Some(Lookup::AllReserved { .. }) => unreachable!("check refuses it"),
        }
    }

    /// The sectors of `mask` a read of the line of `addr` still waits for (not yet valid).
    fn pending(&self, addr: u64, mask: u32) -> u32 {
        mask & !self.tags.valid_mask(addr)
    }

    /// Sends write `req` of `bytes` bytes (sectors `mask`) of `line` on to the next level.
    fn write_through(
        &mut self,
        line: u64,
        (bytes, mask): (u32, u32),
        req: R,
        evicted: bool,
    ) -> Outcome {
        self.miss_queue.push_back(Fetch {
            line,
            write: true,
            bytes,
            sectors: mask,
            req: Some(req),
            owner: self.owner,
        });
        self.count_write(mask);
        Outcome::WriteThrough { evicted }
    }

    /// A write-through write that updates its line (`l`, as [`DataCache::check`] found it) or
    /// allocates it (a miss, [`WritePolicy::WriteThroughAllocate`]): the sectors `touched`
    /// covers wholly become valid (a sector being fetched keeps waiting for its fill).
    fn keep_write(&mut self, addr: u64, touched: u128, l: Lookup) {
        let whole = self.whole_sectors(addr, touched);
        match l {
            Lookup::Hit { set, way }
            | Lookup::HitReserved { set, way }
            | Lookup::SectorMiss { set, way, .. } => {
                self.tags.touch(set, way);
                self.tags.write_sectors(set, way, whole);
            }
            Lookup::Miss { set, way, victim } => {
                self.write_back_victim(set, way, victim);
                self.tags.reserve_sectors_at(addr, set, way, 0);
                self.tags.write_sectors(set, way, whole);
                self.count(|s| s.write_misses += 1);
            }
            Lookup::AllReserved { .. } => unreachable!("check refuses it"),
        }
    }

    /// The sectors of the line of `addr` every byte of which `touched` (bytes of the aligned
    /// 128 B block of `addr`) covers; none for a line longer than 128 B.
    fn whole_sectors(&self, addr: u64, touched: u128) -> u32 {
        let (line, sector) = (self.line_bytes as u64, self.tags.sector_bytes() as u64);
        if line > 128 {
            return 0;
        }
        let base = self.tags.line(addr) % 128;
        (0..line / sector)
            .filter(|k| {
                let bits = span_mask(base + k * sector, sector as u32);
                touched & bits == bits
            })
            .fold(0, |m, k| m | 1 << k)
    }

    /// Prefetches the line of `addr` as request `req` (which its fill returns like any other)
    /// when it is neither resident nor pending and a read miss would be taken now (a free
    /// MSHR, room in the miss queue); returns whether a fetch was queued. A later demand miss
    /// to the line merges into the prefetch's MSHR entry.
    pub fn prefetch(&mut self, addr: u64, req: R) -> bool {
        let Ok(Some(Lookup::Miss { set, way, victim })) = self.check(addr, false) else {
            return false;
        };
        self.version += 1;
        self.fetch_line(addr, set, way, victim, req, self.tags.full_mask());
        self.count(|s| s.prefetches += 1);
        true
    }

    /// A read miss that `check` accepted: writes a dirty victim back, reserves `way` of `set`,
    /// opens the line's MSHR entry with `req` and queues the fetch of sectors `mask`.
    fn fetch_line(
        &mut self,
        addr: u64,
        set: u32,
        way: u32,
        victim: Option<u64>,
        req: R,
        mask: u32,
    ) {
        let line = self.tags.line(addr);
        self.write_back_victim(set, way, victim);
        self.tags.reserve_sectors_at(addr, set, way, mask);
        self.mshrs.add_sectors(line, req, mask).expect("checked");
        self.queue_fetch(line, mask);
    }

    /// Queues the fetch of sectors `mask` of `line`.
    fn queue_fetch(&mut self, line: u64, mask: u32) {
        self.miss_queue.push_back(Fetch {
            line,
            write: false,
            bytes: mask.count_ones() * self.tags.sector_bytes(),
            sectors: mask,
            req: None,
            owner: self.owner,
        });
    }

    /// Where the next level finds fetch `f`'s data: from the first of its sectors (the line
    /// without sectors), `f.bytes` for a write-through, otherwise up to its last sector (a
    /// sector between two missing ones that is valid is fetched again).
    pub fn fetch_span(&self, f: &Fetch<R>) -> (u64, u32) {
        let sector = self.tags.sector_bytes();
        let sectors = match f.sectors {
            0 => self.tags.full_mask(),
            s => s,
        };
        let (lo, hi) = (sectors.trailing_zeros(), 31 - sectors.leading_zeros());
        let addr = f.line + (lo * sector) as u64;
        match f.write {
            true => (addr, f.bytes),
            false => (addr, (hi - lo + 1) * sector),
        }
    }

    /// Data for the `bytes` bytes from `addr` arrived ([`DataCache::fill_sectors`] of the
    /// sectors they cover).
    pub fn fill_span(&mut self, addr: u64, bytes: u32) -> Vec<R> {
        let mask = self.tags.sector_mask(addr, bytes);
        self.fill_sectors(self.tags.line(addr), mask)
    }

    /// Line size, bytes.
    pub fn line_bytes(&self) -> u32 {
        self.line_bytes
    }

    /// Changes whenever the cache's state does (a taken access, a fill, a fetch leaving the
    /// miss queue). An access that failed fails again, identically, while this is unchanged.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Counts a retry of an access that failed for `why` when the cache had the current
    /// [`DataCache::version`] (the retry would fail the same way; callers skip it).
    pub fn repeat_fail(&mut self, why: Fail) {
        self.count_fail(why);
    }

    /// [`DataCache::repeat_fail`] `times` times over (an SM that slept through the retries).
    pub fn repeat_fails(&mut self, why: Fail, times: u64) {
        self.count(|s| s.fail_causes.count(why, times));
    }

    /// The oldest request for the next level, if any, left in the queue.
    pub fn peek_fetch(&self) -> Option<Fetch<R>>
    where
        R: Copy,
    {
        self.miss_queue.front().copied()
    }

    /// The oldest request for the next level, if any.
    pub fn pop_fetch(&mut self) -> Option<Fetch<R>> {
        self.version += 1;
        self.miss_queue.pop_front()
    }

    /// Data for `line` arrived: the line becomes valid and the waiting requests are returned in
    /// arrival order.
    pub fn fill(&mut self, line: u64) -> Vec<R> {
        self.fill_sectors(line, self.tags.full_mask())
    }

    /// Data for sectors `mask` of `line` arrived: they become valid, and the requests whose
    /// sectors are now all valid are returned in arrival order.
    pub fn fill_sectors(&mut self, line: u64, mask: u32) -> Vec<R> {
        self.version += 1;
        self.tags.fill_sectors(line, mask);
        // A line absent from the tags (every way of its set reserved) hands its data over.
        let valid = match self.tags.valid_mask(line) {
            0 => mask,
            v => v,
        };
        self.mshrs.fill_covered(line, valid)
    }

    /// Every sector of a line (1 for a cache without sectors).
    pub fn full_mask(&self) -> u32 {
        self.tags.full_mask()
    }

    /// MSHR entries in use.
    pub fn mshrs_occupied(&self) -> usize {
        self.mshrs.occupied()
    }

    /// Requests waiting in the miss queue.
    pub fn miss_queue_len(&self) -> usize {
        self.miss_queue.len()
    }

    /// The MSHR entries in use: each pending line and the requests its fill will return.
    pub fn mshr_entries(&self) -> impl Iterator<Item = (u64, &[R])> {
        self.mshrs.entries()
    }

    /// The requests for the next level not yet taken from the miss queue, oldest first.
    pub fn queued_fetches(&self) -> impl Iterator<Item = &Fetch<R>> {
        self.miss_queue.iter()
    }

    /// Line address of `addr`.
    pub fn line(&self, addr: u64) -> u64 {
        self.tags.line(addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache of `sets` x `ways` 128 B lines with `mshrs` MSHRs merging `merge` and a miss
    /// queue of `mq`.
    fn config(sets: u32, ways: u32, mshrs: u32, merge: u32, mq: u32) -> CacheConfig {
        CacheConfig {
            size_bytes: sets * ways * 128,
            line_bytes: 128,
            ways,
            mshrs,
            mshr_merge: merge,
            miss_queue: mq,
            latency: 1,
            sector_bytes: 0,
            mshr_sectors: false,
            port_bytes: 0,
            write_allocate: Default::default(),
            write_through: Default::default(),
            set_index: Default::default(),
        }
    }

    fn cache(sets: u32, ways: u32, mshrs: u32, merge: u32, mq: u32) -> DataCache<u32> {
        DataCache::new(&config(sets, ways, mshrs, merge, mq), SetIndex::Linear)
    }

    #[test]
    fn misses_merge_and_fills_wake_every_waiting_request() {
        let mut c = cache(4, 2, 4, 8, 4);
        assert_eq!(c.access(0x1000, false, 1), Outcome::Miss);
        assert_eq!(
            c.access(0x1010, false, 2),
            Outcome::HitReserved,
            "same line: merged"
        );
        assert_eq!(
            c.pop_fetch(),
            Some(Fetch {
                line: 0x1000,
                write: false,
                bytes: 128,
                sectors: 1,
                req: None,
                owner: 0
            })
        );
        assert_eq!(c.pop_fetch(), None, "one fetch for the merged pair");
        assert_eq!(c.fill(0x1000), vec![1, 2]);
        assert_eq!(c.access(0x1040, false, 3), Outcome::Hit);
        assert_eq!(
            c.stats,
            CacheStats {
                reads: 3,
                writes: 0,
                hits: 1,
                hit_reserved: 1,
                misses: 1,
                read_sectors: 3,
                read_sector_misses: 1,
                ..CacheStats::default()
            }
        );
    }

    #[test]
    fn a_pending_hit_refreshes_the_line_and_a_fill_does_not() {
        // 1 set x 2 ways: 0x000 misses before 0x080; which one the next miss evicts depends
        // only on the misses and the hits (GPGPU-Sim's LRU), never on the order of the fills.
        for pending_hit in [false, true] {
            let mut c = cache(1, 2, 4, 4, 4);
            c.access(0x000, false, 1);
            c.access(0x080, false, 2);
            if pending_hit {
                assert_eq!(c.access(0x000, false, 3), Outcome::HitReserved);
            }
            c.fill(0x080);
            c.fill(0x000);
            c.access(0x100, false, 4);
            let kept = if pending_hit { 0x000 } else { 0x080 };
            assert_eq!(
                c.access(kept, false, 5),
                Outcome::Hit,
                "pending hit: {pending_hit}"
            );
        }
    }

    #[test]
    fn each_resource_limit_fails_the_access() {
        // 1 MSHR entry merging 2 requests, miss queue of 1, 1 set x 2 ways.
        let mut c = cache(1, 2, 1, 2, 1);
        assert_eq!(c.access(0x000, false, 1), Outcome::Miss);
        assert_eq!(
            c.access(0x080, false, 2),
            Outcome::Fail(Fail::MissQueueFull)
        );
        c.pop_fetch();
        assert_eq!(c.access(0x080, false, 2), Outcome::Fail(Fail::MshrFull));
        assert_eq!(c.access(0x000, false, 3), Outcome::HitReserved);
        assert_eq!(c.access(0x000, false, 4), Outcome::Fail(Fail::MergeLimit));
        assert_eq!(c.fill(0x000), vec![1, 3]);
        c.repeat_fail(Fail::MshrFull);
        let causes = FailCauses {
            miss_queue_full: 1,
            mshr_full: 2,
            merge_limit: 1,
            all_ways_reserved: 0,
        };
        assert_eq!(c.stats.fail_causes, causes);
        // Two reserved ways leave nothing to replace.
        let mut c = cache(1, 2, 4, 4, 4);
        c.access(0x000, false, 1);
        c.access(0x080, false, 2);
        assert_eq!(
            c.access(0x100, false, 3),
            Outcome::Fail(Fail::AllWaysReserved)
        );
        assert_eq!(c.stats.fail_causes.total(), 1);
        assert_eq!(c.stats.fail_causes.all_ways_reserved, 1);
    }

    #[test]
    fn writes_go_through_evict_and_never_allocate() {
        let mut c = cache(4, 2, 4, 4, 8);
        c.access(0x200, false, 1);
        c.pop_fetch();
        c.fill(0x200);
        assert_eq!(c.access(0x200, false, 2), Outcome::Hit);
        assert_eq!(
            c.access(0x204, true, 3),
            Outcome::WriteThrough { evicted: true }
        );
        assert_eq!(
            c.pop_fetch(),
            Some(Fetch {
                line: 0x200,
                write: true,
                bytes: 128,
                sectors: 1,
                req: Some(3),
                owner: 0
            })
        );
        assert_eq!(
            c.access(0x200, false, 4),
            Outcome::Miss,
            "the write evicted the line"
        );
        assert_eq!(
            c.access(0x900, true, 5),
            Outcome::WriteThrough { evicted: false }
        );
        c.pop_fetch();
        c.pop_fetch();
        assert_eq!(
            c.access(0x900, false, 6),
            Outcome::Miss,
            "the write did not allocate"
        );
    }

    #[test]
    fn a_full_miss_queue_does_not_block_hits() {
        let mut c = cache(4, 2, 4, 4, 1);
        c.access(0x000, false, 1);
        c.pop_fetch();
        c.fill(0x000);
        c.access(0x800, false, 2); // queue now full
        assert_eq!(c.access(0x000, false, 3), Outcome::Hit);
        assert_eq!(c.access(0x800, false, 4), Outcome::HitReserved);
        assert_eq!(c.access(0x000, true, 5), Outcome::Fail(Fail::MissQueueFull));
    }

    #[test]
    fn write_back_allocates_dirty_and_writes_victims_back_before_the_fetch() {
        let cfg = config(1, 1, 4, 4, 2);
        let mut c: DataCache<u32> =
            DataCache::with_policy(&cfg, SetIndex::Linear, WritePolicy::WriteBack);
        assert_eq!(
            c.access(0x000, true, 1),
            Outcome::WriteBack { allocated: true }
        );
        assert_eq!(c.pop_fetch(), None, "a write miss fetches nothing");
        assert_eq!(
            c.access(0x010, false, 2),
            Outcome::Hit,
            "the written line is present"
        );
        assert_eq!(
            c.access(0x000, true, 3),
            Outcome::WriteBack { allocated: false }
        );
        // A read of another line replaces the dirty one: write-back first, then the fetch.
        assert_eq!(c.access(0x080, false, 4), Outcome::Miss);
        assert_eq!(
            c.pop_fetch(),
            Some(Fetch {
                line: 0x000,
                write: true,
                bytes: 128,
                sectors: 1,
                req: None,
                owner: 0
            })
        );
        assert_eq!(
            c.pop_fetch(),
            Some(Fetch {
                line: 0x080,
                write: false,
                bytes: 128,
                sectors: 1,
                req: None,
                owner: 0
            })
        );
        assert_eq!(c.fill(0x080), vec![4]);
        // The filled line is clean: replacing it writes nothing back.
        assert_eq!(
            c.access(0x100, true, 5),
            Outcome::WriteBack { allocated: true }
        );
        assert_eq!(c.pop_fetch(), None);
        assert_eq!((c.stats.writebacks, c.stats.write_misses), (1, 2));
        // A dirty victim needs two queue entries: with one free the read miss is refused.
        c.access(0x180, false, 6); // evicts dirty 0x100: write-back + fetch fill the queue
        assert_eq!(c.miss_queue_len(), 2);
        c.pop_fetch();
        c.fill(0x180);
        c.pop_fetch();
        c.access(0x200, true, 7); // dirty again
        c.access(0x280, true, 8); // evicts it: one write-back queued
        assert_eq!(c.miss_queue_len(), 1);
        assert_eq!(
            c.access(0x300, false, 9),
            Outcome::Fail(Fail::MissQueueFull)
        );
    }

    #[test]
    fn a_fetching_write_miss_sends_the_write_on_fetches_the_line_and_waits_for_it() {
        let cfg = config(2, 1, 1, 2, 4);
        let mut c: DataCache<u32> =
            DataCache::with_policy(&cfg, SetIndex::Linear, WritePolicy::WriteBackFetch);
        let fetch = |line, write, bytes| Fetch {
            line,
            write,
            bytes,
            sectors: 1,
            req: None,
            owner: 0,
        };
        assert_eq!(c.access_sized(0x020, 32, true, 1), Outcome::Miss);
        // A second write to the line being fetched is sent on and waits too.
        assert_eq!(c.access_sized(0x040, 32, true, 2), Outcome::HitReserved);
        // The entry merges two: a third request to the line is refused.
        assert_eq!(
            c.access_sized(0x060, 32, true, 3),
            Outcome::Fail(Fail::MergeLimit)
        );
        assert_eq!(c.pop_fetch(), Some(fetch(0x000, true, 32)));
        assert_eq!(c.pop_fetch(), Some(fetch(0x000, false, 128)));
        assert_eq!(c.pop_fetch(), Some(fetch(0x000, true, 32)));
        assert_eq!(
            c.fill(0x000),
            vec![1, 2],
            "the writes are acknowledged by the fill"
        );
        assert_eq!((c.stats.writes, c.stats.write_misses), (2, 1));
        // The line arrived clean: a write hit keeps the write and dirties it, and a read miss
        // that replaces it writes it back first.
        assert_eq!(
            c.access_sized(0x000, 32, true, 4),
            Outcome::WriteBack { allocated: false }
        );
        assert_eq!(c.access(0x100, false, 5), Outcome::Miss);
        assert_eq!(c.pop_fetch(), Some(fetch(0x000, true, 128)));
        assert_eq!(c.pop_fetch(), Some(fetch(0x100, false, 128)));
        // A write miss with no MSHR entry free (the one entry waits for 0x100) is refused.
        assert_eq!(
            c.access_sized(0x080, 32, true, 6),
            Outcome::Fail(Fail::MshrFull)
        );
    }

    #[test]
    fn a_prefetch_takes_only_absent_lines_and_a_free_mshr_and_demand_misses_merge_into_it() {
        let mut c = cache(2, 2, 2, 4, 8);
        assert!(c.prefetch(0x000, 100), "absent line: prefetched");
        assert!(!c.prefetch(0x000, 101), "pending: not again (PF-2)");
        assert_eq!(c.stats.prefetches, 1);
        assert_eq!(
            (c.stats.reads, c.stats.misses),
            (0, 0),
            "not a demand access"
        );
        // PF-4: the demand miss merges into the prefetch's MSHR entry.
        assert_eq!(c.access(0x000, false, 7), Outcome::HitReserved);
        assert_eq!(c.mshrs_occupied(), 1);
        assert!(c.prefetch(0x080, 102));
        assert!(!c.prefetch(0x100, 103), "PF-3: no free MSHR, no prefetch");
        assert_eq!(c.fill(0x000), vec![100, 7]);
        assert!(!c.prefetch(0x000, 104), "resident: no prefetch (PF-2)");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// `check` (NewCAR's probe) refuses only for a resource that is really exhausted, and
        /// its verdicts change only when `version` does (NewCAR reuses a probe while the
        /// version is unchanged), in any state reached by random reads, writes, fills and
        /// fetches leaving the queue.
        #[test]
        fn check_refuses_for_a_full_resource_and_only_changes_with_the_version(
            ops in proptest::collection::vec((0u8..4, 0u64..12), 1..200),
            policy in 0u8..3,
        ) {
            let cfg = config(2, 2, 3, 2, 3);
            let policy = [
                WritePolicy::WriteThrough,
                WritePolicy::WriteBack,
                WritePolicy::WriteBackFetch,
            ][policy as usize];
            // A write miss that fetches needs up to three entries (itself, the fetch and a
            // write-back); anything else up to two.
            let most = |write: bool| match write && policy == WritePolicy::WriteBackFetch {
                true => 3,
                false => 2,
            };
            let mut c: DataCache<u32> = DataCache::with_policy(&cfg, SetIndex::Linear, policy);
            let verdicts = |c: &DataCache<u32>| -> Vec<Result<bool, Fail>> {
                (0..12u64)
                    .flat_map(|l| [false, true].map(|w| c.check(l * 128, w).map(|x| x.is_some())))
                    .collect()
            };
            let mut pending = vec![];
            let (mut version, mut seen) = (c.version(), verdicts(&c));
            for (k, (op, line)) in ops.into_iter().enumerate() {
                let addr = line * 128;
                match op {
                    0 | 1 => {
                        let write = op == 1;
                        match c.check(addr, write) {
                            Err(Fail::MshrFull) => proptest::prop_assert_eq!(c.mshrs_occupied(), 3),
                            Err(Fail::MissQueueFull) => {
                                proptest::prop_assert!(c.miss_queue_len() + most(write) > 3)
                            }
                            Err(Fail::AllWaysReserved) => {
                                proptest::prop_assert!(c.mshrs_occupied() >= 2)
                            }
                            _ => {}
                        }
                        if c.access(addr, write, k as u32) == Outcome::Miss {
                            pending.push(addr);
                        }
                    }
                    2 => {
                        if let Some(a) = pending.pop() {
                            c.fill(a);
                        }
                    }
                    _ => {
                        c.pop_fetch();
                    }
                }
                let now = verdicts(&c);
                if c.version() == version {
                    proptest::prop_assert_eq!(&now, &seen, "state changed without a new version");
                }
                (version, seen) = (c.version(), now);
            }
        }
    }

    /// A sectored write-through L1D with GPGPU-Sim's Volta policies: 2 sets x 2 ways of 128 B
    /// lines in 32 B sectors.
    fn write_through(mode: WriteThrough) -> DataCache<u32> {
        let cfg = CacheConfig {
            write_through: mode,
            ..config(2, 2, 4, 8, 8)
        };
        DataCache::new(&cfg, SetIndex::Linear).sectored(32)
    }

    /// `T` with `L` (lazy fetch on read): a write miss allocates its line without a fetch; a
    /// read of a sector the write filled hits, a read of a sector it wrote in part (or not at
    /// all) fetches it. `T` with `N` keeps a written line but allocates none; `E` evicts.
    #[test]
    fn write_through_l1ds_update_allocate_or_evict() {
        let mut c = write_through(WriteThrough::Allocate);
        // Sector 0 wholly written, 4 bytes of sector 1.
        let touched = span_mask(0x1000, 32) | span_mask(0x1020, 4);
        let o = c.access_write(0x1000, 64, touched, 1);
        assert_eq!(o, Outcome::WriteThrough { evicted: false });
        assert_eq!(fetches(&mut c), [(0x1000, 0b0011, 64)], "the write goes on");
        assert_eq!(c.access_sized(0x1000, 32, false, 2), Outcome::Hit);
        assert_eq!(c.access_sized(0x1020, 4, false, 3), Outcome::Miss);
        assert_eq!(
            fetches(&mut c),
            [(0x1000, 0b0010, 32)],
            "only sector 1 is fetched"
        );
        assert_eq!(c.stats.write_misses, 1);

        let mut c = write_through(WriteThrough::Update);
        assert_eq!(
            c.access_sized(0x1000, 32, true, 1),
            Outcome::WriteThrough { evicted: false }
        );
        assert_eq!(
            c.access_sized(0x1000, 32, false, 2),
            Outcome::Miss,
            "nothing allocated"
        );
        c.pop_fetch();
        c.pop_fetch();
        c.fill_sectors(0x1000, 0b0001);
        assert_eq!(
            c.access_sized(0x1000, 32, true, 3),
            Outcome::WriteThrough { evicted: false }
        );
        assert_eq!(
            c.access_sized(0x1000, 32, false, 4),
            Outcome::Hit,
            "a written hit stays"
        );

        let mut c = write_through(WriteThrough::Evict);
        c.access_sized(0x1000, 32, false, 1);
        c.pop_fetch();
        c.fill_sectors(0x1000, 0b0001);
        assert_eq!(
            c.access_sized(0x1000, 32, true, 2),
            Outcome::WriteThrough { evicted: true }
        );
        assert_eq!(c.access_sized(0x1000, 32, false, 3), Outcome::Miss);
    }

    /// A sectored write-back cache (GPGPU-Sim's `S:` L2): 2 sets x 2 ways of 128 B lines in
    /// 32 B sectors.
    fn sectored() -> DataCache<u32> {
        DataCache::with_policy(
            &config(2, 2, 4, 8, 8),
            SetIndex::Linear,
            WritePolicy::WriteBack,
        )
        .sectored(32)
    }

    /// The fetches queued so far, as (line, sectors, bytes).
    fn fetches(c: &mut DataCache<u32>) -> Vec<(u64, u32, u32)> {
        std::iter::from_fn(|| c.pop_fetch())
            .map(|f| (f.line, f.sectors, f.bytes))
            .collect()
    }

    /// A 32 B read miss fetches its one sector; a read of another sector of the line while it
    /// is pending fetches that sector too (a sector miss) and waits in the same MSHR entry;
    /// each fill wakes only the requests it completes; a line read after them fetches only
    /// the two sectors still absent.
    #[test]
    fn a_sectored_cache_fetches_only_the_missing_sectors() {
        let mut c = sectored();
        assert_eq!(c.access_sized(0x1020, 32, false, 1), Outcome::Miss);
        assert_eq!(c.access_sized(0x1024, 4, false, 2), Outcome::HitReserved);
        assert_eq!(c.access_sized(0x1060, 32, false, 3), Outcome::Miss);
        assert_eq!(c.mshrs_occupied(), 1, "one entry per line");
        assert_eq!(
            fetches(&mut c),
            [(0x1000, 0b0010, 32), (0x1000, 0b1000, 32)]
        );
        assert_eq!(
            c.fill_sectors(0x1000, 0b1000),
            [3],
            "sector 3's reader only"
        );
        assert_eq!(c.access_sized(0x1070, 16, false, 4), Outcome::Hit);
        assert_eq!(c.fill_sectors(0x1000, 0b0010), [1, 2]);
        assert_eq!(c.mshrs_occupied(), 0);
        assert_eq!(c.access_sized(0x1000, 128, false, 5), Outcome::Miss);
        assert_eq!(fetches(&mut c), [(0x1000, 0b0101, 64)]);
        assert_eq!(c.fill_sectors(0x1000, 0b0101), [5]);
        assert_eq!(c.access_sized(0x1000, 128, false, 6), Outcome::Hit);
        let s = c.stats;
        assert_eq!((s.reads, s.hits, s.hit_reserved, s.misses), (6, 2, 1, 3));
        // Per sector, as GPGPU-Sim counts: 1 + 1 + 1 + 1 + 4 + 4 touched, 1 + 1 + 2 fetched.
        assert_eq!((s.read_sectors, s.read_sector_misses), (12, 4));
    }

    /// A write to an absent sector of a present line keeps it (write-back: the sector becomes
    /// valid and the line dirty); a write to a sector being fetched leaves it to its fill, so
    /// a read of it still waits; a write miss allocates the whole line.
    #[test]
    fn a_sectored_write_back_cache_keeps_written_sectors() {
        let mut c = sectored();
        assert_eq!(c.access_sized(0x1000, 32, false, 1), Outcome::Miss);
        let kept = Outcome::WriteBack { allocated: false };
        assert_eq!(c.access_sized(0x1040, 32, true, 2), kept);
        assert_eq!(c.access_sized(0x1040, 32, false, 3), Outcome::Hit);
        assert_eq!(c.access_sized(0x1000, 8, true, 4), kept);
        assert_eq!(c.access_sized(0x1000, 8, false, 5), Outcome::HitReserved);
        assert_eq!(c.fill_sectors(0x1000, 0b0001), [1, 5]);
        let allocated = Outcome::WriteBack { allocated: true };
        assert_eq!(c.access_sized(0x2010, 4, true, 6), allocated);
        assert_eq!(c.access_sized(0x2060, 32, false, 7), Outcome::Hit);
        assert_eq!(fetches(&mut c), [(0x1000, 0b0001, 32)]);
    }

    /// A cache without sectors takes the whole line on every miss, whatever the access's size.
    #[test]
    fn an_unsectored_cache_fetches_whole_lines() {
        let mut c = cache(2, 2, 4, 8, 8);
        assert_eq!(c.full_mask(), 1);
        assert_eq!(c.access_sized(0x1020, 32, false, 1), Outcome::Miss);
        assert_eq!(c.access_sized(0x1060, 32, false, 2), Outcome::HitReserved);
        assert_eq!(fetches(&mut c), [(0x1000, 1, 128)]);
        assert_eq!(c.fill(0x1000), [1, 2]);
    }
}
