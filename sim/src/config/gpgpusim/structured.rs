//! GPGPU-Sim's structured options, every field parsed and checked as GPGPU-Sim checks it:
//! cache geometry and policy letters (`cache_config::init`), DRAM timing (named keys or the
//! legacy positional list, `memory_config::init`), clock domains and scheduler strings.
//! A field the model does not have is noted ([`Notes`]) unless its value is what the model
//! does.

use super::notes::Notes;
use super::Ctx;
use crate::config::{CacheConfig, ConfigError, GpuConfig, SetIndexFn, WriteAllocate, WriteThrough};

const CACHE_FORM: &str = "[<N|S>:]<sets>:<line bytes>:<ways>,<replacement>:<write>:<allocation>:\
                          <write allocation>[:<set index>],<mshr type>:<entries>:<merge>,\
                          <miss queue>[:<result fifo>][,<data port bytes>]";

/// One policy letter of a cache: GPGPU-Sim's letters with their meaning, and the ones this
/// model behaves as for the cache at hand.
struct Letter {
    field: &'static str,
    letters: &'static [(char, &'static str)],
}

const REPLACEMENT: Letter = Letter {
    field: "replacement",
    letters: &[('L', "LRU"), ('F', "FIFO")],
};
const WRITE: Letter = Letter {
    field: "write policy",
    letters: &[
        ('R', "read-only"),
        ('B', "write-back"),
        ('T', "write-through"),
        ('E', "write-evict"),
        ('L', "local write-back, global write-through"),
    ],
};
const ALLOCATION: Letter = Letter {
    field: "allocation",
    letters: &[('m', "on miss"), ('f', "on fill"), ('s', "streaming")],
};
const WRITE_ALLOCATION: Letter = Letter {
    field: "write allocation",
    letters: &[
        ('N', "no write-allocate"),
        ('W', "write-allocate"),
        ('F', "fetch on write"),
        ('L', "lazy fetch on read"),
    ],
};
const SET_INDEX: Letter = Letter {
    field: "set index",
    letters: &[
        ('H', "Fermi hash"),
        ('P', "IPOLY hash"),
        ('C', "custom"),
        ('L', "linear"),
        ('X', "bitwise XOR"),
    ],
};
const MSHR: Letter = Letter {
    field: "mshr type",
    letters: &[
        ('F', "texture FIFO"),
        ('T', "sectored texture FIFO"),
        ('A', "associative"),
        ('S', "sectored associative"),
    ],
};

/// The cache a `-gpgpu_cache:*` option describes, with the policies the model gives it (in
/// GPGPU-Sim's letters: a file with another letter is noted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Which {
    /// `-gpgpu_cache:il1`.
    Il1,
    /// `-gpgpu_cache:dl1`.
    Dl1,
    /// `-gpgpu_cache:dl2`.
    Dl2,
}

impl Which {
    /// The letters the model behaves as, per policy field (replacement, write, allocation,
    /// write allocation, set index): LRU with ages set at the miss and on hits
    /// (`mem/cache.rs`); every cache reserves a way on a miss; the L1D writes every store
    /// through and evicts a valid copy (`E`: GPGPU-Sim's `L` differs for local-store hits)
    /// or keeps it updated (`T`), allocating on a write miss with `T` and `L`
    /// (`l1d.write_through`);
    /// the L2 writes back and allocates a written line without fetching it (`L` for
    /// whole-line writes) or, with 3.x's `W`, sends the write on and fetches the line
    /// (`l2.write_allocate`); the L1D index is the Fermi hash (`H`) or linear (`L`, and a
    /// 3.x string, which has no index field; `l1d.set_index`) or IPOLY (`P`); the L2 indexes
    /// its partition address linearly or with IPOLY (`P`, `l2.set_index`); the L1I is linear.
    fn modelled(self) -> [&'static str; 5] {
        match self {
            Which::Il1 => ["L", "R", "m", "N", "L"],
            Which::Dl1 => ["L", "ET", "m", "N", "HLP"],
            Which::Dl2 => ["L", "B", "m", "LW", "LP"],
        }
    }
}

