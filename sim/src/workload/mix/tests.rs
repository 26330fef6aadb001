use super::*;

fn mix(text: &str) -> Result<Mix, String> {
    Mix::parse(text, Path::new("m.toml")).map_err(|e| e.to_string())
}

#[test]
fn a_mix_reads_its_launches_in_order_with_their_fields() {
    let mut m = mix(r#"
[[kernel]]
workload = "mm"
stream = 0

[[kernel]]
workload = "compute"
size = "small"
stream = 1
arrival = 2000
priority = 3
period = 5000
count = 2
deadline = 4000
"#)
    .unwrap();
    let l = m.launches().unwrap();
    assert_eq!(l.len(), 2);
    assert_eq!((l[0].stream, l[0].arrival), (0, Arrival::AfterPrevious));
    assert_eq!(l[0].info.name, "mm_small");
    assert_eq!(
        (
            l[1].stream,
            l[1].arrival,
            l[1].priority,
            l[1].period,
            l[1].count,
            l[1].deadline
        ),
        (1, Arrival::At(2000), 3, Some(5000), Some(2), Some(4000))
    );
    assert!(l[1].origin.starts_with("m.toml:6"), "{}", l[1].origin);
}

#[test]
fn bad_mixes_name_the_file_line_and_field() {
    for (text, want) in [
        (
            "[[kernel]]\nworkload = \"nbody\"\n",
            "m.toml:2: workload: unknown workload `nbody`",
        ),
        (
            "[[kernel]]\nworkload = \"mm\"\nsize = \"huge\"\n",
            "m.toml:3: workload: unknown size `huge`",
        ),
        (
            "[[kernel]]\nworkload = \"lud\"\nsize = \"paper\"\n",
            "m.toml:3: size: a mix entry launches one kernel; `lud` at `paper` is a launch sequence",
        ),
        ("[[kernel]]\ntrace = \"/no/such\"\n", "m.toml:2: trace: "),
        (
            "[[kernel]]\nworkload = \"mm\"\nperiod = 0\narrival = 0\n",
            "m.toml:3: period: 0 is out of range",
        ),
        (
            "[[kernel]]\nworkload = \"mm\"\ndeadline = 0\n",
            "m.toml:3: deadline: 0 is out of range: at least 1 cycle",
        ),
        (
            "[[kernel]]\nworkload = \"mm\"\npriority = 16\n",
            "m.toml:3: priority: 16 is out of range: 0 (lowest) to 15",
        ),
        (
            "[[kernel]]\nworkload = \"mm\"\npriority = -1\n",
            "m.toml:3: priority: -1 is out of range",
        ),
        (
            "[[kernel]]\nworkload = \"mm\"\ncount = 2\n",
            "m.toml:3: count: needs a period",
        ),
        (
            "[[kernel]]\nworkload = \"mm\"\nperiod = 10\n",
            "m.toml:3: period: a periodic launch needs an arrival",
        ),
        (
            "[[kernel]]\nworkload = \"mm\"\narrival = \"soon\"\n",
            "m.toml:3: arrival: expected a core cycle or \"after\"",
        ),
        (
            "[[kernel]]\nworkload = \"mm\"\nstrem = 1\n",
            "m.toml:3: unknown field `strem`",
        ),
        (
            "[[kernel]]\nsize = \"small\"\n",
            "m.toml:1: an entry needs `workload`",
        ),
        ("title = \"x\"\n", "m.toml:1: unknown field `title`"),
        ("", "no [[kernel]] entry"),
        (
            "[[kernel]]\nworkload = \"mm\"\narrival = 500\n\n[[kernel]]\nworkload = \"mm\"\narrival = 100\n",
            "m.toml:7: arrival: 100 comes before the arrival 500 of the launch on line 3 of the same stream 0",
        ),
        (
            "[[kernel]]\nworkload = \"mm\"\narrival = 5\nperiod = 10\n",
            "every launch is periodic without a count",
        ),
    ] {
        let e = mix(text)
            .err()
            .unwrap_or_else(|| panic!("accepted: {text}"));
        assert!(e.contains(want), "{text:?}: {e}");
    }
    // Out of order on different streams is fine (each stream keeps its own order).
    mix("[[kernel]]\nworkload = \"mm\"\narrival = 500\n\n[[kernel]]\nworkload = \"mm\"\nstream = 1\narrival = 100\n")
        .unwrap();
}
