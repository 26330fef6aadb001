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
//! | `-gpgpu_kernel_launch_latency`, `-gpgpu_TB_launch_latency` | `launch.kernel_latency`, `launch.block_latency` |
//! | `-gpgpu_shader_registers` | `sm.registers` |
//! | `-gpgpu_shmem_size`, `-gpgpu_shmem_num_banks`, `-gpgpu_smem_latency` | `sm.shared_mem_bytes`, `sm.shared_mem_banks`, `units.shared_mem.latency` |
//! | `-gpgpu_num_sched_per_core`, `-gpgpu_scheduler lrr\|gto\|two_level_active:<n>:<x>:<y>` | `sm.schedulers`, `sm.warp_scheduler`, `sm.two_level_max_active` |
//! | `-gpgpu_cache:il1`, `:dl1`, `:dl2` `[<N\|S>:]<sets>:<line>:<ways>,<policies>,<mshr type>:<entries>:<merge>,<miss queue>[...]` | `l1i`, `l1d`, `l2` (size, line, ways, MSHRs, merge, miss queue; `S` sets `sector_bytes` 32) |
//! | `-gpgpu_l1_latency`, `-gpgpu_l2_rop_latency` | `l1d.latency`, `l2.latency` |
//! | `-gpgpu_dram_partition_queues <icnt_L2>:<L2_dram>:<dram_L2>:<L2_icnt>` | `partition_queues` (`.enabled`, `.icnt_to_l2`, `.l2_to_icnt`; the two DRAM-side queues are noted) |
//! | `-gpgpu_n_mem`, `-gpgpu_n_sub_partition_per_mchannel`, `-gpgpu_n_mem_per_ctrlr`, `-gpgpu_dram_buswidth`, `-gpgpu_dram_burst_length`, `-dram_data_command_freq_ratio` | `dram.channels`, `.sub_partitions`, `.chips_per_channel`, `.chip_bus_bytes`, `.burst_length`, `.data_rate` |
//! | `-gpgpu_dram_timing_opt "nbk=..:CCD=..:RRD=..:RCD=..:RAS=..:RP=..:RC=..:CL=..:WL=..:WR=.."` | `dram.banks`, `dram.timing` |
//! | `-gpgpu_frfcfs_dram_sched_queue_size`, `-dram_latency` | `dram.scheduler_queue`, `dram.latency` |
//! | `-gpgpu_clock_domains <core>:<icnt>:<l2>:<dram>` | `sm.core_clock_mhz`, `dram.clock_mhz` |
//! | `-gpgpu_gmem_skip_L1D` (3.x: `-gmem_skip_L1D`) | `pipeline.gmem_skip_l1d` |
//! | `-gpgpu_perfect_inst_const_cache` (3.x: `-perfect_inst_const_cache`) | `pipeline.perfect_inst_cache` |
//! | `-gpgpu_mem_addr_mapping`, `-gpgpu_memory_partition_indexing` (3.x: `-memory_partition_indexing`) | `dram.address_mapping`, `dram.partition_indexing` (0 consecutive, 1 xor, 2 ipoly, 4 random, 5 consecutive) |
//! | `-gpgpu_cache:dl1`, `:dl2` set index `P` | `l1d.set_index`, `l2.set_index` = `ipoly` |
//! | `-gpgpu_l1_banks`, `-gpgpu_l1_banks_byte_interleaving` | `pipeline.l1d_banks`, `pipeline.l1d_bank_bytes` (linear bank function: `-gpgpu_l1_banks_hashing_function` 0) |
//! | `-gpgpu_inst_fetch_throughput` | `pipeline.fetch_throughput` |
//! | `-gpgpu_max_insn_issue_per_warp`, `-gpgpu_dual_issue_diff_exec_units` | `pipeline.issue_per_warp`, `pipeline.dual_issue_diff_units` |
//! | `-gpgpu_coalesce_arch` (40 and above: 32 B sectors, sectored L1D) | `pipeline.sector_coalescing` |
//! | `-gpgpu_adaptive_cache_config`, `-gpgpu_unified_l1d_size`, `-gpgpu_shmem_option` | `l1d_carveout.enabled`, `.unified_kb`, `.shared_options_kb` |
//! | `-gpgpu_num_sp_units`, `-gpgpu_num_sfu_units`, `-icnt_flit_size` | `units.sp_units`, `units.sfu_units`, `interconnect.flit_bytes` |
//! | `-network_mode 1` with the `input_buffer_size`, `ejection_buffer_size` (or `vc_buf_size`) and `boundary_buffer_size` of its `-inter_config_file` (beside the configuration file), `-network_mode 2` with `-icnt_in_buffer_limit` and `-icnt_out_buffer_limit` | `interconnect.input_buffer`, `interconnect.output_buffer` ([`network`]) |
//! | `-ptx_opcode_latency_{int,fp,dp,sfu}`, `-ptx_opcode_initiation_{int,fp,dp,sfu}` | `units.*` (int: ADD and MAD; fp: MAD; dp: ADD) |
//! | `-gpgpu_num_reg_banks`, `-gpgpu_reg_file_port_throughput`, `-gpgpu_operand_collector_num_units_{sp,sfu,mem}` | `pipeline.operand_collector.register_banks`, `.port_throughput`, `.units`; any of these options, or `-gpgpu_pipeline_widths`, also sets `.enabled` (the file describes GPGPU-Sim's collector, so the collector model runs) |
//! | `-gpgpu_pipeline_widths <ID_OC_SP>,<ID_OC_DP>,<ID_OC_INT>,<ID_OC_SFU>,<ID_OC_MEM>,<OC_EX_SP>,<OC_EX_DP>,<OC_EX_INT>,<OC_EX_SFU>,<OC_EX_MEM>,<EX_WB>` | `pipeline.operand_collector.issue_widths`, `.dispatch_widths` (SP, SFU, MEM), `.writeback_width` (the DP and INT sets are not modelled: GPGPU-Sim without DP and INT units) |
//! | Accel-Sim's `trace.config`: `-trace_opcode_latency_initiation_{int,sp,dp,sfu} <latency>,<initiation>` | `units.int_alu` and `units.int_mul`, `units.fp`, `units.dp`, `units.sfu` (`_tensor` and `-specialized_unit_*` are not modelled: listed as ignored) |
//!
//! Several files apply in order, each over the configuration the previous ones made
//! ([`super::GpuConfig::load_with_notes`] with `a.config,b.config`), as Accel-Sim reads
//! `-config gpgpusim.config -config trace.config`.
//!
//! `dram.peak_gbps` is computed from the DRAM geometry and clock (to 0.1 GB/s).