/// Reads a `-gpgpu_cache:*` value into `into`.
pub(super) fn cache(
    c: &Ctx<'_>,
    which: Which,
    into: &mut CacheConfig,
    notes: &mut Notes,
) -> Result<(), ConfigError> {
    if c.value == "none" {
        return Err(c.err("<cache geometry> (a disabled cache is not modelled)"));
    }
    let parts: Vec<&str> = c.value.split(',').collect();
    if !(4..=5).contains(&parts.len()) {
        return Err(c.err(CACHE_FORM));
    }
    let num = |s: &str| s.trim().parse::<u32>().map_err(|_| c.err(CACHE_FORM));
    let (sector_bytes, geo) = cache_type(c, parts[0])?;
    if geo.len() != 3 {
        return Err(c.err(CACHE_FORM));
    }
    let (sets, line, ways) = (num(geo[0])?, num(geo[1])?, num(geo[2])?);
    let policy: Vec<&str> = parts[1].split(':').collect();
    if !(4..=5).contains(&policy.len()) {
        return Err(c.err(CACHE_FORM));
    }
    let fields = [REPLACEMENT, WRITE, ALLOCATION, WRITE_ALLOCATION, SET_INDEX];
    let mut chosen = ['L'; 5];
    for (i, (t, f)) in policy.iter().zip(&fields).enumerate() {
        chosen[i] = letter(c, f, t)?;
    }
    combinations(c, chosen)?;
    let mshr: Vec<&str> = parts[2].split(':').collect();
    if mshr.len() != 3 {
        return Err(c.err(CACHE_FORM));
    }
    let mshr_type = letter(c, &MSHR, mshr[0])?;
    let (entries, merge) = (num(mshr[1])?, num(mshr[2])?);
    let queue: Vec<&str> = parts[3].split(':').collect();
    if queue.len() > 2 || (matches!(mshr_type, 'F' | 'T') && queue.len() != 2) {
        return Err(c.err_because(
            CACHE_FORM,
            &format!("a FIFO MSHR `{mshr_type}` needs `<miss queue>:<result fifo>`"),
        ));
    }
    let miss_queue = num(queue[0])?;
    for q in &queue[1..] {
        num(q)?;
    }
    let ipoly = policy.len() == 5 && chosen[4] == 'P';
    if ipoly && which != Which::Il1 && !matches!(sets, 16 | 32 | 64) {
        return Err(c.err_because(
            CACHE_FORM,
            "the IPOLY set index `P` hashes 16, 32 or 64 sets (GPGPU-Sim stops on others)",
        ));
    }
    if sector_bytes != 0 && line != 128 {
        return Err(c.err_because(
            CACHE_FORM,
            "a sectored cache has 4 sectors of 32 B: 128 B lines",
        ));
    }
    if let Some(port) = parts.get(4) {
        let port = num(port)?;
        if port == 0 || line % port != 0 {
            return Err(c.err_because(CACHE_FORM, "the data port width divides the line size"));
        }
        if which == Which::Dl2 {
            // A sectored L2 takes a sector a cycle whatever the port.
            into.port_bytes = if sector_bytes == 0 { port } else { 0 };
        } else if port != line {
            note_field(
                c,
                notes,
                "data port",
                &port.to_string(),
                "a whole line a cycle",
            );
        }
    }
    if sector_bytes != 0 && which == Which::Il1 {
        note_field(c, notes, "type", "S", "whole lines: the L1I has no sectors");
    } else {
        notes.forget(&format!("-{} type", c.option));
    }
    for (i, f) in fields.iter().enumerate() {
        let modelled = match (which, i, chosen[1]) {
            (Which::Dl1, 3, 'T') => "NL",
            _ => which.modelled()[i],
        };
        let given = policy.get(i).is_some();
        if given && !modelled.contains(chosen[i]) {
            let want = modelled.chars().next().unwrap_or('L');
            note_field(c, notes, f.field, &chosen[i].to_string(), meaning(f, want));
        } else {
            notes.forget(&format!("-{} {}", c.option, f.field));
        }
    }
    if matches!(mshr_type, 'F' | 'T') {
        note_field(c, notes, MSHR.field, &mshr_type.to_string(), "associative");
    } else {
        notes.forget(&format!("-{} {}", c.option, MSHR.field));
    }
    into.size_bytes = sets
        .checked_mul(line)
        .and_then(|x| x.checked_mul(ways))
        .ok_or_else(|| c.err(CACHE_FORM))?;
    into.line_bytes = line;
    into.ways = ways;
    into.mshrs = entries;
    into.mshr_merge = merge;
    into.miss_queue = miss_queue;
    into.sector_bytes = sector_bytes;
    into.mshr_sectors = sector_bytes > 0;
    if which == Which::Dl2 {
        into.write_allocate = match chosen[3] {
            'W' => WriteAllocate::Fetch,
            _ => WriteAllocate::Lazy,
        };
        into.set_index = if ipoly {
            SetIndexFn::Ipoly
        } else {
            SetIndexFn::Auto
        };
    }
    if which == Which::Dl1 {
        into.write_through = match (chosen[1], chosen[3]) {
            ('T', 'L') => WriteThrough::Allocate,
            ('T', _) => WriteThrough::Update,
            _ => WriteThrough::Evict,
        };
        // `auto` where it picks the same function, so that a file and the preset it mirrors
        // compare equal.
        let hashable = crate::mem::cache::SetIndex::fermi_hash_fits(sets, line);
        into.set_index = match (policy.len() == 5 && chosen[4] == 'H', hashable) {
            _ if ipoly => SetIndexFn::Ipoly,
            (true, true) | (false, false) => SetIndexFn::Auto,
            (true, false) => SetIndexFn::FermiHash,
            (false, true) => SetIndexFn::Linear,
        };
    }
    Ok(())
}

