//! The L1D cache operator of a load: whether it may be cached in the L1D (`ld.ca`), must
//! bypass it and be cached in the L2 only (`ld.cg`), or leaves the choice to the GPU's default
//! (no operator; GPGPU-Sim's `-gpgpu_gmem_skip_L1D` then decides).
//!
//! From a trace, the operator is read from the opcode's modifiers, as the SASS the tracer saw
//! carries them (`LDG.E.CG`): `.CG` bypasses, `.CA` caches, and `.STRONG.GPU` (a GPU-scope
//! coherent load, which Volta and later compile `ld.volatile`/`ld.relaxed.gpu` into) bypasses,
//! as Accel-Sim's trace reader decides it. The other operators PTX has, `.CS` (streaming),
//! `.LU` (last use) and `.CV` (volatile), and the eviction hints of later SASS (`.EF`, `.EL`,
//! `.LU`, `.EU`, `.NA`) or `.CI` (the read-only non-coherent path) leave the default, as the
//! bypass paper treats them (seed 001 L133-L141; spec `locality_bypass_paws.md` B11). A
//! modifier this file does not know is reported ([`OpcodeTable::unknown_modifiers`]) and
//! leaves the default: never silently a different operator.
//!
//! [`OpcodeTable::unknown_modifiers`]: super::sass::OpcodeTable::unknown_modifiers

use serde::Serialize;

/// The L1D cache operator of a memory instruction (2 bits in hardware).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum CacheOp {
    /// No operator: cached in the L1D unless the GPU skips it for global loads.
    #[default]
    Default,
    /// `.ca`: cached in the L1D (and the L2), whatever the GPU's default.
    Ca,
    /// `.cg`: cached in the L2 only; the L1D is neither looked up nor filled.
    Cg,
}

impl CacheOp {
    /// The PTX/SASS modifier that writes this operator (`None` for the default).
    pub fn modifier(self) -> Option<&'static str> {
        match self {
            CacheOp::Default => None,
            CacheOp::Ca => Some("CA"),
            CacheOp::Cg => Some("CG"),
        }
    }

    /// Whether a global load with this operator bypasses the L1D on a GPU whose global loads
    /// skip it by default when `skip_global` (GPGPU-Sim's `-gpgpu_gmem_skip_L1D`; `.ca`
    /// overrides the skip).
    pub fn bypasses(self, skip_global: bool) -> bool {
        match self {
            CacheOp::Default => skip_global,
            CacheOp::Ca => false,
            CacheOp::Cg => true,
        }
    }
}

/// The base opcodes whose modifiers [`of_opcode`] reads: the global and generic loads and
/// stores and the local ones (the others carry no L1D operator).
const WITH_OPERATOR: &[&str] = &["LDG", "LD", "LDL", "STG", "ST", "STL"];

/// Modifiers of those opcodes that are not L1D operators, or that leave the default: widths,
/// signedness, the `.E` 64-bit address, scopes and orderings, eviction and L2 hints.
const OTHER_MODIFIERS: &[&str] = &[
    "E", "U", "S", "8", "U8", "S8", "16", "U16", "S16", "32", "64", "128", "CONSTANT", "SYS",
    "GPU", "CTA", "SM", "VC", "STRONG", "WEAK", "MMIO", "PRIVATE", "ZD", "LTC64B", "LTC128B",
    "LTC256B", "EF", "EL", "LU", "EU", "NA", "CI", "CS", "CV", "WB", "WT", "INV", "IL", "X4", "X2",
    "NC", "LDGSTS",
];

/// The cache operator of the opcode `name` as a trace writes it (`LDG.E.CG`), and the first
/// modifier of a load or store that is not known (reported; the operator then stays the
/// default). Opcodes other than loads and stores have the default and no unknown modifier.
pub fn of_opcode(name: &str) -> (CacheOp, Option<String>) {
    let mut parts = name.split('.');
    let base = parts.next().unwrap_or(name);
    if !WITH_OPERATOR.contains(&base) {
        return (CacheOp::Default, None);
    }
    let mods: Vec<&str> = parts.collect();
    let has = |m: &str| mods.contains(&m);
    if let Some(u) = mods
        .iter()
        .find(|m| !OTHER_MODIFIERS.contains(m) && !matches!(**m, "CA" | "CG"))
    {
        return (CacheOp::Default, Some((*u).to_string()));
    }
    let op = if has("CG") || (has("STRONG") && has("GPU")) {
        CacheOp::Cg
    } else if has("CA") {
        CacheOp::Ca
    } else {
        CacheOp::Default
    };
    (op, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_come_from_the_modifiers_of_loads_and_stores() {
        assert_eq!(of_opcode("LDG.E.CG"), (CacheOp::Cg, None));
        assert_eq!(of_opcode("LDG.E.CA.128"), (CacheOp::Ca, None));
        assert_eq!(of_opcode("LDG.E.64"), (CacheOp::Default, None));
        assert_eq!(of_opcode("LDG.E.STRONG.GPU"), (CacheOp::Cg, None));
        assert_eq!(of_opcode("LDG.E.STRONG.SYS"), (CacheOp::Default, None));
        for hint in ["CS", "LU", "CV", "CI", "EF", "NA"] {
            assert_eq!(
                of_opcode(&format!("LDG.E.{hint}")),
                (CacheOp::Default, None)
            );
        }
        assert_eq!(of_opcode("STG.E.CG"), (CacheOp::Cg, None));
        // Modifiers of other opcodes are not operators.
        assert_eq!(of_opcode("TEX.CG"), (CacheOp::Default, None));
        assert_eq!(of_opcode("LDS.U.128"), (CacheOp::Default, None));
    }

    #[test]
    fn an_unknown_modifier_is_reported_and_leaves_the_default() {
        assert_eq!(
            of_opcode("LDG.E.CQ"),
            (CacheOp::Default, Some("CQ".to_string()))
        );
        // Even beside a known operator: the opcode is not understood.
        assert_eq!(
            of_opcode("LDG.E.CG.ZZ"),
            (CacheOp::Default, Some("ZZ".to_string()))
        );
    }

    #[test]
    fn ca_overrides_the_global_skip_and_cg_always_bypasses() {
        for skip in [false, true] {
            assert!(!CacheOp::Ca.bypasses(skip));
            assert!(CacheOp::Cg.bypasses(skip));
            assert_eq!(CacheOp::Default.bypasses(skip), skip);
        }
        assert_eq!(CacheOp::Cg.modifier(), Some("CG"));
    }
}
