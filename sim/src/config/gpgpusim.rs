//! GPGPU-Sim configuration files (`gpgpusim.config`): the options that map onto
//! [`GpuConfig`], read over a base preset (`gtx480` unless given), so values a file does not
//! set keep the base's.
//!
//! Format, as GPGPU-Sim's option parser reads it: `-<name> <value>` pairs of
//! whitespace-separated tokens (usually one per line); `#` starts a comment; a quoted value may
//! span lines (SM2_GTX480's `-gpgpu_dram_timing_opt` does); a later option overrides an
//! earlier one. Options this model
//! does not use are collected (once each, in order) and reported as ignored. A malformed value
//! is an error naming the file, the line and the expected form.
//!
//! Options read:
//!
//! | option | field(s) |
//! |---|---|
//! | `-gpgpu_n_clusters`, `-gpgpu_n_cores_per_cluster` | `sm.count` (their product) |
//! | `-gpgpu_shader_core_pipeline <threads>:<warp size>` | `sm.max_threads`, `sm.warp_size`, `sm.max_warps` |
//! | `-gpgpu_shader_cta` | `sm.max_blocks` |
//! | `-gpgpu_shader_registers` | `sm.registers` |
//! | `-gpgpu_shmem_size`, `-gpgpu_shmem_num_banks`, `-gpgpu_smem_latency` | `sm.shared_mem_bytes`, `sm.shared_mem_banks`, `units.shared_mem.latency` |
//! | `-gpgpu_num_sched_per_core`, `-gpgpu_scheduler lrr\|gto\|two_level_active:<n>:<x>:<y>` | `sm.schedulers`, `sm.warp_scheduler`, `sm.two_level_max_active` |
//! | `-gpgpu_cache:il1`, `:dl1`, `:dl2` `[<N\|S>:]<sets>:<line>:<ways>,<policies>,<mshr type>:<entries>:<merge>,<miss queue>[...]` | `l1i`, `l1d`, `l2` (size, line, ways, MSHRs, merge, miss queue; `S` sets `sector_bytes` 32) |
//! | `-gpgpu_l1_latency`, `-gpgpu_l2_rop_latency` | `l1d.latency`, `l2.latency` |
//! | `-gpgpu_n_mem`, `-gpgpu_n_sub_partition_per_mchannel`, `-gpgpu_n_mem_per_ctrlr`, `-gpgpu_dram_buswidth`, `-gpgpu_dram_burst_length`, `-dram_data_command_freq_ratio` | `dram.channels`, `.sub_partitions`, `.chips_per_channel`, `.chip_bus_bytes`, `.burst_length`, `.data_rate` |
//! | `-gpgpu_dram_timing_opt "nbk=..:CCD=..:RRD=..:RCD=..:RAS=..:RP=..:RC=..:CL=..:WL=..:WR=.."` | `dram.banks`, `dram.timing` |
//! | `-gpgpu_frfcfs_dram_sched_queue_size`, `-dram_latency` | `dram.scheduler_queue`, `dram.latency` |
//! | `-gpgpu_clock_domains <core>:<icnt>:<l2>:<dram>` | `sm.core_clock_mhz`, `dram.clock_mhz` |
//! | `-gpgpu_num_sp_units`, `-gpgpu_num_sfu_units`, `-icnt_flit_size` | `units.sp_units`, `units.sfu_units`, `interconnect.flit_bytes` |
//! | `-ptx_opcode_latency_{int,fp,dp,sfu}`, `-ptx_opcode_initiation_{int,fp,dp,sfu}` | `units.*` (int: ADD and MAD; fp: MAD; dp: ADD) |
//! | `-gpgpu_num_reg_banks`, `-gpgpu_operand_collector_num_units_{sp,sfu,mem}` | `pipeline.operand_collector.register_banks`, `.units`; any of these options, or `-gpgpu_pipeline_widths`, also sets `.enabled` (the file describes GPGPU-Sim's collector, so the collector model runs) |
//! | `-gpgpu_pipeline_widths <ID_OC_SP>,<ID_OC_DP>,<ID_OC_INT>,<ID_OC_SFU>,<ID_OC_MEM>,<OC_EX_SP>,<OC_EX_DP>,<OC_EX_INT>,<OC_EX_SFU>,<OC_EX_MEM>,<EX_WB>` | `pipeline.operand_collector.issue_widths`, `.dispatch_widths` (SP, SFU, MEM), `.writeback_width` (the DP and INT sets are not modelled: GPGPU-Sim without DP and INT units) |
//! | Accel-Sim's `trace.config`: `-trace_opcode_latency_initiation_{int,sp,dp,sfu} <latency>,<initiation>` | `units.int_alu` and `units.int_mul`, `units.fp`, `units.dp`, `units.sfu` (`_tensor` and `-specialized_unit_*` are not modelled: listed as ignored) |
//!
//! Several files apply in order, each over the configuration the previous ones made
//! ([`super::GpuConfig::load_with_notes`] with `a.config,b.config`), as Accel-Sim reads
//! `-config gpgpusim.config -config trace.config`.
//!
//! `dram.peak_gbps` is computed from the DRAM geometry and clock (to 0.1 GB/s).