/// The cache type before the geometry: `N` (normal), `S` (sectored, GPGPU-Sim's 32 B
/// sectors) or none (GPGPU-Sim 3.x and 4.0 files); returns the sector size and the
/// geometry's three fields.
fn cache_type<'v>(c: &Ctx<'_>, geometry: &'v str) -> Result<(u32, Vec<&'v str>), ConfigError> {
    let mut geo: Vec<&str> = geometry.split(':').collect();
    let typed = geo
        .first()
        .is_some_and(|t| t.chars().any(|ch| ch.is_ascii_alphabetic()));
    if !typed {
        return Ok((0, geo));
    }
    let sector = match geo.remove(0).trim() {
        "N" => 0,
        "S" => 32,
        _ => {
            return Err(c.err_because(
                CACHE_FORM,
                "the cache type is `N` (normal) or `S` (sectored)",
            ))
        }
    };
    Ok((sector, geo))
}

/// A policy letter of `f`'s set.
fn letter(c: &Ctx<'_>, f: &Letter, token: &str) -> Result<char, ConfigError> {
    let mut chars = token.trim().chars();
    match (chars.next(), chars.next()) {
        (Some(ch), None) if f.letters.iter().any(|&(l, _)| l == ch) => Ok(ch),
        _ => {
            let set: Vec<String> = f
                .letters
                .iter()
                .map(|(l, m)| format!("{l} ({m})"))
                .collect();
            Err(c.err_because(
                CACHE_FORM,
                &format!("the {} is one of {}", f.field, set.join(", ")),
            ))
        }
    }
}

/// The meaning of letter `l` of `f`.
fn meaning(f: &Letter, l: char) -> &'static str {
    f.letters
        .iter()
        .find(|&&(x, _)| x == l)
        .map_or("", |&(_, m)| m)
}

/// GPGPU-Sim's refusals of policy combinations (its `cache_config::init` asserts).
fn combinations(
    c: &Ctx<'_>,
    [_, write, alloc, write_alloc, _]: [char; 5],
) -> Result<(), ConfigError> {
    let fill = matches!(alloc, 'f' | 's');
    if fill && write == 'B' {
        return Err(c.err_because(
            CACHE_FORM,
            "GPGPU-Sim refuses a write-back cache that allocates on fill: it can deadlock",
        ));
    }
    if alloc == 'f' && matches!(write_alloc, 'F' | 'L') {
        return Err(c.err_because(
            CACHE_FORM,
            "GPGPU-Sim refuses fetch-on-write or lazy-fetch-on-read with allocation on fill",
        ));
    }
    Ok(())
}

/// Notes field `field` of the option at `c` as not modelled.
fn note_field(c: &Ctx<'_>, notes: &mut Notes, field: &str, value: &str, model: &str) {
    notes.unmodelled(c.unmodelled(&format!("-{} {field}", c.option), value, Some(model)));
}

