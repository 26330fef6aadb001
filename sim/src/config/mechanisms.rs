//! The mechanisms two configurations can differ in, each a group of fields that act together
//! (a sectored L2 and its data port; the L1D latency queue and its length), so that an
//! experiment can switch them one at a time from one configuration to another and measure what
//! each moves (`gpusched repro --attribute`: GPGPU-Sim 3.2.2's GTX480 against 4.x's).

use super::GpuConfig;

/// A group of configuration fields that make one mechanism of the model.
pub struct Mechanism {
    /// Short name (`l2-sectors`).
    pub name: &'static str,
    /// The fields it covers, as they are named in a configuration file.
    pub fields: &'static str,
    copy: fn(&GpuConfig, &mut GpuConfig),
}

impl Mechanism {
    /// `into` with this mechanism's fields taken from `from`.
    pub fn switched(&self, from: &GpuConfig, into: &GpuConfig) -> GpuConfig {
        let mut c = into.clone();
        (self.copy)(from, &mut c);
        c
    }

    /// Whether `a` and `b` differ in this mechanism.
    pub fn differs(&self, a: &GpuConfig, b: &GpuConfig) -> bool {
        self.switched(a, b) != *b
    }
}

/// Every mechanism; together they cover every field but the name.
pub const MECHANISMS: &[Mechanism] = &[
    Mechanism {
        name: "l2-sectors",
        fields: "l2.sector_bytes, l2.port_bytes",
        copy: |f, c| {
            c.l2.sector_bytes = f.l2.sector_bytes;
            c.l2.port_bytes = f.l2.port_bytes;
        },
    },
    Mechanism {
        name: "l2-geometry",
        fields: "l2.size_bytes, l2.line_bytes, l2.ways",
        copy: |f, c| {
            c.l2.size_bytes = f.l2.size_bytes;
            c.l2.line_bytes = f.l2.line_bytes;
            c.l2.ways = f.l2.ways;
        },
    },
    Mechanism {
        name: "l2-mshrs",
        fields: "l2.mshrs, l2.mshr_merge, l2.miss_queue, l2.mshr_sectors",
        copy: |f, c| {
            c.l2.mshr_sectors = f.l2.mshr_sectors;
            c.l2.mshrs = f.l2.mshrs;
            c.l2.mshr_merge = f.l2.mshr_merge;
            c.l2.miss_queue = f.l2.miss_queue;
        },
    },
    Mechanism {
        name: "l2-write-allocate",
        fields: "l2.write_allocate",
        copy: |f, c| c.l2.write_allocate = f.l2.write_allocate,
    },
    Mechanism {
        name: "l2-rop-latency",
        fields: "l2.latency",
        copy: |f, c| c.l2.latency = f.l2.latency,
    },
    Mechanism {
        name: "l2-other",
        fields: "l2.set_index, l2.write_through",
        copy: |f, c| {
            c.l2.set_index = f.l2.set_index;
            c.l2.write_through = f.l2.write_through;
        },
    },
    Mechanism {
        name: "l1d-latency-queue",
        fields: "pipeline.l1d_latency_queue, l1d.latency",
        copy: |f, c| {
            c.pipeline.l1d_latency_queue = f.pipeline.l1d_latency_queue;
            c.l1d.latency = f.l1d.latency;
        },
    },
    Mechanism {
        name: "l1d-set-index",
        fields: "l1d.set_index",
        copy: |f, c| c.l1d.set_index = f.l1d.set_index,
    },
    Mechanism {
        name: "l1d-other",
        fields: "l1d (geometry, MSHRs, sectors, port, write allocation)",
        copy: |f, c| {
            let (latency, index) = (c.l1d.latency, c.l1d.set_index);
            c.l1d = f.l1d.clone();
            (c.l1d.latency, c.l1d.set_index) = (latency, index);
        },
    },
    Mechanism {
        name: "l1i",
        fields: "l1i",
        copy: |f, c| c.l1i = f.l1i.clone(),
    },
    Mechanism {
        name: "flit-size",
        fields: "interconnect.flit_bytes",
        copy: |f, c| c.interconnect.flit_bytes = f.interconnect.flit_bytes,
    },
    Mechanism {
        name: "icnt-buffers",
        fields: "interconnect.input_buffer, interconnect.output_buffer",
        copy: |f, c| {
            c.interconnect.input_buffer = f.interconnect.input_buffer;
            c.interconnect.output_buffer = f.interconnect.output_buffer;
        },
    },
    Mechanism {
        name: "interconnect-latency",
        fields: "interconnect.latency",
        copy: |f, c| c.interconnect.latency = f.interconnect.latency,
    },
    Mechanism {
        name: "dram-queue",
        fields: "dram.scheduler_queue",
        copy: |f, c| c.dram.scheduler_queue = f.dram.scheduler_queue,
    },
    Mechanism {
        name: "dram-other",
        fields: "dram (geometry, clock, timing, latency)",
        copy: |f, c| {
            let queue = c.dram.scheduler_queue;
            c.dram = f.dram.clone();
            c.dram.scheduler_queue = queue;
        },
    },
    Mechanism {
        name: "shared-memory-latency",
        fields: "units.shared_mem",
        copy: |f, c| c.units.shared_mem = f.units.shared_mem,
    },
    Mechanism {
        name: "units",
        fields: "units (but shared_mem)",
        copy: |f, c| {
            let shared = c.units.shared_mem;
            c.units = f.units.clone();
            c.units.shared_mem = shared;
        },
    },
    Mechanism {
        name: "sm",
        fields: "sm",
        copy: |f, c| c.sm = f.sm.clone(),
    },
    Mechanism {
        name: "launch-latency",
        fields: "launch",
        copy: |f, c| c.launch = f.launch.clone(),
    },
    Mechanism {
        name: "l1d-carveout",
        fields: "l1d_carveout",
        copy: |f, c| c.l1d_carveout = f.l1d_carveout.clone(),
    },
    Mechanism {
        name: "partition-queues",
        fields: "partition_queues",
        copy: |f, c| c.partition_queues = f.partition_queues,
    },
    Mechanism {
        name: "pipeline-other",
        fields: "pipeline (but l1d_latency_queue)",
        copy: |f, c| {
            let queue = c.pipeline.l1d_latency_queue;
            c.pipeline = f.pipeline.clone();
            c.pipeline.l1d_latency_queue = queue;
        },
    },
];

