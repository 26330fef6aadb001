//! VCD writer for a golden model: clock, reset, the input and output ports, and the model's
//! internal state (`state.*` scope), with the same time base as the Verilator traces
//! (`2*cycle-1`: the rising edge that starts the cycle, its inputs, outputs and state;
//! `2*cycle`: clock low, the same values).

use crate::TbError;
use gpusim::block::PortSpec;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use vcd::{IdCode, TimescaleUnit, Value, Writer};

/// An open golden-model waveform.
pub struct GoldenVcd {
    path: PathBuf,
    w: Writer<BufWriter<File>>,
    clock: IdCode,
    ids: Vec<(IdCode, u32)>,
    last: Vec<Option<u128>>,
}

impl GoldenVcd {
    /// Creates `path` with scope `module` holding `ports` (inputs then outputs) and a `state`
    /// sub-scope holding `state` (none when `state` is empty).
    pub fn create(
        path: &Path,
        module: &str,
        ports: &[PortSpec],
        state: &[PortSpec],
    ) -> Result<Self, TbError> {
        let io = |source| TbError::Io {
            path: path.to_path_buf(),
            source,
        };
        let f = File::create(path).map_err(io)?;
        let mut w = Writer::new(BufWriter::new(f));
        let mut ids = vec![];
        let clock;
        {
            let mut go = || -> std::io::Result<()> {
                w.version("gpusched golden model")?;
                w.timescale(1, TimescaleUnit::PS)?;
                w.add_module(module)?;
                Ok(())
            };
            go().map_err(io)?;
            clock = w.add_wire(1, "clock").map_err(io)?;
            for p in ports {
                ids.push((w.add_wire(p.width, &p.name).map_err(io)?, p.width));
            }
            if !state.is_empty() {
                w.add_module("state").map_err(io)?;
                for p in state {
                    ids.push((w.add_wire(p.width, &p.name).map_err(io)?, p.width));
                }
                w.upscope().map_err(io)?;
            }
            w.upscope().map_err(io)?;
            w.enddefinitions().map_err(io)?;
        }
        let n = ids.len();
        Ok(Self {
            path: path.to_path_buf(),
            w,
            clock,
            ids,
            last: vec![None; n],
        })
    }

    /// Records one cycle: `values` holds the port values then the state values, in the order
    /// given to [`GoldenVcd::create`].
    pub fn cycle(&mut self, cycle: u64, values: &[u128]) -> Result<(), TbError> {
        let path = self.path.clone();
        let io = |source| TbError::Io { path, source };
        self.write_cycle(cycle, values).map_err(io)
    }

    fn write_cycle(&mut self, cycle: u64, values: &[u128]) -> std::io::Result<()> {
        if cycle > 0 {
            self.w.timestamp(2 * cycle - 1)?;
            self.w.change_scalar(self.clock, Value::V1)?;
        } else {
            self.w.timestamp(0)?;
        }
        for (k, (&(id, width), &v)) in self.ids.iter().zip(values).enumerate() {
            if self.last[k] == Some(v) {
                continue;
            }
            self.last[k] = Some(v);
            if width == 1 {
                self.w
                    .change_scalar(id, if v & 1 == 1 { Value::V1 } else { Value::V0 })?;
            } else {
                let bits = (0..width).rev().map(|b| {
                    if v >> b & 1 == 1 {
                        Value::V1
                    } else {
                        Value::V0
                    }
                });
                self.w.change_vector(id, bits)?;
            }
        }
        if cycle > 0 {
            self.w.timestamp(2 * cycle)?;
        }
        self.w.change_scalar(self.clock, Value::V0)
    }

    /// Flushes the file.
    pub fn finish(mut self) -> Result<PathBuf, TbError> {
        let path = self.path.clone();
        self.w.flush().map_err(|source| TbError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }
}