/// GPGPU-Sim's DRAM timing keys (`memory_config::init`), in the legacy positional order.
const DRAM_KEYS: [&str; 14] = [
    "nbk", "CCD", "RRD", "RCD", "RAS", "RP", "RC", "CL", "WL", "CDLR", "WR", "nbkgrp", "CCDL",
    "RTPL",
];

/// The DRAM timing keys the model does not have, with the value it behaves as (`None`: no
/// such value).
const DRAM_UNMODELLED: [(&str, Option<&str>); 4] = [
    ("CDLR", None),
    ("nbkgrp", Some("1")),
    ("CCDL", Some("0")),
    ("RTPL", Some("0")),
];

/// Reads `-gpgpu_dram_timing_opt`: `key=value` pairs separated by `:` or `;` (any order), or
/// GPGPU-Sim's legacy positional list `nbk:CCD:RRD:RCD:RAS:RP:RC:CL:WL:CDLR:WR[:nbkgrp:CCDL:RTPL]`.
pub(super) fn dram_timing(
    c: &Ctx<'_>,
    cfg: &mut GpuConfig,
    notes: &mut Notes,
) -> Result<(), ConfigError> {
    const FORM: &str = "\"nbk=<n>:CCD=<n>:RRD=<n>:RCD=<n>:RAS=<n>:RP=<n>:RC=<n>:CL=<n>:WL=<n>:\
                        CDLR=<n>:WR=<n>[:nbkgrp=<n>:CCDL=<n>:RTPL=<n>]\" (or the legacy \
                        positional list of these values)";
    let pairs: Vec<(&str, &str)> = if c.value.contains('=') {
        c.value
            .split([':', ';'])
            .filter(|kv| !kv.trim().is_empty())
            .map(|kv| kv.split_once('=').ok_or_else(|| c.err(FORM)))
            .collect::<Result<_, _>>()?
    } else {
        let v: Vec<&str> = c.value.split(':').collect();
        if !(11..=14).contains(&v.len()) {
            return Err(c.err(FORM));
        }
        DRAM_KEYS.iter().copied().zip(v).collect()
    };
    let t = &mut cfg.dram.timing;
    for (k, v) in pairs {
        let k = k.trim();
        let v: u32 = v.trim().parse().map_err(|_| c.err(FORM))?;
        let field = match k {
            "nbk" => &mut cfg.dram.banks,
            "CCD" => &mut t.ccd,
            "RRD" => &mut t.rrd,
            "RCD" => &mut t.rcd,
            "RAS" => &mut t.ras,
            "RP" => &mut t.rp,
            "RC" => &mut t.rc,
            "CL" => &mut t.cl,
            "WL" => &mut t.wl,
            "WR" => &mut t.wr,
            _ => {
                unmodelled_dram_key(c, k, v, notes)?;
                continue;
            }
        };
        *field = v;
    }
    Ok(())
}

/// A DRAM timing key the model does not have (noted unless it has the model's value), or an
/// unknown key (an error naming the nearest key, as GPGPU-Sim's "Unknown Option").
fn unmodelled_dram_key(c: &Ctx<'_>, k: &str, v: u32, notes: &mut Notes) -> Result<(), ConfigError> {
    let Some(&(key, model)) = DRAM_UNMODELLED.iter().find(|(x, _)| *x == k) else {
        let near = DRAM_KEYS
            .iter()
            .find(|x| x.eq_ignore_ascii_case(k))
            .map(|x| format!("; did you mean `{x}`?"))
            .unwrap_or_default();
        return Err(c.err_because(
            "<timing>",
            &format!(
                "`{k}` is no GPGPU-Sim DRAM timing key; keys: {}{near}",
                DRAM_KEYS.join(", ")
            ),
        ));
    };
    if key == "nbkgrp" && v == 0 {
        return Err(c.err_because(
            "<timing>",
            "GPGPU-Sim: \"Number of bank groups cannot be zero\"",
        ));
    }
    let option = format!("-{} {key}", c.option);
    if model == Some(v.to_string().as_str()) {
        notes.forget(&option);
    } else {
        let model = model.map(|m| format!("behaves as {key}={m}"));
        notes.unmodelled(c.unmodelled(&option, &v.to_string(), model.as_deref()));
    }
    Ok(())
}

