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
        let entries = cols
            .iter()
            .enumerate()
            .map(|(ci, c)| (c.label, COLOURS[ci % COLOURS.len()]));
        draw_legend(&legend.margin(20, 0, 0, 0), entries, Marker::Box)?;
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

/// Series `k`'s colour: [`SERIES_COLOURS`] in turn when the first series is the paper's (grey),
/// else the others in turn (no series of ours in the paper's grey).
fn series_colour(paper_first: bool, k: usize) -> RGBColor {
    match paper_first {
        true => SERIES_COLOURS[k % SERIES_COLOURS.len()],
        false => SERIES_COLOURS[1 + k % (SERIES_COLOURS.len() - 1)],
    }
}

/// A bar chart of `items` (label, one value per series, `None` for no bar): per item a bar per
/// series of `series` (the first grey: the paper's), on one axis `y_desc`.
pub fn grouped_bars(
    title: &str,
    y_desc: &str,
    series: &[String],
    items: &[(String, Vec<Option<f64>>)],
) -> Result<String> {
    one_panel(title, y_desc, series, items, true)
}

/// [`grouped_bars`] of our figures alone (no paper's series): every series in a colour of its
/// own, none in the paper's grey.
pub fn ours_grouped_bars(
    title: &str,
    y_desc: &str,
    series: &[String],
    items: &[(String, Vec<Option<f64>>)],
) -> Result<String> {
    one_panel(title, y_desc, series, items, false)
}

/// [`bar_panels_from`] with one panel on axis `y_desc`.
fn one_panel(
    title: &str,
    y_desc: &str,
    series: &[String],
    items: &[(String, Vec<Option<f64>>)],
    paper_first: bool,
) -> Result<String> {
    let panel = Panel {
        y_desc: y_desc.to_string(),
        items: items.to_vec(),
    };
    bar_panels_from(title, series, &[panel], paper_first)
}

/// One panel of [`bar_panels`]: its axis and its items (label, one value per series, `None`
/// for no bar).
pub struct Panel {
    /// The axis's title.
    pub y_desc: String,
    /// The groups of bars.
    pub items: Vec<(String, Vec<Option<f64>>)>,
}

/// Height of one panel of [`bar_panels`], pixels.
const PANEL_HEIGHT: u32 = 340;

/// Panels of grouped bars, one above the other, each on its own axis (figures in different
/// units), sharing `series` (the first grey: the paper's) and a legend in a column right of
/// the plots; every label centred under its group, sized so that none leaves the canvas.
pub fn bar_panels(title: &str, series: &[String], panels: &[Panel]) -> Result<String> {
    bar_panels_from(title, series, panels, true)
}

/// [`bar_panels`], the first series the paper's (grey) or not (`paper_first`: every series in
/// a colour of its own, [`series_colour`]).
fn bar_panels_from(
    title: &str,
    series: &[String],
    panels: &[Panel],
    paper_first: bool,
) -> Result<String> {
    let chars = |s: &str| s.chars().count() as u32;
    // Each panel as wide as its groups, each group as wide as the panel's longest label (at
    // most 7.2 px a character at 12 px): bars keep about one width from panel to panel.
    let need = |p: &Panel| {
        let longest = p.items.iter().map(|i| chars(&i.0)).max().unwrap_or(0);
        (90 + (8 * longest + 16).max(110) * p.items.len().max(1) as u32).max(300)
    };
    let legend_width = 40 + 8 * series.iter().map(|s| chars(s)).max().unwrap_or(0);
    let plot_width = panels.iter().map(need).max().unwrap_or(300).max(400);
    // The title (about 10.8 px a character at 18 px) fits too.
    let width = (plot_width + legend_width).max(11 * chars(title) + 20);
    let height = 40 + PANEL_HEIGHT * panels.len().max(1) as u32;
    let mut svg = String::new();
    {
        let err = |e: &dyn std::fmt::Display| anyhow!("drawing the chart: {e}");
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let body = titled(&root, title, width)?;
        let (plots, legend) = body.split_horizontally(plot_width);
        for (area, panel) in plots
            .split_evenly((panels.len().max(1), 1))
            .iter()
            .zip(panels)
        {
            let (used, _) = area.split_horizontally(need(panel));
            draw_panel(&used, panel, (series.len(), paper_first))?;
        }
        let entries = series
            .iter()
            .enumerate()
            .map(|(k, name)| (name.as_str(), series_colour(paper_first, k)));
        draw_legend(&legend, entries, Marker::Box)?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

/// A drawing area of an SVG chart.
type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// Draws `title` centred in the top 40 pixels of `root` (`width` pixels wide) and gives the
/// area below it.
fn titled<'a>(root: &Area<'a>, title: &str, width: u32) -> Result<Area<'a>> {
    let (head, body) = root.split_vertically(40);
    let centre = Pos::new(HPos::Center, VPos::Center);
    let caption = ("sans-serif", 18).into_font().color(&BLACK).pos(centre);
    head.draw(&Text::new(title, (width as i32 / 2, 20), caption))
        .map_err(|e| anyhow!("drawing the chart: {e}"))?;
    Ok(body)
}

