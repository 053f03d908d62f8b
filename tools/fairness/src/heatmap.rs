//! The picture: card-by-position matrices as heat maps side by side, on one colour scale.
//!
//! Each cell is a card's observed frequency at a position over the frequency a fair shuffle
//! expects (decks / 54): 1 is white, below 1 blue, above red. A fair shuffle is an even pale
//! field; the naive shuffle's excess above the diagonal and Sattolo's empty diagonal stand out.

use std::error::Error;
use std::path::Path;

use plotters::prelude::*;
use plotters::style::{register_font as register, FontStyle};

use dealcards_fairness::CardByPosition;

/// The sans-serif font of Debian's fonts-dejavu-core.
pub const DEJAVU_SANS: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

const FONT: &str = "sans-serif";
const WIDTH: u32 = 1800;
const HEIGHT: u32 = 720;
const LEGEND_WIDTH: u32 = 190;
const TITLE_HEIGHT: u32 = 70;

/// Makes the font file the picture's text font (plotters draws text with ab_glyph from a
/// registered font, not from the system's font libraries).
pub fn register_font(path: &Path) -> Result<(), Box<dyn Error>> {
    let bytes = std::fs::read(path).map_err(|e| {
        format!(
            "cannot read the font {} ({e}); install Debian's fonts-dejavu-core or set FAIRNESS_FONT",
            path.display()
        )
    })?;
    // plotters keeps registered fonts for the life of the program.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    register(FONT, FontStyle::Normal, bytes)
        .map_err(|_| format!("{} is not a font plotters can read", path.display()).into())
}

/// Colour of a ratio observed / expected on a scale from 0 to `top`: blue below 1, white at 1,
/// red above, darker further away (the RdBu diverging palette's ends).
fn colour(ratio: f64, top: f64) -> RGBColor {
    const BLUE: (f64, f64, f64) = (5.0, 48.0, 97.0);
    const WHITE: (f64, f64, f64) = (247.0, 247.0, 247.0);
    const RED: (f64, f64, f64) = (103.0, 0.0, 31.0);
    let (from, to, t) = if ratio <= 1.0 {
        (BLUE, WHITE, ratio.clamp(0.0, 1.0))
    } else {
        (WHITE, RED, ((ratio - 1.0) / (top - 1.0)).clamp(0.0, 1.0))
    };
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    RGBColor(mix(from.0, to.0), mix(from.1, to.1), mix(from.2, to.2))
}

fn ratios(matrix: &CardByPosition) -> Vec<Vec<f64>> {
    let n = matrix.counts().len() as f64;
    let expected = matrix.decks() as f64 / n;
    matrix
        .counts()
        .iter()
        .map(|row| row.iter().map(|&c| c as f64 / expected).collect())
        .collect()
}

/// Draws the labelled matrices side by side with a shared colour legend into a PNG at `path`.
pub fn draw(path: &Path, panels: &[(String, CardByPosition)]) -> Result<(), Box<dyn Error>> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let panel_ratios: Vec<Vec<Vec<f64>>> = panels.iter().map(|(_, m)| ratios(m)).collect();
    // One scale for all panels, symmetric enough to show both deficit and excess: 0 to at least
    // 2 (Sattolo's empty diagonal is 0), further if some cell is more than twice expected.
    let top = panel_ratios
        .iter()
        .flatten()
        .flatten()
        .fold(2.0f64, |a, &b| a.max(b));

    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let (title, body) = root.split_vertically(TITLE_HEIGHT);
    title.draw_text(
        "Card by position: how often each card (row) lands at each position (column), \
         as a multiple of what a fair shuffle expects",
        &(FONT, 24).into_font().color(&BLACK),
        (30, 25),
    )?;
    let (maps, legend) = body.split_horizontally(WIDTH - LEGEND_WIDTH);

    for (area, ((label, _), matrix)) in maps
        .split_evenly((1, panels.len()))
        .iter()
        .zip(panels.iter().zip(&panel_ratios))
    {
        let n = matrix.len() as u32;
        let mut chart = ChartBuilder::on(area)
            .caption(label, (FONT, 22))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(55)
            .build_cartesian_2d(0u32..n, n..0u32)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("position")
            .y_desc("card")
            .x_labels(6)
            .y_labels(6)
            .x_label_formatter(&|v| format!("{}", v + 1))
            .y_label_formatter(&|v| format!("{}", v + 1))
            .label_style((FONT, 16))
            .axis_desc_style((FONT, 18))
            .draw()?;
        chart.draw_series(matrix.iter().enumerate().flat_map(|(card, row)| {
            row.iter().enumerate().map(move |(position, &ratio)| {
                let (x, y) = (position as u32, card as u32);
                Rectangle::new([(x, y), (x + 1, y + 1)], colour(ratio, top).filled())
            })
        }))?;
    }

    draw_legend(&legend, top)?;

    root.present()?;
    Ok(())
}

/// The legend: the colour scale from 0 to `top`, 1 marked as what a fair shuffle expects.
fn draw_legend(
    legend: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    top: f64,
) -> Result<(), Box<dyn Error>> {
    let text = (FONT, 16).into_font().color(&BLACK);
    legend.draw_text("observed / expected", &text, (10, 22))?;
    let mut scale = ChartBuilder::on(legend)
        .margin_top(50)
        .margin_bottom(75)
        .margin_left(20)
        .margin_right(90)
        .y_label_area_size(0)
        .right_y_label_area_size(50)
        .build_cartesian_2d(0.0..1.0, 0.0..top)?;
    scale
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_labels(9)
        .y_label_formatter(&|v| format!("{v:.2}"))
        .label_style((FONT, 15))
        .draw()?;
    let steps = 200;
    scale.draw_series((0..steps).map(|k| {
        let (low, high) = (
            top * k as f64 / steps as f64,
            top * (k + 1) as f64 / steps as f64,
        );
        Rectangle::new([(0.0, low), (1.0, high)], colour(low, top).filled())
    }))?;
    scale.draw_series(std::iter::once(PathElement::new(
        [(0.0, 1.0), (1.0, 1.0)],
        BLACK.stroke_width(2),
    )))?;
    let bottom = (HEIGHT - TITLE_HEIGHT) as i32;
    legend.draw_text("black line: 1, what", &text, (10, bottom - 58))?;
    legend.draw_text("a fair shuffle gives", &text, (10, bottom - 38))?;

    Ok(())
}
