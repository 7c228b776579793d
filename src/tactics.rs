//! Tactics suite runner (filled in below).
