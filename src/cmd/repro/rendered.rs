//! Figures rendered with a real font (tests only): usvg lays out every text of an SVG in DejaVu
//! Sans, wider than the usual browser sans-serif, and each text's box must lie inside the
//! canvas. [`super::chart::text_outside`], which `gpusched docs --check` runs, estimates the
//! widths instead; this check measures them.

/// The font the figures are rendered with (Debian's fonts-dejavu-core, which `scripts/deps.sh`
/// installs).
const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// Rendering options with [`FONT`] as every generic family. Panics, naming the package, when
/// the font is missing: the check must not pass without it.
pub fn options() -> usvg::Options<'static> {
    let data = std::fs::read(FONT).unwrap_or_else(|e| {
        panic!("{FONT}: {e} (the figure checks render with DejaVu Sans; `bash scripts/deps.sh` installs fonts-dejavu-core)")
    });
    let mut opt = usvg::Options::default();
    let db = opt.fontdb_mut();
    db.load_font_data(data);
    for set in [
        usvg::fontdb::Database::set_sans_serif_family,
        usvg::fontdb::Database::set_serif_family,
        usvg::fontdb::Database::set_monospace_family,
    ] {
        set(db, "DejaVu Sans");
    }
    opt
}

/// The texts of `svg` whose rendered box leaves the canvas (half a pixel of slack), each with
/// its box; and a line when some texts did not render at all (no font for them).
pub fn text_outside(svg: &str, opt: &usvg::Options) -> Vec<String> {
    let tree = match usvg::Tree::from_str(svg, opt) {
        Ok(t) => t,
        Err(e) => return vec![format!("not an SVG usvg reads: {e}")],
    };
    let (w, h) = (tree.size().width(), tree.size().height());
    let mut out = vec![];
    let mut rendered = 0;
    walk(tree.root(), &mut |t: &usvg::Text| {
        rendered += 1;
        let b = t.abs_bounding_box();
        if b.left() < -0.5 || b.top() < -0.5 || b.right() > w + 0.5 || b.bottom() > h + 0.5 {
            let content: String = t.chunks().iter().map(|c| c.text()).collect();
            out.push(format!(
                "`{content}` at x {:.0}..{:.0}, y {:.0}..{:.0} of {w}x{h}",
                b.left(),
                b.right(),
                b.top(),
                b.bottom()
            ));
        }
    });
    let written = svg.matches("<text").count();
    if rendered != written {
        out.push(format!(
            "{rendered} of {written} texts rendered (no font for the rest?)"
        ));
    }
    out
}

/// Calls `f` on every text under `g`.
fn walk(g: &usvg::Group, f: &mut impl FnMut(&usvg::Text)) {
    for n in g.children() {
        match n {
            usvg::Node::Group(g) => walk(g, f),
            usvg::Node::Text(t) => f(t),
            _ => {}
        }
    }
}
