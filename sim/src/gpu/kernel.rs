//! What the GPU knows about a kernel it runs ([`KernelCtx`]): its launch parameters, what one
//! of its thread blocks takes of an SM, where its code sits, and what the policies prepared
//! for it before its first block ([`Prepared`]: an ELF program, the locality pre-computation,
//! each kept under its type, with the lines they add to the kernel's report).

use crate::config::GpuConfig;
use crate::core::occupancy::{occupancy, Footprint, Occupancy};
use crate::gpu::SimError;
use crate::workload::kernel::{KernelInfo, WarpInst};
use crate::workload::sass::OpClass;
use std::any::{Any, TypeId};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Start of kernel code in the address space (GPGPU-Sim's `PROGRAM_MEM_START`); the kernel of
/// the workload's launch `k` has its code at `CODE_BASE + k * CODE_STRIDE` (every instance of a
/// periodic launch runs the same code).
pub const CODE_BASE: u64 = 0xF000_0000;
/// Address-space distance between the code of consecutive kernels.
pub const CODE_STRIDE: u64 = 0x0100_0000;

/// Per-kernel data prepared by the policies, one value per type, and what they report.
#[derive(Default)]
pub struct Prepared {
    data: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
    report: BTreeMap<String, serde_json::Value>,
}

impl Prepared {
    /// The value of type `T`, if a policy prepared one.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.data
            .get(&TypeId::of::<T>())
            .map(|a| Arc::clone(a).downcast::<T>().expect("keyed by its type"))
    }

    /// The value of type `T`, made by `make` if no policy prepared one yet (policies that
    /// share an analysis compute it once).
    pub fn get_or_make<T: Any + Send + Sync>(
        &mut self,
        make: impl FnOnce(&mut Self) -> Result<T, SimError>,
    ) -> Result<Arc<T>, SimError> {
        if let Some(v) = self.get::<T>() {
            return Ok(v);
        }
        let v = Arc::new(make(self)?);
        self.data.insert(TypeId::of::<T>(), v.clone());
        Ok(v)
    }

    /// Adds `key: value` to the kernel's report (`sim --json`, `kernels[]`).
    pub fn report(&mut self, key: &str, value: serde_json::Value) {
        self.report.insert(key.to_string(), value);
    }

    /// What the policies reported.
    pub fn reported(&self) -> &BTreeMap<String, serde_json::Value> {
        &self.report
    }
}

/// A kernel the GPU runs.
pub struct KernelCtx {
    /// Its launch index in the run (0-based; each instance of a periodic launch has its own).
    pub launch: usize,
    /// Launch parameters.
    pub info: KernelInfo,
    /// What one block takes: threads (padded to warps), registers, shared memory bytes, one
    /// block slot.
    pub need: [u32; 4],
    /// Warps per block.
    pub warps_per_tb: usize,
    /// Where its code starts.
    pub code_base: u64,
    /// Resident blocks per SM.
    pub occupancy: Occupancy,
    /// What the policies prepared.
    pub prepared: Prepared,
    /// The PCs of the global stores and atomics that end a block's idempotence (`None`:
    /// every one; [`crate::workload::kernel::KernelSource::overwriting_pcs`]).
    pub overwriting_pcs: Option<Vec<u32>>,
    /// Which of its global loads bypass the L1D.
    pub caching: super::caching::KernelCaching,
}

impl KernelCtx {
    /// The context of `info`, launch `launch` of a run on `cfg`, instance of the workload's
    /// launch `code` (which places its code); an error when its blocks do not fit an SM or its
    /// grid exceeds the dispatcher's 32-bit block ids.
    pub fn new(
        cfg: &GpuConfig,
        info: &KernelInfo,
        launch: usize,
        code: usize,
    ) -> Result<Self, SimError> {
        let fp = Footprint::of_kernel(info);
        let occ = occupancy(&cfg.sm, &fp).map_err(|source| SimError::DoesNotFit {
            kernel: info.name.clone(),
            source,
        })?;
        let total = info.blocks();
        if total > u32::MAX as u64 {
            return Err(SimError::Config(format!(
                "kernel `{}`: {total} thread blocks exceed the dispatcher's 32-bit block id",
                info.name
            )));
        }
        let demand = fp.demand(cfg.sm.warp_size);
        let registers = u32::try_from(demand.registers).expect("a kernel that fits the SM");
        Ok(Self {
            launch,
            need: [demand.threads, registers, demand.shmem_bytes, 1],
            warps_per_tb: (info.block_threads().div_ceil(cfg.sm.warp_size) as usize).max(1),
            code_base: CODE_BASE + code as u64 * CODE_STRIDE,
            occupancy: occ,
            info: info.clone(),
            prepared: Prepared::default(),
            overwriting_pcs: None,
            caching: Default::default(),
        })
    }

    /// Whether issuing `inst` ends its block's idempotence (after it, the block cannot be
    /// flushed and restarted).
    pub fn breaks_idempotence(&self, inst: &WarpInst) -> bool {
        matches!(inst.class, OpClass::StoreGlobal | OpClass::AtomicGlobal)
            && self
                .overwriting_pcs
                .as_ref()
                .is_none_or(|pcs| pcs.contains(&inst.pc))
    }

    /// No instruction of it ends a block's idempotence (Chimera's strict idempotence): its
    /// code lists no overwriting store or atomic (a trace, whose arrays are not known, never
    /// is).
    pub fn strictly_idempotent(&self) -> bool {
        self.overwriting_pcs.as_ref().is_some_and(Vec::is_empty)
    }

    /// Bytes of one block's context: its registers (4 bytes each, as allocated) and its
    /// shared memory.
    pub fn context_bytes(&self) -> u64 {
        4 * self.need[1] as u64 + self.need[2] as u64
    }

    /// Thread blocks of the grid.
    pub fn total(&self) -> u32 {
        self.info.blocks() as u32
    }
}