use super::{CacheConfig, ConfigError, GpuConfig};
use std::collections::HashMap;
use std::path::Path;

/// A GPGPU-Sim file read into a configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    /// The configuration (validated).
    pub config: GpuConfig,
    /// Options the model does not use, once each, in order of appearance.
    pub ignored: Vec<String>,
}

struct Ctx<'a> {
    path: &'a Path,
    line: usize,
    option: &'a str,
    value: &'a str,
}

impl Ctx<'_> {
    fn err(&self, expected: &str) -> ConfigError {
        ConfigError::Syntax {
            path: self.path.display().to_string(),
            line: self.line,
            expected: format!("`-{} {expected}`", self.option),
            found: format!("`{}`", self.value),
        }
    }

    fn u32(&self) -> Result<u32, ConfigError> {
        self.value
            .parse()
            .map_err(|_| self.err("<unsigned integer>"))
    }

    /// `n` unsigned integers separated by `sep`.
    fn list(&self, sep: char, n: usize, form: &str) -> Result<Vec<u32>, ConfigError> {
        let v: Vec<u32> = self
            .value
            .split(sep)
            .map(|t| t.trim().parse::<u32>())
            .collect::<Result<_, _>>()
            .map_err(|_| self.err(form))?;
        if v.len() < n {
            return Err(self.err(form));
        }
        Ok(v)
    }
}

const CACHE_FORM: &str =
    "[<N|S>:]<sets>:<line bytes>:<ways>,<policies>,<mshr type>:<entries>:<merge>,<miss queue>";

fn cache(c: &Ctx<'_>, into: &mut CacheConfig) -> Result<(), ConfigError> {
    if c.value == "none" {
        return Err(c.err("<cache geometry> (a disabled cache is not modelled)"));
    }
    let parts: Vec<&str> = c.value.split(',').collect();
    if parts.len() < 4 {
        return Err(c.err(CACHE_FORM));
    }
    let num = |s: &str| s.trim().parse::<u32>().map_err(|_| c.err(CACHE_FORM));
    let mut geo: Vec<&str> = parts[0].split(':').collect();
    // `S` (sectored, GPGPU-Sim's 32 B `SECTOR_SIZE`) or `N` (normal) before the geometry.
    let mut sector_bytes = 0;
    if geo
        .first()
        .is_some_and(|t| t.chars().all(|ch| ch.is_ascii_alphabetic()))
    {
        if geo[0] == "S" {
            sector_bytes = 32;
        }
        geo.remove(0);
    }
    if geo.len() != 3 {
        return Err(c.err(CACHE_FORM));
    }
    let (sets, line, ways) = (num(geo[0])?, num(geo[1])?, num(geo[2])?);
    let mshr: Vec<&str> = parts[2].split(':').collect();
    if mshr.len() < 3 {
        return Err(c.err(CACHE_FORM));
    }
    let (entries, merge) = (num(mshr[1])?, num(mshr[2])?);
    let queue = num(parts[3].split(':').next().unwrap_or_default())?;
    into.size_bytes = sets
        .checked_mul(line)
        .and_then(|x| x.checked_mul(ways))
        .ok_or_else(|| c.err(CACHE_FORM))?;
    into.line_bytes = line;
    into.ways = ways;
    into.mshrs = entries;
    into.mshr_merge = merge;
    into.miss_queue = queue;
    into.sector_bytes = sector_bytes;
    Ok(())
}

