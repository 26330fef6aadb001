//! Compiler-side analyses of a kernel's static code (golden models of what the papers'
//! compilers compute before a kernel runs).
//!
//! * [`elf`]: ELF's program points, scores and recalculation bits (seed 003 ch. III).

pub mod elf;