/// How a legend marks a series.
enum Marker {
    /// A filled square (bars).
    Box,
    /// A short line (lines).
    Line,
}

/// Draws a legend down `area`: each entry's marker in its colour, then its name.
fn draw_legend<'n>(
    area: &Area<'_>,
    entries: impl Iterator<Item = (&'n str, RGBColor)>,
    marker: Marker,
) -> Result<()> {
    let err = |e: &dyn std::fmt::Display| anyhow!("drawing the legend: {e}");
    for (k, (name, colour)) in entries.enumerate() {
        let y = 20 + 20 * k as i32;
        match marker {
            Marker::Box => area.draw(&Rectangle::new([(10, y), (22, y + 12)], colour.filled())),
            Marker::Line => area.draw(&PathElement::new(
                vec![(8, y + 6), (23, y + 6)],
                colour.stroke_width(2),
            )),
        }
        .map_err(|e| err(&e))?;
        area.draw(&Text::new(name, (28, y), ("sans-serif", 12).into_font()))
            .map_err(|e| err(&e))?;
    }
    Ok(())
}

/// One panel of [`bar_panels`] on `area`: `n` series.
fn draw_panel(area: &Area<'_>, panel: &Panel, (n, paper_first): (usize, bool)) -> Result<()> {
    let err = |e: &dyn std::fmt::Display| anyhow!("drawing the chart: {e}");
    let items = &panel.items;
    let vals: Vec<f64> = items
        .iter()
        .flat_map(|c| c.1.iter().flatten().copied())
        .collect();
    let lo = vals.iter().cloned().fold(0.0f64, f64::min);
    let hi = vals.iter().cloned().fold(0.0f64, f64::max);
    let pad = ((hi - lo) * 0.08).max(1.0);
    let (lo, hi) = (
        (lo - if lo < 0.0 { pad } else { 0.0 }).floor(),
        (hi + pad).ceil(),
    );
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..items.len().max(1) as f64, lo..hi)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .y_desc(panel.y_desc.as_str())
        .x_labels(0)
        .draw()
        .map_err(|e| err(&e))?;
    // Each label centred under its group.
    let style = ("sans-serif", 12)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    // The chart gives the canvas's pixels; the area draws from its own corner.
    let (bx, by) = area.get_base_pixel();
    for (i, (label, _)) in items.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(i as f64 + 0.5, lo));
        area.draw(&Text::new(
            label.clone(),
            (px - bx, py - by + 8),
            style.clone(),
        ))
        .map_err(|e| err(&e))?;
    }
    let width = 0.7 / n.max(1) as f64;
    for k in 0..n {
        let colour = series_colour(paper_first, k);
        chart
            .draw_series(items.iter().enumerate().filter_map(|(i, c)| {
                let v = c.1.get(k).copied().flatten()?;
                let x0 = i as f64 + 0.15 + width * k as f64;
                Some(Rectangle::new(
                    [(x0, 0.0), (x0 + width - 0.02, v)],
                    colour.filled(),
                ))
            }))
            .map_err(|e| err(&e))?;
    }
    Ok(())
}