/// Reads `-gpgpu_dram_partition_queues <icnt_L2>:<L2_dram>:<dram_L2>:<L2_icnt>` (entries, 0
/// unbounded) into `partition_queues`; the two queues on the DRAM side are noted (the model
/// has its own miss and return paths there).
pub(super) fn partition_queues(
    c: &Ctx<'_>,
    cfg: &mut GpuConfig,
    notes: &mut Notes,
) -> Result<(), ConfigError> {
    let v = c.list(':', 4, "<icnt_L2>:<L2_dram>:<dram_L2>:<L2_icnt>")?;
    let q = &mut cfg.partition_queues;
    q.enabled = true;
    q.icnt_to_l2 = v[0];
    q.l2_to_icnt = v[3];
    for (i, name) in [(1, "L2_dram"), (2, "dram_L2")] {
        let option = format!("-{} {name}", c.option);
        notes.unmodelled(c.unmodelled(&option, &v[i].to_string(), None));
    }
    Ok(())
}

/// Reads `-gpgpu_clock_domains <core>:<interconnect>:<L2>:<DRAM>` (MHz, each positive): the
/// model runs its interconnect and L2 at the core clock, so other clocks for them are noted.
pub(super) fn clock_domains(
    c: &Ctx<'_>,
    cfg: &mut GpuConfig,
    notes: &mut Notes,
) -> Result<(), ConfigError> {
    const FORM: &str = "<core MHz>:<interconnect MHz>:<L2 MHz>:<DRAM MHz>";
    let v: Vec<f64> = c
        .value
        .split(':')
        .map(|t| t.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| c.err(FORM))?;
    if v.len() != 4 || v.iter().any(|x| !x.is_finite() || *x <= 0.0) {
        return Err(c.err_because(FORM, "four clocks, each > 0"));
    }
    cfg.sm.core_clock_mhz = v[0];
    cfg.dram.clock_mhz = v[3];
    for (i, name) in [(1, "interconnect"), (2, "L2")] {
        let option = format!("-{} {name}", c.option);
        if v[i] == v[0] {
            notes.forget(&option);
        } else {
            let model = format!("runs at the core clock, {} MHz", v[0]);
            notes.unmodelled(c.unmodelled(&option, &format!("{} MHz", v[i]), Some(&model)));
        }
    }
    Ok(())
}

/// Reads `-gpgpu_scheduler`: `lrr`, `gto` or `two_level_active:<active>:0:1` (GPGPU-Sim
/// aborts on any two-level order but inner LRR, 0, and outer SRR, 1: the model's).
/// GPGPU-Sim's `rrr`, `old` and `warp_limiting` are refused (not modelled: running another
/// scheduler would answer silently wrong).
pub(super) fn scheduler(c: &Ctx<'_>, cfg: &mut GpuConfig) -> Result<(), ConfigError> {
    const FORM: &str = "lrr|gto|two_level_active:<active warps>:<inner>:<outer>";
    let sm = &mut cfg.sm;
    match c.value.split(':').collect::<Vec<_>>().as_slice() {
        ["lrr"] | ["gto"] => sm.warp_scheduler = c.value.into(),
        ["two_level_active", n, inner, outer] => {
            let int = |s: &str| s.trim().parse::<u32>().map_err(|_| c.err(FORM));
            let (n, inner, outer) = (int(n)?, int(inner)?, int(outer)?);
            if (inner, outer) != (0, 1) {
                return Err(c.err_because(
                    FORM,
                    "GPGPU-Sim implements only inner 0 (LRR) and outer 1 (SRR); it aborts on \
                     others",
                ));
            }
            sm.warp_scheduler = "two_level".into();
            sm.two_level_max_active = n;
        }
        [name, ..] if matches!(*name, "rrr" | "old" | "warp_limiting") => {
            return Err(c.err_because(
                FORM,
                &format!(
                    "GPGPU-Sim's `{name}` scheduler is not modelled; `gpusched policies` \
                     lists the model's"
                ),
            ))
        }
        _ => return Err(c.err(FORM)),
    }
    Ok(())
}
