//! A progress bar's stderr, quiet once a pager shows the output: on a terminal the pager
//! and stderr share one screen, and a bar drawn there would be drawn over the pager's.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::{ProgressDrawTarget, TermLike};

/// Whether a pager shows the output now: set by [`crate::Paged`] when it starts it.
#[derive(Debug, Clone, Default)]
pub struct Paging(Arc<AtomicBool>);

impl Paging {
    /// Whether the pager has started.
    pub fn started(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    pub(crate) fn start(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// The pager did not show the output after all (it could not run): bars draw again.
    pub(crate) fn stop(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

/// stderr as a bar's draw target, drawing nothing once `paging` has started (what the
/// bar draws after that, its redraws and its clearing, is dropped).
pub(crate) fn stderr_until_paged(paging: &Paging) -> ProgressDrawTarget {
    ProgressDrawTarget::term_like(Box::new(Gated {
        term: console::Term::buffered_stderr(),
        paging: paging.clone(),
    }))
}

#[derive(Debug)]
struct Gated {
    term: console::Term,
    paging: Paging,
}

impl Gated {
    fn unless_paged(&self, draw: impl FnOnce(&console::Term) -> io::Result<()>) -> io::Result<()> {
        if self.paging.started() {
            return Ok(());
        }
        draw(&self.term)
    }
}

impl TermLike for Gated {
    fn width(&self) -> u16 {
        self.term.size().1
    }

    fn height(&self) -> u16 {
        self.term.size().0
    }

    fn move_cursor_up(&self, n: usize) -> io::Result<()> {
        self.unless_paged(|t| t.move_cursor_up(n))
    }

    fn move_cursor_down(&self, n: usize) -> io::Result<()> {
        self.unless_paged(|t| t.move_cursor_down(n))
    }

    fn move_cursor_right(&self, n: usize) -> io::Result<()> {
        self.unless_paged(|t| t.move_cursor_right(n))
    }

    fn move_cursor_left(&self, n: usize) -> io::Result<()> {
        self.unless_paged(|t| t.move_cursor_left(n))
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        self.unless_paged(|t| t.write_line(s))
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        self.unless_paged(|t| t.write_str(s))
    }

    fn clear_line(&self) -> io::Result<()> {
        self.unless_paged(console::Term::clear_line)
    }

    fn flush(&self) -> io::Result<()> {
        self.unless_paged(console::Term::flush)
    }
}
