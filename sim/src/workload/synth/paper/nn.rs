//! Nearest neighbour (Rodinia).

use super::*;

pub(super) fn nn() -> Vec<SynthDef> {
    let mut d = nn_records(5_120);
    d.name = format!("nn_{SIZE}");
    vec![d]
}
