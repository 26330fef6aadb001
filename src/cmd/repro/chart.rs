//! The SVG bar chart of `repro elf`: per workload and for the geometric means, one bar per
//! configuration (speedup over GTO, in percent), and the thesis's means beside ours.

use super::Results;
use anyhow::{anyhow, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Bar colours of the configurations after GTO, one each (the ten of Tableau's palette).
const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Width of the legend column right of the ELF chart's plot, pixels.
const LEGEND_WIDTH: u32 = 300;

/// The chart as an SVG document.
pub fn svg(r: &Results) -> Result<String> {
    let cols = &r.columns[1..];
    // Groups: every workload, our two means, the thesis's means.
    let mut groups: Vec<(String, Vec<Option<f64>>)> = r
        .rows
        .iter()
        .map(|row| {
            (
                row.workload.clone(),
                row.cells[1..].iter().map(|c| Some(c.speedup)).collect(),
            )
        })
        .collect();
    groups.push((
        "GEOMEAN".into(),
        r.geomean[1..].iter().map(|&g| Some(g)).collect(),
    ));
    groups.push((
        "GEOMEAN(M)".into(),
        r.geomean_memory[1..].iter().map(|&g| Some(g)).collect(),
    ));
    groups.push((
        "THESIS".into(),
        cols.iter()
            .map(|c| c.thesis.map(|t| 1.0 + t / 100.0))
            .collect(),
    ));
    let pcts: Vec<f64> = groups
        .iter()
        .flat_map(|g| g.1.iter().flatten().map(|s| 100.0 * (s - 1.0)))
        .collect();
    let lo = pcts
        .iter()
        .cloned()
        .fold(-5.0f64, f64::min)
        .max(-100.0)
        .floor();
    let hi = pcts
        .iter()
        .cloned()
        .fold(5.0f64, f64::max)
        .min(300.0)
        .ceil();
    // Headroom above the axis's top for the values of bars beyond it.
    let top = hi + 0.08 * (hi - lo);
    let width = 160 + 26 * groups.len() as u32 + LEGEND_WIDTH;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, 520)).into_drawing_area();
        let err = |e: &dyn std::fmt::Display| anyhow!("drawing the chart: {e}");
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let (plot, legend) = root.split_horizontally(width - LEGEND_WIDTH);
        let n = groups.len();
        let mut chart = ChartBuilder::on(&plot)
            .caption(
                format!("Speedup over GTO (%), {}, size {}", r.config, r.size),
                ("sans-serif", 16),
            )
            .margin(10)
            .x_label_area_size(110)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..n as f64, lo..top)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_labels(0)
            .y_desc("speedup over GTO (%)")
            .disable_x_mesh()
            .draw()
            .map_err(|e| err(&e))?;
        // Group names below the plot, one per group, written downwards.
        let style = ("sans-serif", 11)
            .into_font()
            .transform(FontTransform::Rotate90)
            .color(&BLACK);
        for (gi, (name, _)) in groups.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(gi as f64 + 0.5, lo));
            plot.draw(&Text::new(name.clone(), (px + 5, py + 6), style.clone()))
                .map_err(|e| err(&e))?;
        }
        let bw = 0.8 / cols.len() as f64;
        for (gi, (_, vals)) in groups.iter().enumerate() {
            for (ci, v) in vals.iter().enumerate() {
                let Some(s) = v else { continue };
                let x0 = gi as f64 + 0.1 + ci as f64 * bw;
                let pct = 100.0 * (s - 1.0);
                let y = pct.clamp(lo, hi);
                let colour = COLOURS[ci % COLOURS.len()];
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(x0, 0.0), (x0 + bw, y)],
                        colour.filled(),
                    )))
                    .map_err(|e| err(&e))?;
                // A bar cut at the axis carries its value.
                if pct > hi {
                    let (px, py) = chart.backend_coord(&(x0, hi));
                    let label = ("sans-serif", 10)
                        .into_font()
                        .transform(FontTransform::Rotate270)
                        .color(&BLACK);
                    plot.draw(&Text::new(format!("{pct:+.0}%"), (px, py - 2), label))
                        .map_err(|e| err(&e))?;
                }
            }
        }
        // The legend in its own column, right of the plot: never over a bar.
        for (ci, c) in cols.iter().enumerate() {
            let colour = COLOURS[ci % COLOURS.len()];
            let y = 40 + 20 * ci as i32;
            legend
                .draw(&Rectangle::new([(10, y), (22, y + 12)], colour.filled()))
                .map_err(|e| err(&e))?;
            legend
                .draw(&Text::new(c.label, (28, y), ("sans-serif", 12).into_font()))
                .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
    }
    Ok(out)
}

