//! The interconnect's input and output buffers from GPGPU-Sim's network options: the part of
//! GPGPU-Sim's interconnect this model takes from a file besides the flit size (its crossbar
//! stands for both of GPGPU-Sim's networks, so `-network_mode` itself stays noted as not
//! modelled).
//!
//! - `-network_mode 1` (intersim2, iSLIP): the `-inter_config_file` names a BookSim-style file
//!   (`key = value;`, `//` comments) whose `input_buffer_size` is the flits an SM's or a memory
//!   node's injection queue holds (`interconnect_interface.cpp`, `HasBuffer`; 9 when the file
//!   sets none or 0), and whose `ejection_buffer_size` (`vc_buf_size` when 0, itself 8 by
//!   default) and `boundary_buffer_size` (16 by default; `intersim_config.cpp`) are the flits
//!   an output holds before the network stops delivering to it. The file is looked for beside
//!   the configuration file naming it (GPGPU-Sim opens it from the working directory, which
//!   Accel-Sim's runs set to that directory).
//! - `-network_mode 2` (the local crossbar, `local_interconnect.cc`): `-icnt_in_buffer_limit`
//!   and `-icnt_out_buffer_limit` packets (64 each by default).
//!
//! A request is one flit, so flits and packets agree on reads; the model counts packets.

use super::notes::Notes;
use super::Ctx;
use crate::config::{ConfigError, GpuConfig};
use std::path::Path;

/// GPGPU-Sim's `input_buffer_size` when the `.icnt` file sets none (flits).
const ISLIP_DEFAULT: u32 = 9;
/// GPGPU-Sim's `-icnt_in_buffer_limit` and `-icnt_out_buffer_limit` default (packets).
const LOCAL_DEFAULT: u32 = 64;
/// BookSim's `vc_buf_size` and intersim's `boundary_buffer_size` defaults (flits).
const VC_BUF_DEFAULT: u32 = 8;
const BOUNDARY_DEFAULT: u32 = 16;
/// The largest buffer the model takes (the range of `interconnect.input_buffer` and
/// `.output_buffer`).
const MAX: u32 = 4096;
/// The fields [`checked`] names.
const INPUT: &str = "interconnect.input_buffer";
const OUTPUT: &str = "interconnect.output_buffer";

/// The network options one file set, with the lines that set them.
#[derive(Default)]
pub(super) struct Network {
    mode: Option<(usize, i64)>,
    file: Option<(usize, String)>,
    in_buffer_limit: Option<(usize, u32)>,
    out_buffer_limit: Option<(usize, u32)>,
}

impl Network {
    /// Records option `c` if it is one of the network options.
    pub(super) fn see(&mut self, c: &Ctx<'_>) -> Result<(), ConfigError> {
        match c.option {
            "network_mode" => {
                let mode = super::integer(c.value.trim()).ok_or_else(|| c.err("<integer>"))?;
                self.mode = Some((c.line, mode as i64));
            }
            "inter_config_file" => self.file = Some((c.line, c.value.trim().to_string())),
            "icnt_in_buffer_limit" | "inct_in_buffer_limit" => {
                self.in_buffer_limit = Some((c.line, c.u32()?));
            }
            "icnt_out_buffer_limit" | "inct_out_buffer_limit" => {
                self.out_buffer_limit = Some((c.line, c.u32()?));
            }
            _ => {}
        }
        Ok(())
    }

    /// Sets `cfg.interconnect.input_buffer` and `.output_buffer` from what the file `path`
    /// said (nothing when it set no `-network_mode`), noting an `.icnt` file that is not there.
    pub(super) fn apply(
        self,
        path: &Path,
        cfg: &mut GpuConfig,
        notes: &mut Notes,
    ) -> Result<(), ConfigError> {
        let (input, output) = match self.mode {
            Some((_, 1)) => {
                let Some((line, name)) = self.file else {
                    return Ok(());
                };
                let icnt = path.parent().unwrap_or(Path::new(".")).join(&name);
                let Ok(text) = std::fs::read_to_string(&icnt) else {
                    notes.unmodelled(super::notes::Unmodelled {
                        path: path.display().to_string(),
                        line,
                        option: "-inter_config_file".into(),
                        value: name,
                        model: Some(format!(
                            "no such file beside the configuration: crossbar inputs of {} packets",
                            cfg.interconnect.input_buffer
                        )),
                    });
                    return Ok(());
                };
                let key = |k: &str| icnt_value(&text, &icnt, k);
                let input = key("input_buffer_size")?.filter(|&(v, _)| v > 0);
                let input = match input {
                    Some((v, l)) => checked(INPUT, v, &icnt, l)?,
                    None => ISLIP_DEFAULT,
                };
                let vc = key("vc_buf_size")?.map_or(VC_BUF_DEFAULT, |(v, _)| v);
                let eject = key("ejection_buffer_size")?.map_or(0, |(v, _)| v);
                let eject = if eject == 0 { vc } else { eject };
                let (boundary, line) =
                    key("boundary_buffer_size")?.unwrap_or((BOUNDARY_DEFAULT, 1));
                let output = checked(OUTPUT, eject.saturating_add(boundary), &icnt, line)?;
                (input, output)
            }
            Some((_, 2)) => {
                notes.forget("-icnt_in_buffer_limit");
                notes.forget("-inct_in_buffer_limit");
                notes.forget("-icnt_out_buffer_limit");
                notes.forget("-inct_out_buffer_limit");
                let limit = |field, v: Option<(usize, u32)>| match v {
                    Some((line, v)) => checked(field, v, path, line),
                    None => Ok(LOCAL_DEFAULT),
                };
                let input = limit(INPUT, self.in_buffer_limit)?;
                (input, limit(OUTPUT, self.out_buffer_limit)?)
            }
            _ => return Ok(()),
        };
        cfg.interconnect.input_buffer = input;
        cfg.interconnect.output_buffer = output;
        Ok(())
    }
}

/// `v` if the model takes it as buffer `field`, else the error at `path`, `line`.
fn checked(field: &str, v: u32, path: &Path, line: usize) -> Result<u32, ConfigError> {
    if (1..=MAX).contains(&v) {
        return Ok(v);
    }
    Err(super::super::field(field, format!("{v}; must be in 1..={MAX}")).at(path, Some(line)))
}

/// The value of integer `key` in a BookSim-style `.icnt` file at `icnt` (`key = <n>;`), with
/// its line; `None` when the file does not set it.
fn icnt_value(text: &str, icnt: &Path, key: &str) -> Result<Option<(u32, usize)>, ConfigError> {
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or_default().trim();
        let Some((k, value)) = line.split_once('=') else {
            continue;
        };
        if k.trim() != key {
            continue;
        }
        let value = value.trim().trim_end_matches(';').trim();
        let v = value.parse::<u32>().map_err(|_| ConfigError::Syntax {
            path: icnt.display().to_string(),
            line: i + 1,
            expected: format!("`{key} = <flits>;`"),
            found: format!("`{}`", raw.trim()),
        })?;
        return Ok(Some((v, i + 1)));
    }
    Ok(None)
}
