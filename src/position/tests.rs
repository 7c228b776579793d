//! What the position answers about the game around it.

use super::*;

/// The game's keys before a position are the history as given, less the position's own key
/// when the caller put it last, and only then.
#[test]
fn keys_before_drops_only_the_positions_own_last_key() {
    let pos = Position::startpos();
    let own = pos.key();
    assert_eq!(pos.keys_before(&[1, 2, own]), &[1, 2]);
    assert_eq!(pos.keys_before(&[1, 2]), &[1, 2]);
    assert_eq!(pos.keys_before(&[own, 2]), &[own, 2], "the key must be last to be the position's");
    assert_eq!(pos.keys_before(&[own]), &[] as &[u64]);
    assert_eq!(pos.keys_before(&[]), &[] as &[u64]);
}