/// A bar chart of `items` (label, the thesis's value, ours): per item the thesis's bar (grey)
/// beside ours (blue), on one axis `y_desc`.
pub fn thesis_beside_ours(
    title: &str,
    y_desc: &str,
    items: &[(String, f64, f64)],
) -> Result<String> {
    let series = ["thesis".to_string(), "ours".to_string()];
    let items: Vec<(String, Vec<Option<f64>>)> = items
        .iter()
        .map(|(l, t, o)| (l.clone(), vec![Some(*t), Some(*o)]))
        .collect();
    grouped_bars(title, y_desc, &series, &items)
}

/// Colours of [`grouped_bars`]' series: grey for the paper, then one each.
const SERIES_COLOURS: [RGBColor; 5] = [
    RGBColor(150, 150, 150),
    BLUE,
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
];

/// A bar chart of `items` (label, one value per series, `None` for no bar): per item a bar per
/// series of `series` (the first grey: the paper's), on one axis `y_desc`.
pub fn grouped_bars(
    title: &str,
    y_desc: &str,
    series: &[String],
    items: &[(String, Vec<Option<f64>>)],
) -> Result<String> {
    let mut svg = String::new();
    // Each group as wide as its longest label (about 6 px a character at the axis's font).
    let longest = items.iter().map(|c| c.0.chars().count()).max().unwrap_or(0) as u32;
    let group = (7 * longest + 16).max(120);
    let width = (90 + group * items.len() as u32).max(500);
    {
        let root = SVGBackend::with_string(&mut svg, (width, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        let n = items.len();
        let vals: Vec<f64> = items
            .iter()
            .flat_map(|c| c.1.iter().flatten().copied())
            .collect();
        let lo = vals.iter().cloned().fold(-5.0f64, f64::min).floor();
        let hi = vals.iter().cloned().fold(5.0f64, f64::max).ceil();
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(60)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..n as f64, lo..hi)
            .map_err(|e| anyhow!("{e}"))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .y_desc(y_desc)
            .x_labels(0)
            .draw()
            .map_err(|e| anyhow!("{e}"))?;
        // Each label centred under its group.
        let style = ("sans-serif", 12)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        for (i, (label, _)) in items.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(i as f64 + 0.5, lo));
            root.draw(&Text::new(label.clone(), (px, py + 8), style.clone()))
                .map_err(|e| anyhow!("{e}"))?;
        }
        let width = 0.7 / series.len().max(1) as f64;
        for (k, name) in series.iter().enumerate() {
            let colour = SERIES_COLOURS[k % SERIES_COLOURS.len()];
            chart
                .draw_series(items.iter().enumerate().filter_map(|(i, c)| {
                    let v = c.1.get(k).copied().flatten()?;
                    let x0 = i as f64 + 0.15 + width * k as f64;
                    Some(Rectangle::new(
                        [(x0, 0.0), (x0 + width - 0.02, v)],
                        colour.filled(),
                    ))
                }))
                .map_err(|e| anyhow!("{e}"))?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled())
                });
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .draw()
            .map_err(|e| anyhow!("{e}"))?;
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    Ok(svg)
}