/// A heatmap of per-kernel figures: a row per kernel (`rows`), a column per configuration
/// (`cols`), each cell coloured by its value `values[row][col]` (per cent: blue below zero,
/// red above, white at zero, full colour at `scale` and beyond) with the value written in it;
/// `None` leaves a cell grey.
pub fn heatmap(
    title: &str,
    (rows, cols): (&[String], &[String]),
    values: &[Vec<Option<f64>>],
    scale: f64,
) -> Result<String> {
    const CELL_W: i32 = 64;
    const CELL_H: i32 = 18;
    let chars = |s: &str| s.chars().count() as i32;
    // Row names right-aligned left of the cells (7.2 px a character at 12 px).
    let left = 16 + 8 * rows.iter().map(|r| chars(r)).max().unwrap_or(0);
    // Column names written upwards above the cells.
    let top = 50 + 7 * cols.iter().map(|c| chars(c)).max().unwrap_or(0);
    let width = (left + CELL_W * cols.len() as i32 + 20).max(11 * chars(title) + 20);
    let height = top + CELL_H * rows.len() as i32 + 30;
    let mut svg = String::new();
    {
        let err = |e: &dyn std::fmt::Display| anyhow!("drawing the heatmap: {e}");
        let root =
            SVGBackend::with_string(&mut svg, (width as u32, height as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        titled(&root, title, width as u32)?;
        let up = ("sans-serif", 12)
            .into_font()
            .transform(FontTransform::Rotate270)
            .color(&BLACK);
        for (c, name) in cols.iter().enumerate() {
            let x = left + CELL_W * c as i32 + CELL_W / 2 - 6;
            root.draw(&Text::new(name.as_str(), (x, top - 6), up.clone()))
                .map_err(|e| err(&e))?;
        }
        let name_style = ("sans-serif", 12)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        let value_style = ("sans-serif", 11)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        for (r, name) in rows.iter().enumerate() {
            let y = top + CELL_H * r as i32;
            root.draw(&Text::new(
                name.as_str(),
                (left - 6, y + CELL_H / 2),
                name_style.clone(),
            ))
            .map_err(|e| err(&e))?;
            for (c, v) in values[r].iter().enumerate() {
                let x = left + CELL_W * c as i32;
                let fill = v.map_or(RGBColor(220, 220, 220), |v| diverging(v / scale));
                root.draw(&Rectangle::new(
                    [(x, y), (x + CELL_W - 1, y + CELL_H - 1)],
                    fill.filled(),
                ))
                .map_err(|e| err(&e))?;
                if let Some(v) = v {
                    let text = format!("{v:+.1}");
                    let at = (x + CELL_W / 2, y + CELL_H / 2);
                    root.draw(&Text::new(text, at, value_style.clone()))
                        .map_err(|e| err(&e))?;
                }
            }
        }
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

/// A [`heatmap`] of speedups over a baseline: `rows` (kernel, its speedup per column of `cols`,
/// 1.05 = +5%), the baseline's column first and left out; full colour at +-20%.
pub fn speedups(title: &str, cols: &[String], rows: &[(String, Vec<f64>)]) -> Result<String> {
    let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let values: Vec<Vec<Option<f64>>> = rows
        .iter()
        .map(|r| {
            r.1.iter()
                .skip(1)
                .map(|s| Some(100.0 * (s - 1.0)))
                .collect()
        })
        .collect();
    heatmap(title, (&names, &cols[1..]), &values, 20.0)
}

/// White at 0, towards red at 1 and beyond, towards blue at -1 and below.
fn diverging(t: f64) -> RGBColor {
    let t = t.clamp(-1.0, 1.0);
    let mix = |to: u8, k: f64| (255.0 + (f64::from(to) - 255.0) * k).round() as u8;
    match t >= 0.0 {
        true => RGBColor(mix(214, t), mix(39, t), mix(40, t)),
        false => RGBColor(mix(31, -t), mix(119, -t), mix(180, -t)),
    }
}

/// A line chart of `series` (name, points `(x, y)`), axes described by `desc` (x, y).
pub fn lines(
    title: &str,
    desc: (&str, &str),
    series: &[(String, Vec<(f64, f64)>)],
) -> Result<String> {
    let chars = |s: &str| s.chars().count() as u32;
    let legend_width = 40 + 8 * series.iter().map(|s| chars(&s.0)).max().unwrap_or(0);
    let width = (700 + legend_width).max(11 * chars(title) + 20);
    let mut svg = String::new();
    {
        let err = |e: &dyn std::fmt::Display| anyhow!("drawing the chart: {e}");
        let root = SVGBackend::with_string(&mut svg, (width, 440)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let body = titled(&root, title, width)?;
        let (plot, legend) = body.split_horizontally(width - legend_width);
        let pts = || series.iter().flat_map(|s| s.1.iter());
        let x_hi = pts().map(|p| p.0).fold(1.0f64, f64::max);
        let y_hi = pts().map(|p| p.1).fold(1.0f64, f64::max) * 1.1;
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .margin_right(30)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..x_hi, 0f64..y_hi)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc(desc.0)
            .y_desc(desc.1)
            .x_labels(6)
            .draw()
            .map_err(|e| err(&e))?;
        let colours = [RGBColor(200, 60, 40), BLUE, RGBColor(40, 150, 60), BLACK];
        for (i, (_, points)) in series.iter().enumerate() {
            let colour = colours[i % colours.len()];
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    colour.stroke_width(2),
                ))
                .map_err(|e| err(&e))?;
        }
        let entries = series
            .iter()
            .enumerate()
            .map(|(i, (name, _))| (name.as_str(), colours[i % colours.len()]));
        draw_legend(&legend, entries, Marker::Line)?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

/// The texts of `svg` (as plotters writes it) that reach outside its canvas, each with its
/// estimated box: a character is taken as 0.6 of the font size wide, rotations of 90 and 270
/// degrees turn the box.
pub fn text_outside(svg: &str) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::repro::rendered;

    /// Both checks pass on `svg`: the estimate and the rendering.
    fn inside(svg: &str) {
        assert_eq!(text_outside(svg), Vec::<String>::new());
        let opt = rendered::options();
        assert_eq!(rendered::text_outside(svg, &opt), Vec::<String>::new());
    }

    /// The headline chart, with panels in two units, the heatmap and the line chart keep
    /// long labels inside the canvas; a text placed outside is caught.
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
        inside(&svg);
        let planted = svg.replacen("<text x=\"", "<text x=\"9999", 1);
        assert!(!text_outside(&planted).is_empty());
        let opt = rendered::options();
        assert!(!rendered::text_outside(&planted, &opt).is_empty());
        // Wide letters: inside by the estimate (16 x 0.6 x 10 = 96 of 100 pixels), outside
        // once rendered.
        let wide = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"30\">\
            <text x=\"0\" y=\"15\" font-size=\"10\" font-family=\"sans-serif\">\
            WWWWWWWWWWWWWWWW</text></svg>";
        assert_eq!(text_outside(wide), Vec::<String>::new());
        assert_eq!(rendered::text_outside(wide, &opt).len(), 1);
        let panels = [
            Panel {
                y_desc: "%".into(),
                items: items.clone(),
            },
            Panel {
                y_desc: "x".into(),
                items: vec![(
                    "chimera ANTT over FCFS, all pairs".into(),
                    vec![Some(5.5), Some(1.2), None],
                )],
            },
        ];
        let long =
            "Chimera (seed 003 ch. IV) on two simulators, a title longer than its plots are wide";
        let svg = bar_panels(long, &series, &panels).unwrap();
        inside(&svg);
        let names: Vec<String> = [
            "lud (II) *",
            "locality_col (II)",
            "a_workload_with_a_long_name (III)",
        ]
        .map(String::from)
        .to_vec();
        let cols: Vec<String> = ["RR + GTO (baseline)", "LA-TB (bounding boxes) + GTO", "BCS"]
            .map(String::from)
            .to_vec();
        let rows: Vec<(String, Vec<f64>)> = names
            .iter()
            .map(|n| (n.clone(), vec![1.0, 1.557, 0.62]))
            .collect();
        let svg = speedups(
            "seed 000 on gtx480 (large): speedup over RR + GTO, %",
            &cols,
            &rows,
        )
        .unwrap();
        inside(&svg);
        assert!(svg.contains("+55.7") && svg.contains("-38.0"), "{svg}");
        let line: Vec<(f64, f64)> = (0..50)
            .map(|i| (f64::from(i) * 40_000.0, f64::from(i % 7)))
            .collect();
        let lines_svg = lines(
            "fdtd3d + lud on gtx980-3.2.2 (large): SM-cycles refused by fragmentation",
            ("cycle", "% of SM-cycles"),
            &[
                ("first_fit, gto".into(), line.clone()),
                ("twoway, kernel_lrr".into(), line),
            ],
        )
        .unwrap();
        inside(&lines_svg);
    }

    /// Without a paper's series no series is grey, and each of the first four has its own
    /// colour; with one, the paper's is grey and ours are not.
    #[test]
    fn only_the_papers_series_is_grey() {
        let grey = SERIES_COLOURS[0];
        let ours: Vec<RGBColor> = (0..8).map(|k| series_colour(false, k)).collect();
        assert!(ours.iter().all(|&c| c != grey), "{ours:?}");
        assert!(
            (0..4).all(|i| (0..i).all(|j| ours[i] != ours[j])),
            "{ours:?}"
        );
        assert_eq!(series_colour(true, 0), grey);
        assert!((1..5).all(|k| series_colour(true, k) != grey));
    }

    /// The heatmap's colours: white at zero, the palette's red and blue at the scale and
    /// beyond.
    #[test]
    fn the_heatmap_diverges_from_white() {
        assert_eq!(diverging(0.0), RGBColor(255, 255, 255));
        assert_eq!(diverging(1.0), RGBColor(214, 39, 40));
        assert_eq!(diverging(3.0), RGBColor(214, 39, 40));
        assert_eq!(diverging(-1.5), RGBColor(31, 119, 180));
    }

    /// Every figure of the book's results, rendered, keeps its text inside its canvas.
    #[test]
    fn every_committed_figure_keeps_its_text_inside_when_rendered() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/results");
        let opt = rendered::options();
        let mut svgs: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "svg"))
            .collect();
        svgs.sort();
        assert!(
            svgs.len() >= 10,
            "{} figures in {}",
            svgs.len(),
            dir.display()
        );
        let cut: Vec<String> = svgs
            .iter()
            .flat_map(|p| {
                let svg = std::fs::read_to_string(p).unwrap();
                rendered::text_outside(&svg, &opt)
                    .into_iter()
                    .map(move |t| format!("{}: {t}", p.display()))
            })
            .collect();
        assert!(cut.is_empty(), "{}", cut.join("\n"));
    }
}