/// The mechanisms `a` and `b` differ in, in [`MECHANISMS`] order.
pub fn differences(a: &GpuConfig, b: &GpuConfig) -> Vec<&'static Mechanism> {
    MECHANISMS.iter().filter(|m| m.differs(a, b)).collect()
}

/// A mechanism by name.
pub fn by_name(name: &str) -> Option<&'static Mechanism> {
    MECHANISMS.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;

    /// Switching every mechanism from `a` into `b` gives `a` (but its name), for every pair of
    /// presets: the groups cover every field the presets set.
    #[test]
    fn the_mechanisms_cover_every_field() {
        for x in presets::NAMES {
            for y in presets::NAMES {
                let (a, b) = (GpuConfig::preset(x).unwrap(), GpuConfig::preset(y).unwrap());
                let mut c = b.clone();
                for m in MECHANISMS {
                    c = m.switched(&a, &c);
                }
                c.name = a.name.clone();
                assert_eq!(c, a, "{y} switched to {x}");
            }
        }
    }

    /// GPGPU-Sim 3.2.2's GTX480 differs from 4.x's in what the preset's comments name, and
    /// each such mechanism switches alone.
    #[test]
    fn gtx480_3_2_2_differs_in_its_mechanisms() {
        let v3 = GpuConfig::preset("gtx480-3.2.2").unwrap();
        let v4 = GpuConfig::preset("gtx480").unwrap();
        let names: Vec<&str> = differences(&v4, &v3).iter().map(|m| m.name).collect();
        assert_eq!(
            names,
            [
                "l2-sectors",
                "l2-geometry",
                "l2-write-allocate",
                "l1d-latency-queue",
                "l1d-set-index",
                "flit-size",
                "dram-queue",
                "shared-memory-latency"
            ]
        );
        let one = by_name("dram-queue").unwrap().switched(&v4, &v3);
        assert_eq!(differences(&one, &v3).len(), 1);
        assert_eq!(one.dram.scheduler_queue, 64);
        assert_eq!(one.l2, v3.l2);
    }
}
