use super::*;
use crate::gpu::SimOptions;

#[test]
fn every_policy_parses_its_defaults_into_its_own_site_and_names_real_blocks() {
    let blocks: Vec<&str> = crate::blocks::catalog().iter().map(|b| b.name).collect();
    let mut seen = vec![];
    for e in registry() {
        assert!(
            !seen.contains(&(e.site, e.name)),
            "{e:?} is registered twice"
        );
        seen.push((e.site, e.name));
        let site = match (e.parse)(&OptValues::new()).unwrap() {
            SitePolicy::WarpIssue(p) => (SiteKind::WarpIssue, p.entry().name),
            SitePolicy::LsuQueue(p) => (SiteKind::LsuQueue, p.entry().name),
            SitePolicy::TbDispatch(p) => (SiteKind::TbDispatch, p.entry().name),
            SitePolicy::SmAlloc(p) => (SiteKind::SmAlloc, p.entry().name),
            SitePolicy::KernelSched(p) => (SiteKind::KernelSched, p.entry().name),
        };
        assert_eq!(site, (e.site, e.name), "{e:?}");
        for b in e.blocks {
            assert!(
                blocks.contains(b),
                "{e:?} uses {b}, not a block of the registry"
            );
        }
        for o in e.options {
            let decl = option_spec(o.name).unwrap();
            assert_eq!(&decl, o, "--{} is declared twice, differently", o.name);
        }
        // Each site's default is registered there.
        assert!(find(e.site, e.site.default_policy()).is_some());
    }
    for site in SiteKind::ALL {
        assert!(names_at(site).contains(&site.default_policy()), "{site:?}");
    }
}

#[test]
fn every_policy_runs_on_gtx480_with_its_label() {
    let cfg = crate::config::GpuConfig::preset("gtx480").unwrap();
    for e in registry() {
        let args = match e.flag {
            Some(f) => format!("--{}", f.name),
            None => format!("--{} {}", e.site.flag(), e.name),
        };
        let opts = SimOptions::parse(&args).unwrap();
        opts.plan.check(&cfg).unwrap();
        let names = opts.plan.names();
        assert!(names.contains(&(e.site, e.name)), "{args}: {names:?}");
        for b in e.blocks {
            assert!(opts.plan.blocks().contains(b), "{args}");
        }
    }
    let label = |a: &str| SimOptions::parse(a).unwrap().label();
    assert_eq!(label(""), "gto");
    assert_eq!(
        label("--warp-sched two-level --paired-issue"),
        "two_level(paired)"
    );
    assert_eq!(label("--warp-sched elf++"), "elf++");
    assert_eq!(label("--warp-sched elf --newcar --iprefetch"), "elf++");
    assert_eq!(
        label("--warp-sched elf --rr-fetch --iprefetch 8"),
        "elf(rr-fetch)+iprefetch8"
    );
    assert_eq!(label("--warp-sched elf++ --iprefetch 0"), "elf+newcar");
    assert_eq!(label("--lsu-queue newcar"), "gto+newcar");
    assert_eq!(label("--warp-sched laws --paired-issue"), "laws(paired)");
}

#[test]
fn options_the_chosen_policies_do_not_take_are_errors_naming_who_takes_them() {
    let err = |a: &str| SimOptions::parse(a).unwrap_err().to_string();
    assert_eq!(err("--la-active 4"), "--la-active needs --warp-sched laws");
    assert_eq!(
        err("--rr-fetch"),
        "--rr-fetch needs --warp-sched elf or elf++"
    );
    // The policies that take an option and a site's choices are the registry's, in its order.
    let takers: Vec<&str> = registry()
        .into_iter()
        .filter(|e| e.options.iter().any(|o| o.name == "paired-issue"))
        .map(|e| e.name)
        .collect();
    assert!(
        takers.starts_with(&["lrr", "gto"]) && takers.len() > 2,
        "{takers:?}"
    );
    let (last, rest) = takers.split_last().unwrap();
    assert_eq!(
        err("--warp-sched elf --paired-issue"),
        format!(
            "--paired-issue needs --warp-sched {} or {last}",
            rest.join(", ")
        )
    );
    assert_eq!(
        err("--la-window 4"),
        "--la-window needs --tb-sched locality"
    );
    let warp: Vec<&str> = registry()
        .into_iter()
        .filter(|e| e.site == SiteKind::WarpIssue)
        .map(|e| e.name)
        .collect();
    assert!(
        warp.contains(&"elf++") && warp.contains(&"paws"),
        "{warp:?}"
    );
    assert_eq!(
        err("--warp-sched fifo"),
        format!("unknown warp scheduler `fifo`; choose {}", warp.join(", "))
    );
    assert!(err("--tb-sched x").starts_with("unknown thread-block scheduler `x`"));
    assert_eq!(err("--bogus"), "unknown option --bogus");
    assert!(err("--newcar --lsu-queue none").contains("--newcar selects lsu-queue newcar"));
    assert!(err("--elf-recalc never --warp-sched elf").contains("expected one of literal"));
    // Given values are read: `two-level` is `two_level`, a flag's `true` is the flag.
    let o = SimOptions::parse("--warp-sched two-level --newcar --iprefetch 4").unwrap();
    assert_eq!(
        o.plan.names(),
        [
            (SiteKind::WarpIssue, "two_level"),
            (SiteKind::LsuQueue, "newcar"),
            (SiteKind::TbDispatch, "lrr"),
            (SiteKind::SmAlloc, "occupancy"),
            (SiteKind::KernelSched, "serial"),
        ]
    );
    assert_eq!(o.iprefetch, 4);
}
