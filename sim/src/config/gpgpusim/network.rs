//! The interconnect's input buffers from GPGPU-Sim's network options: the one part of
//! GPGPU-Sim's interconnect this model takes from a file besides the flit size (its crossbar
//! stands for both of GPGPU-Sim's networks, so `-network_mode` itself stays noted as not
//! modelled).
//!
//! - `-network_mode 1` (intersim2, iSLIP): the `-inter_config_file` names a BookSim-style file
//!   (`key = value;`, `//` comments) whose `input_buffer_size` is the flits an SM's or a memory
//!   node's injection queue holds (`interconnect_interface.cpp`, `HasBuffer`; 9 when the file
//!   sets none or 0). The file is looked for beside the configuration file naming it (GPGPU-Sim
//!   opens it from the working directory, which Accel-Sim's runs set to that directory).
//! - `-network_mode 2` (the local crossbar, `local_interconnect.cc`): `-icnt_in_buffer_limit`
//!   packets (default 64).
//!
//! A request is one flit, so flits and packets agree on reads; the model counts packets.

use super::notes::Notes;
use super::Ctx;
use crate::config::{ConfigError, GpuConfig};
use std::path::Path;

/// GPGPU-Sim's `input_buffer_size` when the `.icnt` file sets none (flits).
const ISLIP_DEFAULT: u32 = 9;
/// GPGPU-Sim's `-icnt_in_buffer_limit` default (packets).
const LOCAL_DEFAULT: u32 = 64;
/// The largest input buffer the model takes (`interconnect.input_buffer`'s range).
const MAX: u32 = 4096;

/// The network options one file set, with the lines that set them.
#[derive(Default)]
pub(super) struct Network {
    mode: Option<(usize, i64)>,
    file: Option<(usize, String)>,
    in_buffer_limit: Option<(usize, u32)>,
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
            _ => {}
        }
        Ok(())
    }

    /// Sets `cfg.interconnect.input_buffer` from what the file `path` said (nothing when it
    /// set no `-network_mode`), noting an `.icnt` file that is not there.
    pub(super) fn apply(
        self,
        path: &Path,
        cfg: &mut GpuConfig,
        notes: &mut Notes,
    ) -> Result<(), ConfigError> {
        let buffer = match self.mode {
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
                input_buffer_size(&text, &icnt)?
            }
            Some((_, 2)) => match self.in_buffer_limit {
                Some((line, v)) => {
                    notes.forget("-icnt_in_buffer_limit");
                    notes.forget("-inct_in_buffer_limit");
                    checked(v, path, line)?
                }
                None => LOCAL_DEFAULT,
            },
            _ => return Ok(()),
        };
        cfg.interconnect.input_buffer = buffer;
        Ok(())
    }
}

/// `v` if the model takes it as an input buffer, else the error at `path`, `line`.
fn checked(v: u32, path: &Path, line: usize) -> Result<u32, ConfigError> {
    if (1..=MAX).contains(&v) {
        return Ok(v);
    }
    Err(super::super::field(
        "interconnect.input_buffer",
        format!("an input buffer of {v} packets; must be in 1..={MAX}"),
    )
    .at(path, Some(line)))
}

/// `input_buffer_size` of a BookSim-style `.icnt` file at `icnt` ([`ISLIP_DEFAULT`] when absent
/// or 0).
fn input_buffer_size(text: &str, icnt: &Path) -> Result<u32, ConfigError> {
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or_default().trim();
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim() != "input_buffer_size" {
            continue;
        }
        let value = value.trim().trim_end_matches(';').trim();
        let v = value.parse::<u32>().map_err(|_| ConfigError::Syntax {
            path: icnt.display().to_string(),
            line: i + 1,
            expected: "`input_buffer_size = <flits>;`".into(),
            found: format!("`{}`", raw.trim()),
        })?;
        return match v {
            0 => Ok(ISLIP_DEFAULT),
            v => checked(v, icnt, i + 1),
        };
    }
    Ok(ISLIP_DEFAULT)
}
