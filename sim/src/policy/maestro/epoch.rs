//! GPU Maestro's repartitioning decision at an epoch's end (thesis §5.4.1, L1206-L1228; spec
//! `chimera_maestro.md` §2.2 REC, B1-B5, M-R4): the SMs' roles, the candidates' ANTT from the
//! measured per-SM IPCs, and the next partition.
//!
//! Kernels are indexed 0 (the trial kernel, the one fewer of whose blocks fit an SM) and 1 (the
//! other). The decision runs in the command processor's software; it computes in `f64`.

/// What an SM does in the epoch (2 bits per SM in the thesis).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Runs kernel `0` or `1` alone and measures its single-kernel performance.
    Dedicated(usize),
    /// Runs kernel `0` or `1` alone for spatial multitasking (a converted follower).
    Spatial(usize),
    /// Runs the trial kernel with one block more (`Up`) or fewer (`Down`) than the followers.
    Trial(Step),
    /// Runs the partition measured best.
    Follower,
}

/// A trial SM's offset from the followers' partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// One trial-kernel block fewer.
    Down,
    /// One more.
    Up,
}

/// The candidates, in the tie order (the earlier wins a tie: prefer no change).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Candidate {
    /// Keep the followers' partition.
    Follow,
    /// The trial kernel one block fewer.
    Down,
    /// One more.
    Up,
    /// Spatial multitasking.
    Spatial,
}

/// The partition: the followers' trial-kernel blocks per SM, the roles, and how many follower
/// pairs run spatially.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// The trial kernel's blocks on a follower (`nF`).
    pub nf: u32,
    /// Per SM.
    pub roles: Vec<Role>,
    /// Follower pairs converted to spatial multitasking.
    pub spatial_pairs: u32,
}

/// The trial-kernel blocks of a role: `nf` for a follower, `nf ± 1` (clamped by `clamp`) for a
/// trial SM; `None` for an SM running one kernel.
pub fn trial_blocks(role: Role, nf: u32, clamp: impl Fn(i64) -> u32) -> Option<u32> {
    match role {
        Role::Follower => Some(nf),
        Role::Trial(Step::Up) => Some(clamp(i64::from(nf) + 1)),
        Role::Trial(Step::Down) => Some(clamp(i64::from(nf) - 1)),
        Role::Dedicated(_) | Role::Spatial(_) => None,
    }
}

impl Partition {
    /// The measurement layout for `sms` SMs (B1): SM 0 dedicated to the trial kernel, SM 1 to
    /// the other, SMs 2 and 3 trial SMs (down, up), the rest followers. Fewer than 5 SMs: every
    /// SM a follower (no trial or dedicated SMs: even SMK).
    pub fn measuring(sms: usize, nf: u32) -> Self {
        let roles = (0..sms)
            .map(|s| match s {
                _ if sms < 5 => Role::Follower,
                0 => Role::Dedicated(0),
                1 => Role::Dedicated(1),
                2 => Role::Trial(Step::Down),
                3 => Role::Trial(Step::Up),
                _ => Role::Follower,
            })
            .collect();
        Self {
            nf,
            roles,
            spatial_pairs: 0,
        }
    }

    /// Every SM a follower at `nf` (a fixed partition: no measurement).
    pub fn even(sms: usize, nf: u32) -> Self {
        Self {
            nf,
            roles: vec![Role::Follower; sms],
            spatial_pairs: 0,
        }
    }

    /// Spatial multitasking on every SM (alternate SMs to each kernel), for a pair no SM can
    /// hold a block of each of at once.
    pub fn spatial(sms: usize) -> Self {
        Self {
            nf: 0,
            roles: (0..sms).map(|s| Role::Spatial(s % 2)).collect(),
            spatial_pairs: (sms / 2) as u32,
        }
    }

    /// Whether dedicated SMs are measuring.
    pub fn has_dedicated(&self) -> bool {
        self.roles.iter().any(|r| matches!(r, Role::Dedicated(_)))
    }

    /// SMs of `role`.
    fn sms_of(&self, role: Role) -> impl Iterator<Item = usize> + '_ {
        (0..self.roles.len()).filter(move |&s| self.roles[s] == role)
    }
}

/// What the SMs measured over an epoch: per SM, each kernel's warp instructions per cycle.
pub type Measured = [Vec<f64>; 2];

/// Each kernel's mean IPC per SM over `sms`, if there are any.
fn mean_ipc(ipc: &Measured, sms: &[usize]) -> Option<[f64; 2]> {
    (!sms.is_empty()).then(|| {
        [0, 1].map(|k| sms.iter().map(|&s| ipc[k][s]).sum::<f64>() / sms.len() as f64)
    })
}

/// ANTT of a candidate whose kernels progress at `np` of their single-kernel speed (Eq. 5.1).
pub fn antt(np: [f64; 2]) -> f64 {
    np.iter()
        .map(|&x| if x > 0.0 { 1.0 / x } else { f64::INFINITY })
        .sum::<f64>()
        / 2.0
}