/// A line chart of `series` (name, points `(x, y)`), axes described by `desc` (x, y).
pub fn lines(
    title: &str,
    desc: (&str, &str),
    series: &[(String, Vec<(f64, f64)>)],
) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        let pts = || series.iter().flat_map(|s| s.1.iter());
        let x_hi = pts().map(|p| p.0).fold(1.0f64, f64::max);
        let y_hi = pts().map(|p| p.1).fold(1.0f64, f64::max) * 1.1;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..x_hi, 0f64..y_hi)
            .map_err(|e| anyhow!("{e}"))?;
        chart
            .configure_mesh()
            .x_desc(desc.0)
            .y_desc(desc.1)
            .draw()
            .map_err(|e| anyhow!("{e}"))?;
        let colours = [RGBColor(200, 60, 40), BLUE, RGBColor(40, 150, 60), BLACK];
        for (i, (name, points)) in series.iter().enumerate() {
            let colour = colours[i % colours.len()];
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    colour.stroke_width(2),
                ))
                .map_err(|e| anyhow!("{e}"))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], colour));
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE)
            .draw()
            .map_err(|e| anyhow!("{e}"))?;
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of `svg` (as plotters writes it) that reach outside its canvas, each with its
    /// estimated box: a character is taken as 0.6 of the font size wide, rotations of 90 and 270
    /// degrees turn the box.
    fn text_outside(svg: &str) -> Vec<String> {
        let attr = |t: &str, k: &str| -> Option<f64> {
            let at = t.find(&format!(" {k}=\""))? + k.len() + 3;
            t[at..].split('"').next()?.parse().ok()
        };
        let (w, h) = (
            attr(svg, "width").unwrap_or(0.0),
            attr(svg, "height").unwrap_or(0.0),
        );
        let mut out = vec![];
        for t in svg.split("<text").skip(1) {
            let (open, rest) = t.split_once('>').unwrap_or((t, ""));
            let content = rest.split("</text>").next().unwrap_or("").trim();
            let (x, y) = (
                attr(open, "x").unwrap_or(0.0),
                attr(open, "y").unwrap_or(0.0),
            );
            let size = attr(open, "font-size").unwrap_or(12.0);
            let len = content.chars().count() as f64 * size * 0.6;
            let anchor = open
                .split("text-anchor=\"")
                .nth(1)
                .and_then(|a| a.split('"').next());
            let (lo, hi) = match anchor {
                Some("middle") => (-len / 2.0, len / 2.0),
                Some("end") => (-len, 0.0),
                _ => (0.0, len),
            };
            let ((x0, x1), (y0, y1)) = if open.contains("rotate(90") {
                ((x - size, x + size), (y + lo, y + hi))
            } else if open.contains("rotate(270") {
                ((x - size, x + size), (y - hi, y - lo))
            } else {
                ((x + lo, x + hi), (y - size, y + size))
            };
            if x0 < 0.0 || y0 < 0.0 || x1 > w || y1 > h {
                out.push(format!(
                    "`{content}` at x {x0:.0}..{x1:.0}, y {y0:.0}..{y1:.0} of {w}x{h}"
                ));
            }
        }
        out
    }

    /// The headline chart keeps long labels inside the canvas; a text placed outside is
    /// caught.
    #[test]
    fn no_text_leaves_the_canvas() {
        let series: Vec<String> = ["paper", "gtx480-3.2.2", "gtx480"]
            .map(String::from)
            .to_vec();
        let items: Vec<(String, Vec<Option<f64>>)> = [
            "LA-TB + LAWS over RR + GTO (all)",
            "LA-TB + LAWS over BCS + GTO (all)",
            "LA-TB + GTO over BCS + GTO (type II)",
            "LA-TB + LAWS over LA-TB + GTO (types I and II)",
        ]
        .iter()
        .map(|l| (l.to_string(), vec![Some(26.0), Some(11.5), Some(-5.8)]))
        .collect();
        let title = "seed 000 on two simulators (large)";
        let svg = grouped_bars(title, "speedup, %", &series, &items).unwrap();
        assert_eq!(text_outside(&svg), Vec::<String>::new());
        let planted = svg.replacen("<text x=\"", "<text x=\"9999", 1);
        assert!(!text_outside(&planted).is_empty());
    }
}