use super::{ConfigError, GpuConfig};
use std::path::Path;

mod known;
mod network;
mod notes;
mod read;
mod structured;
mod tokens;

pub use known::{Kind, Known, Role, OPTIONS};
pub use notes::{Notes, Unmodelled};

/// A GPGPU-Sim file read into a configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    /// The configuration (validated).
    pub config: GpuConfig,
    /// What the file set that changes nothing in this model.
    pub notes: Notes,
}

/// One option of a file being read: where it is, its name (without `-`) and its value.
struct Ctx<'a> {
    path: &'a Path,
    line: usize,
    option: &'a str,
    value: &'a str,
}

impl Ctx<'_> {
    /// A syntax error: the option should have the form `expected`.
    fn err(&self, expected: &str) -> ConfigError {
        ConfigError::Syntax {
            path: self.path.display().to_string(),
            line: self.line,
            expected: format!("`-{} {expected}`", self.option),
            found: format!("`{}`", self.value),
        }
    }

    /// A syntax error: the option should have the form `form`, and `why` says what is wrong.
    fn err_because(&self, form: &str, why: &str) -> ConfigError {
        ConfigError::Syntax {
            path: self.path.display().to_string(),
            line: self.line,
            expected: format!("`-{} {form}` ({why})", self.option),
            found: format!("`{}`", self.value),
        }
    }

    /// An unsigned integer in any of GPGPU-Sim's forms (decimal, `0x` hex, `0` octal).
    fn u32(&self) -> Result<u32, ConfigError> {
        integer(self.value.trim())
            .and_then(|x| u32::try_from(x).ok())
            .ok_or_else(|| self.err("<unsigned integer>"))
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

    /// A note that `option` (this option, or one of its fields) with `value` is not modelled.
    fn unmodelled(&self, option: &str, value: &str, model: Option<&str>) -> Unmodelled {
        Unmodelled {
            path: self.path.display().to_string(),
            line: self.line,
            option: option.to_string(),
            value: value.to_string(),
            model: model.map(str::to_string),
        }
    }

    /// Checks the value of an option the model does not read against its kind, as
    /// GPGPU-Sim's parser would (stricter: trailing text after a number is refused).
    fn check_kind(&self, kind: Kind) -> Result<(), ConfigError> {
        let v = self.value.trim();
        let ok = match kind {
            Kind::Flag => matches!(v, "" | "0" | "1"),
            Kind::Int => integer(v).is_some_and(|x| i32::try_from(x).is_ok()),
            Kind::UInt => integer(v).is_some_and(|x| u32::try_from(x).is_ok()),
            Kind::Int64 => integer(v).is_some_and(|x| i64::try_from(x).is_ok()),
            Kind::UInt64 => integer(v).is_some_and(|x| u64::try_from(x).is_ok()),
            Kind::Float => v.parse::<f64>().is_ok_and(f64::is_finite),
            Kind::Text => !v.is_empty(),
            Kind::Char => v.chars().count() == 1,
        };
        if ok {
            return Ok(());
        }
        if kind == Kind::Flag {
            return Err(self.err_because("0|1", "a flag: 0, 1 or no value"));
        }
        Err(self.err(match kind {
            Kind::Flag => "0|1",
            Kind::Int | Kind::Int64 => "<integer>",
            Kind::UInt | Kind::UInt64 => "<unsigned integer>",
            Kind::Float => "<number>",
            Kind::Text => "<value>",
            Kind::Char => "<one character>",
        }))
    }
}