fn timing(c: &Ctx<'_>, cfg: &mut GpuConfig) -> Result<(), ConfigError> {
    const FORM: &str =
        "\"nbk=<n>:CCD=<n>:RRD=<n>:RCD=<n>:RAS=<n>:RP=<n>:RC=<n>:CL=<n>:WL=<n>:...:WR=<n>\"";
    let t = &mut cfg.dram.timing;
    for kv in c.value.split(':') {
        let (k, v) = kv.split_once('=').ok_or_else(|| c.err(FORM))?;
        let v: u32 = v.trim().parse().map_err(|_| c.err(FORM))?;
        match k.trim() {
            "nbk" => cfg.dram.banks = v,
            "CCD" => t.ccd = v,
            "RRD" => t.rrd = v,
            "RCD" => t.rcd = v,
            "RAS" => t.ras = v,
            "RP" => t.rp = v,
            "RC" => t.rc = v,
            "CL" => t.cl = v,
            "WL" => t.wl = v,
            "WR" => t.wr = v,
            // Bank groups, CDLR, CCDL, RTPL: not modelled.
            _ => {}
        }
    }
    Ok(())
}

/// The options of GPGPU-Sim option text as GPGPU-Sim's own parser reads them
/// (`OptionParser::ParseFile`): `#` starts a comment to the end of its line; the rest is
/// whitespace-separated tokens, lines included; a token that starts with `"` runs to the
/// token that ends with `"` (on any later line), joined by single spaces, without the quotes;
/// each option is `-<name>` followed by its value (none when the next token is another option
/// or there is none). Returns (line of the option, name without `-`, value), in order, so a
/// later option overrides an earlier one.
fn options(text: &str, path: &Path) -> Result<Vec<(usize, String, String)>, ConfigError> {
    let mut tokens: Vec<(usize, String)> = vec![];
    let mut open: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or_default();
        for t in line.split_whitespace() {
            match open.take() {
                Some((at, mut joined)) => {
                    joined.push(' ');
                    joined.push_str(t);
                    if t.ends_with('"') {
                        tokens.push((at, joined.trim_matches('"').to_string()));
                    } else {
                        open = Some((at, joined));
                    }
                }
                None if t.starts_with('"') && !(t.len() > 1 && t.ends_with('"')) => {
                    open = Some((i + 1, t.to_string()));
                }
                None => tokens.push((i + 1, t.trim_matches('"').to_string())),
            }
        }
    }
    if let Some((at, joined)) = open {
        return Err(ConfigError::Syntax {
            path: path.display().to_string(),
            line: at,
            expected: "a closing `\"` for the quoted value".into(),
            found: format!("`{joined}`"),
        });
    }
    let is_option = |t: &str| {
        t.strip_prefix('-')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
    };
    let mut out = vec![];
    let mut it = tokens.into_iter().peekable();
    while let Some((line, t)) = it.next() {
        if !is_option(&t) {
            return Err(ConfigError::Syntax {
                path: path.display().to_string(),
                line,
                expected: "an option line `-<name> <value>` or a `#` comment".into(),
                found: format!("`{t}`"),
            });
        }
        let value = match it.peek() {
            Some((_, v)) if !is_option(v) => it.next().map(|(_, v)| v).unwrap_or_default(),
            _ => String::new(),
        };
        out.push((line, t[1..].to_string(), value.trim().to_string()));
    }
    Ok(out)
}

