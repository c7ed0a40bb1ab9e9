//! A progress bar per section, on stderr, with the time left (indicatif). Drawn only when
//! stderr is a terminal: the report's files and CI's logs get none of it.

use indicatif::{ProgressBar, ProgressFinish, ProgressIterator, ProgressStyle};

/// `items` (a section's outer loop: its sizes, its operand counts), drawn as they are
/// taken: done, elapsed and the time left at this pace. The bar is cleared at the end.
pub fn steps<I: ExactSizeIterator>(section: &str, items: I) -> impl Iterator<Item = I::Item> {
    let bar = ProgressBar::new(items.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:>9} [{bar:32}] {pos}/{len}, {elapsed} elapsed, about {eta} left",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar.set_prefix(section.to_string());
    items
        .progress_with(bar)
        .with_finish(ProgressFinish::AndClear)
}