/// An integer as GPGPU-Sim's option parser reads one: decimal, `0x` hexadecimal or
/// `0`-prefixed octal, with an optional sign.
fn integer(text: &str) -> Option<i128> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let magnitude = if let Some(hex) = digits.strip_prefix("0x") {
        i128::from_str_radix(hex, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        i128::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse::<i128>().ok()?
    };
    Some(if neg { -magnitude } else { magnitude })
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
    let mut notes = Notes::default();
    let (mut clusters, mut per_cluster) = (None, None);
    // The options read into fields (but the SM-count factors), to find the line that set a
    // field validation refuses.
    let mut applied: Vec<(usize, String, String)> = vec![];
    let mut count_line = None;
    let mut network = network::Network::default();
    for (line, option, value) in tokens::options(text, path)? {
        let c = Ctx {
            path,
            line,
            option: &option,
            value: &value,
        };
        let Some(known) = known::find(c.option) else {
            return Err(unknown_option(&c));
        };
        match (known.role, c.option) {
            (Role::Read, "gpgpu_n_clusters") => clusters = Some(c.u32()?),
            (Role::Read, "gpgpu_n_cores_per_cluster") => per_cluster = Some(c.u32()?),
            (Role::Read, _) => {
                read::apply(&c, &mut cfg, &mut notes)?;
                applied.push((line, option.clone(), value.clone()));
            }
            (Role::Timing(model), _) => {
                c.check_kind(known.kind)?;
                let name = format!("-{}", c.option);
                if model.is_some_and(|m| same_value(m, c.value, known.kind)) {
                    notes.forget(&name);
                } else {
                    let model = model.map(|m| format!("behaves as {m}"));
                    notes.unmodelled(c.unmodelled(&name, c.value, model.as_deref()));
                }
            }
            (Role::Inert, _) => {
                c.check_kind(known.kind)?;
                notes.inert(c.option);
            }
        }
        network.see(&c)?;
        if matches!(c.option, "gpgpu_n_clusters" | "gpgpu_n_cores_per_cluster") {
            count_line = Some(line);
        }
    }
    network.apply(path, &mut cfg, &mut notes)?;
    // `-gpgpu_mem_address_mask` picks one of GPGPU-Sim's built-in mappings, which a mapping
    // string replaces whole (`addrdec_parseoption` clears every mask first): with one, the
    // mask changes nothing.
    let mask = "-gpgpu_mem_address_mask";
    if cfg.dram.address_mapping.is_some() && notes.unmodelled.iter().any(|u| u.option == mask) {
        notes.forget(mask);
        notes.inert(&mask[1..]);
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
    cfg.dram.peak_gbps = (cfg.dram.computed_gbps() * 10.0).round() / 10.0;
    cfg.validate().map_err(|e| {
        let line = match e.field() {
            Some("sm.count") => count_line,
            Some(f) => line_that_set(f, path, base, &applied),
            None => None,
        };
        e.at(path, line)
    })?;
    Ok(Parsed { config: cfg, notes })
}

/// The line of the last option in `applied` that changed field `field` (a dotted name),
/// found by reading them again over `base`: only done for an error, so reading a file keeps
/// no per-line copies of the configuration.
fn line_that_set(
    field: &str,
    path: &Path,
    base: &GpuConfig,
    applied: &[(usize, String, String)],
) -> Option<usize> {
    let value = |cfg: &GpuConfig| flat(cfg).into_iter().find(|(n, _)| n == field);
    let mut cfg = base.clone();
    let (mut before, mut last) = (value(&cfg), None);
    for (line, option, value_text) in applied {
        let c = Ctx {
            path,
            line: *line,
            option,
            value: value_text,
        };
        // Each option was read once already: it reads again.
        read::apply(&c, &mut cfg, &mut Notes::default()).ok()?;
        let now = value(&cfg);
        if now != before {
            (before, last) = (now, Some(*line));
        }
    }
    last
}

/// Every field of `cfg` by its dotted name, in a fixed order.
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

/// The error for an option neither GPGPU-Sim nor Accel-Sim knows (GPGPU-Sim stops with
/// "Unknown Option"), naming the nearest known one.
fn unknown_option(c: &Ctx<'_>) -> ConfigError {
    ConfigError::UnknownOption {
        path: c.path.display().to_string(),
        line: c.line,
        name: crate::input::quote(c.option),
        nearest: known::nearest(c.option).map(str::to_string),
    }
}

/// Whether `value` is `model` as an option of `kind` reads them (`0x10` is `16`; a text
/// `model` ending in `*` takes any value with that start).
fn same_value(model: &str, value: &str, kind: Kind) -> bool {
    match kind {
        Kind::Text | Kind::Char => match model.strip_suffix('*') {
            Some(prefix) => value.trim().starts_with(prefix),
            None => model == value.trim(),
        },
        Kind::Flag => (model == "1") == matches!(value.trim(), "" | "1"),
        Kind::Float => model.parse::<f64>().ok() == value.trim().parse::<f64>().ok(),
        _ => integer(model).is_some() && integer(model) == integer(value.trim()),
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
mod strict_tests;
#[cfg(test)]
mod tests;
