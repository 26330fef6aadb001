//! The decision's properties (spec §4.7): M4 (argmin ANTT, tie order), M5 (one spatial pair
//! per epoch), M8 (roles rotate so the fewest blocks move), B4 (reversal), B5 (clamped trial
//! candidates left out).

use super::*;

/// 9 SMs: 0, 1 dedicated; 2 down, 3 up; 4..8 followers; `nf` 3.
fn layout() -> Partition {
    Partition::measuring(9, 3)
}

fn clamp(n: i64) -> u32 {
    n.clamp(1, 5) as u32
}

/// Per-SM IPCs: kernel 0 and 1 at `d` on their dedicated SMs, and at `(a, b)` on the SMs of
/// each other role.
fn measured(p: &Partition, by_role: impl Fn(Role) -> (f64, f64)) -> Measured {
    let v: Vec<(f64, f64)> = p.roles.iter().map(|&r| by_role(r)).collect();
    [v.iter().map(|x| x.0).collect(), v.iter().map(|x| x.1).collect()]
}

#[test]
fn antt_is_eq_5_1_and_equal_speeds_give_one() {
    assert_eq!(antt([1.0, 1.0]), 1.0);
    assert_eq!(antt([0.5, 0.5]), 2.0);
    assert!((antt([0.8, 0.4]) - (1.25 + 2.5) / 2.0).abs() < 1e-12);
    assert_eq!(antt([0.0, 1.0]), f64::INFINITY);
}

#[test]
fn the_best_candidate_has_the_least_antt_and_ties_prefer_no_change() {
    let p = layout();
    let ipc = measured(&p, |r| match r {
        Role::Dedicated(0) => (2.0, 0.0),
        Role::Dedicated(_) => (0.0, 2.0),
        Role::Trial(Step::Up) => (1.6, 1.6),
        Role::Trial(Step::Down) => (1.0, 1.0),
        _ => (1.2, 1.2),
    });
    let s = scores(&p, &ipc, [2.0, 2.0], [false; 2]);
    let get = |c| s.iter().find(|x| x.0 == c).unwrap().1;
    assert!((get(Candidate::Up) - 1.25).abs() < 1e-12);
    assert!((get(Candidate::Follow) - 2.0 / 1.2).abs() < 1e-12);
    assert_eq!(get(Candidate::Spatial), 2.0);
    assert_eq!(best(&s), Candidate::Up);
    // All equal: no change.
    let tie = [
        (Candidate::Spatial, 1.5),
        (Candidate::Up, 1.5),
        (Candidate::Follow, 1.5),
        (Candidate::Down, 1.5),
    ];
    assert_eq!(best(&tie), Candidate::Follow);
    // A clamped trial candidate is not scored.
    let s = scores(&p, &ipc, [2.0, 2.0], [false, true]);
    assert!(s.iter().all(|x| x.0 != Candidate::Up));
}

#[test]
fn a_trial_win_moves_nf_and_rotates_the_fewest_blocks() {
    let p = layout();
    let n = next(&p, Candidate::Up, clamp);
    assert_eq!(n.nf, 4);
    // The up SM (4 blocks) becomes a follower (4) and the first follower (3) the up SM (5),
    // as L1217 rotates them; the down SM (2) stays down (3). Three blocks move, the least of
    // any assignment.
    assert_eq!(n.roles[3], Role::Follower);
    assert_eq!(n.roles[4], Role::Trial(Step::Up));
    assert_eq!(n.roles[2], Role::Trial(Step::Down));
    let count = |r| n.roles.iter().filter(|&&x| x == r).count();
    assert_eq!(count(Role::Trial(Step::Up)), 1);
    assert_eq!(count(Role::Trial(Step::Down)), 1);
    assert_eq!(count(Role::Follower), 5);
    let d = next(&p, Candidate::Down, clamp);
    assert_eq!(d.nf, 2);
    assert_eq!(d.roles[2], Role::Follower, "the down SM held 2: it follows");
    assert_eq!(d.roles[3], Role::Trial(Step::Up), "4 -> 3");
    assert_eq!(d.roles[4], Role::Trial(Step::Down), "3 -> 1");
}

#[test]
fn spatial_converts_one_follower_pair_per_epoch_and_smk_converts_one_back() {
    let p = layout();
    let s1 = next(&p, Candidate::Spatial, clamp);
    assert_eq!(s1.spatial_pairs, 1);
    assert_eq!((s1.roles[7], s1.roles[8]), (Role::Spatial(0), Role::Spatial(1)));
    let s2 = next(&s1, Candidate::Spatial, clamp);
    assert_eq!(s2.spatial_pairs, 2);
    assert_eq!((s2.roles[5], s2.roles[6]), (Role::Spatial(0), Role::Spatial(1)));
    let back = next(&s2, Candidate::Follow, clamp);
    assert_eq!(back.spatial_pairs, 1);
    let spatial = back
        .roles
        .iter()
        .filter(|r| matches!(r, Role::Spatial(_)))
        .count();
    assert_eq!(spatial, 2);
}

#[test]
fn spatial_is_measured_on_spatial_sms_once_they_exist() {
    let p = next(&layout(), Candidate::Spatial, clamp);
    let ipc = measured(&p, |r| match r {
        Role::Spatial(0) => (1.0, 0.0),
        Role::Spatial(_) => (0.0, 2.0),
        _ => (1.0, 1.0),
    });
    let s = scores(&p, &ipc, [2.0, 2.0], [false; 2]);
    let spatial = s.iter().find(|x| x.0 == Candidate::Spatial).unwrap().1;
    // NP = IPC_spatial / IPC_single / 2: 0.25 and 0.5.
    assert!((spatial - (4.0 + 2.0) / 2.0).abs() < 1e-12);
}

#[test]
fn a_small_gpu_has_no_trial_or_dedicated_sms() {
    let p = Partition::measuring(4, 2);
    assert!(p.roles.iter().all(|&r| r == Role::Follower));
    assert!(!p.has_dedicated());
    assert_eq!(trial_blocks(Role::Trial(Step::Down), 1, clamp), Some(1), "clamped");
}
