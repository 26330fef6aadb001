//! Algorithm 3 of the thesis (seed 003 L831-L867) taken literally, as the kernel scheduler's
//! software would run it: per SM, every (block, technique) pair sorted by overhead and a greedy
//! pass that keeps each block's first pair within the latency limit (context switch for a
//! block none meets); then the SMs sorted by their summed overhead and taken while they meet
//! the limit. The reference [`super::select`] must equal (spec §4.3 A5).
//!
//! The listing leaves ties, the per-SM reset of its lists and a short selection open; this
//! follows spec §5 A5-A6: ties by (overhead, latency, FLUSH < DRAIN < SWITCH, block) and
//! (overhead, latency, SM); a short selection is filled with the least late SMs and flagged.

use super::cost::{costs, sat_add, Derived, DrainOvh, TbCounters, Victims, ORDER};
use super::select::Limit;
use crate::gpu::sites::kernel_sched::Technique;

/// One SM Algorithm 3 chose: the SM and a technique per block.
pub type SmPreemption = (usize, Vec<Technique>);

/// Algorithm 3 over `sms` (each an SM and its blocks of the victim kernel, with statistics
/// `k`) for `num` preemptions; also whether the selection had to take SMs that miss the
/// limit.
pub fn algorithm3(
    k: &Derived,
    sms: &[(usize, Vec<TbCounters>)],
    (limit, drain): (Limit, DrainOvh),
    num: usize,
) -> (Vec<SmPreemption>, bool) {
    // (SM, Σ overhead, max latency, techniques)
    let mut sm_costs: Vec<(usize, u32, u32, Vec<Technique>)> = vec![];
    for (sm, tbs) in sms {
        let victims = Victims::of(tbs);
        // L2-L6: every (TB, technique) pair with its estimates.
        let mut tb_costs = vec![];
        for (t, &tb) in tbs.iter().enumerate() {
            let c = costs(k, &victims, drain, tb);
            for p in 0..3 {
                tb_costs.push((c.ovh[p], c.lat[p], p, t));
            }
        }
        // L7: ascending by overhead.
        tb_costs.sort();
        // L8-L13: each TB's first pair that meets the limit.
        let mut single: Vec<Option<(usize, u32, u32)>> = vec![None; tbs.len()];
        for (ovh, lat, p, t) in tb_costs {
            if limit.meets(lat) && single[t].is_none() {
                single[t] = Some((p, lat, ovh));
            }
        }
        // L14-L16: the others are context switched.
        let switch = ORDER
            .iter()
            .position(|&o| o == Technique::Switch)
            .expect("");
        let mut ovh_sum = 0;
        let mut lat_max = 0;
        let mut techniques = vec![];
        for (t, s) in single.iter().enumerate() {
            let (p, lat, ovh) = s.unwrap_or_else(|| {
                let c = costs(k, &victims, drain, tbs[t]);
                (switch, c.lat[switch], c.ovh[switch])
            });
            ovh_sum = sat_add(ovh_sum, ovh);
            lat_max = lat_max.max(lat);
            techniques.push(ORDER[p]);
        }
        sm_costs.push((*sm, ovh_sum, lat_max, techniques));
    }
    // L19: ascending by overhead.
    sm_costs.sort_by_key(|c| (c.1, c.2, c.0));
    // L20-L28: the first SMs that meet the limit.
    let (mut taken, mut late): (Vec<_>, Vec<_>) =
        sm_costs.into_iter().partition(|c| limit.meets(c.2));
    let short = taken.len() < num && !late.is_empty();
    late.sort_by_key(|c| (c.2, c.1, c.0));
    taken.extend(late);
    taken.truncate(num);
    (taken.into_iter().map(|c| (c.0, c.3)).collect(), short)
}