/// The candidates' ANTT this epoch, with `single` each kernel's single-kernel IPC per SM.
/// A trial candidate whose quota was clamped to the followers' is left out (B5); SPATIAL is
/// measured on the spatial SMs once some exist (M-R4), else each kernel is taken to run at
/// half its single-kernel speed (B3).
pub fn scores(
    p: &Partition,
    ipc: &Measured,
    single: [f64; 2],
    clamped: [bool; 2],
) -> Vec<(Candidate, f64)> {
    let norm = |m: [f64; 2]| [m[0] / single[0], m[1] / single[1]];
    let mut v = vec![];
    let groups = [
        (Candidate::Follow, Role::Follower, false),
        (Candidate::Down, Role::Trial(Step::Down), clamped[0]),
        (Candidate::Up, Role::Trial(Step::Up), clamped[1]),
    ];
    for (c, role, skip) in groups {
        let sms: Vec<usize> = p.sms_of(role).collect();
        if let Some(m) = mean_ipc(ipc, &sms).filter(|_| !skip) {
            v.push((c, antt(norm(m))));
        }
    }
    let spatial = [0, 1].map(|k| p.sms_of(Role::Spatial(k)).collect::<Vec<_>>());
    let np = match spatial.iter().all(|s| !s.is_empty()) {
        true => {
            let m = [0, 1].map(|k| mean_ipc(ipc, &spatial[k]).map_or(0.0, |m| m[k]));
            [m[0] / single[0] / 2.0, m[1] / single[1] / 2.0]
        }
        false => [0.5, 0.5],
    };
    v.push((Candidate::Spatial, antt(np)));
    v
}

/// The candidate of least ANTT, ties to the earlier in [`Candidate`] order.
pub fn best(scores: &[(Candidate, f64)]) -> Candidate {
    scores
        .iter()
        .copied()
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
        .map_or(Candidate::Follow, |(c, _)| c)
}

/// Each kernel's single-kernel IPC per SM measured on its dedicated SM, if it has one.
pub fn dedicated_ipc(p: &Partition, ipc: &Measured) -> [Option<f64>; 2] {
    [0, 1].map(|k| {
        let sms: Vec<usize> = p.sms_of(Role::Dedicated(k)).collect();
        mean_ipc(ipc, &sms).map(|m| m[k])
    })
}

/// The next partition after `choice` (L1213-L1221): a trial win moves `nf` by one and rotates
/// roles so that the fewest blocks move (M8: the winning trial SM becomes a follower, a follower
/// takes its place); SPATIAL converts one follower per kernel (M5); an SMK win with spatial
/// pairs converts one pair back (B4). `clamp` bounds a trial kernel's blocks.
pub fn next(p: &Partition, choice: Candidate, clamp: impl Fn(i64) -> u32) -> Partition {
    let mut n = p.clone();
    match choice {
        Candidate::Up | Candidate::Down => {
            let (won, lost) = match choice {
                Candidate::Up => (Step::Up, Step::Down),
                _ => (Step::Down, Step::Up),
            };
            n.nf = trial_blocks(Role::Trial(won), p.nf, &clamp).expect("a trial role");
            rotate(&mut n, p, won, lost, &clamp);
        }
        Candidate::Spatial => {
            let followers: Vec<usize> = p.sms_of(Role::Follower).collect();
            if let [.., a, b] = followers[..] {
                n.roles[a] = Role::Spatial(0);
                n.roles[b] = Role::Spatial(1);
                n.spatial_pairs += 1;
            }
        }
        Candidate::Follow => {}
    }
    if choice != Candidate::Spatial && p.spatial_pairs > 0 {
        for k in [0, 1] {
            if let Some(s) = n.sms_of(Role::Spatial(k)).last() {
                n.roles[s] = Role::Follower;
            }
        }
        n.spatial_pairs -= 1;
    }
    n
}

/// After a trial win: the SMs that held the two trial roles and the lowest follower take the
/// roles {follower, down, up} in the assignment that changes the trial kernel's blocks least
/// (M8); of equal ones, the one where the winning trial SM follows (L1217), then the one that
/// changes fewest roles.
fn rotate(n: &mut Partition, p: &Partition, won: Step, lost: Step, clamp: &impl Fn(i64) -> u32) {
    let at = |step| p.sms_of(Role::Trial(step)).next();
    let (Some(w), Some(l)) = (at(won), at(lost)) else {
        return;
    };
    let Some(f) = p.sms_of(Role::Follower).next() else {
        return;
    };
    let old = |s: usize| trial_blocks(p.roles[s], p.nf, clamp).unwrap_or(0);
    let roles = [
        Role::Follower,
        Role::Trial(Step::Down),
        Role::Trial(Step::Up),
    ];
    let sms = [w, l, f];
    let cost = |perm: &[usize; 3]| -> u32 {
        (0..3)
            .map(|i| {
                let new = trial_blocks(roles[perm[i]], n.nf, clamp).unwrap_or(0);
                new.abs_diff(old(sms[i]))
            })
            .sum()
    };
    let perms = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    // Least movement; then the winning trial SM as a follower (L1217 rotates it); then the
    // fewest role changes.
    let changes = |perm: &[usize; 3]| (0..3).filter(|&i| p.roles[sms[i]] != roles[perm[i]]).count();
    let perm = perms
        .iter()
        .min_by_key(|q| (cost(q), q[0] != 0, changes(q)))
        .expect("six");
    for i in 0..3 {
        n.roles[sms[i]] = roles[perm[i]];
    }
}

#[cfg(test)]
mod tests;
