//! `EvalFile`: the network the engine's searches and `eval` use, loaded from a file or the
//! embedded one.

use super::Engine;
use crate::nnue::{Base, Network, NetworkLoadError, BASE, BUCKETS, HIDDEN, KINGS, NETWORK};
use std::sync::Arc;

/// `EvalFile`: the network loaded, and the path it came from; `None`: the embedded one.
#[derive(Clone, Default)]
pub(super) struct EvalFile(Option<(String, Arc<Network>)>);

/// What setting `EvalFile` did, for the text layer to tell.
#[derive(Debug)]
pub enum EvalFileLoad {
    /// The embedded network plays; `changed` is false when it already did.
    Embedded {
        changed: bool,
    },
    Loaded {
        path: String,
        hidden: usize,
        buckets: usize,
        kings: usize,
        base: Base,
    },
    /// The file was refused; the network that played before still does (`kept`: its path,
    /// `None` for the embedded one).
    Refused {
        path: String,
        error: NetworkLoadError,
        kept: Option<String>,
    },
}

/// The values of `EvalFile` that mean the embedded network.
const EMBEDDED_EVAL_FILE: [&str; 3] = ["", "<embedded>", "<empty>"];

impl EvalFile {
    /// The network for a search job; `None`: the embedded one.
    pub(super) fn shared(&self) -> Option<Arc<Network>> {
        self.0.as_ref().map(|(_, net)| Arc::clone(net))
    }
}

impl Engine {
    /// `EvalFile`: loads the network file at `path` for the searches from the next `go` on (a
    /// running search keeps its network); an empty path, `<embedded>` or `<empty>` brings the
    /// embedded network back. A file that cannot be read, or is not of this build's shape,
    /// is refused and the network in use stays.
    pub fn set_eval_file(&mut self, path: &str) -> EvalFileLoad {
        let path = path.trim();
        if EMBEDDED_EVAL_FILE.contains(&path) {
            let changed = self.eval_file.0.take().is_some();
            return EvalFileLoad::Embedded { changed };
        }
        match Network::load(std::path::Path::new(path)) {
            Ok(net) => {
                self.eval_file.0 = Some((path.to_string(), Arc::from(net)));
                EvalFileLoad::Loaded {
                    path: path.to_string(),
                    hidden: HIDDEN,
                    buckets: BUCKETS,
                    kings: KINGS,
                    base: BASE,
                }
            }
            Err(error) => EvalFileLoad::Refused {
                path: path.to_string(),
                error,
                kept: self.eval_file.0.as_ref().map(|(p, _)| p.clone()),
            },
        }
    }

    /// The network the next search evaluates with.
    pub(super) fn network(&self) -> &Network {
        self.eval_file.0.as_ref().map_or(&NETWORK, |(_, net)| net)
    }
}