/// Parses GPGPU-Sim option text over `base` (a preset): an SM-count factor the text does not
/// set (`-gpgpu_n_clusters`, `-gpgpu_n_cores_per_cluster`) counts as 1.
pub fn parse(text: &str, path: &Path, base: &GpuConfig) -> Result<Parsed, ConfigError> {
    parse_layer(text, path, base, true)
}

/// Parses GPGPU-Sim option text over `base`, the configuration earlier files made: the
/// SM-count factors must then be set together or not at all (the other one is not known).
pub fn parse_over(text: &str, path: &Path, base: &GpuConfig) -> Result<Parsed, ConfigError> {
    parse_layer(text, path, base, false)
}

/// The operand collector of `cfg`, turned on: a file that sizes GPGPU-Sim's operand
/// collector describes a pipeline that has one, so the collector model runs it.
fn collector(cfg: &mut GpuConfig) -> &mut super::OperandCollectorConfig {
    let oc = &mut cfg.pipeline.operand_collector;
    oc.enabled = true;
    oc
}

fn parse_layer(
    text: &str,
    path: &Path,
    base: &GpuConfig,
    first: bool,
) -> Result<Parsed, ConfigError> {
    let mut cfg = base.clone();
    cfg.name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "gpgpusim".into());
    let mut ignored: Vec<String> = vec![];
    let (mut clusters, mut per_cluster) = (None, None);
    // The last line that changed each field, to locate validation errors.
    let mut origin: HashMap<String, usize> = HashMap::new();
    let mut count_line = None;
    for (line, option, value) in options(text, path)? {
        let (option, value) = (option.as_str(), value.as_str());
        let i = line - 1;
        let c = Ctx {
            path,
            line,
            option,
            value,
        };
        let before = flat(&cfg);
        let u = &mut cfg.units;
        match option {
            "gpgpu_n_clusters" => clusters = Some(c.u32()?),
            "gpgpu_n_cores_per_cluster" => per_cluster = Some(c.u32()?),
            "gpgpu_shader_core_pipeline" => {
                let v = c.list(':', 2, "<threads>:<warp size>")?;
                cfg.sm.max_threads = v[0];
                cfg.sm.warp_size = v[1];
                cfg.sm.max_warps = v[0] / v[1].max(1);
            }
            "gpgpu_shader_cta" => cfg.sm.max_blocks = c.u32()?,
            "gpgpu_shader_registers" => cfg.sm.registers = c.u32()?,
            "gpgpu_shmem_size" => cfg.sm.shared_mem_bytes = c.u32()?,
            "gpgpu_shmem_num_banks" => cfg.sm.shared_mem_banks = c.u32()?,
            "gpgpu_smem_latency" => u.shared_mem.latency = c.u32()?,
            "gpgpu_num_sched_per_core" => cfg.sm.schedulers = c.u32()?,
            "gpgpu_scheduler" => {
                const FORM: &str = "lrr|gto|two_level_active:<active warps>:<inner>:<outer>";
                match value.split(':').collect::<Vec<_>>().as_slice() {
                    ["lrr"] | ["gto"] => cfg.sm.warp_scheduler = value.into(),
                    ["two_level_active", n, ..] => {
                        cfg.sm.warp_scheduler = "two_level".into();
                        cfg.sm.two_level_max_active = n.parse().map_err(|_| c.err(FORM))?;
                    }
                    _ => return Err(c.err(FORM)),
                }
            }
            "gpgpu_cache:il1" => cache(&c, &mut cfg.l1i)?,
            "gpgpu_cache:dl1" => cache(&c, &mut cfg.l1d)?,
            "gpgpu_cache:dl2" => cache(&c, &mut cfg.l2)?,
            "gpgpu_l1_latency" => cfg.l1d.latency = c.u32()?,
            "gpgpu_l2_rop_latency" => cfg.l2.latency = c.u32()?,
            "gpgpu_n_mem" => cfg.dram.channels = c.u32()?,
            "gpgpu_n_sub_partition_per_mchannel" => cfg.dram.sub_partitions = c.u32()?,
            "gpgpu_n_mem_per_ctrlr" => cfg.dram.chips_per_channel = c.u32()?,
            "gpgpu_dram_buswidth" => cfg.dram.chip_bus_bytes = c.u32()?,
            "gpgpu_dram_burst_length" => cfg.dram.burst_length = c.u32()?,
            "dram_data_command_freq_ratio" => cfg.dram.data_rate = c.u32()?,
            "gpgpu_frfcfs_dram_sched_queue_size" => cfg.dram.scheduler_queue = c.u32()?,
            "dram_latency" => cfg.dram.latency = c.u32()?,
            "gpgpu_dram_timing_opt" => timing(&c, &mut cfg)?,
            "gpgpu_clock_domains" => {
                const FORM: &str = "<core MHz>:<icnt MHz>:<l2 MHz>:<dram MHz>";
                let v: Vec<f64> = value
                    .split(':')
                    .map(|t| t.trim().parse::<f64>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| c.err(FORM))?;
                if v.len() != 4 {
                    return Err(c.err(FORM));
                }
                cfg.sm.core_clock_mhz = v[0];
                cfg.dram.clock_mhz = v[3];
            }
            "gpgpu_num_reg_banks" => collector(&mut cfg).register_banks = c.u32()?,
            "gpgpu_operand_collector_num_units_sp" => collector(&mut cfg).units.sp = c.u32()?,
            "gpgpu_operand_collector_num_units_sfu" => collector(&mut cfg).units.sfu = c.u32()?,
            "gpgpu_operand_collector_num_units_mem" => collector(&mut cfg).units.mem = c.u32()?,
            "gpgpu_pipeline_widths" => {
                const FORM: &str = "<ID_OC_SP>,<ID_OC_DP>,<ID_OC_INT>,<ID_OC_SFU>,<ID_OC_MEM>,\
                    <OC_EX_SP>,<OC_EX_DP>,<OC_EX_INT>,<OC_EX_SFU>,<OC_EX_MEM>,<EX_WB>";
                let v = c.list(',', 11, FORM)?;
                let oc = collector(&mut cfg);
                let per_path = |sp, sfu, mem| super::PerPath { sp, sfu, mem };
                oc.issue_widths = per_path(v[0], v[3], v[4]);
                oc.dispatch_widths = per_path(v[5], v[8], v[9]);
                oc.writeback_width = v[10];
            }
            "gpgpu_num_sp_units" => cfg.units.sp_units = c.u32()?,
            "gpgpu_num_sfu_units" => cfg.units.sfu_units = c.u32()?,
            "icnt_flit_size" => cfg.interconnect.flit_bytes = c.u32()?,
            "ptx_opcode_latency_int" | "ptx_opcode_initiation_int" => {
                let v = c.list(',', 4, "<add>,<max>,<mul>,<mad>[,<div>]")?;
                let lat = option.contains("latency");
                set(&mut u.int_alu, lat, v[0]);
                set(&mut u.int_mul, lat, v[3]);
            }
            "ptx_opcode_latency_fp" | "ptx_opcode_initiation_fp" => {
                let v = c.list(',', 4, "<add>,<max>,<mul>,<mad>[,<div>]")?;
                set(&mut u.fp, option.contains("latency"), v[3]);
            }
            "ptx_opcode_latency_dp" | "ptx_opcode_initiation_dp" => {
                let v = c.list(',', 1, "<add>,<max>,<mul>,<mad>[,<div>]")?;
                set(&mut u.dp, option.contains("latency"), v[0]);
            }
            "trace_opcode_latency_initiation_int"
            | "trace_opcode_latency_initiation_sp"
            | "trace_opcode_latency_initiation_dp"
            | "trace_opcode_latency_initiation_sfu" => {
                // Accel-Sim's trace mode: one latency and initiation interval per unit class.
                let v = c.list(',', 2, "<latency>,<initiation interval>")?;
                let units: &mut [&mut super::Latency] = match &option[32..] {
                    "int" => &mut [&mut u.int_alu, &mut u.int_mul],
                    "sp" => &mut [&mut u.fp],
                    "dp" => &mut [&mut u.dp],
                    _ => &mut [&mut u.sfu],
                };
                for l in units.iter_mut() {
                    set(l, true, v[0]);
                    set(l, false, v[1]);
                }
            }
            "ptx_opcode_latency_sfu" | "ptx_opcode_initiation_sfu" => {
                let v = c.u32()?;
                set(&mut u.sfu, option.contains("latency"), v);
            }
            other => {
                if !ignored.iter().any(|x| x == other) {
                    ignored.push(other.to_string());
                }
            }
        }
        if matches!(option, "gpgpu_n_clusters" | "gpgpu_n_cores_per_cluster") {
            count_line = Some(i + 1);
        }
        for ((name, old), (_, new)) in before.into_iter().zip(flat(&cfg)) {
            if old != new {
                origin.insert(name, i + 1);
            }
        }
    }
    if !first && clusters.is_some() != per_cluster.is_some() {
        return Err(super::field(
            "sm.count",
            "a later file of a --config list sets -gpgpu_n_clusters and \
             -gpgpu_n_cores_per_cluster together or not at all (the SM count is their product)"
                .to_string(),
        )
        .at(path, count_line));
    }
    if clusters.is_some() || per_cluster.is_some() {
        let (c, p) = (clusters.unwrap_or(1), per_cluster.unwrap_or(1));
        cfg.sm.count = c.checked_mul(p).ok_or_else(|| {
            super::field(
                "sm.count",
                format!("{c} clusters x {p} cores per cluster does not fit in 32 bits"),
            )
            .at(path, count_line)
        })?;
    }
    if let Some(line) = count_line {
        origin.insert("sm.count".into(), line);
    }
    cfg.dram.peak_gbps = (cfg.dram.computed_gbps() * 10.0).round() / 10.0;
    cfg.validate().map_err(|e| {
        let line = e.field().and_then(|f| origin.get(f).copied());
        e.at(path, line)
    })?;
    Ok(Parsed {
        config: cfg,
        ignored,
    })
}

/// Every field of `cfg` by its dotted name, in a fixed order (to see which ones a line
/// changed).
fn flat(cfg: &GpuConfig) -> Vec<(String, serde_json::Value)> {
    fn walk(prefix: &str, v: serde_json::Value, out: &mut Vec<(String, serde_json::Value)>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    let name = if prefix.is_empty() {
                        k
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&name, v, out);
                }
            }
            v => out.push((prefix.to_string(), v)),
        }
    }
    let mut out = vec![];
    walk(
        "",
        serde_json::to_value(cfg).expect("a config serializes"),
        &mut out,
    );
    out
}

fn set(l: &mut super::Latency, latency: bool, v: u32) {
    if latency {
        l.latency = v;
    } else {
        l.initiation = v;
    }
}

/// Whether `text` looks like a GPGPU-Sim option file (its first non-comment line starts
/// with `-`).
pub fn looks_like(text: &str) -> bool {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .find(|l| !l.is_empty())
        .is_some_and(|l| l.starts_with('-'))
}

#[cfg(test)]
mod tests;
