//! The numbers of `go` brought into the range the search can use, and the report of each
//! value changed, for the text layer to tell.

use super::GoParams;
use std::fmt;

/// The bounds are the search's own, so that a clamped value is what the search would use.
pub use crate::value::{MAX_DEPTH, MAX_MATE_MOVES as MAX_MATE};

impl GoParams {
    /// `depth`, `mate` and `nodes` as the search uses them.
    pub(super) fn bounded(&self) -> (Option<u32>, Option<u32>, Option<u64>) {
        (
            self.depth.map(|d| d.clamp(1, MAX_DEPTH)),
            self.mate.map(|m| m.clamp(1, MAX_MATE)),
            self.nodes.map(|n| n.max(1)),
        )
    }

    /// Each value [`super::Engine::go`] changes to bring it into the range the search can use. The
    /// clock fields are used as they are: the time manager reads any `i64` (negative or huge)
    /// without overflow.
    pub fn adjustments(&self) -> Vec<Adjustment> {
        let (depth, mate, nodes) = self.bounded();
        let mut out = Vec::new();
        let mut note = |field, given: Option<u64>, used: Option<u64>, max| {
            if let (Some(given), Some(used)) = (given, used) {
                if given != used {
                    out.push(Adjustment { field, given, used, min: 1, max });
                }
            }
        };
        note("depth", self.depth.map(u64::from), depth.map(u64::from), u64::from(MAX_DEPTH));
        note("mate", self.mate.map(u64::from), mate.map(u64::from), u64::from(MAX_MATE));
        note("nodes", self.nodes, nodes, u64::MAX);
        out
    }
}

/// A `go` value outside the range the search can use, and the value used instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adjustment {
    pub field: &'static str,
    pub given: u64,
    pub used: u64,
    pub min: u64,
    pub max: u64,
}

impl fmt::Display for Adjustment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Adjustment { field, given, used, min, max } = self;
        if *max == u64::MAX {
            write!(f, "{field} {given} is below {min}: using {used}")
        } else {
            write!(f, "{field} {given} is outside {min}-{max}: using {used}")
        }
    }
}
